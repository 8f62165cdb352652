package hostexec

import (
	"math/rand"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/pgstrom-go/pg_strom/gosvc/join/jointest"
	"github.com/pgstrom-go/pg_strom/gosvc/kinds"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/server"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// startJoinServer serves the host executor e on a socket.
func startJoinServer(t *testing.T, e *Executor) *server.Server {
	t.Helper()
	s, err := server.New(server.Config{
		SocketPath: server.SocketPath(t.TempDir(), 4244, 0),
		Workers:    3,
		Pool:       e.pool,
		Executor:   e,
		Kinds:      kinds.All(),
		Logger:     zerolog.Nop(),
	})
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

type joinClient struct {
	t *testing.T
	c net.Conn
}

func dialJoin(t *testing.T, s *server.Server) *joinClient {
	t.Helper()
	c, err := net.Dial("unix", s.SocketPath())
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { c.Close() })
	return &joinClient{t: t, c: c}
}

// request sends msg and returns every reply to it, the last one ending it.
func (j *joinClient) request(msg []byte) [][]byte {
	j.t.Helper()
	if _, err := j.c.Write(msg); err != nil {
		j.t.Fatalf("write: %v", err)
	}
	var replies [][]byte
	for {
		m, h, err := protocol.ReadMessage(j.c, protocol.MaxLength)
		if err != nil {
			j.t.Fatalf("read a reply: %v", err)
		}
		replies = append(replies, m)
		if h.Tag != protocol.TagSuccessHalfway {
			return replies
		}
	}
}

// expectProtocolError sends msg, expects a protocol Error and the
// connection closed after it.
func (j *joinClient) expectProtocolError(what string, msg []byte) {
	j.t.Helper()
	r := j.request(msg)
	e, err := protocol.DecodeError(r[len(r)-1])
	if err != nil || e.Code != protocol.ErrCodeProtocol {
		j.t.Fatalf("%s: reply %v (%v), want a protocol Error", what, e, err)
	}
	if _, _, err := protocol.ReadMessage(j.c, protocol.MaxLength); err == nil {
		j.t.Fatalf("%s: the connection stayed open", what)
	}
}

func (j *joinClient) success(what string, msg []byte) []byte {
	j.t.Helper()
	r := j.request(msg)
	if h, _ := protocol.DecodeHeader(r[len(r)-1]); h.Tag != protocol.TagSuccess {
		e, _ := protocol.DecodeError(r[len(r)-1])
		j.t.Fatalf("%s: %s %+v", what, h.Tag, e)
	}
	return r[len(r)-1]
}

func (j *joinClient) loadPiece(id uint32, r protocol.JoinInnerRequest) uint32 {
	j.t.Helper()
	rep, err := protocol.DecodeJoinInnerReply(j.success("join inner", protocol.EncodeJoinInner(id, r)))
	if err != nil {
		j.t.Fatal(err)
	}
	return rep.State
}

// The whole exchange over the socket: OpenSession, JOIN_INNER pieces,
// a chunk answered over several replies, TaskFinal; the pool is empty
// afterwards.
func TestGpuJoinOverTheSocket(t *testing.T) {
	e, _ := testExecutor(t)
	e.joinCapacity = 50
	s := startJoinServer(t, e)
	d := jointest.Random(rand.New(rand.NewSource(9)), 400, 50, 20)
	pages, _ := d.Pages(200)
	rows0, rows1 := d.Rows0(), d.Rows1()
	c := dialJoin(t, s)
	c.success("open", xputest.JoinProgram(joinPlan, 0, xpu.JoinLeft, true).Message(1))
	if st := c.loadPiece(2, protocol.JoinInnerRequest{PlanID: joinPlan, RowSize: 16, NRows: 50, PieceRows: 30, Rows: rows0[:480]}); st != protocol.JoinInnerMore {
		t.Fatalf("state %d", st)
	}
	if st := c.loadPiece(3, protocol.JoinInnerRequest{PlanID: joinPlan, RowSize: 16, NRows: 50, FirstRow: 30, PieceRows: 20, Rows: rows0[480:]}); st != protocol.JoinInnerLoaded {
		t.Fatalf("state %d", st)
	}
	if st := c.loadPiece(4, protocol.JoinInnerRequest{PlanID: joinPlan, Depth: 1, RowSize: 64, NRows: 20, PieceRows: 20, Rows: rows1}); st != protocol.JoinInnerLoaded {
		t.Fatalf("state %d", st)
	}
	replies := c.request(xputest.ChunkMessage(5, 8, pages))
	var words []uint32
	var ntuples uint32
	for i, m := range replies {
		r, w, err := xpu.DecodeChunkRecords(m, 3)
		if err != nil || r.ChunkID != 8 || r.NItems > 50 {
			t.Fatalf("reply %d: %+v %v", i, r, err)
		}
		words, ntuples = append(words, w...), ntuples+r.NTuples
	}
	want := d.NestedLoop(0, xpu.JoinLeft, true)
	if got := jointest.Split(words, 3); !slices.EqualFunc(got, want, slices.Equal[[]uint32]) || ntuples != 400 || len(replies) < len(want)/50 {
		t.Fatalf("%d records over %d replies (%d tuples), want %d", len(got), len(replies), ntuples, len(want))
	}
	c.success("final", protocol.EncodeRequest(protocol.TagTaskFinal, 6, nil))
	if e.tables.Len() != 0 {
		t.Fatalf("%d inner buffers left after TaskFinal", e.tables.Len())
	}
}

// Malformed JOIN_INNER messages and JOIN_INNER where it does not belong
// get a protocol Error and the connection closed; the service goes on.
func TestGpuJoinInnerMalformedOverTheSocket(t *testing.T) {
	e, _ := testExecutor(t)
	s := startJoinServer(t, e)
	rows := make([]byte, 16*4)
	good := protocol.JoinInnerRequest{PlanID: joinPlan, RowSize: 16, NRows: 4, PieceRows: 4, Rows: rows}
	msg := protocol.EncodeJoinInner(2, good)
	mut := func(r func(*protocol.JoinInnerRequest)) []byte {
		g := good
		r(&g)
		return protocol.EncodeJoinInner(2, g)
	}
	joinSession := xputest.JoinProgram(joinPlan, 0, xpu.JoinInner, false).Message(1)
	scanSession := func() []byte {
		b := xputest.New()
		b.Attr(4, 4, true, xpu.TypeInt4)
		b.Op(xpu.OpGt, xpu.TypeBool, b.Var(0, xpu.TypeInt4), b.ConstInt4(3))
		return b.Message(1)
	}()
	cases := []struct {
		name    string
		session []byte
		msg     []byte
	}{
		{"no session", nil, msg},
		{"GpuScan session", scanSession, msg},
		{"rows_offset misaligned", joinSession, xputest.PutU32(msg, protocol.OffJoinInnerRowsOffset, 72)},
		{"rows_offset past the end", joinSession, xputest.PutU32(msg, protocol.OffJoinInnerRowsOffset, 4000)},
		{"rows_offset in the header", joinSession, xputest.PutU32(msg, protocol.OffJoinInnerRowsOffset, 16)},
		{"message cut", joinSession, func() []byte {
			m := msg[:len(msg)-16]
			return xputest.PutU32(m, 8, uint32(len(m)))
		}()},
		{"piece past nrows", joinSession, mut(func(r *protocol.JoinInnerRequest) { r.NRows = 3 })},
		{"piece of 64MB+", joinSession, mut(func(r *protocol.JoinInnerRequest) { r.RowSize, r.PieceRows, r.NRows = 4096, 16385, 16385 })},
		{"row size 0", joinSession, mut(func(r *protocol.JoinInnerRequest) { r.RowSize = 0 })},
		{"nrows 2^31", joinSession, mut(func(r *protocol.JoinInnerRequest) { r.NRows = 1 << 31 })},
		{"empty piece of a non-empty depth", joinSession, mut(func(r *protocol.JoinInnerRequest) { r.PieceRows, r.Rows = 0, nil })},
		{"other plan", joinSession, mut(func(r *protocol.JoinInnerRequest) { r.PlanID = 1 })},
		{"depth 3", joinSession, mut(func(r *protocol.JoinInnerRequest) { r.Depth = 3 })},
		{"row size of another depth", joinSession, mut(func(r *protocol.JoinInnerRequest) { r.RowSize, r.PieceRows = 32, 2 })},
		{"bad row", joinSession, mut(func(r *protocol.JoinInnerRequest) { r.Rows = append([]byte{3}, rows[1:]...) })},
		{"chunk before the load", joinSession, xputest.ChunkMessage(2, 1, make([]byte, xpu.BlockSize))},
	}
	for _, c := range cases {
		j := dialJoin(t, s)
		if c.session != nil {
			j.success(c.name+": open", c.session)
		}
		j.expectProtocolError(c.name, c.msg)
	}
	waitFor := time.Now().Add(5 * time.Second)
	for e.tables.Len() != 0 || e.pool.Stats().Used != 0 {
		if time.Now().After(waitFor) {
			t.Fatalf("%d inner buffers and %d pool bytes left after the connections closed", e.tables.Len(), e.pool.Stats().Used)
		}
		time.Sleep(10 * time.Millisecond)
	}
	j := dialJoin(t, s)
	j.success("open", joinSession)
	if st := j.loadPiece(2, good); st != protocol.JoinInnerLoaded {
		t.Fatalf("a good piece after the bad ones: state %d", st)
	}
}

// Pieces sent back to back, before any reply is read, are taken in the
// order they were sent, though the service runs a connection's requests
// on several workers.
func TestGpuJoinPipelinedPieces(t *testing.T) {
	e, _ := testExecutor(t)
	s := startJoinServer(t, e)
	d := jointest.Random(rand.New(rand.NewSource(10)), 300, 64, 0)
	rows := d.Rows0()
	for round := 0; round < 20; round++ {
		c := dialJoin(t, s)
		c.success("open", xputest.JoinProgram(joinPlan, 0, xpu.JoinInner, false).Message(1))
		var stream []byte
		for i := 0; i < 8; i++ {
			stream = append(stream, protocol.EncodeJoinInner(uint32(10+i), protocol.JoinInnerRequest{PlanID: joinPlan, RowSize: 16, NRows: 64,
				FirstRow: uint32(8 * i), PieceRows: 8, Rows: rows[128*i : 128*(i+1)]})...)
		}
		if _, err := c.c.Write(stream); err != nil {
			t.Fatal(err)
		}
		states := map[uint32]uint32{}
		for i := 0; i < 8; i++ {
			m, h, err := protocol.ReadMessage(c.c, protocol.MaxLength)
			if err != nil {
				t.Fatalf("round %d: reply %d: %v", round, i, err)
			}
			r, err := protocol.DecodeJoinInnerReply(m)
			if err != nil {
				e, _ := protocol.DecodeError(m)
				t.Fatalf("round %d: request %d: %+v", round, h.RequestID, e)
			}
			states[h.RequestID] = r.State
		}
		if states[17] != protocol.JoinInnerLoaded || states[10] != protocol.JoinInnerMore {
			t.Fatalf("round %d: states %v", round, states)
		}
		c.success("final", protocol.EncodeRequest(protocol.TagTaskFinal, 30, nil))
	}
}
