package hostexec

import (
	"testing"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/kinds"
	"github.com/pgstrom-go/pg_strom/gosvc/mempool"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind/kindtest"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

func testExecutor(t *testing.T) (*Executor, *hostMemory) {
	t.Helper()
	mem := newHostMemory()
	pool, err := mempool.New(mem, mempool.Config{SegmentSize: 256 << 20, MaxRatio: 0.5, MinRatio: 0, ReleaseDelay: time.Second, DeviceMemory: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := pool.Close(); err != nil {
			t.Error(err)
		}
		if n := mem.live(); n != 0 {
			t.Errorf("%d mappings live after the pool closed", n)
		}
	})
	return newExecutor(0, pool, mem, xpu.SharedRegion{}), mem
}

// pages of int4 values 0..n-1, 200 a page.
func intPages(n int) []byte {
	var out []byte
	for base := 0; base < n; base += 200 {
		p := xputest.NewPage()
		for v := base; v < min(base+200, n); v++ {
			p.AddTuple([]xputest.Column{xputest.ColInt4}, []any{int32(v)})
		}
		out = append(out, p.Bytes()...)
	}
	return out
}

func prepare(t *testing.T, e *Executor, b *xputest.Builder) nodekind.Session {
	t.Helper()
	s, err := kindtest.Open(kinds.All(), e, b.Message(1))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestGpuScanItemsInOrder(t *testing.T) {
	e, _ := testExecutor(t)
	b := xputest.New()
	b.Attr(4, 4, true, xpu.TypeInt4)
	b.Op(xpu.OpGt, xpu.TypeBool, b.Var(0, xpu.TypeInt4), b.ConstInt4(394))
	s := prepare(t, e, b)
	defer s.Close()
	pages := intPages(400)
	c := xpu.Chunk{NBlocks: 2, ChunkID: 5}
	res, items, err := kindtest.Exec(s, c, nodekind.Pages{Bytes: pages})
	if err != nil {
		t.Fatal(err)
	}
	want := []uint32{xputest.Item(1, 196, false), xputest.Item(1, 197, false), xputest.Item(1, 198, false),
		xputest.Item(1, 199, false), xputest.Item(1, 200, false)}
	if res.ChunkID != 5 || res.NTuples != 400 || res.NRecheck != 0 || len(items) != len(want) {
		t.Fatalf("result %+v items %v, want %v", res, items, want)
	}
	for i := range want {
		if items[i] != want[i] {
			t.Fatalf("items %v, want %v", items, want)
		}
	}
}

// A table of 2 slots (1 group) must grow for 800 groups; Final returns
// every group once with its count.
func TestGpuPreAggGrowsAndFinal(t *testing.T) {
	e, _ := testExecutor(t)
	e.preaggSlots = 2
	b := xputest.New()
	b.Attr(4, 4, true, xpu.TypeInt4)
	k := b.Var(0, xpu.TypeInt4)
	b.ConstBool(true)
	b.GroupBy(k, 0)
	b.Aggregate(xpu.AggCount, -1, -1)
	b.PlanID = 99
	s1, s2 := prepare(t, e, b), prepare(t, e, b) // two participants, one table
	pages := intPages(800)
	half := len(pages) / 2
	for _, run := range []struct {
		s     nodekind.Session
		pages []byte
	}{{s1, pages[:half]}, {s2, pages[half:]}, {s1, pages[:half]}} {
		c := xpu.Chunk{NBlocks: uint32(len(run.pages) / xpu.BlockSize)}
		if _, items, err := kindtest.Exec(run.s, c, nodekind.Pages{Bytes: run.pages}); err != nil || len(items) != 0 {
			t.Fatalf("Exec: %v, items %v", err, items)
		}
	}
	if msgs, err := kindtest.Final(s1, 1); err != nil || len(msgs) != 0 {
		t.Fatalf("first Final: %d messages, %v; want none (s2 still holds the table)", len(msgs), err)
	}
	msgs, err := kindtest.Final(s2, 2)
	if err != nil || len(msgs) == 0 {
		t.Fatalf("last Final: %d messages, %v", len(msgs), err)
	}
	var total uint32
	for _, m := range msgs {
		g, _, err := xpu.DecodePreAggGroups(m)
		if err != nil {
			t.Fatal(err)
		}
		total += g.NEntries
		if g.NGroupsTotal != 800 || g.NGrowths == 0 {
			t.Fatalf("groups header %+v, want 800 groups after growths", g)
		}
	}
	if total != 800 {
		t.Fatalf("%d groups in the messages, want 800", total)
	}
	for _, s := range []nodekind.Session{s1, s2} {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// A pool too small for the table to grow: the rows whose new groups found
// the table full come back as RECHECK rows (the backend aggregates them
// on the CPU) instead of failing the chunk, and every row is either in a
// device group or returned, never both.
func TestGpuPreAggFullTableReturnsRows(t *testing.T) {
	mem := newHostMemory()
	pool, err := mempool.New(mem, mempool.Config{SegmentSize: 64 << 10, MaxRatio: 0.5, ReleaseDelay: time.Second, DeviceMemory: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	e := newExecutor(0, pool, mem, xpu.SharedRegion{})
	e.preaggSlots = 64
	b := xputest.New()
	b.Attr(4, 4, true, xpu.TypeInt4)
	k := b.Var(0, xpu.TypeInt4)
	b.ConstBool(true)
	b.GroupBy(k, 0)
	b.Aggregate(xpu.AggCount, -1, -1)
	b.PlanID = 98
	s := prepare(t, e, b)
	const rows = 2000
	pages := intPages(rows)
	returned := map[uint32]bool{}
	for off := 0; off < len(pages); off += 2 * xpu.BlockSize {
		piece := pages[off:min(off+2*xpu.BlockSize, len(pages))]
		c := xpu.Chunk{NBlocks: uint32(len(piece) / xpu.BlockSize), ChunkID: uint32(off / xpu.BlockSize)}
		res, items, err := kindtest.Exec(s, c, nodekind.Pages{Bytes: piece})
		if err != nil {
			t.Fatalf("chunk %d: %v, want the rows that do not fit returned", c.ChunkID, err)
		}
		if int(res.NRecheck) != len(items) {
			t.Fatalf("chunk %d: NRecheck %d, %d items", c.ChunkID, res.NRecheck, len(items))
		}
		for _, it := range items {
			if it&xpu.ItemRecheck == 0 || returned[c.ChunkID<<16|it] {
				t.Fatalf("chunk %d: item %#x not RECHECK, or returned twice", c.ChunkID, it)
			}
			returned[c.ChunkID<<16|it] = true
		}
	}
	msgs, err := kindtest.Final(s, 1)
	if err != nil {
		t.Fatal(err)
	}
	var groups uint32
	for _, m := range msgs {
		g, _, err := xpu.DecodePreAggGroups(m)
		if err != nil {
			t.Fatal(err)
		}
		groups += g.NEntries
	}
	if len(returned) == 0 || groups == 0 || int(groups)+len(returned) != rows {
		t.Fatalf("%d groups on the device and %d rows returned, want both > 0 and %d in all", groups, len(returned), rows)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
