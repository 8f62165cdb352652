package pagecache

import "testing"

// lineOf is k's line of c's accounting; ok false when there is none.
func lineOf(c *Cache, k Key) (RelStats, bool) {
	for _, r := range c.Relations(MaxIdle + 16) {
		if r.Key == k {
			return r, true
		}
	}
	return RelStats{}, false
}

func wantLine(t *testing.T, c *Cache, step string, k Key, pages int, want Counts) {
	t.Helper()
	got, ok := lineOf(c, k)
	if !ok {
		t.Fatalf("%s: no line for %+v", step, k)
	}
	if got.Pages != pages || got.Counts != want {
		t.Fatalf("%s: %+v: pages %d, %+v; want pages %d, %+v", step, k, got.Pages, got.Counts, pages, want)
	}
}

func TestRelationCountsFollowAScanFromFirstFillToEviction(t *testing.T) {
	c, _ := New(8)
	b := seq(0, 6)
	// a cache-only chunk finds nothing: 6 misses, counted before the
	// relation holds a slot
	c.Lookup(relA, b, same(6, 1)).Commit()
	wantLine(t, c, "cache-only chunk", relA, 0, Counts{Misses: 6})
	fill(c, relA, b, same(6, 1))
	wantLine(t, c, "first scan", relA, 6, Counts{Misses: 12, Fills: 6})
	fill(c, relA, b, same(6, 1))
	wantLine(t, c, "second scan", relA, 6, Counts{Hits: 6, Misses: 12, Fills: 6})
	// a new stamp (VACUUM set the map's bits again): the blocks are missed
	// and refilled in their own slots
	fill(c, relA, b, same(6, 2))
	wantLine(t, c, "after a new stamp", relA, 6, Counts{Hits: 6, Misses: 18, Fills: 12, Refills: 6})
	// B needs 6 of 8 slots, 2 are free: eviction frees every unpinned
	// slot of A (up to a batch), not just the 4 B lacks
	fill(c, relB, b, same(6, 1))
	wantLine(t, c, "B filled", relB, 6, Counts{Misses: 6, Fills: 6})
	wantLine(t, c, "A evicted", relA, 0, Counts{Hits: 6, Misses: 18, Fills: 12, Refills: 6, Evictions: 6})
	// A holds nothing now, but its line stays, and its next fill adds to it
	fill(c, relA, seq(0, 2), same(2, 2))
	wantLine(t, c, "A again", relA, 2, Counts{Hits: 6, Misses: 20, Fills: 14, Refills: 6, Evictions: 6})
}

func TestAbortedFillsLowerTheRelationsPages(t *testing.T) {
	c, _ := New(8)
	fill(c, relA, seq(0, 3), same(3, 1))
	p := c.Lookup(relA, seq(3, 4), same(4, 1))
	p.Reserve(relA, seq(3, 4), same(4, 1), all(4))
	wantLine(t, c, "while filling", relA, 7, Counts{Misses: 7, Fills: 3})
	p.Abort()
	wantLine(t, c, "after abort", relA, 3, Counts{Misses: 7, Fills: 3})
}

func TestRelationsAreTheLargestFirstAndBounded(t *testing.T) {
	c, _ := New(64)
	fill(c, relA, seq(0, 2), same(2, 1))
	fill(c, relB, seq(0, 9), same(9, 1))
	fill(c, relC, seq(0, 5), same(5, 1))
	c.Lookup(Key{1663, 5, 400}, seq(0, 50), same(50, 1)).Commit() // looked up, never filled
	got := c.Relations(3)
	if len(got) != 3 || got[0].Key != relB || got[1].Key != relC || got[2].Key != relA {
		t.Fatalf("top 3: %+v", got)
	}
	if all := c.Relations(10); len(all) != 4 || all[3].Rel != 400 || all[3].Misses != 50 {
		t.Fatalf("all: %+v", all)
	}
	if got := c.Relations(0); got != nil {
		t.Fatalf("n 0: %+v", got)
	}
}

func TestIdleRelationsAreBounded(t *testing.T) {
	c, _ := New(8)
	fill(c, relA, seq(0, 4), same(4, 1))
	for i := 0; i < 3*MaxIdle; i++ {
		c.Lookup(Key{1663, 6, uint32(1000 + i)}, seq(0, 1), same(1, 1)).Commit()
	}
	if n := len(c.idle); n > MaxIdle {
		t.Fatalf("%d idle relations kept, at most %d", n, MaxIdle)
	}
	last := Key{1663, 6, uint32(1000 + 3*MaxIdle - 1)}
	if _, ok := lineOf(c, last); !ok {
		t.Fatalf("the relation looked up last was forgotten")
	}
	if _, ok := lineOf(c, Key{1663, 6, 1000}); ok {
		t.Fatalf("the relation looked up first is still kept")
	}
	// a relation that holds slots is never pruned
	wantLine(t, c, "cached relation", relA, 4, Counts{Misses: 4, Fills: 4})
}

// checkRelationsAddUp: whatever the interleaving of the chunks that ran,
// the relations' lines sum to the cache's own counters and slots in use.
func checkRelationsAddUp(t *testing.T, c *Cache) {
	t.Helper()
	var sum Counts
	pages := 0
	for _, r := range c.Relations(MaxIdle) {
		sum.Hits += r.Hits
		sum.Misses += r.Misses
		sum.Fills += r.Fills
		sum.Evictions += r.Evictions
		sum.Refills += r.Refills
		pages += r.Pages
	}
	st := c.Stats()
	want := Counts{Hits: st.Hits, Misses: st.Misses, Fills: st.Fills, Evictions: st.Evicted, Refills: st.Stale}
	if sum != want || pages != st.Used {
		t.Fatalf("relations sum to %+v and %d pages; the cache counted %+v and %d used", sum, pages, want, st.Used)
	}
	if st.Stale == 0 {
		t.Fatalf("no refills: the test exercised too little: %+v", st)
	}
}
