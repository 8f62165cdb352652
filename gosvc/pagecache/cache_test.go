package pagecache

import (
	"math/rand"
	"sync"
	"testing"
)

var relA, relB, relC = Key{1663, 5, 100}, Key{1663, 5, 200}, Key{1663, 5, 300}

func seq(first, n uint32) []uint32 {
	b := make([]uint32, n)
	for i := range b {
		b[i] = first + uint32(i)
	}
	return b
}

func same(n int, v uint64) []uint64 {
	s := make([]uint64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func all(n int) []int {
	c := make([]int, n)
	for i := range c {
		c[i] = i
	}
	return c
}

// fill runs one chunk that fills what it misses and commits.
func fill(c *Cache, k Key, blknos []uint32, stamps []uint64) *Plan {
	p := c.Lookup(k, blknos, stamps)
	p.Reserve(k, blknos, stamps, missed(p, len(blknos)))
	p.Commit()
	return p
}

// missed lists the pages of a chunk of n that p does not serve.
func missed(p *Plan, n int) []int {
	var miss []int
	for i := 0; i < n; i++ {
		if !p.Hit(i) {
			miss = append(miss, i)
		}
	}
	return miss
}

func TestHitOnlyWithTheSameStampAfterCommit(t *testing.T) {
	c, _ := New(64)
	b := seq(10, 8)
	p := c.Lookup(relA, b, same(8, 7))
	if len(p.Hits) != 0 {
		t.Fatalf("empty cache hit %d", len(p.Hits))
	}
	p.Reserve(relA, b, same(8, 7), all(8))
	if len(p.Fills) != 8 {
		t.Fatalf("reserved %d, want 8", len(p.Fills))
	}
	// not visible before the filling chunk commits
	if q := c.Lookup(relA, b, same(8, 7)); len(q.Hits) != 0 {
		t.Fatalf("hit %d slots still being filled", len(q.Hits))
	}
	p.Commit()
	q := c.Lookup(relA, b, same(8, 7))
	if len(q.Hits) != 8 {
		t.Fatalf("hits %d, want 8", len(q.Hits))
	}
	for i, m := range q.Hits {
		if m.Index != uint32(i) || m.Slot != p.Fills[i].Slot {
			t.Fatalf("hit %d: %+v, filled %+v", i, m, p.Fills[i])
		}
	}
	q.Commit()
	// another stamp, stamp 0, another relation, another block: misses
	for name, l := range map[string]*Plan{
		"stamp 8":    c.Lookup(relA, b, same(8, 8)),
		"stamp 0":    c.Lookup(relA, b, same(8, 0)),
		"relation B": c.Lookup(relB, b, same(8, 7)),
		"blocks 18-": c.Lookup(relA, seq(18, 8), same(8, 7)),
	} {
		if len(l.Hits) != 0 {
			t.Errorf("%s: %d hits", name, len(l.Hits))
		}
		l.Commit()
	}
}

func TestStampZeroIsNeverFilled(t *testing.T) {
	c, _ := New(8)
	p := c.Lookup(relA, seq(0, 4), []uint64{0, 5, 0, 5})
	p.Reserve(relA, seq(0, 4), []uint64{0, 5, 0, 5}, all(4))
	if len(p.Fills) != 2 || p.Fills[0].Index != 1 || p.Fills[1].Index != 3 {
		t.Fatalf("fills %+v", p.Fills)
	}
	p.Commit()
}

func TestAbortFreesTheFills(t *testing.T) {
	c, _ := New(4)
	p := c.Lookup(relA, seq(0, 4), same(4, 3))
	p.Reserve(relA, seq(0, 4), same(4, 3), all(4))
	p.Abort()
	if st := c.Stats(); st.Used != 0 {
		t.Fatalf("%d slots used after abort", st.Used)
	}
	if q := c.Lookup(relA, seq(0, 4), same(4, 3)); len(q.Hits) != 0 {
		t.Fatalf("aborted fills hit")
	}
	// the slots can be filled again
	if p := fill(c, relA, seq(0, 4), same(4, 3)); len(p.Fills) != 4 {
		t.Fatalf("refill %d", len(p.Fills))
	}
}

func TestStaleSlotIsRefilledWithTheNewStamp(t *testing.T) {
	c, _ := New(4)
	fill(c, relA, seq(0, 2), same(2, 3))
	p := fill(c, relA, seq(0, 2), same(2, 9))
	if len(p.Fills) != 2 {
		t.Fatalf("refilled %d", len(p.Fills))
	}
	if st := c.Stats(); st.Used != 2 || st.Stale != 2 {
		t.Fatalf("stats %+v", st)
	}
	if q := c.Lookup(relA, seq(0, 2), same(2, 3)); len(q.Hits) != 0 {
		t.Fatalf("old stamp hit")
	}
	if q := c.Lookup(relA, seq(0, 2), same(2, 9)); len(q.Hits) != 2 {
		t.Fatalf("new stamp missed")
	}
}

func TestEvictionTakesTheLeastRecentlyUsedOtherRelation(t *testing.T) {
	c, _ := New(8)
	fill(c, relA, seq(0, 4), same(4, 1))
	fill(c, relB, seq(0, 4), same(4, 1))
	c.Lookup(relA, seq(0, 4), same(4, 1)).Commit() // A is now more recent than B
	p := fill(c, relC, seq(0, 4), same(4, 1))
	if len(p.Fills) != 4 {
		t.Fatalf("C filled %d", len(p.Fills))
	}
	if q := c.Lookup(relB, seq(0, 4), same(4, 1)); len(q.Hits) != 0 {
		t.Fatalf("B kept %d", len(q.Hits))
	}
	if q := c.Lookup(relA, seq(0, 4), same(4, 1)); len(q.Hits) != 4 {
		t.Fatalf("A lost pages: %d hits", len(q.Hits))
	}
}

func TestARelationDoesNotEvictItself(t *testing.T) {
	c, _ := New(4)
	p := fill(c, relA, seq(0, 8), same(8, 1))
	if len(p.Fills) != 4 {
		t.Fatalf("filled %d of 8 into 4 slots", len(p.Fills))
	}
	// the next scan finds the first four and fills nothing
	q := fill(c, relA, seq(0, 8), same(8, 1))
	if len(q.Hits) != 4 || len(q.Fills) != 0 {
		t.Fatalf("hits %d fills %d", len(q.Hits), len(q.Fills))
	}
}

func TestPinnedSlotsAreNotEvictedOrRefilled(t *testing.T) {
	c, _ := New(4)
	fill(c, relA, seq(0, 4), same(4, 1))
	reader := c.Lookup(relA, seq(0, 4), same(4, 1)) // pins all four
	p := fill(c, relB, seq(0, 4), same(4, 1))
	if len(p.Fills) != 0 {
		t.Fatalf("evicted pinned slots: %d fills", len(p.Fills))
	}
	q := c.Lookup(relA, seq(0, 4), same(4, 2))
	q.Reserve(relA, seq(0, 4), same(4, 2), all(4))
	if len(q.Fills) != 0 {
		t.Fatalf("refilled pinned stale slots: %d", len(q.Fills))
	}
	q.Commit()
	reader.Commit()
	if p := fill(c, relB, seq(0, 4), same(4, 1)); len(p.Fills) != 4 {
		t.Fatalf("after unpin: %d fills", len(p.Fills))
	}
}

// TestConcurrentChunksNeverShareASlot runs chunks of several relations at
// once against a small cache and checks, with a shadow of what each slot
// holds, that no hit names a slot that holds another block or stamp, and
// that the relations' counts add up to the cache's.
func TestConcurrentChunksNeverShareASlot(t *testing.T) {
	c, _ := New(256)
	type tag struct {
		k     Key
		b     uint32
		stamp uint64
	}
	var mu sync.Mutex
	shadow := make([]tag, c.Slots())
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(seed))
			for it := 0; it < 400; it++ {
				k := []Key{relA, relB, relC}[rng.Intn(3)]
				first := uint32(rng.Intn(200))
				blknos := seq(first, uint32(1+rng.Intn(64)))
				stamps := same(len(blknos), uint64(1+rng.Intn(2)))
				p := c.Lookup(k, blknos, stamps)
				mu.Lock()
				for _, m := range p.Hits {
					if got, want := shadow[m.Slot], (tag{k, blknos[m.Index], stamps[m.Index]}); got != want {
						errs <- "hit of a slot holding another page"
					}
				}
				mu.Unlock()
				p.Reserve(k, blknos, stamps, missed(p, len(blknos)))
				mu.Lock()
				for _, m := range p.Fills {
					shadow[m.Slot] = tag{k, blknos[m.Index], stamps[m.Index]}
				}
				mu.Unlock()
				if rng.Intn(10) == 0 {
					p.Abort()
				} else {
					p.Commit()
				}
			}
		}(int64(w))
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	if st := c.Stats(); st.Evicted == 0 || st.Hits == 0 {
		t.Fatalf("the test exercised too little: %+v", st)
	}
	checkRelationsAddUp(t, c)
}

func TestFillPlanFillsWithoutLookingUp(t *testing.T) {
	c, _ := New(64)
	b := seq(0, 6)
	stamps := []uint64{9, 0, 9, 9, 0, 9}
	p := c.FillPlan(len(b))
	p.Reserve(relA, b, stamps, []int{0, 2, 3, 5})
	if len(p.Hits) != 0 || len(p.Fills) != 4 {
		t.Fatalf("fill plan: %d hits, %d fills; want 0 and 4", len(p.Hits), len(p.Fills))
	}
	if s := c.Stats(); s.Hits != 0 || s.Misses != 0 {
		t.Errorf("a fill plan counted %d hits and %d misses, want none", s.Hits, s.Misses)
	}
	if got := c.Lookup(relA, b, stamps); len(got.Hits) != 0 {
		t.Errorf("%d hits before the fills were committed", len(got.Hits))
	} else {
		got.Abort()
	}
	p.Commit()
	got := c.Lookup(relA, b, stamps)
	if len(got.Hits) != 4 {
		t.Errorf("after the commit: %d hits, want the 4 stamped pages", len(got.Hits))
	}
	got.Commit()
}

func TestAPageCachedUnderItsStampIsNotFilledAgain(t *testing.T) {
	c, _ := New(64)
	b := seq(0, 4)
	fill(c, relA, b, same(4, 5))
	p := c.FillPlan(4)
	p.Reserve(relA, b, []uint64{5, 6, 5, 5}, all(4))
	if len(p.Fills) != 1 || p.Fills[0].Index != 1 {
		t.Fatalf("fills %+v, want only page 1, whose stamp changed", p.Fills)
	}
	p.Commit()
	if s := c.Stats(); s.Stale != 1 {
		t.Errorf("stale refills %d, want 1", s.Stale)
	}
}
