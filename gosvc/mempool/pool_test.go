package mempool

import (
	"errors"
	"testing"
	"time"
)

func TestNewValidatesConfig(t *testing.T) {
	good := Config{SegmentSize: mB, MaxRatio: 0.5, MinRatio: 0.1, ReleaseDelay: time.Second, DeviceMemory: 16 * mB}
	if _, err := New(newFakeAllocator(), good); err != nil {
		t.Fatalf("good config rejected: %v", err)
	}
	bad := map[string]func(*Config){
		"zero segment":   func(c *Config) { c.SegmentSize = 0 },
		"zero device":    func(c *Config) { c.DeviceMemory = 0 },
		"max zero":       func(c *Config) { c.MaxRatio = 0 },
		"max above one":  func(c *Config) { c.MaxRatio = 1.5 },
		"min negative":   func(c *Config) { c.MinRatio = -0.1 },
		"min above max":  func(c *Config) { c.MinRatio = 0.6 },
		"negative delay": func(c *Config) { c.ReleaseDelay = -time.Second },
	}
	for name, mutate := range bad {
		cfg := good
		mutate(&cfg)
		if _, err := New(newFakeAllocator(), cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := New(nil, good); err == nil {
		t.Error("nil allocator accepted")
	}
}

func TestAllocAlignsAndShares(t *testing.T) {
	p, fa, _ := testPool(t, Config{SegmentSize: mB, MaxRatio: 1})
	a := mustAlloc(t, p, 1)
	b := mustAlloc(t, p, 300)
	if a.Size != chunkAlign || b.Size != 2*chunkAlign {
		t.Fatalf("sizes %d, %d; want %d, %d", a.Size, b.Size, chunkAlign, 2*chunkAlign)
	}
	if a.Ptr%chunkAlign != 0 || b.Ptr%chunkAlign != 0 || b.Ptr != a.Ptr+chunkAlign {
		t.Fatalf("ptrs %#x, %#x not packed at %d-byte alignment", a.Ptr, b.Ptr, chunkAlign)
	}
	if got := len(fa.allocSizes()); got != 1 {
		t.Fatalf("%d device allocations, want 1 shared segment", got)
	}
	if s := p.Stats(); s.Used != 3*chunkAlign || s.Total != mB || s.Segments != 1 {
		t.Fatalf("stats %+v", s)
	}
	if _, err := p.Alloc(0); err == nil {
		t.Fatal("Alloc(0) succeeded")
	}
}

func TestSplitAndMergeReuse(t *testing.T) {
	p, fa, _ := testPool(t, Config{SegmentSize: mB, MaxRatio: 1})
	q := mB / 4
	c := [4]Chunk{}
	for i := range c {
		c[i] = mustAlloc(t, p, q)
	}
	// Free the middle two: they must merge into one hole of half a segment.
	mustFree(t, p, c[1])
	mustFree(t, p, c[2])
	half := mustAlloc(t, p, 2*q)
	if half.Ptr != c[1].Ptr {
		t.Fatalf("half-segment chunk at %#x, want the merged hole at %#x", half.Ptr, c[1].Ptr)
	}
	// Free in an order that merges with both neighbours at once.
	mustFree(t, p, c[0])
	mustFree(t, p, c[3])
	mustFree(t, p, half)
	whole := mustAlloc(t, p, mB)
	if whole.Ptr != c[0].Ptr {
		t.Fatalf("whole-segment chunk at %#x, want segment base %#x", whole.Ptr, c[0].Ptr)
	}
	if got := len(fa.allocSizes()); got != 1 {
		t.Fatalf("%d device allocations, want 1: freed space was not reused", got)
	}
}

func TestOversizeGetsOwnSegment(t *testing.T) {
	p, fa, _ := testPool(t, Config{SegmentSize: mB, MaxRatio: 1})
	mustAlloc(t, p, 1)
	big := mustAlloc(t, p, 3*mB+1)
	sizes := fa.allocSizes()
	if len(sizes) != 2 || sizes[1] != 4*mB {
		t.Fatalf("device allocations %v, want [1 MB, 4 MB]", sizes)
	}
	if big.Size != roundUp(3*mB+1, chunkAlign) {
		t.Fatalf("chunk size %d", big.Size)
	}
}

func TestLimitEnforced(t *testing.T) {
	p, _, _ := testPool(t, Config{SegmentSize: mB, MaxRatio: 0.25}) // 4 MB
	for i := 0; i < 4; i++ {
		mustAlloc(t, p, mB)
	}
	_, err := p.Alloc(1)
	if !errors.Is(err, ErrExhausted) {
		t.Fatalf("fifth segment: err = %v, want ErrExhausted", err)
	}
	if _, err := p.Alloc(5 * mB); !errors.Is(err, ErrExhausted) {
		t.Fatalf("oversize: err = %v, want ErrExhausted", err)
	}
	if s := p.Stats(); s.Total != 4*mB || s.Limit != 4*mB {
		t.Fatalf("stats %+v", s)
	}
}

func TestShortSegmentFillsRemainderOfLimit(t *testing.T) {
	p, fa, _ := testPool(t, Config{SegmentSize: 4 * mB, MaxRatio: 5.0 / 16}) // 5 MB
	mustAlloc(t, p, 4*mB)
	mustAlloc(t, p, 256*kB)
	sizes := fa.allocSizes()
	if len(sizes) != 2 || sizes[1] != mB {
		t.Fatalf("device allocations %v, want a 1 MB remainder segment", sizes)
	}
}

func TestReclaimIdleBeforeFailing(t *testing.T) {
	p, fa, _ := testPool(t, Config{SegmentSize: mB, MaxRatio: 0.25, ReleaseDelay: time.Hour})
	var cs []Chunk
	for i := 0; i < 4; i++ {
		cs = append(cs, mustAlloc(t, p, mB))
	}
	for _, c := range cs {
		mustFree(t, p, c)
	}
	// Four idle 1 MB segments fill the limit; their delay has not passed,
	// but a 3 MB request must still succeed by freeing them.
	mustAlloc(t, p, 3*mB)
	if n, bytes := fa.liveBytes(); bytes > 4*mB {
		t.Fatalf("%d segments, %d bytes live on the device, above the 4 MB limit", n, bytes)
	}
	if s := p.Stats(); s.Used != 3*mB || s.Total > s.Limit {
		t.Fatalf("stats %+v", s)
	}
}

func TestAllocatorErrorWrapped(t *testing.T) {
	p, fa, _ := testPool(t, Config{SegmentSize: mB, MaxRatio: 1})
	fa.failErr = errFake
	_, err := p.Alloc(1)
	if !errors.Is(err, errFake) {
		t.Fatalf("err = %v, want wrapping the allocator's error", err)
	}
	if s := p.Stats(); s.Total != 0 || s.Segments != 0 {
		t.Fatalf("failed allocation left accounting %+v", s)
	}
}

func TestAllocatorErrorRetriesAfterReclaim(t *testing.T) {
	p, fa, _ := testPool(t, Config{SegmentSize: mB, MaxRatio: 1, ReleaseDelay: time.Hour})
	mustFree(t, p, mustAlloc(t, p, 2*mB)) // an idle 2 MB segment
	// Emulate a device that only finds memory once our idle segment is gone.
	retrying := &retryAllocator{fakeAllocator: fa}
	p.alloc = retrying
	mustAlloc(t, p, 3*mB)
	if retrying.calls != 2 {
		t.Fatalf("allocator called %d times, want a retry after reclaim", retrying.calls)
	}
	if n, _ := fa.liveBytes(); n != 1 {
		t.Fatalf("%d segments live, want only the new one", n)
	}
}

// retryAllocator fails while the fake still holds any segment.
type retryAllocator struct {
	*fakeAllocator
	calls int
}

func (r *retryAllocator) Alloc(size uint64) (uintptr, error) {
	r.calls++
	if n, _ := r.liveBytes(); n > 0 {
		return 0, errFake
	}
	return r.fakeAllocator.Alloc(size)
}
