package hostexec

import (
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/server"
)

var _ server.LinkProber = (*Executor)(nil)

// ProbeLink measures the host executor's "link": copies between a Go
// buffer and pool memory, as the gpu package copies between pinned host
// memory and device memory.  It exists so that gpu_link_bandwidth behaves
// as with a GPU (one row per device); the figures are memcpy speeds.
func (e *Executor) ProbeLink(bytes uint64, copies int) (h2dNs, d2hNs uint64, err error) {
	mem, dev, err := e.alloc(bytes, "link probe")
	if err != nil {
		return 0, 0, err
	}
	host := make([]byte, bytes)
	copy(dev, host) // untimed: touches the pages of both sides
	copy(host, dev)
	start := time.Now()
	for range copies {
		copy(dev, host)
	}
	h2d := time.Since(start)
	start = time.Now()
	for range copies {
		copy(host, dev)
	}
	d2h := time.Since(start)
	if err := e.free(mem, "link probe memory"); err != nil {
		return 0, 0, err
	}
	// a timer too coarse for a fast memcpy must not report 0 ns (infinite
	// bandwidth)
	return uint64(max(h2d.Nanoseconds(), 1)), uint64(max(d2h.Nanoseconds(), 1)), nil
}
