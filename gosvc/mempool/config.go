package mempool

import (
	"fmt"
	"time"
)

// Config follows the pg_strom.gpu_mempool_* GUCs.
type Config struct {
	// SegmentSize is how much device memory one segment takes.
	SegmentSize uint64
	// MaxRatio × DeviceMemory caps what the pool holds.
	MaxRatio float64
	// MinRatio × DeviceMemory is kept even when idle, so a busy system does
	// not pay for cuMemAlloc on every query.
	MinRatio float64
	// ReleaseDelay is how long a segment stays idle before it is freed.
	ReleaseDelay time.Duration
	// DeviceMemory is the device's total memory in bytes.
	DeviceMemory uint64
}

func (c Config) validate() error {
	switch {
	case c.SegmentSize == 0:
		return fmt.Errorf("mempool: segment size must be positive")
	case c.DeviceMemory == 0:
		return fmt.Errorf("mempool: device memory must be positive")
	case !(c.MaxRatio > 0 && c.MaxRatio <= 1): // also rejects NaN
		return fmt.Errorf("mempool: max ratio %v not in (0, 1]", c.MaxRatio)
	case !(c.MinRatio >= 0 && c.MinRatio <= c.MaxRatio):
		return fmt.Errorf("mempool: min ratio %v not in [0, max ratio %v]", c.MinRatio, c.MaxRatio)
	case c.ReleaseDelay < 0:
		return fmt.Errorf("mempool: negative release delay %v", c.ReleaseDelay)
	}
	return nil
}

// limit is the most the pool may hold.
func (c Config) limit() uint64 {
	return uint64(c.MaxRatio * float64(c.DeviceMemory))
}

// keep is what idle release leaves in place.
func (c Config) keep() uint64 {
	return uint64(c.MinRatio * float64(c.DeviceMemory))
}
