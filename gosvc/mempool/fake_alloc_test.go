package mempool

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

const (
	kB = uint64(1) << 10
	mB = uint64(1) << 20
)

// fakeAllocator hands out 2 MB-aligned fake addresses and records what is
// live, so tests can see leaks and double frees.
type fakeAllocator struct {
	mu      sync.Mutex
	next    uintptr
	live    map[uintptr]uint64
	sizes   []uint64 // every Alloc size, in order
	frees   int
	failErr error // returned by Alloc while set
	freeErr error // returned by Free while set
}

func newFakeAllocator() *fakeAllocator {
	return &fakeAllocator{next: 1 << 30, live: map[uintptr]uint64{}}
}

func (f *fakeAllocator) Alloc(size uint64) (uintptr, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failErr != nil {
		return 0, f.failErr
	}
	p := f.next
	f.next += uintptr(roundUp(size, hugeAlign)) + hugeAlign // a gap catches overruns
	f.live[p] = size
	f.sizes = append(f.sizes, size)
	return p, nil
}

func (f *fakeAllocator) Free(p uintptr) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.live[p]; !ok {
		return fmt.Errorf("fake: free of unknown %#x", p)
	}
	delete(f.live, p)
	f.frees++
	if f.freeErr != nil {
		return f.freeErr
	}
	return nil
}

func (f *fakeAllocator) liveBytes() (n int, bytes uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.live {
		bytes += s
	}
	return len(f.live), bytes
}

func (f *fakeAllocator) allocSizes() []uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]uint64(nil), f.sizes...)
}

// fakeClock lets tests move time for the release delay.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// testPool builds a pool on a fake allocator and clock. Device memory is
// 16 MB so ratios read as simple sizes.
func testPool(t *testing.T, cfg Config) (*Pool, *fakeAllocator, *fakeClock) {
	t.Helper()
	if cfg.DeviceMemory == 0 {
		cfg.DeviceMemory = 16 * mB
	}
	fa := newFakeAllocator()
	p, err := New(fa, cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	p.now = clk.now
	t.Cleanup(func() { p.Close() })
	return p, fa, clk
}

func mustAlloc(t *testing.T, p *Pool, size uint64) Chunk {
	t.Helper()
	c, err := p.Alloc(size)
	if err != nil {
		t.Fatalf("Alloc(%d): %v", size, err)
	}
	return c
}

func mustFree(t *testing.T, p *Pool, c Chunk) {
	t.Helper()
	if err := p.Free(c); err != nil {
		t.Fatalf("Free(%#x): %v", c.Ptr, err)
	}
}

var errFake = errors.New("fake device error")
