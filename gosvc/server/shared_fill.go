package server

import (
	"github.com/pgstrom-go/pg_strom/gosvc/pagecache"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// sharedFills reserves page cache slots for the stamped pages of a
// zero-copy chunk (XPU_PAGE_STAMPED): the device copies their gathered
// images into the store, so that a later scan is served from device
// memory even while the pages lie dirty in shared buffers, where no file
// holds them.  Nil without a cache or a stamped page.
func sharedFills(cache *pagecache.Cache, ps *xpu.PageStamps) *pagecache.Plan {
	if cache == nil || ps == nil {
		return nil
	}
	plan := cache.FillPlan(len(ps.Blknos))
	plan.Reserve(pagecache.Key{Spc: ps.Spc, DB: ps.DB, Rel: ps.RelNode}, ps.Blknos, ps.Stamps, ps.Indexes)
	return plan
}

// endFills ends a chunk's use of the cache with Exec's error: its fills
// become visible when the kernels ran without one, and are freed
// otherwise.
func endFills(plan *pagecache.Plan, execErr error) {
	if execErr == nil {
		plan.Commit()
	} else {
		plan.Abort()
	}
}
