// Package mempool manages device memory for the GPU service: large segments
// taken from the device and split into chunks, so that queries do not pay
// for cuMemAlloc/cuMemFree on every chunk.
package mempool

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

const (
	// chunkAlign keeps every chunk aligned for any CUDA type and for
	// coalesced access; cuMemAlloc bases are at least this aligned.
	chunkAlign = 256
	// hugeAlign rounds dedicated segments to the driver's allocation
	// granularity, so none of the rounded-up memory is wasted.
	hugeAlign = 2 << 20
)

var (
	// ErrExhausted means the request does not fit under the pool's limit,
	// even after freeing every idle segment.
	ErrExhausted = errors.New("device memory pool exhausted")
	// ErrClosed is returned by a pool after Close.
	ErrClosed = errors.New("device memory pool closed")
	// ErrUnknownChunk is returned by Free for a chunk this pool does not
	// have outstanding.
	ErrUnknownChunk = errors.New("chunk not allocated from this pool")
)

// Allocator takes and returns device memory; the gpu package wraps
// cuMemAlloc/cuMemFree, tests use a fake.
type Allocator interface {
	Alloc(size uint64) (uintptr, error)
	Free(ptr uintptr) error
}

// Chunk is device memory handed out by a Pool. Size is the reserved size,
// the request rounded up to the chunk alignment.
type Chunk struct {
	Ptr  uintptr
	Size uint64
	seg  *segment
}

// Stats is a snapshot of the pool.
type Stats struct {
	Used, Total, Limit, Keep uint64
	Segments                 int
	// FreeFailures counts segments the allocator failed to free; they are
	// dropped from the pool anyway, since their state is unknown.
	FreeFailures uint64
}

// Pool is a device memory pool. All methods are safe for concurrent use.
//
// The allocator is called with the pool's lock held: segments are large and
// rarely taken, and holding the lock keeps the limit exact.
type Pool struct {
	mu           sync.Mutex
	alloc        Allocator
	cfg          Config
	segs         []*segment // in creation order, so first-fit prefers old segments
	total, used  uint64
	freeFailures uint64
	closed       bool
	now          func() time.Time // replaced by tests
}

// New returns an empty pool; no device memory is taken until Alloc.
func New(a Allocator, cfg Config) (*Pool, error) {
	if a == nil {
		return nil, errors.New("mempool: nil allocator")
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Pool{alloc: a, cfg: cfg, now: time.Now}, nil
}

// Alloc returns a chunk of at least size bytes.
func (p *Pool) Alloc(size uint64) (Chunk, error) {
	if size == 0 {
		return Chunk{}, errors.New("mempool: zero-size allocation")
	}
	if size > ^uint64(0)-hugeAlign {
		return Chunk{}, fmt.Errorf("mempool: allocate %d bytes: %w", size, ErrExhausted)
	}
	need := roundUp(size, chunkAlign)

	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return Chunk{}, ErrClosed
	}
	for _, s := range p.segs {
		if c, ok := p.takeFrom(s, need); ok {
			return c, nil
		}
	}
	s, err := p.grow(need)
	if err != nil {
		return Chunk{}, err
	}
	c, _ := p.takeFrom(s, need) // a new segment always holds need
	return c, nil
}

func (p *Pool) takeFrom(s *segment, need uint64) (Chunk, bool) {
	off, ok := s.take(need)
	if !ok {
		return Chunk{}, false
	}
	p.used += need
	return Chunk{Ptr: s.base + uintptr(off), Size: need, seg: s}, true
}

// grow adds a segment that can hold need bytes, within the limit.
func (p *Pool) grow(need uint64) (*segment, error) {
	size := roundUp(p.cfg.SegmentSize, chunkAlign)
	if need > size {
		size = roundUp(need, hugeAlign)
	}
	limit := p.cfg.limit()
	if p.total+size > limit {
		// Idle segments are freed now, whatever the release delay: an idle
		// segment must never make an allocation fail.
		p.reclaim(p.total + size - limit)
	}
	if p.total+size > limit {
		// A full segment does not fit, but what is left may still hold
		// this request.
		var room uint64
		if limit > p.total {
			room = roundDown(limit-p.total, chunkAlign)
		}
		if room < need {
			return nil, fmt.Errorf("mempool: need %d bytes, pool holds %d of its %d-byte limit with %d in use: %w",
				need, p.total, limit, p.used, ErrExhausted)
		}
		size = room
	}

	ptr, err := p.alloc.Alloc(size)
	if err != nil && p.reclaim(^uint64(0)) > 0 {
		// The device may be short of memory that our idle segments hold.
		ptr, err = p.alloc.Alloc(size)
	}
	if err != nil {
		return nil, fmt.Errorf("mempool: allocate segment of %d bytes: %w", size, err)
	}
	s := newSegment(p, ptr, size, p.now())
	p.segs = append(p.segs, s)
	p.total += size
	return s, nil
}

// Free returns a chunk to the pool.
func (p *Pool) Free(c Chunk) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := c.seg
	if s == nil || s.pool != p || s.released || c.Ptr < s.base {
		return fmt.Errorf("mempool: free %#x (%d bytes): %w", c.Ptr, c.Size, ErrUnknownChunk)
	}
	if err := s.give(uint64(c.Ptr-s.base), c.Size); err != nil {
		return fmt.Errorf("mempool: free %#x: %w: %w", c.Ptr, ErrUnknownChunk, err)
	}
	p.used -= c.Size
	if !s.idle() {
		return nil
	}
	s.idleSince = p.now()
	if p.total > p.cfg.limit() {
		// The limit was lowered while this segment was busy.
		return p.release(s)
	}
	return nil
}

// ReleaseIdle frees segments idle for at least the release delay, oldest
// first, as long as the pool keeps its minimum. It returns how many it freed.
func (p *Pool) ReleaseIdle(now time.Time) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	keep := p.cfg.keep()
	n := 0
	for _, s := range p.idleByAge() {
		if now.Sub(s.idleSince) < p.cfg.ReleaseDelay || p.total-s.size < keep {
			continue
		}
		_ = p.release(s) // counted in FreeFailures
		n++
	}
	return n
}

// Reconfigure applies new settings. A new segment size applies to segments
// taken from now on; a lower limit frees idle segments at once, and busy
// ones as they become idle.
func (p *Pool) Reconfigure(cfg Config) error {
	if err := cfg.validate(); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrClosed
	}
	p.cfg = cfg
	if limit := cfg.limit(); p.total > limit {
		p.reclaim(p.total - limit)
	}
	return nil
}

// Stats returns a snapshot of the pool's accounting.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return Stats{
		Used:         p.used,
		Total:        p.total,
		Limit:        p.cfg.limit(),
		Keep:         p.cfg.keep(),
		Segments:     len(p.segs),
		FreeFailures: p.freeFailures,
	}
}

// Close frees every segment, including those with chunks still out; the
// caller must have stopped using them. A second Close returns nil.
func (p *Pool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	var errs []error
	for len(p.segs) > 0 {
		errs = append(errs, p.release(p.segs[0]))
	}
	p.used = 0
	return errors.Join(errs...)
}

// reclaim frees idle segments, oldest first, until at least want bytes are
// freed; it ignores the release delay and the minimum. It returns how many
// segments it freed.
func (p *Pool) reclaim(want uint64) int {
	var freed uint64
	n := 0
	for _, s := range p.idleByAge() {
		if freed >= want {
			break
		}
		freed += s.size
		_ = p.release(s) // counted in FreeFailures
		n++
	}
	return n
}

// idleByAge lists idle segments, longest idle first.
func (p *Pool) idleByAge() []*segment {
	var idle []*segment
	for _, s := range p.segs {
		if s.idle() {
			idle = append(idle, s)
		}
	}
	sort.SliceStable(idle, func(i, j int) bool { return idle[i].idleSince.Before(idle[j].idleSince) })
	return idle
}

// release frees a segment and drops it from the pool. It is dropped even if
// the allocator fails: memory in an unknown state must not be handed out.
func (p *Pool) release(s *segment) error {
	for i, t := range p.segs {
		if t == s {
			p.segs = append(p.segs[:i], p.segs[i+1:]...)
			break
		}
	}
	s.released = true
	p.total -= s.size
	if err := p.alloc.Free(s.base); err != nil {
		p.freeFailures++
		return fmt.Errorf("mempool: free segment %#x of %d bytes: %w", s.base, s.size, err)
	}
	return nil
}

func roundUp(n, align uint64) uint64 {
	return (n + align - 1) / align * align
}

func roundDown(n, align uint64) uint64 {
	return n / align * align
}
