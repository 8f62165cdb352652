package server

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/pgstrom-go/pg_strom/gosvc/mempool"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/scan"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// fakeExecutor evaluates nothing: Exec answers one item per block (line
// pointer 1, RECHECK on odd blocks) so the plumbing can be checked.
type fakeExecutor struct {
	errMu        sync.Mutex // the test changes the errors between requests
	prepareErr   error
	execErr      error
	prepareDelay time.Duration
	execDelay    time.Duration
	open         atomic.Int32 // prepared and not closed
	prepared     atomic.Int32
	execs        atomic.Int32
	running      atomic.Int32 // Exec calls in progress
	maxRunning   atomic.Int32
	mu           sync.Mutex
	sessionBytes [][]byte
	onExec       func(xpu.Chunk, nodekind.Pages) error // set before the server starts
}

var _ scan.Primitives = (*fakeExecutor)(nil)

func (f *fakeExecutor) Name() string { return "fake device" }

func (f *fakeExecutor) errors(which *error) error {
	f.errMu.Lock()
	defer f.errMu.Unlock()
	return *which
}

func (f *fakeExecutor) setErr(which *error, err error) {
	f.errMu.Lock()
	defer f.errMu.Unlock()
	*which = err
}

type fakePrepared struct {
	ex     *fakeExecutor
	closed atomic.Bool
}

// PrepareScan makes GpuScan sessions of the fake.
func (f *fakeExecutor) PrepareScan(msg []byte, p *xpu.Program) (scan.Program, error) {
	time.Sleep(f.prepareDelay)
	if err := f.errors(&f.prepareErr); err != nil {
		return nil, err
	}
	if p == nil || len(p.Nodes) == 0 || p.Nodes[p.Root].Restype != xpu.TypeBool {
		return nil, errors.New("fake: Prepare got an unvalidated program")
	}
	f.mu.Lock()
	f.sessionBytes = append(f.sessionBytes, msg)
	f.mu.Unlock()
	f.prepared.Add(1)
	f.open.Add(1)
	return &fakePrepared{ex: f}, nil
}

func (p *fakePrepared) Scan(c xpu.Chunk, pages nodekind.Pages) (xpu.ChunkResult, []uint32, error) {
	f := p.ex
	if p.closed.Load() {
		return xpu.ChunkResult{}, nil, errors.New("fake: Exec after Close")
	}
	n := f.running.Add(1)
	defer f.running.Add(-1)
	for {
		m := f.maxRunning.Load()
		if n <= m || f.maxRunning.CompareAndSwap(m, n) {
			break
		}
	}
	time.Sleep(f.execDelay)
	f.execs.Add(1)
	if err := f.errors(&f.execErr); err != nil {
		return xpu.ChunkResult{}, nil, err
	}
	if err := pages.Check(c); err != nil {
		return xpu.ChunkResult{}, nil, fmt.Errorf("fake: %w", err)
	}
	if f.onExec != nil {
		if err := f.onExec(c, pages); err != nil {
			return xpu.ChunkResult{}, nil, err
		}
	}
	var items []uint32
	res := xpu.ChunkResult{NTuples: c.NBlocks, GpuTimeNs: 1234}
	for b := 0; b < int(c.NBlocks); b++ {
		items = append(items, xputest.Item(b, 1, b%2 == 1))
		if b%2 == 1 {
			res.NRecheck++
		}
	}
	return res, items, nil
}

func (p *fakePrepared) Close() error {
	if p.closed.Swap(true) {
		return errors.New("fake: double Close")
	}
	p.ex.open.Add(-1)
	return nil
}

func startExecServer(t *testing.T, workers int, ex nodekind.Executor) *Server {
	t.Helper()
	return startSharedServer(t, workers, ex, 0)
}

// startSharedServer is startExecServer with nbuffers shared buffers
// registered for zero-copy chunks.
func startSharedServer(t *testing.T, workers int, ex nodekind.Executor, nbuffers uint32) *Server {
	t.Helper()
	s, err := New(Config{
		SocketPath:    SocketPath(t.TempDir(), 4242, 0),
		Workers:       workers,
		Pool:          &fakePool{},
		Executor:      ex,
		Kinds:         testKinds,
		SharedBuffers: nbuffers,
		// these tests time no client: a message slowed by -race and a busy
		// machine must not be taken for a stalled one (fairness_test.go
		// tests the production bound)
		MessageTimeout: time.Minute,
		Logger:         zerolog.New(zerolog.NewTestWriter(t)),
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// sessionMsg is a GpuScan session of a one-qual program.
func sessionMsg(id uint32) []byte { return kindSessionMsg(id, xpu.KindGpuScan) }

// kindSessionMsg is sessionMsg's program in a session of kind.
func kindSessionMsg(id, kind uint32) []byte {
	b := xputest.New()
	b.Kind = kind
	b.Attr(4, 4, true, xpu.TypeInt4)
	b.Op(xpu.OpGt, xpu.TypeBool, b.Var(0, xpu.TypeInt4), b.ConstInt4(10))
	return b.Message(id)
}

func chunkMsg(id, chunkID uint32, nblocks int) []byte {
	return xputest.ChunkMessage(id, chunkID, make([]byte, nblocks*xpu.BlockSize))
}

func expectSuccess(t *testing.T, c net.Conn, msg []byte) []byte {
	t.Helper()
	reply, h := roundTrip(t, c, msg)
	if h.Tag != protocol.TagSuccess {
		e, _ := protocol.DecodeError(reply)
		t.Fatalf("reply %s (%+v), want Success", h.Tag, e)
	}
	return reply
}

func TestSessionLifecycle(t *testing.T) {
	ex := &fakeExecutor{}
	s := startExecServer(t, 4, ex)
	c := dial(t, s)
	open := sessionMsg(1)
	if reply := expectSuccess(t, c, open); len(reply) != protocol.HeaderSize {
		t.Fatalf("OpenSession reply has %d bytes, want an empty Success", len(reply))
	}
	ex.mu.Lock()
	if len(ex.sessionBytes) != 1 || string(ex.sessionBytes[0]) != string(open) {
		t.Fatal("Prepare did not get the whole OpenSession message")
	}
	ex.mu.Unlock()

	reply := expectSuccess(t, c, chunkMsg(2, 99, 3))
	res, items, err := xpu.DecodeChunkResult(reply)
	if err != nil {
		t.Fatal(err)
	}
	want := []uint32{xputest.Item(0, 1, false), xputest.Item(1, 1, true), xputest.Item(2, 1, false)}
	if res.ChunkID != 99 || res.NItems != 3 || res.NTuples != 3 || res.NRecheck != 1 || res.GpuTimeNs != 1234 ||
		fmt.Sprint(items) != fmt.Sprint(want) {
		t.Fatalf("result %+v items %v, want chunk 99 and %v", res, items, want)
	}
	if ex.open.Load() != 1 {
		t.Fatalf("%d sessions open before TaskFinal", ex.open.Load())
	}
	expectSuccess(t, c, protocol.EncodeRequest(protocol.TagTaskFinal, 3, nil))
	if ex.open.Load() != 0 {
		t.Fatal("TaskFinal answered before the session was released")
	}
	// After TaskFinal a new session can be opened on the same connection.
	expectSuccess(t, c, sessionMsg(4))
	if ex.prepared.Load() != 2 || ex.open.Load() != 1 {
		t.Fatalf("prepared %d, open %d; want a second session", ex.prepared.Load(), ex.open.Load())
	}
	c.Close()
	waitFor(t, "the disconnect to release the session", func() bool { return ex.open.Load() == 0 })
}

func TestSessionProtocolErrorsClose(t *testing.T) {
	ex := &fakeExecutor{}
	s := startExecServer(t, 2, ex)
	badProg := xputest.PutU32(sessionMsg(1), xpu.OffSessRoot, 7)
	cases := []struct {
		name   string
		setup  [][]byte
		msg    []byte
		substr string
	}{
		{"exec without session", nil, chunkMsg(5, 1, 1), "TaskExec without an open session"},
		{"final without session", nil, protocol.EncodeRequest(protocol.TagTaskFinal, 5, nil), "TaskFinal without an open session"},
		{"invalid program", nil, badProg, "root is node 7"},
		{"second open", [][]byte{sessionMsg(1)}, sessionMsg(5), "session is open"},
		{"bad chunk", [][]byte{sessionMsg(1)}, xputest.PutU32(chunkMsg(5, 1, 1), xpu.OffChunkNBlocks, 2), "2 pages at offset"},
		{"exec after final", [][]byte{sessionMsg(1), protocol.EncodeRequest(protocol.TagTaskFinal, 2, nil)}, chunkMsg(5, 1, 1), "without an open session"},
	}
	for _, tc := range cases {
		c := dial(t, s)
		for _, m := range tc.setup {
			expectSuccess(t, c, m)
		}
		e := expectError(t, c, tc.msg, protocol.ErrCodeProtocol)
		if !strings.Contains(e.Message, tc.substr) {
			t.Errorf("%s: error %q lacks %q", tc.name, e.Message, tc.substr)
		}
		expectClosed(t, c)
	}
	waitFor(t, "every session to be released", func() bool { return ex.open.Load() == 0 })
}

func TestSessionDeviceErrorsKeepConnection(t *testing.T) {
	ex := &fakeExecutor{prepareErr: fmt.Errorf("upload: %w", mempool.ErrExhausted)}
	s := startExecServer(t, 2, ex)
	c := dial(t, s)
	expectError(t, c, sessionMsg(1), protocol.ErrCodeNoMemory)
	// The failed session answers its tasks with a device error and can be
	// replaced by a new OpenSession on the same connection.
	e := expectError(t, c, chunkMsg(2, 1, 1), protocol.ErrCodeDevice)
	if !strings.Contains(e.Message, "could not be opened") {
		t.Fatalf("task of a failed session: %q", e.Message)
	}
	ex.setErr(&ex.prepareErr, nil)
	ex.setErr(&ex.execErr, errors.New("CUDA_ERROR_LAUNCH_FAILED"))
	expectSuccess(t, c, sessionMsg(3))
	e = expectError(t, c, chunkMsg(4, 1, 1), protocol.ErrCodeDevice)
	if !strings.Contains(e.Message, "CUDA_ERROR_LAUNCH_FAILED") {
		t.Fatalf("device error message %q", e.Message)
	}
	ex.setErr(&ex.execErr, xpu.ErrBadProgram)
	expectError(t, c, chunkMsg(5, 1, 1), protocol.ErrCodeInternal)
	ex.setErr(&ex.execErr, nil)
	expectSuccess(t, c, chunkMsg(6, 1, 1))
	ex.setErr(&ex.execErr, xpu.ErrBadPage) // the client's data: protocol error, closed
	expectError(t, c, chunkMsg(7, 1, 1), protocol.ErrCodeProtocol)
	expectClosed(t, c)
	waitFor(t, "the session to be released", func() bool { return ex.open.Load() == 0 })
}

func TestNoExecutorIsUnsupported(t *testing.T) {
	s := startExecServer(t, 1, nil)
	c := dial(t, s)
	expectError(t, c, sessionMsg(1), protocol.ErrCodeUnsupported)
	expectClosed(t, c)
}

// TestPipelinedSessionTasks sends OpenSession, many TaskExecs and TaskFinal
// without waiting: tasks run concurrently on several workers, wait for the
// slow Prepare, and TaskFinal waits for all of them.
func TestPipelinedSessionTasks(t *testing.T) {
	const tasks = 64
	ex := &fakeExecutor{prepareDelay: 50 * time.Millisecond, execDelay: 5 * time.Millisecond}
	s := startExecServer(t, 8, ex)
	c := dial(t, s)
	batch := sessionMsg(1)
	for i := 0; i < tasks; i++ {
		batch = append(batch, chunkMsg(uint32(100+i), uint32(1000+i), 1+i%4)...)
	}
	batch = append(batch, protocol.EncodeRequest(protocol.TagTaskFinal, 2, nil)...)
	if _, err := c.Write(batch); err != nil {
		t.Fatal(err)
	}
	seen := map[uint32]bool{}
	finalSeen := false
	for i := 0; i < tasks+2; i++ {
		reply, h, err := protocol.ReadMessage(c, 0)
		if err != nil {
			t.Fatalf("reply %d: %v", i, err)
		}
		if h.Tag != protocol.TagSuccess || seen[h.RequestID] {
			t.Fatalf("reply %d: tag %s id %d", i, h.Tag, h.RequestID)
		}
		seen[h.RequestID] = true
		switch {
		case h.RequestID == 2:
			finalSeen = true
			if ex.open.Load() != 0 || ex.execs.Load() != tasks {
				t.Fatalf("TaskFinal answered with %d sessions open after %d execs", ex.open.Load(), ex.execs.Load())
			}
		case h.RequestID >= 100:
			if finalSeen {
				t.Fatalf("task %d answered after TaskFinal", h.RequestID)
			}
			res, items, err := xpu.DecodeChunkResult(reply)
			n := 1 + int(h.RequestID-100)%4
			if err != nil || res.ChunkID != h.RequestID+900 || len(items) != n {
				t.Fatalf("task %d: %+v %d items, %v", h.RequestID, res, len(items), err)
			}
		}
	}
	if ex.maxRunning.Load() < 2 {
		t.Errorf("at most %d tasks ran at once; want concurrency across workers", ex.maxRunning.Load())
	}
}

// TestDisconnectWithTasksInFlight closes the client while tasks run: the
// session is released once the last of them is done, exactly once.
func TestDisconnectWithTasksInFlight(t *testing.T) {
	ex := &fakeExecutor{execDelay: 20 * time.Millisecond}
	s := startExecServer(t, 4, ex)
	c := dial(t, s)
	expectSuccess(t, c, sessionMsg(1))
	var batch []byte
	for i := 0; i < 16; i++ {
		batch = append(batch, chunkMsg(uint32(10+i), uint32(i), 1)...)
	}
	c.Write(batch)
	time.Sleep(10 * time.Millisecond)
	c.Close()
	waitFor(t, "the session to be released after the disconnect", func() bool { return ex.open.Load() == 0 })
	if ex.prepared.Load() != 1 {
		t.Fatalf("prepared %d sessions", ex.prepared.Load())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCloseReleasesSessions closes the server with sessions open and tasks
// queued.
func TestCloseReleasesSessions(t *testing.T) {
	ex := &fakeExecutor{execDelay: 10 * time.Millisecond}
	s := startExecServer(t, 1, ex)
	for i := 0; i < 3; i++ {
		c := dial(t, s)
		expectSuccess(t, c, sessionMsg(1))
		var batch []byte
		for j := 0; j < 20; j++ {
			batch = append(batch, chunkMsg(uint32(10+j), uint32(j), 1)...)
		}
		c.Write(batch)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := ex.open.Load(); n != 0 {
		t.Fatalf("%d sessions still open after Close", n)
	}
}
