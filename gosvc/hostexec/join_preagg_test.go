package hostexec

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/joinpreagg/jpatest"
	"github.com/pgstrom-go/pg_strom/gosvc/kinds"
	"github.com/pgstrom-go/pg_strom/gosvc/mempool"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind/kindtest"
	"github.com/pgstrom-go/pg_strom/gosvc/preagg"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

const fusedPlan = 0x52

func openFused(t *testing.T, e *Executor, s *jpatest.Star, n int) []nodekind.Session {
	t.Helper()
	var out []nodekind.Session
	for i := 0; i < n; i++ {
		out = append(out, prepare(t, e, s.Program(fusedPlan)))
	}
	return out
}

// checkFused runs the star on a fresh executor whose tables start at
// slots slots, over nsessions sessions, and compares with the reference.
func checkFused(t *testing.T, name string, s *jpatest.Star, slots uint32, nsessions int, chunkBlocks uint32) jpatest.Result {
	t.Helper()
	e, _ := testExecutor(t)
	e.preaggSlots = slots
	res, err := s.Check(openFused(t, e, s, nsessions), fusedPlan, chunkBlocks, 13)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if e.tables.Len() != 0 {
		t.Fatalf("%s: %d query buffers left after the last Close", name, e.tables.Len())
	}
	return res
}

// Every mix of join types at 1 to 4 depths, with and without residual
// quals, against a nested loop and an independent aggregation; a table
// of 2 slots that must grow, and one that never fills.
func TestFusedJoinPreAggMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(21))
	types := []xpu.JoinType{xpu.JoinInner, xpu.JoinLeft, xpu.JoinSemi, xpu.JoinAnti}
	var growths, rechecks, groups int
	for trial := 0; trial < 60; trial++ {
		n := 1 + trial%4
		var ts []xpu.JoinType
		var quals []bool
		for d := 0; d < n; d++ {
			ts = append(ts, types[rng.Intn(len(types))])
			quals = append(quals, trial%3 != 0 && rng.Intn(2) == 0 && (ts[d] == xpu.JoinInner || ts[d] == xpu.JoinLeft))
		}
		s := jpatest.Random(rng, ts, quals, 300+rng.Intn(300), 5+rng.Intn(25), trial%2 == 0)
		name := fmt.Sprintf("trial %d %v quals %v", trial, ts, quals)
		small := checkFused(t, name+" small table", s, 2, 1+trial%3, 1+uint32(trial%5))
		big := checkFused(t, name+" big table", s, 1<<14, 1, 64)
		if big.NGrowths != 0 || len(big.Groups) > 1 && small.NGrowths == 0 {
			t.Fatalf("%s: growths %d (small table) and %d (big table)", name, small.NGrowths, big.NGrowths)
		}
		growths += int(small.NGrowths)
		rechecks += len(small.Recheck)
		groups += len(small.Groups)
	}
	if growths == 0 || rechecks == 0 || groups == 0 {
		t.Fatalf("the trials never grew (%d), rechecked (%d) or grouped (%d)", growths, rechecks, groups)
	}
	t.Logf("%d groups, %d RECHECK rows, %d growths", groups, rechecks, growths)
}

// LEFT depths whose rows all fail the residual qual still feed the
// aggregates once, NULL-extended: COUNT(*) counts them, COUNT(p) and
// MAX(p) do not.
func TestFusedJoinPreAggLeftNullExtension(t *testing.T) {
	one := func(v int64) *int64 { return &v }
	k := func(v int32) *int32 { return &v }
	s := &jpatest.Star{
		Types: []xpu.JoinType{xpu.JoinInner, xpu.JoinLeft},
		Quals: []bool{false, true},
		Outer: []jpatest.Outer{
			{A: 1, K: []*int32{k(1), k(7)}}, // depth 1: only rows failing the qual
			{A: 1, K: []*int32{k(1), k(8)}}, // depth 1: one passing row
			{A: 1, K: []*int32{k(1), nil}},  // depth 1: NULL key
		},
		Inners: [][]jpatest.Inner{
			{{Key: one(1), Pay: one(4)}},
			{{Key: one(7), Pay: one(jpatest.QualValue)}, {Key: one(7), Pay: nil}, {Key: one(8), Pay: one(9)}},
		},
	}
	res := checkFused(t, "left", s, 2, 1, 1)
	null := res.Groups[jpatest.Group{A: 1, PNull: true}.Key()]
	if null.Count != 2 || null.CountP != 0 || null.NMaxP != 0 || null.NMinP0 != 2 {
		t.Fatalf("NULL-extended group %+v, want 2 rows, no p", null)
	}
	if g := res.Groups[jpatest.Group{A: 1, P: 9}.Key()]; g.Count != 1 || g.CountP != 1 || g.MaxP != 9 {
		t.Fatalf("matched group %+v", g)
	}
}

// A fused chunk before every depth is loaded is a protocol error, and
// so are pieces that do not fit the descriptor; a session of a collected
// plan is refused.
func TestFusedJoinPreAggProtocol(t *testing.T) {
	e, _ := testExecutor(t)
	s := jpatest.Random(rand.New(rand.NewSource(2)), []xpu.JoinType{xpu.JoinInner, xpu.JoinLeft}, nil, 50, 10, false)
	sessions := openFused(t, e, s, 2)
	pages, nblocks := s.Pages(70)
	if _, _, err := kindtest.Exec(sessions[0], xpu.Chunk{NBlocks: nblocks}, nodekind.Pages{Bytes: pages}); !errors.Is(err, protocol.ErrProtocol) ||
		!strings.Contains(err.Error(), "before depth 0 of 2 is loaded") {
		t.Fatalf("TaskExec before the load: %v", err)
	}
	l := sessions[0].(nodekind.InnerLoader)
	if _, err := l.LoadInner(protocol.JoinInnerRequest{PlanID: fusedPlan, Depth: 1, RowSize: 16, NRows: 1, PieceRows: 1, Rows: make([]byte, 16)}); !errors.Is(err, protocol.ErrProtocol) {
		t.Fatalf("a row size other than the descriptor's: %v", err)
	}
	if _, err := l.LoadInner(protocol.JoinInnerRequest{PlanID: fusedPlan, Depth: 2, RowSize: jpatest.RowSize, NRows: 1, PieceRows: 1, Rows: make([]byte, jpatest.RowSize)}); !errors.Is(err, protocol.ErrProtocol) {
		t.Fatalf("a depth past the join's: %v", err)
	}
	// a payload slot xpu_key_store never writes fails the build
	bad := s.Rows(0)
	bad[16] = 2
	if _, err := l.LoadInner(protocol.JoinInnerRequest{PlanID: fusedPlan, RowSize: jpatest.RowSize, NRows: uint32(len(bad) / jpatest.RowSize),
		PieceRows: uint32(len(bad) / jpatest.RowSize), Rows: bad}); err == nil {
		t.Fatal("a bad payload slot was built")
	}
	// sessions[0] collects; a later session of the plan is refused
	coll, ok := sessions[0].(nodekind.Collector)
	if !ok {
		t.Fatalf("a fused session is not a Collector: %T", sessions[0])
	}
	if err := coll.Collect(&kindtest.Sink{RequestID: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := kindtest.Open(kinds.All(), e, s.Program(fusedPlan).Message(1)); !errors.Is(err, preagg.ErrCollected) {
		t.Fatalf("a session of a collected plan: %v, want ErrCollected", err)
	}
	for _, sess := range sessions {
		if err := sess.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if e.tables.Len() != 0 {
		t.Fatalf("%d query buffers left", e.tables.Len())
	}
}

// A pool too small for the table to grow: the outer rows that found it
// full come back RECHECK (the backend joins and aggregates them on the
// CPU) instead of failing the chunk, and every combination is either in a
// device group or in a returned row, never both.
func TestFusedJoinPreAggFullTableReturnsRows(t *testing.T) {
	mem := newHostMemory()
	pool, err := mempool.New(mem, mempool.Config{SegmentSize: 64 << 10, MaxRatio: 0.5, ReleaseDelay: time.Second, DeviceMemory: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	e := newExecutor(0, pool, mem, xpu.SharedRegion{})
	e.preaggSlots = 64
	s := jpatest.Random(rand.New(rand.NewSource(7)), []xpu.JoinType{xpu.JoinInner, xpu.JoinLeft}, []bool{false, true}, 6000, 30, false)
	res, err := s.Run(openFused(t, e, s, 1), fusedPlan, 8, 1000)
	if err != nil {
		t.Fatalf("%v, want the rows that do not fit returned", err)
	}
	want, _ := s.Reference()
	var total, onDevice, returned uint64
	for _, g := range want {
		total += g.Count
	}
	for _, g := range res.Groups {
		onDevice += g.Count
	}
	for _, it := range res.Recheck {
		returned += uint64(s.NCombinations(it))
	}
	if len(res.Recheck) == 0 || onDevice == 0 || onDevice+returned != total {
		t.Fatalf("%d combinations on the device and %d in %d returned rows, want both > 0 and %d in all",
			onDevice, returned, len(res.Recheck), total)
	}
}
