package hostexec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind/kindtest"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// sharedRegion is four shared buffers: 0 holds 50 tuples (100..149), 2
// holds 10 (0..9), 3 holds 15 (200..214) of which the refs below name only
// the first 10, as if 5 were added after the backend looked; 1 is empty.
func sharedRegion(t *testing.T) *xputest.Region {
	t.Helper()
	r, err := xputest.NewRegion(4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	copy(r.Page(0), xputest.Int4Page(100, 150))
	copy(r.Page(2), xputest.Int4Page(0, 10))
	copy(r.Page(3), xputest.Int4Page(200, 215))
	return r
}

// sharedRefs: block 0 is buffer 2 with only offsets 1, 3 and 10 visible,
// block 1 buffer 0 all-visible, block 2 buffer 3 cut at 10 line pointers.
func sharedRefs() []xputest.PageRef {
	return []xputest.PageRef{xputest.VisibleRef(2, 10, 1, 3, 10), xputest.AllVisibleRef(0, 50), xputest.AllVisibleRef(3, 10)}
}

// sharedExecutor is a test executor with sharedRegion registered.
func sharedExecutor(t *testing.T) *Executor {
	e, _ := testExecutor(t)
	e.shared = sharedRegion(t).Shared()
	return e
}

// scanAtLeast is a GpuScan session of `a >= v` over one int4 column.
func scanAtLeast(t *testing.T, e *Executor, v int32) nodekind.Session {
	b := xputest.New()
	b.Attr(4, 4, true, xpu.TypeInt4)
	b.Op(xpu.OpGe, xpu.TypeBool, b.Var(0, xpu.TypeInt4), b.ConstInt4(v))
	return prepare(t, e, b)
}

// refsOf is the refs as a chunk's message carries them.
func refsOf(refs []xputest.PageRef) (xpu.Chunk, []byte) {
	msg := xputest.SharedChunkMessage(1, 7, refs)
	c, err := xpu.ParseChunk(msg)
	if err != nil {
		panic(err)
	}
	return c, c.Refs(msg)
}

func TestGatherAppliesRefs(t *testing.T) {
	r := sharedRegion(t)
	before := bytes.Clone(r.Mem)
	c, refs := refsOf(sharedRefs())
	pages := make([]byte, c.PagesLen())
	gather(r.Shared(), refs, c.NBlocks, pages)
	if !bytes.Equal(r.Mem, before) {
		t.Fatal("gather wrote to the shared buffers")
	}
	page := func(b int) []byte { return pages[b*xpu.BlockSize : (b+1)*xpu.BlockSize] }
	lp := func(p []byte, off int) uint32 { return binary.LittleEndian.Uint32(p[24+4*(off-1):]) }
	lower := func(p []byte) int { return int(binary.LittleEndian.Uint16(p[12:])) }

	// block 0: invisible line pointers LP_UNUSED, the rest as stored
	p0, src := page(0), r.Page(2)
	for off := 1; off <= 10; off++ {
		visible := off == 1 || off == 3 || off == 10
		if visible && lp(p0, off) != lp(src, off) || !visible && lp(p0, off) != 0 {
			t.Errorf("block 0 line pointer %d: %#x (stored %#x)", off, lp(p0, off), lp(src, off))
		}
	}
	if lower(p0) != lower(src) || !bytes.Equal(p0[lower(p0):], src[lower(src):]) {
		t.Error("block 0: more than the line pointers changed")
	}
	// block 1: all-visible, kept byte for byte
	if !bytes.Equal(page(1), r.Page(0)) {
		t.Error("block 1 (all-visible) differs from its shared buffer")
	}
	// block 2: cut at 10 line pointers, everything else kept
	p2 := page(2)
	if lower(p2) != 24+4*10 || lower(r.Page(3)) != 24+4*15 {
		t.Errorf("block 2 pd_lower %d, want %d", lower(p2), 24+4*10)
	}
	if !bytes.Equal(p2[:12], r.Page(3)[:12]) || !bytes.Equal(p2[14:], r.Page(3)[14:]) {
		t.Error("block 2: more than pd_lower changed")
	}
}

// A scan whose qual every row passes returns exactly the visible rows
// within nlines: invisible tuples and those past nlines never match.
func TestScanSharedChunk(t *testing.T) {
	e := sharedExecutor(t)
	s := scanAtLeast(t, e, 0)
	defer s.Close()
	c, refs := refsOf(sharedRefs())
	res, items, err := kindtest.Exec(s, c, nodekind.Pages{Refs: refs})
	if err != nil {
		t.Fatal(err)
	}
	want := []uint32{xputest.Item(0, 1, false), xputest.Item(0, 3, false), xputest.Item(0, 10, false)}
	for off := 1; off <= 50; off++ {
		want = append(want, xputest.Item(1, off, false))
	}
	for off := 1; off <= 10; off++ {
		want = append(want, xputest.Item(2, off, false))
	}
	if res.NTuples != uint32(len(want)) || !slices.Equal(items, want) {
		t.Fatalf("result %+v, items %v; want %v", res, items, want)
	}
}

// GpuPreAgg gets the gathered pages the same way: count(*) of the rows
// visible within nlines, 3 + 50 + 10.
func TestPreAggSharedChunk(t *testing.T) {
	e := sharedExecutor(t)
	b := xputest.New()
	b.Attr(4, 4, true, xpu.TypeInt4)
	b.ConstBool(true)
	b.Aggregate(xpu.AggCount, -1, -1)
	b.PlanID = 5
	s := prepare(t, e, b)
	c, refs := refsOf(sharedRefs())
	if _, items, err := kindtest.Exec(s, c, nodekind.Pages{Refs: refs}); err != nil || len(items) != 0 {
		t.Fatalf("Exec: %v, items %v", err, items)
	}
	msgs, err := kindtest.Final(s, 2)
	if err != nil || len(msgs) != 1 {
		t.Fatalf("Final: %d messages, %v", len(msgs), err)
	}
	g, entries, err := xpu.DecodePreAggGroups(msgs[0])
	if err != nil || g.NEntries != 1 {
		t.Fatalf("groups %+v, %v", g, err)
	}
	if n := binary.LittleEndian.Uint64(entries[xpu.PreAggEntryHeader:]); n != 63 {
		t.Fatalf("count(*) = %d, want 63", n)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// Without registered shared buffers a shared chunk is unsupported (the
// backend runs it on the CPU), and a bad ref is never followed: its page
// reads as malformed.
func TestSharedChunkRefused(t *testing.T) {
	e, _ := testExecutor(t)
	s := scanAtLeast(t, e, 0)
	defer s.Close()
	c, refs := refsOf(sharedRefs())
	if _, _, err := kindtest.Exec(s, c, nodekind.Pages{Refs: refs}); !errors.Is(err, protocol.ErrUnsupported) {
		t.Fatalf("unregistered: %v, want ErrUnsupported", err)
	}
	r := sharedRegion(t)
	e.shared = r.Shared()
	c, refs = refsOf([]xputest.PageRef{xputest.AllVisibleRef(4, 1)})
	if _, _, err := kindtest.Exec(s, c, nodekind.Pages{Refs: refs}); !errors.Is(err, xpu.ErrBadPage) {
		t.Fatalf("buffer out of range: %v, want ErrBadPage", err)
	}
}
