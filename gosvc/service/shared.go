package service

import (
	"fmt"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/control"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// SharedRegistrar is implemented by a backend that can register
// PostgreSQL's shared buffers with a device for zero-copy chunks
// (XPU_BUFFER_SHARED): the gpu package's (cuMemHostRegister, mapped,
// read-only) and the host executor's (which reads them by address).
type SharedRegistrar interface {
	// RegisterShared registers region, mapped read-only in this process,
	// with the open device index whose kernels module is loaded; called
	// once per device, before its Executor, which then gathers the pages
	// of zero-copy chunks from it.  Close unregisters it.
	RegisterShared(index int, region xpu.SharedRegion) error
}

// sharedBaseAlign is the alignment the gather kernel's loads need.
const sharedBaseAlign = 16

// registerShared registers the configured shared buffers with device d
// and records the outcome in d (READY carries it to the supervisor, whose
// backends send zero-copy chunks only to a device that registered them
// all).  It returns the buffers registered, 0 on failure, which is not
// fatal: the reason is logged and reported, and backends send pages.
func (s *service) registerShared(d *control.DeviceInfo) uint32 {
	cfg := s.cfg
	if cfg.SharedNBuffers == 0 {
		d.SharedReason = "the supervisor offered no shared buffers"
		return 0
	}
	region := xpu.SharedRegion{Base: uintptr(cfg.SharedBase), NBuffers: cfg.SharedNBuffers}
	var err error
	reg, ok := s.backend.(SharedRegistrar)
	switch {
	case cfg.SharedBlockSize != uint32(xpu.BlockSize):
		err = fmt.Errorf("shared_block_size is %d, the kernels read %d-byte pages", cfg.SharedBlockSize, xpu.BlockSize)
	case cfg.SharedBase == 0 || cfg.SharedBase%sharedBaseAlign != 0:
		// PostgreSQL 15 aligns BufferBlocks to a cache line only; the
		// kernels read pages with 16-byte loads.
		err = fmt.Errorf("shared_base %#x is not a %d-byte aligned address", cfg.SharedBase, sharedBaseAlign)
	case !ok:
		err = fmt.Errorf("this backend cannot register host memory")
	default:
		start := time.Now()
		err = reg.RegisterShared(d.Index, region)
		d.SharedRegisterUs = uint64(time.Since(start).Microseconds())
	}
	log := s.devLog(d.Index)
	if err != nil {
		d.SharedReason = err.Error()
		log.Warn().Msgf("shared buffers (%d buffers, %d MB at %#x) not registered, chunks will carry their pages: %v",
			region.NBuffers, region.Size()>>20, cfg.SharedBase, err)
		return 0
	}
	d.SharedRegistered = region.Size()
	log.Info().Msgf("shared buffers registered for zero-copy: %d buffers (%d MB) at %#x in %.3f s",
		region.NBuffers, region.Size()>>20, cfg.SharedBase, float64(d.SharedRegisterUs)/1e6)
	return region.NBuffers
}
