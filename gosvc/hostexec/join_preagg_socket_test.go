package hostexec

import (
	"math/rand"
	"testing"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/joinpreagg/jpatest"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// The whole fused exchange over the socket: OpenSession, JOIN_INNER per
// depth, chunks answered with their RECHECK rows, the groups at TaskFinal
// equal to the reference's; the pool is empty afterwards.
func TestFusedJoinPreAggOverTheSocket(t *testing.T) {
	e, _ := testExecutor(t)
	e.preaggSlots = 2
	s := startJoinServer(t, e)
	star := jpatest.Random(rand.New(rand.NewSource(11)), []xpu.JoinType{xpu.JoinInner, xpu.JoinLeft}, []bool{true, false}, 500, 20, true)
	key, over := int64(5), jpatest.Overflow
	star.Inners[0][0] = jpatest.Inner{Key: &key, Pay: &over} // rows matching it are RECHECK
	pages, _ := star.Pages(70)
	c := dialJoin(t, s)
	c.success("open", star.Program(fusedPlan).Message(1))
	for d := range star.Types {
		rows := star.Rows(d)
		n := uint32(len(rows) / jpatest.RowSize)
		if st := c.loadPiece(uint32(2+d), protocol.JoinInnerRequest{PlanID: fusedPlan, Depth: uint32(d), RowSize: jpatest.RowSize,
			NRows: n, PieceRows: n, Rows: rows}); st != protocol.JoinInnerLoaded {
			t.Fatalf("depth %d: state %d", d, st)
		}
	}
	r, items, err := xpu.DecodeChunkResult(c.success("chunk", xputest.ChunkMessage(5, 8, pages)))
	if err != nil || r.NTuples != 500 || int(r.NRecheck) != len(items) {
		t.Fatalf("chunk: %+v, %d items, %v", r, len(items), err)
	}
	var recheck []uint32
	for _, it := range items {
		recheck = append(recheck, it&^xpu.ItemRecheck)
	}
	replies := c.request(protocol.EncodeRequest(protocol.TagTaskFinal, 6, nil))
	got := map[string]jpatest.Group{}
	for _, m := range replies[:len(replies)-1] {
		g, entries, err := xpu.DecodePreAggGroups(m)
		if err != nil {
			t.Fatal(err)
		}
		part, err := star.Decode(entries, g.EntrySize)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range part {
			got[k] = v
		}
	}
	want, wantRecheck := star.Reference()
	if err := jpatest.Compare(got, want); err != nil || len(want) == 0 {
		t.Fatalf("groups over the socket: %v (%d groups)", err, len(want))
	}
	if len(recheck) != len(wantRecheck) || len(recheck) == 0 {
		t.Fatalf("%d RECHECK rows, want %d (> 0)", len(recheck), len(wantRecheck))
	}
	for i := range recheck {
		if recheck[i] != wantRecheck[i] {
			t.Fatalf("RECHECK rows %x, want %x", recheck, wantRecheck)
		}
	}
	waitEmpty(t, e)
}

// waitEmpty waits until the executor holds no query buffer and no pool
// memory (a closed connection's sessions are closed by the server).
func waitEmpty(t *testing.T, e *Executor) {
	t.Helper()
	waitFor := time.Now().Add(5 * time.Second)
	for e.tables.Len() != 0 || e.pool.Stats().Used != 0 {
		if time.Now().After(waitFor) {
			t.Fatalf("%d query buffers and %d pool bytes left", e.tables.Len(), e.pool.Stats().Used)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Malformed fused sessions and their requests get a protocol Error and the
// connection closed, never a crash; a good session works afterwards.
func TestFusedJoinPreAggMalformedOverTheSocket(t *testing.T) {
	e, _ := testExecutor(t)
	s := startJoinServer(t, e)
	star := jpatest.Random(rand.New(rand.NewSource(12)), []xpu.JoinType{xpu.JoinInner, xpu.JoinLeft}, nil, 100, 10, false)
	good := star.Program(fusedPlan).Message(1)
	rows0 := star.Rows(0)
	n0 := uint32(len(rows0) / jpatest.RowSize)
	piece := protocol.EncodeJoinInner(2, protocol.JoinInnerRequest{PlanID: fusedPlan, RowSize: jpatest.RowSize, NRows: n0, PieceRows: n0, Rows: rows0})
	badPay := append([]byte(nil), rows0...)
	badPay[16] = 7 // a payload NULL flag xpu_key_store never writes
	pages, _ := star.Pages(70)
	cases := []struct {
		name     string
		session  []byte
		requests [][]byte // all but the last must succeed
	}{
		{"chunk before the load", good, [][]byte{xputest.ChunkMessage(2, 1, pages)}},
		{"chunk with depth 1 not loaded", good, [][]byte{piece, xputest.ChunkMessage(3, 1, pages)}},
		{"bad payload slot", good, [][]byte{protocol.EncodeJoinInner(2, protocol.JoinInnerRequest{PlanID: fusedPlan, RowSize: jpatest.RowSize,
			NRows: n0, PieceRows: n0, Rows: badPay})}},
		{"row size without the payload", good, [][]byte{protocol.EncodeJoinInner(2, protocol.JoinInnerRequest{PlanID: fusedPlan, RowSize: 16,
			NRows: n0, PieceRows: n0, Rows: rows0[:16*n0]})}},
	}
	for _, c := range cases {
		j := dialJoin(t, s)
		j.success(c.name+": open", c.session)
		for i, r := range c.requests[:len(c.requests)-1] {
			j.success(c.name+": request "+string(rune('0'+i)), r)
		}
		j.expectProtocolError(c.name, c.requests[len(c.requests)-1])
	}
	for i, msg := range fusedSeeds()[1:] {
		if i == 5 || i == 14 { // fusedSeeds 6 and 15: valid sessions
			continue
		}
		j := dialJoin(t, s)
		j.expectProtocolError("malformed fused session", msg)
	}
	waitEmpty(t, e)
	j := dialJoin(t, s)
	j.success("open", good)
	j.success("a good piece after the bad ones", piece)
}
