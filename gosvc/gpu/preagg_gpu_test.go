//go:build gpu

package gpu

import (
	"encoding/binary"
	"fmt"
	"sync"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/kinds"
	"github.com/pgstrom-go/pg_strom/gosvc/mempool"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind/kindtest"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// The GpuPreAgg tests aggregate `SELECT k, count(*), sum(v) GROUP BY k`
// over (k int4, v int8).  Entry: header 16, key slot at 16 (int64 at +8),
// COUNT at 32, SUM_INT at 48 (n, 0, sum_lo, sum_hi).
var preaggCols = []xputest.Column{xputest.ColInt4, xputest.ColInt8}

const (
	preaggRowsPerPage = 120
	preaggGroups      = 3000
)

func preaggProgramMsg(planID uint64) []byte {
	b := xputest.New()
	b.PlanID = planID
	b.Attr(4, 4, true, xpu.TypeInt4)
	b.Attr(8, 8, true, xpu.TypeInt8)
	k := b.Var(0, xpu.TypeInt4)
	v := b.Var(1, xpu.TypeInt8)
	b.ConstBool(true)
	b.GroupBy(k, 0)
	b.Aggregate(xpu.AggCount, -1, -1)
	b.Aggregate(xpu.AggSumInt, v, -1)
	return b.Message(1)
}

// groupKey is a decoded key slot: null, or the value.
type groupKey struct {
	null bool
	k    int64
}

type groupAgg struct {
	count, n int64
	sum      int64 // the tests' sums fit int64; the high half is checked to be the sign
}

// preaggRows builds npages pages of rows (k, v); row r of the table has
// k = r % preaggGroups (NULL every 997th row) and v = r - 500 (NULL every
// 13th row).  want accumulates what the device must compute.
func preaggRows(first, npages int, want map[groupKey]*groupAgg) []byte {
	var pages []byte
	r := first
	for p := 0; p < npages; p++ {
		pg := xputest.NewPage()
		for i := 0; i < preaggRowsPerPage; i++ {
			var k, v any = int32(r % preaggGroups), int64(r - 500)
			key := groupKey{k: int64(r % preaggGroups)}
			if r%997 == 0 {
				k, key = nil, groupKey{null: true}
			}
			if r%13 == 0 {
				v = nil
			}
			pg.AddTuple(preaggCols, []any{k, v})
			a := want[key]
			if a == nil {
				a = &groupAgg{}
				want[key] = a
			}
			a.count++
			if v != nil {
				a.n++
				a.sum += int64(r - 500)
			}
			r++
		}
		pages = append(pages, pg.Bytes()...)
	}
	return pages
}

// decodeGroups reads the groups messages into per-key aggregates; a key
// present twice is an error (one table holds one entry per group).
func decodeGroups(t *testing.T, msgs [][]byte) (map[groupKey]*groupAgg, xpu.PreAggGroups) {
	t.Helper()
	le := binary.LittleEndian
	got := map[groupKey]*groupAgg{}
	var first xpu.PreAggGroups
	for i, m := range msgs {
		g, entries, err := xpu.DecodePreAggGroups(m)
		if err != nil {
			t.Fatalf("groups message %d: %v", i, err)
		}
		if i == 0 {
			first = g
		}
		if g.EntrySize != 80 {
			t.Fatalf("entry size %d, want 80", g.EntrySize)
		}
		for off := 0; off < len(entries); off += int(g.EntrySize) {
			e := entries[off : off+int(g.EntrySize)]
			if !xpu.EntryValid(e) {
				t.Fatalf("an entry without XPU_PREAGG_ENTRY_VALID was returned")
			}
			key := groupKey{null: e[16] == 1, k: int64(le.Uint64(e[24:]))}
			if _, dup := got[key]; dup {
				t.Fatalf("key %+v returned twice", key)
			}
			lo, hi := int64(le.Uint64(e[64:])), int64(le.Uint64(e[72:]))
			if hi != lo>>63 {
				t.Fatalf("key %+v: int128 sum %d:%d does not fit int64", key, hi, lo)
			}
			got[key] = &groupAgg{count: int64(le.Uint64(e[32:])), n: int64(le.Uint64(e[48:])), sum: lo}
		}
	}
	return got, first
}

func compareGroups(t *testing.T, got, want map[groupKey]*groupAgg) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d groups, want %d", len(got), len(want))
	}
	bad := 0
	for k, w := range want {
		if g := got[k]; g == nil || *g != *w {
			if bad++; bad <= 5 {
				t.Errorf("group %+v: %+v, want %+v", k, g, w)
			}
		}
	}
}

func preaggExecutor(t *testing.T) (*Executor, *mempool.Pool) {
	t.Helper()
	ex, pool := executorOnDevice0(t)
	e := ex.(*Executor)
	e.preaggSlots = 256 // 128 groups fit: 3000 need several growths
	return e, pool
}

func execChunk(t *testing.T, prep nodekind.Session, chunkID uint32, pages []byte) {
	t.Helper()
	msg := xputest.ChunkMessage(1, chunkID, pages)
	c, err := xpu.ParseChunk(msg)
	if err != nil {
		t.Error(err)
		return
	}
	res, items, err := kindtest.Exec(prep, c, nodekind.Pages{Bytes: c.Pages(msg)})
	if err != nil {
		t.Errorf("chunk %d: Exec: %v", chunkID, err)
		return
	}
	want := uint32(len(pages) / xpu.BlockSize * preaggRowsPerPage)
	if res.NTuples != want || res.NRecheck != 0 || len(items) != 0 || res.NItems != 0 || res.ChunkID != chunkID {
		t.Errorf("chunk %d: %+v, %d items; want %d tuples, nothing to recheck", chunkID, res, len(items), want)
	}
}

func TestExecutorPreAggGrowsTable(t *testing.T) {
	e, pool := preaggExecutor(t)
	prep, err := kindtest.Open(kinds.All(), e, preaggProgramMsg(0xa001))
	if err != nil {
		t.Fatal(err)
	}
	want := map[groupKey]*groupAgg{}
	for c := 0; c < 3; c++ {
		execChunk(t, prep, uint32(c), preaggRows(c*20*preaggRowsPerPage, 20, want))
	}
	msgs, err := kindtest.Final(prep, 9)
	if err != nil {
		t.Fatalf("Final: %v", err)
	}
	got, g := decodeGroups(t, msgs)
	t.Logf("%d groups in %d messages: %+v", len(got), len(msgs), g)
	if g.NGrowths == 0 || g.NGroupsTotal != uint32(len(want)) || g.TableBytes == 0 {
		t.Errorf("groups header %+v: want at least one growth and %d groups", g, len(want))
	}
	compareGroups(t, got, want)
	if err := prep.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if used := pool.Stats().Used; used != 0 {
		t.Fatalf("%d bytes of device memory in use after Final and Close", used)
	}
}

// TestExecutorPreAggSharedTable: two sessions of one plan accumulate into
// one table concurrently (growing it under each other's feet); only the
// last Final returns the groups, which cover both sessions' rows.
func TestExecutorPreAggSharedTable(t *testing.T) {
	e, pool := preaggExecutor(t)
	want := map[groupKey]*groupAgg{}
	var chunks [][]byte
	for c := 0; c < 8; c++ {
		chunks = append(chunks, preaggRows(c*5*preaggRowsPerPage, 5, want))
	}
	var preps []nodekind.Session
	for i := 0; i < 2; i++ {
		prep, err := kindtest.Open(kinds.All(), e, preaggProgramMsg(0xb002))
		if err != nil {
			t.Fatal(err)
		}
		preps = append(preps, prep)
	}
	var wg sync.WaitGroup
	for c, pages := range chunks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			execChunk(t, preps[c%2], uint32(c), pages)
		}()
	}
	wg.Wait()
	if e.tables.Len() != 1 {
		t.Fatalf("%d tables for one plan", e.tables.Len())
	}
	msgs, err := kindtest.Final(preps[0], 1)
	if err != nil || len(msgs) != 0 {
		t.Fatalf("first Final: %d messages, %v; want none (the other session still holds the table)", len(msgs), err)
	}
	if err := preps[0].Close(); err != nil {
		t.Fatal(err)
	}
	msgs, err = kindtest.Final(preps[1], 2)
	if err != nil || len(msgs) == 0 {
		t.Fatalf("last Final: %d messages, %v", len(msgs), err)
	}
	got, g := decodeGroups(t, msgs)
	t.Logf("shared: %+v", g)
	compareGroups(t, got, want)
	if err := preps[1].Close(); err != nil {
		t.Fatal(err)
	}
	if used, n := pool.Stats().Used, e.tables.Len(); used != 0 || n != 0 {
		t.Fatalf("%d bytes in use, %d tables left", used, n)
	}
}

// TestExecutorPreAggCloseWithoutFinal: a session that disconnects drops
// its reference; the last one frees the table.
func TestExecutorPreAggCloseWithoutFinal(t *testing.T) {
	e, pool := preaggExecutor(t)
	prep, err := kindtest.Open(kinds.All(), e, preaggProgramMsg(0xc003))
	if err != nil {
		t.Fatal(err)
	}
	execChunk(t, prep, 1, preaggRows(0, 4, map[groupKey]*groupAgg{}))
	if err := prep.Close(); err != nil {
		t.Fatal(err)
	}
	if used := pool.Stats().Used; used != 0 {
		t.Fatalf("%d bytes in use after Close: %s", used, fmt.Sprint(e.tables.Len(), " tables"))
	}
}
