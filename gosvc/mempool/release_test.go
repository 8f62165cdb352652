package mempool

import (
	"errors"
	"testing"
	"time"
)

func TestReleaseDelayHonoured(t *testing.T) {
	p, fa, clk := testPool(t, Config{SegmentSize: mB, MaxRatio: 1, ReleaseDelay: time.Hour})
	c := mustAlloc(t, p, 1)
	clk.advance(3 * time.Hour) // time while busy does not count as idle
	mustFree(t, p, c)

	if n := p.ReleaseIdle(clk.now()); n != 0 {
		t.Fatalf("released %d right after free", n)
	}
	if n := p.ReleaseIdle(clk.now().Add(59 * time.Minute)); n != 0 {
		t.Fatalf("released %d before the delay", n)
	}
	if n := p.ReleaseIdle(clk.now().Add(time.Hour)); n != 1 {
		t.Fatalf("released %d after the delay, want 1", n)
	}
	if n, _ := fa.liveBytes(); n != 0 || p.Stats().Total != 0 {
		t.Fatalf("%d segments still live, stats %+v", n, p.Stats())
	}
}

func TestReleaseIdleSkipsBusySegments(t *testing.T) {
	p, _, clk := testPool(t, Config{SegmentSize: mB, MaxRatio: 1})
	mustAlloc(t, p, mB)
	if n := p.ReleaseIdle(clk.now().Add(time.Hour)); n != 0 {
		t.Fatalf("released %d busy segments", n)
	}
}

func TestKeepHonoured(t *testing.T) {
	p, _, clk := testPool(t, Config{SegmentSize: mB, MaxRatio: 1, MinRatio: 2.0 / 16}) // keep 2 MB
	var cs []Chunk
	for i := 0; i < 4; i++ {
		cs = append(cs, mustAlloc(t, p, mB))
	}
	for _, c := range cs {
		mustFree(t, p, c)
	}
	if n := p.ReleaseIdle(clk.now().Add(time.Hour)); n != 2 {
		t.Fatalf("released %d, want 2 (keeping 2 MB)", n)
	}
	if s := p.Stats(); s.Total != 2*mB || s.Keep != 2*mB {
		t.Fatalf("stats %+v, want 2 MB kept", s)
	}
	if n := p.ReleaseIdle(clk.now().Add(2 * time.Hour)); n != 0 {
		t.Fatalf("released %d below keep", n)
	}
}

func TestReconfigureSegmentSize(t *testing.T) {
	p, fa, _ := testPool(t, Config{SegmentSize: mB, MaxRatio: 1})
	mustAlloc(t, p, mB)
	if err := p.Reconfigure(Config{SegmentSize: 2 * mB, MaxRatio: 1, DeviceMemory: 16 * mB}); err != nil {
		t.Fatal(err)
	}
	mustAlloc(t, p, 1)
	if sizes := fa.allocSizes(); len(sizes) != 2 || sizes[1] != 2*mB {
		t.Fatalf("device allocations %v, want the new segment at 2 MB", sizes)
	}
}

func TestReconfigureLowerLimit(t *testing.T) {
	p, fa, _ := testPool(t, Config{SegmentSize: mB, MaxRatio: 1, ReleaseDelay: time.Hour})
	var cs []Chunk
	for i := 0; i < 4; i++ {
		cs = append(cs, mustAlloc(t, p, mB))
	}
	mustFree(t, p, cs[0])
	mustFree(t, p, cs[1])

	// 1 MB limit: the two idle segments go at once, the busy ones as they
	// are freed.
	if err := p.Reconfigure(Config{SegmentSize: mB, MaxRatio: 1.0 / 16, ReleaseDelay: time.Hour, DeviceMemory: 16 * mB}); err != nil {
		t.Fatal(err)
	}
	if s := p.Stats(); s.Total != 2*mB || s.Limit != mB {
		t.Fatalf("after lowering: stats %+v, want 2 busy MB of a 1 MB limit", s)
	}
	mustFree(t, p, cs[2])
	if s := p.Stats(); s.Total != mB {
		t.Fatalf("after freeing a busy chunk: total %d, want 1 MB", s.Total)
	}
	mustFree(t, p, cs[3])
	if n, _ := fa.liveBytes(); n != 1 {
		t.Fatalf("%d segments live, want 1 at the new limit", n)
	}
	if _, err := p.Alloc(2 * mB); !errors.Is(err, ErrExhausted) {
		t.Fatalf("allocation above the new limit: err = %v", err)
	}
}

func TestReconfigureRejectsBadConfig(t *testing.T) {
	p, _, _ := testPool(t, Config{SegmentSize: mB, MaxRatio: 0.5})
	if err := p.Reconfigure(Config{SegmentSize: mB, MaxRatio: 0.5, MinRatio: 0.9, DeviceMemory: 16 * mB}); err == nil {
		t.Fatal("min > max accepted")
	}
	if s := p.Stats(); s.Limit != 8*mB {
		t.Fatalf("rejected config changed the limit to %d", s.Limit)
	}
}
