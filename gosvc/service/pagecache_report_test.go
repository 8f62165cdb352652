package service

import (
	"reflect"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/control"
	"github.com/pgstrom-go/pg_strom/gosvc/pagecache"
)

// TestPageCacheReportCarriesEachRelationsCounts: what a device's cache did
// reaches the PAGE_CACHE message in the fields the SQL function reads.
func TestPageCacheReportCarriesEachRelationsCounts(t *testing.T) {
	hot := pagecache.Key{Spc: 1663, DB: 5, Rel: 16384}
	cold := pagecache.Key{Spc: 1663, DB: 7, Rel: 16390}
	blknos, stamps := []uint32{0, 1, 2}, []uint64{9, 9, 9}
	c, _ := pagecache.New(16)
	for scan := 0; scan < 2; scan++ {
		p := c.Lookup(hot, blknos, stamps)
		p.Reserve(hot, blknos, stamps, []int{0, 1, 2})
		p.Commit()
	}
	c.Lookup(cold, blknos[:1], stamps[:1]).Commit()

	got := pageCacheReport(2, c)
	want := control.PageCache{Index: 2, Relations: []control.PageCacheRel{
		{Spc: 1663, DB: 5, Rel: 16384, CachedPages: 3, Hits: 3, Misses: 3, Fills: 3},
		{Spc: 1663, DB: 7, Rel: 16390, Misses: 1},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("report %+v, want %+v", got, want)
	}
}
