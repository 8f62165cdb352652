// Package hostpool keeps pinned host buffers for reuse: allocating and
// freeing page-locked memory costs milliseconds, far more than a chunk's
// copy, so a buffer lent for one request body is kept for the next.
package hostpool

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// Allocator makes one pinned host buffer of size bytes and the function
// that frees it (the gpu package's cuMemHostAlloc; tests inject their own).
type Allocator func(size uint64) (buf []byte, free func() error, err error)

type buffer struct {
	mem       []byte
	free      func() error
	idleSince time.Time // when it was last returned
}

// Pool lends buffers of at least the size asked for, rounded up to grain,
// and never holds more than limit bytes in all (lent and idle).
type Pool struct {
	alloc        Allocator
	grain, limit uint64

	mu     sync.Mutex
	idle   []buffer
	lent   map[*byte]buffer
	total  uint64 // bytes of every buffer made and not yet freed
	closed bool
}

// Stats describe a pool's buffers.
type Stats struct {
	Total      uint64 // bytes held, lent or idle
	Lent, Idle int
}

// New returns an empty pool.
func New(alloc Allocator, grain, limit uint64) *Pool {
	return &Pool{alloc: alloc, grain: max(grain, 1), limit: limit, lent: map[*byte]buffer{}}
}

// Lend returns a buffer of at least n bytes (its whole length), or nil when
// the pool is closed, the limit leaves no room, or allocation fails: the
// caller then uses ordinary memory.  The smallest idle buffer that fits is
// reused; otherwise a new one is made.
func (p *Pool) Lend(n int) []byte {
	if n <= 0 {
		return nil
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	best := -1
	for i, b := range p.idle {
		if len(b.mem) >= n && (best < 0 || len(b.mem) < len(p.idle[best].mem)) {
			best = i
		}
	}
	if best >= 0 {
		b := p.idle[best]
		p.idle = append(p.idle[:best], p.idle[best+1:]...)
		p.lent[&b.mem[0]] = b
		p.mu.Unlock()
		return b.mem
	}
	size := (uint64(n) + p.grain - 1) / p.grain * p.grain
	if p.total+size > p.limit {
		p.mu.Unlock()
		return nil
	}
	p.total += size // reserved while the allocation runs unlocked
	p.mu.Unlock()

	mem, free, err := p.alloc(size)
	if err == nil && uint64(len(mem)) < size {
		err = errors.Join(fmt.Errorf("hostpool: the allocator returned %d bytes for %d", len(mem), size), free())
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		p.total -= size
		return nil
	}
	b := buffer{mem: mem[:size:size], free: free}
	p.lent[&b.mem[0]] = b
	return b.mem
}

// Return takes back a buffer Lend returned (any slice of it that starts
// where it starts).  After Close the buffer is freed at once.
func (p *Pool) Return(mem []byte) error {
	if len(mem) == 0 {
		return nil
	}
	p.mu.Lock()
	b, ok := p.lent[&mem[0]]
	if !ok {
		p.mu.Unlock()
		return fmt.Errorf("hostpool: returned memory at %p was not lent by this pool", &mem[0])
	}
	delete(p.lent, &mem[0])
	if !p.closed {
		b.idleSince = time.Now()
		p.idle = append(p.idle, b)
		p.mu.Unlock()
		return nil
	}
	p.total -= uint64(len(b.mem))
	p.mu.Unlock()
	return b.free()
}

// ReleaseIdle frees the buffers that have been idle for at least delay at
// now, so a burst of large chunks does not keep its pinned memory for the
// life of the service.  It returns how many it freed.
func (p *Pool) ReleaseIdle(now time.Time, delay time.Duration) (int, error) {
	p.mu.Lock()
	var old []buffer
	kept := p.idle[:0]
	for _, b := range p.idle {
		if now.Sub(b.idleSince) >= delay {
			old = append(old, b)
			p.total -= uint64(len(b.mem))
		} else {
			kept = append(kept, b)
		}
	}
	p.idle = kept
	p.mu.Unlock()
	var errs []error
	for _, b := range old {
		errs = append(errs, b.free())
	}
	return len(old), errors.Join(errs...)
}

// Close frees the idle buffers; lent ones are freed as they come back.
func (p *Pool) Close() error {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	for _, b := range idle {
		p.total -= uint64(len(b.mem))
	}
	p.mu.Unlock()
	var errs []error
	for _, b := range idle {
		errs = append(errs, b.free())
	}
	return errors.Join(errs...)
}

// Stats returns the pool's current figures.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return Stats{Total: p.total, Lent: len(p.lent), Idle: len(p.idle)}
}
