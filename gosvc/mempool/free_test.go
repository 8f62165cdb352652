package mempool

import (
	"errors"
	"testing"
)

func TestFreeRejectsBadChunks(t *testing.T) {
	p, _, _ := testPool(t, Config{SegmentSize: mB, MaxRatio: 1})
	other, _, _ := testPool(t, Config{SegmentSize: mB, MaxRatio: 1})
	c := mustAlloc(t, p, kB)
	foreign := mustAlloc(t, other, kB)

	resized := c
	resized.Size *= 2
	shifted := c
	shifted.Ptr += chunkAlign
	cases := map[string]Chunk{
		"zero chunk":    {},
		"made up":       {Ptr: c.Ptr, Size: c.Size},
		"other pool":    foreign,
		"wrong size":    resized,
		"inside chunk":  shifted,
		"below segment": {Ptr: 1, Size: c.Size, seg: c.seg},
	}
	for name, bad := range cases {
		if err := p.Free(bad); !errors.Is(err, ErrUnknownChunk) {
			t.Errorf("%s: err = %v, want ErrUnknownChunk", name, err)
		}
	}
	mustFree(t, p, c)
	if err := p.Free(c); !errors.Is(err, ErrUnknownChunk) {
		t.Fatalf("double free: err = %v, want ErrUnknownChunk", err)
	}
	if s := p.Stats(); s.Used != 0 {
		t.Fatalf("bad frees changed accounting: %+v", s)
	}
}

func TestFreeAfterSegmentReleased(t *testing.T) {
	p, _, clk := testPool(t, Config{SegmentSize: mB, MaxRatio: 1})
	c := mustAlloc(t, p, kB)
	mustFree(t, p, c)
	p.ReleaseIdle(clk.now())
	if err := p.Free(c); !errors.Is(err, ErrUnknownChunk) {
		t.Fatalf("free into released segment: err = %v", err)
	}
}

func TestCloseFreesEverything(t *testing.T) {
	p, fa, _ := testPool(t, Config{SegmentSize: mB, MaxRatio: 1})
	mustAlloc(t, p, kB)
	mustAlloc(t, p, 3*mB)
	mustFree(t, p, mustAlloc(t, p, mB))
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if n, bytes := fa.liveBytes(); n != 0 {
		t.Fatalf("leaked %d segments (%d bytes) after Close", n, bytes)
	}
	if _, err := p.Alloc(1); !errors.Is(err, ErrClosed) {
		t.Fatalf("Alloc after Close: err = %v, want ErrClosed", err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestCloseReportsFreeErrors(t *testing.T) {
	p, fa, _ := testPool(t, Config{SegmentSize: mB, MaxRatio: 1})
	mustAlloc(t, p, kB)
	fa.freeErr = errFake
	if err := p.Close(); !errors.Is(err, errFake) {
		t.Fatalf("Close: err = %v, want wrapping the allocator's error", err)
	}
	if s := p.Stats(); s.FreeFailures != 1 || s.Segments != 0 {
		t.Fatalf("stats %+v, want one failure and no segments", s)
	}
}
