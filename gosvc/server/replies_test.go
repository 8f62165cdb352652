package server

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/scan"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// pairs are items of another shape than positions: 8 bytes each, as a
// join's (outer, inner) rows would be.
type pairs [][2]uint32

func (p pairs) Count() int { return len(p) }
func (p pairs) Size() int  { return 8 * len(p) }
func (p pairs) Put(dst []byte) {
	for i, v := range p {
		binary.LittleEndian.PutUint32(dst[8*i:], v[0])
		binary.LittleEndian.PutUint32(dst[8*i+4:], v[1])
	}
}

// badItems claim a count and a size that a reply cannot carry.
type badItems struct{ count, size int }

func (b badItems) Count() int   { return b.count }
func (b badItems) Size() int    { return b.size }
func (b badItems) Put(_ []byte) {}

// badPayload claims a length that a reply cannot carry.
type badPayload int

func (b badPayload) Len() int     { return int(b) }
func (b badPayload) Put(_ []byte) {}

// multiExecutor makes test kind sessions that answer chunk c with
// c.NBlocks+2 parts of 400 pairs, the last one as the SUCCESS, and send
// two results at TaskFinal; mode makes them misbehave.
type multiExecutor struct {
	mu      sync.Mutex
	mode    string
	lateErr error // what a sink kept past its Exec answered
}

func (m *multiExecutor) Name() string { return "multi device" }

func (m *multiExecutor) PrepareTest(_ []byte, _ *xpu.Program) (nodekind.Session, error) {
	return &multiSession{ex: m}, nil
}

type multiSession struct {
	ex   *multiExecutor
	kept nodekind.ChunkSink // the sink of an earlier Exec
}

// part is part i of chunk c's results: 400 pairs (i, j).
func part(c xpu.Chunk, i int) xpu.ChunkReply {
	p := make(pairs, 400)
	for j := range p {
		p[j] = [2]uint32{c.ChunkID*1000 + uint32(i), uint32(j)}
	}
	return xpu.ChunkReply{Result: xpu.ChunkResult{NTuples: uint32(i)}, Items: p}
}

func (s *multiSession) Exec(c xpu.Chunk, _ nodekind.Pages, out nodekind.ChunkSink) (xpu.ChunkReply, error) {
	// Exec of two chunks of one session may run at once: s.kept is the
	// executor's mutex's too.
	s.ex.mu.Lock()
	mode := s.ex.mode
	if mode == "late" && s.kept != nil {
		s.ex.lateErr = s.kept.Halfway(part(c, 99))
	}
	s.kept = out
	s.ex.mu.Unlock()
	switch mode {
	case "oversized":
		out.Halfway(xpu.ChunkReply{Items: badItems{1, int(protocol.MaxLength)}}) // error ignored: the server remembers
	case "negative count":
		if err := out.Halfway(xpu.ChunkReply{Items: badItems{-1, 0}}); err == nil {
			return xpu.ChunkReply{}, errors.New("a negative item count was sent")
		}
	case "fail after halfway":
		if err := out.Halfway(part(c, 0)); err != nil {
			return xpu.ChunkReply{}, err
		}
		return xpu.ChunkReply{}, errors.New("CUDA_ERROR_LAUNCH_FAILED")
	}
	n := int(c.NBlocks) + 2
	for i := 0; i < n-1; i++ {
		if err := out.Halfway(part(c, i)); err != nil {
			return xpu.ChunkReply{}, err
		}
	}
	return part(c, n-1), nil
}

func (s *multiSession) Final(out nodekind.FinalSink) error {
	for _, r := range []string{"result one", "result two"} {
		if err := out.Halfway(protocol.Bytes(r)); err != nil {
			return err
		}
	}
	return nil
}

func (s *multiSession) Close() error { return nil }

// requestReplies sends msg and reads the replies of its request: any
// SuccessHalfway, then the Success or Error that ends it.
func requestReplies(t *testing.T, c net.Conn, msg []byte) [][]byte {
	t.Helper()
	if _, err := c.Write(msg); err != nil {
		t.Fatal(err)
	}
	id := binary.LittleEndian.Uint32(msg[12:])
	var out [][]byte
	for {
		reply, h, err := protocol.ReadMessage(c, 0)
		if err != nil {
			t.Fatalf("request %d: after %d replies: %v", id, len(out), err)
		}
		if h.RequestID != id {
			t.Fatalf("request %d: a reply of request %d (%s)", id, h.RequestID, h.Tag)
		}
		out = append(out, reply)
		if h.Tag != protocol.TagSuccessHalfway {
			return out
		}
	}
}

// errorCase is a request that a session in mode answers with halfways
// SuccessHalfway replies, then an Error of code whose message has substr.
type errorCase struct {
	mode     string
	halfways int
	code     int32
	substr   string
}

// check checks the replies of the request.
func (tc errorCase) check(t *testing.T, replies [][]byte) {
	t.Helper()
	if len(replies) != tc.halfways+1 {
		t.Fatalf("%s: %d replies, want %d SuccessHalfway then the Error", tc.mode, len(replies), tc.halfways)
	}
	last := replies[len(replies)-1]
	h, err := protocol.DecodeHeader(last)
	if err != nil || h.Tag != protocol.TagError {
		t.Fatalf("%s: last reply %+v (%v), want Error %d", tc.mode, h, err, tc.code)
	}
	e, err := protocol.DecodeError(last)
	if err != nil || e.Code != tc.code || !strings.Contains(e.Message, tc.substr) {
		t.Fatalf("%s: error %+v (%v), want code %d containing %q", tc.mode, e, err, tc.code, tc.substr)
	}
}

// checkParts checks the replies of chunk chunkID: nblocks+1 SuccessHalfway
// then a Success, part i with its 400 pairs, chunk_id set by the server.
func checkParts(t *testing.T, replies [][]byte, chunkID uint32, nblocks int) {
	t.Helper()
	if len(replies) != nblocks+2 {
		t.Fatalf("chunk %d: %d replies, want %d", chunkID, len(replies), nblocks+2)
	}
	for i, m := range replies {
		h, _ := protocol.DecodeHeader(m)
		wantTag := protocol.TagSuccessHalfway
		if i == len(replies)-1 {
			wantTag = protocol.TagSuccess
		}
		p := m[protocol.HeaderSize:]
		le := binary.LittleEndian
		if h.Tag != wantTag || len(p) != xpu.ChunkResultSize+400*8 || le.Uint32(p) != chunkID ||
			le.Uint32(p[4:]) != 400 || le.Uint32(p[8:]) != uint32(i) {
			t.Fatalf("chunk %d: reply %d is %s of %d bytes, chunk_id %d nitems %d ntuples %d",
				chunkID, i, h.Tag, len(p), le.Uint32(p), le.Uint32(p[4:]), le.Uint32(p[8:]))
		}
		last := p[xpu.ChunkResultSize+399*8:]
		if le.Uint32(last) != chunkID*1000+uint32(i) || le.Uint32(last[4:]) != 399 {
			t.Fatalf("chunk %d: reply %d ends with pair (%d, %d)", chunkID, i, le.Uint32(last), le.Uint32(last[4:]))
		}
	}
}

// TestKindSendsSeveralRepliesPerChunk: a registered kind answers each
// chunk with several SuccessHalfway replies and a Success, of items that
// are neither positions nor bounded by the chunk (1,200 pairs for one
// page), and sends results at TaskFinal, end to end through the server.
func TestKindSendsSeveralRepliesPerChunk(t *testing.T) {
	s := startExecServer(t, 2, &multiExecutor{})
	c := dial(t, s)
	expectSuccess(t, c, testSessionMsg(1))
	checkParts(t, requestReplies(t, c, chunkMsg(2, 5, 1)), 5, 1)

	// Two chunks at once: the replies of each request come in order,
	// whatever interleaving the workers make.
	if _, err := c.Write(append(chunkMsg(3, 6, 2), chunkMsg(4, 7, 3)...)); err != nil {
		t.Fatal(err)
	}
	byRequest := map[uint32][][]byte{}
	for done := 0; done < 2; {
		reply, h, err := protocol.ReadMessage(c, 0)
		if err != nil {
			t.Fatal(err)
		}
		byRequest[h.RequestID] = append(byRequest[h.RequestID], reply)
		if h.Tag == protocol.TagSuccess {
			done++
		}
	}
	checkParts(t, byRequest[3], 6, 2)
	checkParts(t, byRequest[4], 7, 3)

	replies := requestReplies(t, c, protocol.EncodeRequest(protocol.TagTaskFinal, 5, nil))
	var got []string
	for _, m := range replies {
		h, _ := protocol.DecodeHeader(m)
		got = append(got, fmt.Sprintf("%s %q", h.Tag, m[protocol.HeaderSize:]))
	}
	want := `[SuccessHalfway "result one" SuccessHalfway "result two" Success ""]`
	if fmt.Sprint(got) != want {
		t.Fatalf("TaskFinal replies %s, want %s", got, want)
	}
}

// TestUnknownKind: OpenSession of a kind nobody registered is a protocol
// error that names the kinds there are, and closes the connection; a kind
// the executor has no primitives for is answered Unsupported, and the
// connection stays open.
func TestUnknownKind(t *testing.T) {
	s := startExecServer(t, 2, &fakeExecutor{})
	c := dial(t, s)
	e := expectError(t, c, kindSessionMsg(1, 99), protocol.ErrCodeProtocol)
	if want := "kind 99; this service runs 1 (GpuScan), 2 (GpuPreAgg), 32343 (TestKind)"; !strings.Contains(e.Message, want) {
		t.Fatalf("error %q lacks %q", e.Message, want)
	}
	if _, _, err := protocol.ReadMessage(c, 0); !errors.Is(err, io.EOF) {
		t.Fatalf("after an unknown kind: %v, want the connection closed", err)
	}

	c = dial(t, s)
	e = expectError(t, c, testSessionMsg(1), protocol.ErrCodeUnsupported)
	if want := "fake device cannot run TestKind sessions"; !strings.Contains(e.Message, want) {
		t.Fatalf("error %q lacks %q", e.Message, want)
	}
	expectSuccess(t, c, sessionMsg(2)) // a GpuScan session, which the fake runs
	expectSuccess(t, c, chunkMsg(3, 1, 1))
}

// TestMalformedReplies: a session whose replies cannot be framed gets an
// Error reply for the request (after what it sent well), never a crash or
// a desynchronized connection, which then serves the next chunk; a sink
// kept past its Exec sends nothing.
func TestMalformedReplies(t *testing.T) {
	ex := &multiExecutor{}
	s := startExecServer(t, 2, ex)
	c := dial(t, s)
	expectSuccess(t, c, testSessionMsg(1))
	id := uint32(2)
	cases := []errorCase{
		// the session goes on after the bad part: its good parts go out
		{"oversized", 2, protocol.ErrCodeInternal, "malformed reply: SuccessHalfway payload of"},
		{"negative count", 2, protocol.ErrCodeInternal, "-1 items do not fit"},
		{"fail after halfway", 1, protocol.ErrCodeDevice, "CUDA_ERROR_LAUNCH_FAILED"},
	}
	for _, tc := range cases {
		ex.mu.Lock()
		ex.mode = tc.mode
		ex.mu.Unlock()
		tc.check(t, requestReplies(t, c, chunkMsg(id, id, 1)))
		id++
	}
	// The session kept the last sink; with "late" it sends through it
	// during the next chunk: refused, and not on the wire.
	ex.mu.Lock()
	ex.mode = "late"
	ex.mu.Unlock()
	checkParts(t, requestReplies(t, c, chunkMsg(id, id, 1)), id, 1)
	ex.mu.Lock()
	lateErr := ex.lateErr
	ex.mu.Unlock()
	if !errors.Is(lateErr, protocol.ErrBadReply) || !strings.Contains(lateErr.Error(), "after the request was answered") {
		t.Fatalf("a reply through a sink kept past its Exec: %v, want ErrBadReply", lateErr)
	}
	expectSuccess(t, c, protocol.EncodeRequest(protocol.TagStatus, id+1, nil))
}

// overflowExecutor's GpuScan returns one row more than the chunk holds.
type overflowExecutor struct{ fakeExecutor }

type overflowProgram struct{ scan.Program }

func (o *overflowExecutor) PrepareScan(msg []byte, p *xpu.Program) (scan.Program, error) {
	prog, err := o.fakeExecutor.PrepareScan(msg, p)
	return overflowProgram{prog}, err
}

func (overflowProgram) Scan(c xpu.Chunk, _ nodekind.Pages) (xpu.ChunkResult, []uint32, error) {
	return xpu.ChunkResult{}, make([]uint32, c.ItemsCapacity()+1), nil
}

// TestScanItemsBoundedByChunk: the GpuScan kind, not the server, bounds a
// chunk's rows by what the chunk can hold.
func TestScanItemsBoundedByChunk(t *testing.T) {
	s := startExecServer(t, 2, &overflowExecutor{})
	c := dial(t, s)
	expectSuccess(t, c, sessionMsg(1))
	e := expectError(t, c, chunkMsg(2, 4, 1), protocol.ErrCodeInternal)
	if want := fmt.Sprintf("chunk 4: %d items, more than the %d rows", xpu.MaxTuplesPerPage+1, xpu.MaxTuplesPerPage); !strings.Contains(e.Message, want) {
		t.Fatalf("error %q lacks %q", e.Message, want)
	}
	expectSuccess(t, c, protocol.EncodeRequest(protocol.TagStatus, 3, nil))
}
