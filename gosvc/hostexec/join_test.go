package hostexec

import (
	"bytes"
	"errors"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/join"
	"github.com/pgstrom-go/pg_strom/gosvc/join/jointest"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind/kindtest"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

const joinPlan = 0x51

func openJoin(t *testing.T, e *Executor, t0 xpu.JoinType, twoDepths bool) (nodekind.Session, nodekind.InnerLoader) {
	t.Helper()
	s := prepare(t, e, xputest.JoinProgram(joinPlan, 0, t0, twoDepths))
	l, ok := s.(nodekind.InnerLoader)
	if !ok {
		t.Fatalf("a GpuJoin session is not an InnerLoader: %T", s)
	}
	return s, l
}

func states(replies []protocol.JoinInnerReply) []uint32 {
	var st []uint32
	for _, r := range replies {
		st = append(st, r.State)
	}
	return st
}

// Every join type at depth 0 with a LEFT depth 1, inner rows loaded in
// pieces, outputs of 5 records: the records are the nested loop's, each
// once, over many replies.
func TestGpuJoinMatchesNestedLoop(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	for _, t0 := range []xpu.JoinType{xpu.JoinInner, xpu.JoinLeft, xpu.JoinSemi, xpu.JoinAnti} {
		for _, two := range []bool{false, true} {
			e, _ := testExecutor(t)
			e.joinCapacity = 5
			d := jointest.Random(rng, 500, 60, 25)
			pages, nblocks := d.Pages(150)
			s, l := openJoin(t, e, t0, two)
			if rep, err := jointest.Load(l, joinPlan, 0, 16, d.Rows0(), 7); err != nil || len(rep) != 9 || rep[8].State != protocol.JoinInnerLoaded {
				t.Fatalf("%s: load depth 0: %v, states %v", t0, err, states(rep))
			}
			if two {
				if _, err := jointest.Load(l, joinPlan, 1, 64, d.Rows1(), 100); err != nil {
					t.Fatal(err)
				}
			}
			stride := 2
			if two {
				stride = 3
			}
			results, words, err := kindtest.ExecRecords(s, xpu.Chunk{NBlocks: nblocks, ChunkID: 4}, nodekind.Pages{Bytes: pages}, stride)
			if err != nil {
				t.Fatalf("%s: %v", t0, err)
			}
			got, want := jointest.Split(words, stride), d.NestedLoop(0, t0, two)
			if !slices.EqualFunc(got, want, slices.Equal[[]uint32]) {
				t.Fatalf("%s two=%v: %d records, want %d", t0, two, len(got), len(want))
			}
			var ntuples uint32
			for i, r := range results {
				ntuples += r.NTuples
				if r.ChunkID != 4 || r.NItems > 5 || i < len(results)-1 && r.NItems != 5 {
					t.Fatalf("%s: reply %d of %d: %+v", t0, i, len(results), r)
				}
			}
			if ntuples != 500 || len(want) > 5 && len(results) < 2 {
				t.Fatalf("%s: %d tuples over %d replies for %d records", t0, ntuples, len(results), len(want))
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if e.tables.Len() != 0 {
				t.Fatalf("%d inner buffers left after the last session closed", e.tables.Len())
			}
		}
	}
}

// One outer row matching 3000 inner rows, at the default capacity of a
// 1-block chunk (64K records) and at 1000: every combination once.
func TestGpuJoinFanOutOverReplies(t *testing.T) {
	for _, capacity := range []uint32{0, 1000} {
		e, _ := testExecutor(t)
		e.joinCapacity = capacity
		d := &jointest.Data{}
		for i := 0; i < 30; i++ {
			d.Outer = append(d.Outer, jointest.Outer{A: 7})
		}
		for i := 0; i < 3000; i++ {
			v := int64(7)
			d.Inner0 = append(d.Inner0, &v)
		}
		pages, nblocks := d.Pages(100)
		s, l := openJoin(t, e, xpu.JoinInner, false)
		if _, err := jointest.Load(l, joinPlan, 0, 16, d.Rows0(), 1<<20); err != nil {
			t.Fatal(err)
		}
		results, words, err := kindtest.ExecRecords(s, xpu.Chunk{NBlocks: nblocks}, nodekind.Pages{Bytes: pages}, 2)
		if err != nil {
			t.Fatal(err)
		}
		got := jointest.Split(words, 2)
		if !slices.EqualFunc(got, d.NestedLoop(0, xpu.JoinInner, false), slices.Equal[[]uint32]) || len(got) != 90000 {
			t.Fatalf("capacity %d: %d records", capacity, len(got))
		}
		if want := 2; capacity == 1000 && len(results) != 90 || capacity == 0 && len(results) != want {
			t.Fatalf("capacity %d: %d replies", capacity, len(results))
		}
		s.Close()
	}
}

func TestGpuJoinInnerSharedAndBusy(t *testing.T) {
	e, _ := testExecutor(t)
	d := jointest.Random(rand.New(rand.NewSource(3)), 300, 40, 10)
	rows := d.Rows0()
	a, la := openJoin(t, e, xpu.JoinInner, false)
	b, lb := openJoin(t, e, xpu.JoinInner, false)
	piece := func(l nodekind.InnerLoader, first, n int) (protocol.JoinInnerReply, error) {
		return l.LoadInner(protocol.JoinInnerRequest{PlanID: joinPlan, RowSize: 16, NRows: 40, FirstRow: uint32(first),
			PieceRows: uint32(n), Rows: rows[16*first : 16*(first+n)]})
	}
	if r, err := piece(la, 0, 10); err != nil || r.State != protocol.JoinInnerMore || r.Bytes == 0 {
		t.Fatalf("A's first piece: %+v %v", r, err)
	}
	if r, err := piece(lb, 0, 10); err != nil || r.State != protocol.JoinInnerBusy {
		t.Fatalf("B while A loads: %+v %v, want BUSY", r, err)
	}
	if _, err := lb.LoadInner(protocol.JoinInnerRequest{PlanID: joinPlan, RowSize: 16, NRows: 41, PieceRows: 1, Rows: make([]byte, 16)}); !errors.Is(err, protocol.ErrProtocol) {
		t.Fatalf("B with another row count while A loads: %v", err)
	}
	if _, _, err := kindtest.ExecRecords(b, xpu.Chunk{NBlocks: 1}, nodekind.Pages{Bytes: make([]byte, xpu.BlockSize)}, 2); !errors.Is(err, protocol.ErrProtocol) ||
		!strings.Contains(err.Error(), "before depth 0 of 1 is loaded") {
		t.Fatalf("TaskExec before the load: %v", err)
	}
	if r, err := piece(la, 10, 30); err != nil || r.State != protocol.JoinInnerLoaded || r.BuildNs == 0 {
		t.Fatalf("A's last piece: %+v %v", r, err)
	}
	if r, err := piece(lb, 0, 10); err != nil || r.State != protocol.JoinInnerLoaded || r.BuildNs != 0 {
		t.Fatalf("B after A loaded: %+v %v, want LOADED at once", r, err)
	}
	if _, err := piece(lb, 10, 30); !errors.Is(err, protocol.ErrProtocol) {
		t.Fatalf("B sends more rows of a loaded depth: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	pages, nblocks := d.Pages(100)
	_, words, err := kindtest.ExecRecords(b, xpu.Chunk{NBlocks: nblocks}, nodekind.Pages{Bytes: pages}, 2)
	if err != nil {
		t.Fatalf("B after A closed: %v", err)
	}
	if got := jointest.Split(words, 2); !slices.EqualFunc(got, d.NestedLoop(0, xpu.JoinInner, false), slices.Equal[[]uint32]) {
		t.Fatalf("B's records differ from the nested loop's")
	}
	used := e.pool.Stats().Used
	if err := b.Close(); err != nil || e.tables.Len() != 0 || e.pool.Stats().Used >= used {
		t.Fatalf("last close: %v, %d buffers left, pool used %d -> %d", err, e.tables.Len(), used, e.pool.Stats().Used)
	}
}

// A loader that goes away mid-load drops the load; the next first piece
// makes its sender the loader.
func TestGpuJoinLoaderClosesMidLoad(t *testing.T) {
	e, _ := testExecutor(t)
	rows := jointest.Random(rand.New(rand.NewSource(4)), 1, 20, 0).Rows0()
	a, la := openJoin(t, e, xpu.JoinInner, false)
	b, lb := openJoin(t, e, xpu.JoinInner, false)
	defer b.Close()
	first := protocol.JoinInnerRequest{PlanID: joinPlan, RowSize: 16, NRows: 20, PieceRows: 5, Rows: rows[:80]}
	if r, err := la.LoadInner(first); err != nil || r.State != protocol.JoinInnerMore {
		t.Fatalf("A: %+v %v", r, err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if e.tables.Len() != 0 {
		t.Fatal("the abandoned load is still in the table")
	}
	rep, err := jointest.Load(lb, joinPlan, 0, 16, rows, 5)
	if err != nil || !slices.Equal(states(rep), []uint32{protocol.JoinInnerMore, protocol.JoinInnerMore, protocol.JoinInnerMore, protocol.JoinInnerLoaded}) {
		t.Fatalf("B loads after A left: %v %v", states(rep), err)
	}
}

func TestGpuJoinInnerRejects(t *testing.T) {
	e, _ := testExecutor(t)
	rows := jointest.Random(rand.New(rand.NewSource(5)), 1, 8, 0).Rows0()
	bad := bytes.Clone(rows)
	bad[16*5] = 2 // a NULL flag xpu_key_store never writes
	s, l := openJoin(t, e, xpu.JoinInner, false)
	defer s.Close()
	req := func(mut func(*protocol.JoinInnerRequest)) protocol.JoinInnerRequest {
		r := protocol.JoinInnerRequest{PlanID: joinPlan, RowSize: 16, NRows: 8, PieceRows: 8, Rows: rows}
		mut(&r)
		return r
	}
	for name, r := range map[string]protocol.JoinInnerRequest{
		"other plan":      req(func(r *protocol.JoinInnerRequest) { r.PlanID++ }),
		"depth 1":         req(func(r *protocol.JoinInnerRequest) { r.Depth = 1 }),
		"row size 32":     req(func(r *protocol.JoinInnerRequest) { r.RowSize, r.PieceRows = 32, 4 }),
		"starts at row 4": req(func(r *protocol.JoinInnerRequest) { r.FirstRow, r.PieceRows, r.Rows = 4, 4, rows[64:] }),
	} {
		if _, err := l.LoadInner(r); !errors.Is(err, protocol.ErrProtocol) {
			t.Errorf("%s: err = %v, want a protocol error", name, err)
		}
	}
	// out of order: the load is dropped
	if r, err := l.LoadInner(req(func(r *protocol.JoinInnerRequest) { r.PieceRows, r.Rows = 4, rows[:64] })); err != nil || r.State != protocol.JoinInnerMore {
		t.Fatalf("first half: %+v %v", r, err)
	}
	if _, err := l.LoadInner(req(func(r *protocol.JoinInnerRequest) { r.FirstRow, r.PieceRows, r.Rows = 5, 3, rows[80:] })); !errors.Is(err, protocol.ErrProtocol) || e.tables.Len() != 0 {
		t.Fatalf("a piece past a gap: %v, %d entries", err, e.tables.Len())
	}
	// a bad row fails the build and drops the load
	if _, err := l.LoadInner(req(func(r *protocol.JoinInnerRequest) { r.Rows = bad })); !errors.Is(err, join.ErrBadInner) || e.tables.Len() != 0 {
		t.Fatalf("bad row: %v, %d entries", err, e.tables.Len())
	}
	// and the depth can be loaded again, whole
	if r, err := l.LoadInner(req(func(*protocol.JoinInnerRequest) {})); err != nil || r.State != protocol.JoinInnerLoaded {
		t.Fatalf("reload: %+v %v", r, err)
	}
}

// An empty inner side is one empty piece; INNER then gives nothing and
// ANTI every row that passes the qual.
func TestGpuJoinEmptyInner(t *testing.T) {
	d := jointest.Random(rand.New(rand.NewSource(6)), 200, 0, 0)
	pages, nblocks := d.Pages(200)
	for _, t0 := range []xpu.JoinType{xpu.JoinInner, xpu.JoinAnti} {
		e, _ := testExecutor(t)
		s, l := openJoin(t, e, t0, false)
		if rep, err := jointest.Load(l, joinPlan, 0, 16, nil, 10); err != nil || !slices.Equal(states(rep), []uint32{protocol.JoinInnerLoaded}) {
			t.Fatalf("empty load: %v %v", states(rep), err)
		}
		_, words, err := kindtest.ExecRecords(s, xpu.Chunk{NBlocks: nblocks}, nodekind.Pages{Bytes: pages}, 2)
		if err != nil {
			t.Fatal(err)
		}
		want := d.NestedLoop(0, t0, false)
		if got := jointest.Split(words, 2); !slices.EqualFunc(got, want, slices.Equal[[]uint32]) || t0 == xpu.JoinAnti && len(want) == 0 {
			t.Fatalf("%s: %d records, want %d", t0, len(got), len(want))
		}
		s.Close()
	}
}

// The Go layout of an inner buffer is the kernels' own.
func TestJoinInnerLayoutIsTheKernels(t *testing.T) {
	for _, c := range [][4]uint32{{0, 0, 16, 1}, {1, 3, 48, 4}, {3, 1000, 4096, 1024}, {2, 77, 64, 128}} {
		hdr, size := joinInnerLayoutC(c[0], c[1], c[2], c[3])
		l := xpu.NewJoinInnerLayout(c[0], c[1], c[2], c[3])
		mine := make([]byte, xpu.JoinInnerSize)
		l.PutHeader(mine)
		if size != l.Size || !bytes.Equal(hdr, mine) {
			t.Fatalf("%v: C %d % x, Go %d % x", c, size, hdr, l.Size, mine)
		}
	}
}
