package control

// #cgo CFLAGS: -I${SRCDIR}/../../include
// #include "pg_strom_control.h"
import "C"

import (
	"fmt"
	"unsafe"
)

// PageCacheRel is one relation file's line of a PAGE_CACHE message
// (PgStromPageCacheRel); the counts are pages.
type PageCacheRel struct {
	Spc, DB, Rel uint32 // tablespace, database, relfilenode
	CachedPages  uint64 // slots it holds, those being filled too
	Hits         uint64
	Misses       uint64
	Fills        uint64
	Evictions    uint64
	Refills      uint64
}

// PageCache is one device's PAGE_CACHE message (PgStromCtlPageCache): at
// most MaxPageCacheRels relations, those holding the most pages first.
type PageCache struct {
	Index     int
	Relations []PageCacheRel
}

// PageCacheMessage is PGSTROM_CTL_PAGE_CACHE, as the supervisor decodes it.
type PageCacheMessage struct{ PageCache PageCache }

var (
	pageCacheHead   = int(unsafe.Offsetof(C.PgStromCtlPageCache{}.rels))
	pageCacheRelLen = int(C.sizeof_PgStromPageCacheRel)
)

// encodePageCache builds PGSTROM_CTL_PAGE_CACHE without the unused tail of
// the relations, which would otherwise be 16 kB a device every second.
func encodePageCache(p PageCache) []byte {
	var c C.PgStromCtlPageCache
	n := min(len(p.Relations), MaxPageCacheRels)
	c.index = C.int32_t(p.Index)
	c.nrels = C.uint32_t(n)
	for i, r := range p.Relations[:n] {
		cr := &c.rels[i]
		cr.spc_oid = C.uint32_t(r.Spc)
		cr.db_oid = C.uint32_t(r.DB)
		cr.rel_number = C.uint32_t(r.Rel)
		cr.cached_pages = C.uint64_t(r.CachedPages)
		cr.hits = C.uint64_t(r.Hits)
		cr.misses = C.uint64_t(r.Misses)
		cr.fills = C.uint64_t(r.Fills)
		cr.evictions = C.uint64_t(r.Evictions)
		cr.refills = C.uint64_t(r.Refills)
	}
	return message(tagPageCache, structBytes(&c)[:pageCacheHead+n*pageCacheRelLen])
}

func decodePageCache(payload []byte) (PageCacheMessage, error) {
	if len(payload) < pageCacheHead {
		return PageCacheMessage{}, fmt.Errorf("%w: page cache message of %d payload bytes, shorter than its %d-byte head", ErrMalformed, len(payload), pageCacheHead)
	}
	var c C.PgStromCtlPageCache
	copy(structBytes(&c)[:pageCacheHead], payload)
	n := int(c.nrels)
	if n > MaxPageCacheRels || len(payload) != pageCacheHead+n*pageCacheRelLen {
		return PageCacheMessage{}, fmt.Errorf("%w: page cache message names %d relations (at most %d) in %d payload bytes", ErrMalformed, n, MaxPageCacheRels, len(payload))
	}
	copy(structBytes(&c), payload)
	p := PageCache{Index: int(c.index)}
	for i := 0; i < n; i++ {
		cr := &c.rels[i]
		p.Relations = append(p.Relations, PageCacheRel{
			Spc: uint32(cr.spc_oid), DB: uint32(cr.db_oid), Rel: uint32(cr.rel_number),
			CachedPages: uint64(cr.cached_pages), Hits: uint64(cr.hits), Misses: uint64(cr.misses),
			Fills: uint64(cr.fills), Evictions: uint64(cr.evictions), Refills: uint64(cr.refills),
		})
	}
	return PageCacheMessage{PageCache: p}, nil
}

// SendPageCache reports one device's page cache; relations beyond
// MaxPageCacheRels are left out.
func (c *Channel) SendPageCache(p PageCache) error {
	return c.send("PAGE_CACHE", encodePageCache(p))
}
