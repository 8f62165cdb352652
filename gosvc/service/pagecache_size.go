package service

import (
	"fmt"

	"github.com/pgstrom-go/pg_strom/gosvc/control"
)

// The automatic device page cache (pg_strom.gpu_page_cache_size = -1)
// takes the device memory that is free once the memory pool has grown to
// its limit, less a reserve for CUDA's own needs (contexts, modules, stacks
// of launches) and for other processes on the device:
//
//	cache = free − (pool limit − pool held) − max(2 GB, total ÷ 16)
//
// and no cache when that is under 1 GB, so that a small device keeps its
// memory for the pool.  The pool is never squeezed: it can always grow to
// max_ratio × total.
const (
	autoCacheMinReserve = 2 << 30
	autoCacheMinSize    = 1 << 30
)

// autoCacheReserve is what the automatic cache leaves of a device of
// total bytes for CUDA and other processes.
func autoCacheReserve(total uint64) uint64 { return max(uint64(autoCacheMinReserve), total/16) }

// autoPageCacheBytes is the automatic cache of a device of total bytes with
// free bytes free now, whose pool may hold limit bytes and holds held.
func autoPageCacheBytes(total, free, limit, held uint64) uint64 {
	reserve := autoCacheReserve(total)
	growth := limit - min(held, limit)
	if free <= growth+reserve {
		return 0
	}
	size := free - growth - reserve
	if size < autoCacheMinSize {
		return 0
	}
	return size &^ (1<<20 - 1)
}

// pageCacheBytes is the page cache to open on a device: the configured
// size, or for PageCacheAuto the automatic size (0 where the backend
// cannot say how much memory is free: the host executor keeps no cache
// unless one is set).
func (s *service) pageCacheBytes(index int, total, limit, held uint64) (uint64, string, error) {
	if s.cfg.PageCacheSize != control.PageCacheAuto {
		return s.cfg.PageCacheSize, "", nil
	}
	mr, ok := s.backend.(MemoryReporter)
	if !ok {
		return 0, "automatic size: none for this executor", nil
	}
	free, err := mr.FreeMemory(index)
	if err != nil {
		return 0, "", fmt.Errorf("automatic page cache size: %w", err)
	}
	size := autoPageCacheBytes(total, free, limit, held)
	return size, fmt.Sprintf("automatic size from %d MB free, a pool of up to %d MB (%d MB held) and a reserve of %d MB",
		free>>20, limit>>20, held>>20, autoCacheReserve(total)>>20), nil
}
