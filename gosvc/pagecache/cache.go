// Package pagecache is the directory of a device's page cache: which slot
// of the executor's page store holds the image of which heap block, under
// which visibility-map stamp (XPU_DIRECT_STAMPS in include/pg_strom_xpu.h).
// It holds no page bytes: the executor keeps them in device memory (the
// host executor in its own memory) and moves them as a chunk's Plan says.
//
// A slot is filled by one chunk and becomes visible to lookups only when
// that chunk's kernels have run without error (Plan.Commit); a slot that a
// chunk reads is pinned until the chunk is done, so it is never reused
// under a copy in flight.  When every slot is taken, a fill evicts the
// unpinned slots of the relation used least recently, never of the
// relation being filled: a table larger than the cache keeps the part it
// cached instead of evicting itself on every scan.
//
// Each relation also counts what the cache did for it (relations.go),
// under the lock a chunk takes anyway: no page costs a lock of its own.
package pagecache

import (
	"fmt"
	"sync"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
)

// Key names a relation's main fork: tablespace, database, relfilenode.
type Key struct{ Spc, DB, Rel uint32 }

// Stats count what the cache did since it was made.
type Stats struct {
	Slots, Used                         int
	Hits, Misses, Fills, Evicted, Stale uint64
}

// slot is what the directory knows of one slot of the store.
type slot struct {
	rel   *relation // nil: free
	blkno uint32
	stamp uint64
	pins  int32 // chunks reading it
	ready bool  // its image is complete (the filling chunk committed)
}

// relation is one relation's blocks in the cache.
type relation struct {
	key    Key
	blocks []int32 // per block number: slot + 1, 0 if none
	held   []int32 // the slots it holds, in no order; may also name slots it gave up (see live)
	count  int     // the slots it holds
	used   uint64  // the cache's clock at its last lookup
	counts Counts  // kept while it holds no slot (Cache.idle)
}

// Cache is the directory of a store of Slots() pages.
type Cache struct {
	mu    sync.Mutex
	slots []slot
	free  []int32
	rels  map[Key]*relation
	idle  map[Key]*relation // relations without a slot, kept for their counts
	clock uint64
	stats Stats
}

// New returns the directory of a store of n slots.
func New(n int) (*Cache, error) {
	if n <= 0 || n > 1<<31-1 {
		return nil, fmt.Errorf("page cache of %d slots: want 1..%d", n, 1<<31-1)
	}
	c := &Cache{slots: make([]slot, n), free: make([]int32, n), rels: make(map[Key]*relation), idle: make(map[Key]*relation)}
	for i := range c.free {
		c.free[i] = int32(n - 1 - i) // slot 0 is taken first
	}
	c.stats.Slots = n
	return c, nil
}

// Slots is the size of the store, in pages.
func (c *Cache) Slots() int { return len(c.slots) }

// Stats returns the counters.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Used = len(c.slots) - len(c.free)
	return s
}

// Summary is one line of the counters, for the service's log.
func (c *Cache) Summary() string {
	s := c.Stats()
	return fmt.Sprintf("device page cache: %d of %d pages used; %d hits, %d misses, %d filled, %d evicted, %d refilled under a new stamp",
		s.Used, s.Slots, s.Hits, s.Misses, s.Fills, s.Evicted, s.Stale)
}

// Plan is one chunk's use of the cache.  Hits are served from the store,
// Fills copied into it; both are valid until Commit or Abort, exactly one
// of which the caller makes.
type Plan struct {
	c     *Cache
	rel   *relation
	hit   []bool // per chunk index
	Hits  []nodekind.PageMove
	Fills []nodekind.PageMove
	ended bool
}

// Hit reports whether page i of the chunk is served from the store.
func (p *Plan) Hit(i int) bool { return p.hit != nil && p.hit[i] }

// HitMask is Hit for every page of the chunk; nil when none is a hit.
func (p *Plan) HitMask() []bool {
	if len(p.Hits) == 0 {
		return nil
	}
	return p.hit
}

// Moves are the chunk's copies as the executor takes them; nil when none.
func (p *Plan) Moves() *nodekind.CacheMoves {
	if len(p.Hits) == 0 && len(p.Fills) == 0 {
		return nil
	}
	return &nodekind.CacheMoves{Hits: p.Hits, Fills: p.Fills}
}

// FillPlan is the use of the cache of a chunk of n pages that serves none
// from it and may fill some (Reserve): a zero-copy chunk's.
func (c *Cache) FillPlan(n int) *Plan {
	return &Plan{c: c, hit: make([]bool, n)}
}

// Lookup finds the blocks blknos of relation k whose images the store holds
// under the same stamp (a stamp of 0 never matches) and pins their slots.
func (c *Cache) Lookup(k Key, blknos []uint32, stamps []uint64) *Plan {
	p := &Plan{c: c, hit: make([]bool, len(blknos))}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clock++
	r := c.rels[k]
	if r == nil {
		c.stats.Misses += uint64(len(blknos))
		c.idleRelation(k).counts.Misses += uint64(len(blknos))
		return p
	}
	r.used = c.clock
	p.rel = r
	for i, b := range blknos {
		if int(b) >= len(r.blocks) || r.blocks[b] == 0 || stamps[i] == 0 {
			continue
		}
		s := r.blocks[b] - 1
		if e := &c.slots[s]; e.ready && e.stamp == stamps[i] {
			e.pins++
			p.hit[i] = true
			p.Hits = append(p.Hits, nodekind.PageMove{Index: uint32(i), Slot: uint32(s)})
		}
	}
	c.stats.Hits += uint64(len(p.Hits))
	c.stats.Misses += uint64(len(blknos) - len(p.Hits))
	r.counts.Hits += uint64(len(p.Hits))
	r.counts.Misses += uint64(len(blknos) - len(p.Hits))
	return p
}

// Reserve takes a slot for each page i of candidates (indexes into the
// chunk, none a hit, each usable and with stamp stamps[i] != 0) and lists
// it in Fills: a free slot, the block's own stale slot when no chunk reads
// it, or one evicted from the relation used least recently.  A block that
// another chunk is filling, that the store holds under the same stamp, or
// for which no slot can be had, is not filled.
func (p *Plan) Reserve(k Key, blknos []uint32, stamps []uint64, candidates []int) {
	if len(candidates) == 0 {
		return
	}
	c := p.c
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.rels[k]
	if r == nil {
		c.clock++
		r = c.activate(k)
		r.used = c.clock
	}
	p.rel = r
	for _, i := range candidates {
		b := blknos[i]
		if stamps[i] == 0 || p.hit[i] {
			continue
		}
		if int(b) >= len(r.blocks) {
			r.grow(b)
		}
		var s int32
		if old := r.blocks[b]; old != 0 {
			e := &c.slots[old-1]
			if e.pins > 0 || !e.ready {
				continue // being read or filled by another chunk
			}
			if e.stamp == stamps[i] {
				continue // cached already, by another chunk since Lookup
			}
			c.stats.Stale++
			r.counts.Refills++
			s = old - 1
		} else {
			var ok bool
			if s, ok = c.takeSlot(r); !ok {
				break // nothing to evict: the rest are not filled either
			}
			r.blocks[b] = s + 1
			r.held = append(r.held, s)
			r.count++
		}
		c.slots[s] = slot{rel: r, blkno: b, stamp: stamps[i], pins: 1}
		p.Fills = append(p.Fills, nodekind.PageMove{Index: uint32(i), Slot: uint32(s)})
	}
}

// grow makes r.blocks hold block b, doubling to keep appends amortized.
func (r *relation) grow(b uint32) {
	n := max(int(b)+1, 2*len(r.blocks), 1024)
	blocks := make([]int32, n)
	copy(blocks, r.blocks)
	r.blocks = blocks
}

// takeSlot returns a free slot, evicting first if there is none.
func (c *Cache) takeSlot(filling *relation) (int32, bool) {
	if len(c.free) == 0 {
		c.evict(filling)
	}
	if len(c.free) == 0 {
		return 0, false
	}
	s := c.free[len(c.free)-1]
	c.free = c.free[:len(c.free)-1]
	return s, true
}

// evictBatch is how many slots one eviction frees at most, so that a fill
// of a chunk does not scan the relations once per page.
const evictBatch = 4096

// evict frees up to evictBatch unpinned, ready slots of the relation other
// than filling used least recently (all of them, if it has fewer).
func (c *Cache) evict(filling *relation) {
	var victim *relation
	for _, r := range c.rels {
		if r != filling && r.count > 0 && (victim == nil || r.used < victim.used) {
			victim = r
		}
	}
	if victim == nil {
		return
	}
	kept := victim.held[:0]
	freed := 0
	for _, s := range victim.held {
		e := &c.slots[s]
		switch {
		case !victim.live(c, s):
			// given up earlier (an aborted fill): drop the stale name
		case freed >= evictBatch || e.pins > 0 || !e.ready:
			kept = append(kept, s)
		default:
			c.release(uint32(s))
			freed++
		}
	}
	if victim.count > 0 { // else release retired it, held and all
		victim.held = kept
	}
	c.stats.Evicted += uint64(freed)
	victim.counts.Evictions += uint64(freed)
}

// live reports whether r holds slot s (r.held may name slots it gave up).
func (r *relation) live(c *Cache, s int32) bool {
	e := &c.slots[s]
	return e.rel == r && int(e.blkno) < len(r.blocks) && r.blocks[e.blkno] == s+1
}

// Commit ends the chunk after its kernels ran: the filled slots become
// visible to lookups, and every slot the chunk pinned is unpinned.
func (p *Plan) Commit() { p.end(true) }

// Abort ends the chunk after an error: the slots it was filling are
// freed (their images may be incomplete), the ones it read unpinned.
func (p *Plan) Abort() { p.end(false) }

func (p *Plan) end(filled bool) {
	if p.ended || len(p.Hits) == 0 && len(p.Fills) == 0 {
		return
	}
	p.ended = true
	c := p.c
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range p.Hits {
		c.slots[m.Slot].pins--
	}
	for _, m := range p.Fills {
		e := &c.slots[m.Slot]
		e.pins--
		if filled {
			e.ready = true
			c.stats.Fills++
			e.rel.counts.Fills++
			continue
		}
		c.release(m.Slot)
	}
}

// release frees slot s; its relation gives it up (its name stays in held
// until an eviction drops it), and a relation left with none is retired
// to the idle ones, which keep its counts.
func (c *Cache) release(s uint32) {
	e := &c.slots[s]
	if r := e.rel; r != nil {
		r.blocks[e.blkno] = 0
		r.count--
		if r.count == 0 {
			c.retire(r)
		}
	}
	*e = slot{}
	c.free = append(c.free, int32(s))
}
