package join

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/querybuf"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// countingExecutor counts the inner buffers built and freed.
type countingExecutor struct{ built, freed atomic.Int32 }

func (c *countingExecutor) NewInner(int, uint32, uint32) (*fakeInner, error) {
	return &fakeInner{}, nil
}
func (c *countingExecutor) CopyRows(*fakeInner, uint32, []byte) error { return nil }
func (c *countingExecutor) FreeInner(*fakeInner) error {
	c.freed.Add(1)
	return nil
}
func (c *countingExecutor) Build(*fakeInner, int) error {
	c.built.Add(1)
	return nil
}

func wholeDepth(key uint64) protocol.JoinInnerRequest {
	return protocol.JoinInnerRequest{PlanID: key, RowSize: 16, NRows: 2, PieceRows: 2, Rows: make([]byte, 32)}
}

// Sessions of different plans whose descriptors name one inner key (the
// partitions' nodes of one query) share the inner buffer: the second finds
// it loaded.  A piece must name the session's inner key, not its plan id,
// and sessions without the key keep a buffer of their own.
func TestInnerKeySharesTheBufferAcrossPlans(t *testing.T) {
	ex := &countingExecutor{}
	tables := querybuf.NewTable()
	depths := []xpu.JoinDepth{{Type: xpu.JoinInner, RowSize: 16}}
	const key = 0x5eed
	open := func(plan, innerKey uint64) *Session[*fakeInner] {
		j := &xpu.Join{Depths: depths, InnerKey: innerKey}
		return New[*fakeInner](tables, ex, nopCloser{}, &xpu.Program{PlanID: plan}, j, 0)
	}
	a, b := open(101, key), open(102, key)
	if r, err := a.LoadInner(wholeDepth(key)); err != nil || r.State != protocol.JoinInnerLoaded {
		t.Fatalf("first partition's session: %+v %v, want LOADED", r, err)
	}
	if r, err := b.LoadInner(wholeDepth(key)); err != nil || r.State != protocol.JoinInnerLoaded {
		t.Fatalf("second partition's session: %+v %v, want LOADED", r, err)
	}
	if n := ex.built.Load(); n != 1 {
		t.Fatalf("%d inner buffers built for two sessions of one inner key, want 1", n)
	}
	if _, err := b.LoadInner(wholeDepth(102)); err == nil || !strings.Contains(err.Error(), "inner key") {
		t.Fatalf("a piece naming the plan id instead of the inner key: %v, want a protocol error", err)
	}

	// no inner key: the plan id keys the buffer, as before
	c := open(103, 0)
	if r, err := c.LoadInner(wholeDepth(103)); err != nil || r.State != protocol.JoinInnerLoaded {
		t.Fatalf("a session without an inner key: %+v %v", r, err)
	}
	if n := ex.built.Load(); n != 2 {
		t.Fatalf("%d inner buffers built, want 2 (the key's and plan 103's)", n)
	}

	for _, s := range []*Session[*fakeInner]{a, c} {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if n := ex.freed.Load(); n != 1 {
		t.Fatalf("%d buffers freed while a session of the key still holds it, want 1 (plan 103's)", n)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if n := ex.freed.Load(); n != 2 || tables.Len() != 0 {
		t.Fatalf("%d buffers freed, %d left, after every session closed", n, tables.Len())
	}
}
