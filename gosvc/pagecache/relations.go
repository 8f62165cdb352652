package pagecache

import (
	"cmp"
	"slices"
)

// Counts are what the cache did for one relation since the service
// started, in pages.
type Counts struct {
	Hits      uint64 // served from the store
	Misses    uint64 // looked up and not served: not cached, or under another stamp
	Fills     uint64 // copied into the store by a chunk that committed
	Evictions uint64 // freed for another relation's fills
	Refills   uint64 // slots taken again by their block under a new stamp
}

// RelStats is one relation's line of the accounting.
type RelStats struct {
	Key
	Pages int // slots it holds, those a running chunk fills included
	Counts
}

// MaxIdle is how many relations holding no slot keep their counts; past
// it, those looked up least recently are forgotten, so that a service
// that has seen many relations does not keep a line for each.
const MaxIdle = 1024

// idleRelation is k's entry among the relations without a slot, made if
// there is none, for a lookup that found nothing to count against.
func (c *Cache) idleRelation(k Key) *relation {
	r := c.idle[k]
	if r == nil {
		r = &relation{key: k}
		c.idle[k] = r
		c.pruneIdle()
	}
	r.used = c.clock
	return r
}

// activate makes k a relation that can hold slots, with the counts it
// kept while idle.
func (c *Cache) activate(k Key) *relation {
	r := c.idle[k]
	if r == nil {
		r = &relation{key: k}
	}
	delete(c.idle, k)
	c.rels[k] = r
	return r
}

// retire moves r, which gave up its last slot, to the idle relations.
func (c *Cache) retire(r *relation) {
	delete(c.rels, r.key)
	r.blocks, r.held = nil, nil
	c.idle[r.key] = r
	c.pruneIdle()
}

// pruneIdle forgets the idle relations looked up least recently once
// there are more than MaxIdle, down to half of it, so that the sort is
// paid once per MaxIdle/2 new ones.
func (c *Cache) pruneIdle() {
	if len(c.idle) <= MaxIdle {
		return
	}
	idle := make([]*relation, 0, len(c.idle))
	for _, r := range c.idle {
		idle = append(idle, r)
	}
	slices.SortFunc(idle, func(a, b *relation) int { return cmp.Compare(a.used, b.used) })
	for _, r := range idle[:len(idle)-MaxIdle/2] {
		delete(c.idle, r.key)
	}
}

// Relations returns the accounting of at most n relations: those holding
// the most slots first, then those looked up most.  It holds the lock
// while it walks the relations, but keeps no more than 2n lines at a time.
func (c *Cache) Relations(n int) []RelStats {
	if n <= 0 {
		return nil
	}
	top := make([]RelStats, 0, 2*n)
	add := func(r *relation) {
		top = append(top, RelStats{Key: r.key, Pages: r.count, Counts: r.counts})
		if len(top) == cap(top) {
			slices.SortFunc(top, byUse)
			top = top[:n]
		}
	}
	c.mu.Lock()
	for _, r := range c.rels {
		add(r)
	}
	for _, r := range c.idle {
		add(r)
	}
	c.mu.Unlock()
	slices.SortFunc(top, byUse)
	return top[:min(len(top), n)]
}

// byUse orders the lines most slots first, then most lookups, then by
// key, so that equal ones come in a stable order.
func byUse(a, b RelStats) int {
	if d := cmp.Compare(b.Pages, a.Pages); d != 0 {
		return d
	}
	if d := cmp.Compare(b.Hits+b.Misses, a.Hits+a.Misses); d != 0 {
		return d
	}
	return cmp.Or(cmp.Compare(a.DB, b.DB), cmp.Compare(a.Spc, b.Spc), cmp.Compare(a.Rel, b.Rel))
}
