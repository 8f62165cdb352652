package server

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// startLimitedServer is startExecServer with cfg's bounds.
func startLimitedServer(t *testing.T, workers int, ex *fakeExecutor, cfg Config) *Server {
	t.Helper()
	cfg.SocketPath = SocketPath(t.TempDir(), 4242, 0)
	cfg.Workers = workers
	cfg.Pool = &fakePool{}
	if ex != nil {
		cfg.Executor, cfg.Kinds = ex, testKinds
	}
	cfg.Logger = zerolog.New(zerolog.NewTestWriter(t))
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// headerOnly is a message header claiming length bytes, without its body.
func headerOnly(tag protocol.Tag, id, length uint32) []byte {
	h := protocol.EncodeRequest(tag, id, nil)
	binary.LittleEndian.PutUint32(h[8:], length) // PgStromMsgHeader.length
	if d, err := protocol.DecodeHeader(h); err != nil || d.Length != length {
		panic("headerOnly: the length is not where the test thinks")
	}
	return h
}

// statusWithin sends a Status on a fresh connection and fails unless the
// reply comes within limit.
func statusWithin(t *testing.T, s *Server, limit time.Duration) {
	t.Helper()
	c := dial(t, s)
	defer c.Close()
	start := time.Now()
	_, h := roundTrip(t, c, protocol.EncodeRequest(protocol.TagStatus, 99, nil))
	if took := time.Since(start); h.Tag != protocol.TagSuccess || took > limit {
		t.Fatalf("Status answered %s after %v, want Success within %v", h.Tag, took, limit)
	}
}

// A client that pipelines more than its replies fit in the socket and
// never reads does not hold the workers: another client's Status is
// answered at once.
func TestNonReadingClientDoesNotDelayStatus(t *testing.T) {
	s := startLimitedServer(t, 2, &fakeExecutor{}, Config{})
	hog := dial(t, s)
	var batch []byte
	for i := uint32(1); i <= 20000; i++ { // ~2MB of replies, far past the socket buffers
		batch = append(batch, protocol.EncodeRequest(protocol.TagStatus, i, nil)...)
	}
	go hog.Write(batch) // blocks once the service stops reading it
	waitFor(t, "the hog to fill its in-flight bound", func() bool {
		return s.RequestsServedOf() >= DefaultMaxInflight
	})
	time.Sleep(200 * time.Millisecond) // the hog's writer is stuck in write by now
	for i := 0; i < 5; i++ {
		statusWithin(t, s, time.Second)
	}
}

// RequestsServedOf is Stats().RequestsServed, for waitFor.
func (s *Server) RequestsServedOf() uint64 { return s.Stats().RequestsServed }

// A connection pipelining hundreds of slow chunks does not delay another
// connection's Status: the queue is served round robin.
func TestPipelinedChunksDoNotDelayStatus(t *testing.T) {
	ex := &fakeExecutor{execDelay: 50 * time.Millisecond}
	s := startLimitedServer(t, 2, ex, Config{MaxInflight: 256})
	hog := dial(t, s)
	expectSuccess(t, hog, sessionMsg(1))
	var batch []byte
	for i := uint32(2); i < 300; i++ {
		batch = append(batch, chunkMsg(i, i, 1)...)
	}
	go hog.Write(batch)
	waitFor(t, "chunks to queue up", func() bool { return s.Stats().Queued >= 100 })
	for i := 0; i < 5; i++ {
		statusWithin(t, s, time.Second)
	}
	if q := s.Stats().Queued; q < 50 {
		t.Fatalf("only %d chunks still queued: the test did not measure a backlog", q)
	}
}

// Clients that send only a header (or part of one) commit no memory for
// the lengths they claim, and are dropped after the message deadline.
func TestHeaderOnlyClientsAreBoundedAndDropped(t *testing.T) {
	const timeout = 300 * time.Millisecond
	s := startLimitedServer(t, 2, &fakeExecutor{}, Config{MessageTimeout: timeout})
	var clients []net.Conn
	for i := 0; i < 4; i++ {
		c := dial(t, s)
		if _, err := c.Write(headerOnly(protocol.TagTaskExec, uint32(i+1), uint32(xpu.MaxTaskExecLength))); err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
	}
	sess := dial(t, s)
	sess.Write(headerOnly(protocol.TagOpenSession, 1, MaxSessionLength))
	half := dial(t, s)
	half.Write(protocol.EncodeRequest(protocol.TagStatus, 1, nil)[:10])
	clients = append(clients, sess, half)
	waitFor(t, "the headers to be read", func() bool { return s.Stats().BodyReserved > 0 })
	time.Sleep(timeout / 3)
	// at most the first piece of each body before its bytes arrive
	if st := s.Stats(); st.BodyBytes > int64(len(clients)*firstPiece) || st.BodyReserved > DefaultBodyBudget+DefaultBodyBudget/smallBudgetShare {
		t.Fatalf("after header-only clients: %d body bytes allocated, %d reserved; want <= %d and <= %d",
			st.BodyBytes, st.BodyReserved, len(clients)*firstPiece, DefaultBodyBudget)
	}
	// Meanwhile others are served.
	statusWithin(t, s, time.Second)

	start := time.Now()
	for i, c := range clients {
		c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, _, err := protocol.ReadMessage(c, 0); !errors.Is(err, io.EOF) {
			t.Fatalf("header-only client %d: read = %v, want EOF (dropped)", i, err)
		}
	}
	if took := time.Since(start); took > 8*timeout+2*time.Second {
		t.Fatalf("dropping the header-only clients took %v", took)
	}
	waitFor(t, "the dropped clients to be forgotten", func() bool {
		st := s.Stats()
		return st.Connections == 0 && st.BodyBytes == 0 && st.BodyReserved == 0
	})
	if d := s.Stats().Dropped; d != uint64(len(clients)) {
		t.Fatalf("%d connections dropped for a deadline, want %d", d, len(clients))
	}
}

// A TaskExec header that claims more than the largest valid chunk is
// refused at once, before any memory is committed to it.
func TestTaskExecLongerThanAnyChunkRefused(t *testing.T) {
	s := startLimitedServer(t, 2, &fakeExecutor{}, Config{})
	for _, n := range []uint32{uint32(xpu.MaxTaskExecLength) + 1, protocol.MaxLength} {
		c := dial(t, s)
		e := expectError(t, c, headerOnly(protocol.TagTaskExec, 1, n), protocol.ErrCodeProtocol)
		if !strings.Contains(e.Message, "at most") {
			t.Fatalf("TaskExec of %d bytes refused with %q, want the bound named", n, e.Message)
		}
	}
	if st := s.Stats(); st.BodyReserved != 0 || st.BodyBytes != 0 {
		t.Fatalf("after the refusals: %d bytes reserved, %d allocated; want none", st.BodyReserved, st.BodyBytes)
	}
}

// A body that keeps arriving is read whole, though it takes longer than
// MessageTimeout without a pause as long.
func TestBodyInPiecesIsReceived(t *testing.T) {
	const timeout = 300 * time.Millisecond
	s := startLimitedServer(t, 2, &fakeExecutor{}, Config{MessageTimeout: timeout})
	c := dial(t, s)
	expectSuccess(t, c, sessionMsg(1))
	msg := chunkMsg(2, 2, 4)
	third := len(msg) / 3
	for off := 0; off < len(msg); off += third {
		if off > 0 {
			time.Sleep(timeout / 4)
		}
		c.Write(msg[off:min(len(msg), off+third)])
	}
	if _, h, err := protocol.ReadMessage(c, 0); err != nil || h.Tag != protocol.TagSuccess {
		t.Fatalf("chunk sent in pieces: %s, %v", h.Tag, err)
	}
}

// Status, TaskFinal and LinkProbe carry their exact length; OpenSession
// is capped (answered Unsupported: the backend runs the node on the CPU).
func TestLengthCappedByTag(t *testing.T) {
	s := startLimitedServer(t, 2, &fakeExecutor{}, Config{})
	c := dial(t, s)
	expectError(t, c, headerOnly(protocol.TagStatus, 1, 1<<30), protocol.ErrCodeProtocol)
	expectClosed(t, c)
	c = dial(t, s)
	expectError(t, c, headerOnly(protocol.TagOpenSession, 1, MaxSessionLength+1), protocol.ErrCodeUnsupported)
	expectClosed(t, c)
	if st := s.Stats(); st.BodyBytes != 0 {
		t.Fatalf("%d body bytes allocated for refused headers", st.BodyBytes)
	}
}

// Past MaxConnections a client gets an Error reply and is closed; the
// connections already open are served, and a slot freed is taken again.
func TestConnectionCap(t *testing.T) {
	s := startLimitedServer(t, 2, nil, Config{MaxConnections: 3})
	var open []net.Conn
	for i := 0; i < 3; i++ {
		c := dial(t, s)
		roundTrip(t, c, protocol.EncodeRequest(protocol.TagStatus, 1, nil))
		open = append(open, c)
	}
	over := dial(t, s)
	reply, h, err := protocol.ReadMessage(over, 0)
	if err != nil || h.Tag != protocol.TagError {
		t.Fatalf("over the cap: %s, %v; want an Error reply", h.Tag, err)
	}
	if e, _ := protocol.DecodeError(reply); e.Code != protocol.ErrCodeUnsupported {
		t.Fatalf("over the cap: code %d (%q), want Unsupported", e.Code, e.Message)
	}
	expectClosed(t, over)
	if st := s.Stats(); st.Refused != 1 || st.Connections != 3 {
		t.Fatalf("stats %+v, want 1 refused and 3 connections", st)
	}
	for _, c := range open {
		if _, h := roundTrip(t, c, protocol.EncodeRequest(protocol.TagStatus, 2, nil)); h.Tag != protocol.TagSuccess {
			t.Fatalf("an open connection got %s", h.Tag)
		}
	}
	open[0].Close()
	waitFor(t, "a connection to go", func() bool { return s.Stats().Connections == 2 })
	c := dial(t, s)
	if _, h := roundTrip(t, c, protocol.EncodeRequest(protocol.TagStatus, 3, nil)); h.Tag != protocol.TagSuccess {
		t.Fatalf("after a slot was freed: %s", h.Tag)
	}
}

// The commands a closed connection left queued are not executed; the one
// running finishes, and the session is closed on the device.
func TestClosedConnectionQueuedCommandsAreDropped(t *testing.T) {
	ex := &fakeExecutor{execDelay: 100 * time.Millisecond}
	s := startLimitedServer(t, 1, ex, Config{MaxInflight: 64})
	c := dial(t, s)
	expectSuccess(t, c, sessionMsg(1))
	var batch []byte
	for i := uint32(2); i < 42; i++ {
		batch = append(batch, chunkMsg(i, i, 1)...)
	}
	if _, err := c.Write(batch); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the chunks to queue", func() bool { return s.Stats().Queued >= 30 })
	c.Close()
	waitFor(t, "the connection and its queue to go", func() bool {
		st := s.Stats()
		return st.Connections == 0 && st.Queued == 0
	})
	waitFor(t, "the session to close", func() bool { return ex.open.Load() == 0 })
	time.Sleep(300 * time.Millisecond)
	if n := ex.execs.Load(); n > 3 {
		t.Fatalf("%d of 40 chunks executed after their connection closed, want at most the running ones", n)
	}
	if st := s.Stats(); st.BodyBytes != 0 || st.BodyReserved != 0 {
		t.Fatalf("bodies still held: %+v", st)
	}
	statusWithin(t, s, time.Second)
}

// A connection with an open session is never timed out between messages
// (an idle cursor); one without a session and with nothing in flight is.
func TestIdleDeadlineSparesOpenSessions(t *testing.T) {
	const idle = 200 * time.Millisecond
	s := startLimitedServer(t, 2, &fakeExecutor{}, Config{IdleTimeout: idle, MessageTimeout: idle})
	cursor := dial(t, s)
	expectSuccess(t, cursor, sessionMsg(1))
	quiet := dial(t, s)
	roundTrip(t, quiet, protocol.EncodeRequest(protocol.TagStatus, 1, nil))
	time.Sleep(4 * idle)
	expectClosed(t, quiet)
	expectSuccess(t, cursor, chunkMsg(2, 1, 2))
	time.Sleep(4 * idle)
	expectSuccess(t, cursor, chunkMsg(3, 2, 2))
	expectSuccess(t, cursor, protocol.EncodeRequest(protocol.TagTaskFinal, 4, nil))
}

func TestBudgetIsFirstComeFirstServed(t *testing.T) {
	b := newBudget(10)
	never := make(chan struct{})
	if !b.acquire(8, never, never) {
		t.Fatal("first acquire")
	}
	got := make(chan int, 2)
	go func() { b.acquire(5, never, never); got <- 5 }()
	waitFor(t, "the first waiter", func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.waiters) == 1 })
	go func() { b.acquire(1, never, never); got <- 1 }()
	waitFor(t, "the second waiter", func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.waiters) == 2 })
	cancel := make(chan struct{})
	res := make(chan bool)
	go func() { res <- b.acquire(3, cancel, never) }()
	waitFor(t, "the third waiter", func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.waiters) == 3 })
	close(cancel)
	if <-res {
		t.Fatal("a cancelled acquire succeeded")
	}
	select {
	case n := <-got:
		t.Fatalf("%d granted ahead of the waiter before it", n)
	case <-time.After(50 * time.Millisecond):
	}
	b.release(3) // 5 free: the head only
	if n := <-got; n != 5 {
		t.Fatalf("granted %d first, want 5", n)
	}
	b.release(1)
	if n := <-got; n != 1 {
		t.Fatalf("granted %d second, want 1", n)
	}
	if r := b.reserved(); r != 10 {
		t.Fatalf("reserved %d, want 10", r)
	}
}
