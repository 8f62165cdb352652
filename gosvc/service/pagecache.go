package service

import (
	"github.com/rs/zerolog"

	"github.com/pgstrom-go/pg_strom/gosvc/control"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/pagecache"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// openPageCache gives the executor a page store of size bytes
// (pg_strom.gpu_page_cache_size, or its automatic size, which how
// explains) and returns its directory; nil when size is 0 or the store
// cannot be had, which the log says: direct reads then go to the files
// every time, and nothing else changes.
func openPageCache(exec nodekind.Executor, size uint64, how string, log zerolog.Logger) *pagecache.Cache {
	slots := int(min(size/uint64(xpu.BlockSize), 1<<31-1))
	if slots == 0 {
		if how != "" {
			log.Info().Msgf("no device page cache (%s)", how)
		}
		return nil
	}
	store, ok := exec.(nodekind.PageStore)
	if !ok {
		log.Warn().Msgf("pg_strom.gpu_page_cache_size is set, but %s keeps no page cache", exec.Name())
		return nil
	}
	if err := store.OpenPageStore(slots); err != nil {
		log.Warn().Msgf("no device page cache: %v", err)
		return nil
	}
	cache, err := pagecache.New(slots)
	if err != nil {
		log.Warn().Msgf("no device page cache: %v", err)
		return nil
	}
	if how != "" {
		how = " (" + how + ")"
	}
	log.Info().Msgf("device page cache: %d MB, %d pages%s", uint64(slots)*uint64(xpu.BlockSize)>>20, slots, how)
	return cache
}

// pageCacheSummary logs a device's page cache counters with the gather
// summaries (gather_log.go).
type pageCacheSummary struct{ c *pagecache.Cache }

func (p pageCacheSummary) GatherSummary() string { return p.c.Summary() }

// devicePageCache is a device's cache, reported per relation after each
// STATUS (pgstrom.gpu_page_cache_relations()).
type devicePageCache struct {
	index int
	cache *pagecache.Cache
}

// sendPageCaches sends one PAGE_CACHE message per device with a cache.
func (s *service) sendPageCaches() {
	for _, d := range s.pageCaches {
		if err := s.ch.SendPageCache(pageCacheReport(d.index, d.cache)); err != nil {
			s.log.Debug().Err(err).Msgf("sending PAGE_CACHE of GPU%d", d.index)
		}
	}
}

// pageCacheReport is a device's PAGE_CACHE message: the relations holding
// the most pages, as many as the message carries.
func pageCacheReport(index int, c *pagecache.Cache) control.PageCache {
	rels := c.Relations(control.MaxPageCacheRels)
	out := control.PageCache{Index: index, Relations: make([]control.PageCacheRel, len(rels))}
	for i, r := range rels {
		out.Relations[i] = control.PageCacheRel{Spc: r.Spc, DB: r.DB, Rel: r.Rel,
			CachedPages: uint64(r.Pages), Hits: r.Hits, Misses: r.Misses,
			Fills: r.Fills, Evictions: r.Evictions, Refills: r.Refills}
	}
	return out
}
