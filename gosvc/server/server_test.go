package server

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/pgstrom-go/pg_strom/gosvc/mempool"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
)

// fakePool reports fixed statistics, or panics when told to, standing in for
// a device memory pool.
type fakePool struct{ panicking atomic.Bool }

var fakeStats = mempool.Stats{Used: 1 << 20, Total: 1 << 30, Limit: 8 << 30, Keep: 1 << 29, Segments: 1}

func (p *fakePool) Stats() mempool.Stats {
	if p.panicking.Load() {
		panic("fake pool exploded")
	}
	return fakeStats
}

func startServer(t *testing.T, workers int) (*Server, *fakePool) {
	t.Helper()
	pool := &fakePool{}
	s, err := New(Config{
		SocketPath:  SocketPath(t.TempDir(), 4242, 3),
		DeviceIndex: 3,
		Workers:     workers,
		Pool:        pool,
		Logger:      zerolog.New(zerolog.NewTestWriter(t)),
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, pool
}

func dial(t *testing.T, s *Server) net.Conn {
	t.Helper()
	c, err := net.Dial("unix", s.SocketPath())
	if err != nil {
		t.Fatalf("dial %s: %v", s.SocketPath(), err)
	}
	t.Cleanup(func() { c.Close() })
	// a bound on a hung test, not a timing: loaded 2-core machines took over 10 s to drain one 8 MB chunk
	c.SetDeadline(time.Now().Add(60 * time.Second))
	return c
}

// roundTrip sends msg and reads one reply.
func roundTrip(t *testing.T, c net.Conn, msg []byte) ([]byte, protocol.Header) {
	t.Helper()
	if _, err := c.Write(msg); err != nil {
		t.Fatalf("write: %v", err)
	}
	reply, h, err := protocol.ReadMessage(c, 0)
	if err != nil {
		t.Fatalf("read reply: %v", err)
	}
	return reply, h
}

func expectError(t *testing.T, c net.Conn, msg []byte, wantCode int32) protocol.ErrorReply {
	t.Helper()
	reply, h := roundTrip(t, c, msg)
	if h.Tag != protocol.TagError {
		t.Fatalf("reply tag %s, want Error", h.Tag)
	}
	e, err := protocol.DecodeError(reply)
	if err != nil {
		t.Fatalf("decode error reply: %v", err)
	}
	if e.Code != wantCode {
		t.Fatalf("error code %d (%q), want %d", e.Code, e.Message, wantCode)
	}
	return e
}

func expectClosed(t *testing.T, c net.Conn) {
	t.Helper()
	if _, _, err := protocol.ReadMessage(c, 0); !errors.Is(err, io.EOF) {
		t.Fatalf("after the error reply: read = %v, want EOF (connection closed)", err)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestSocketPath(t *testing.T) {
	if got, want := SocketPath("/pgdata", 123, 2), "/pgdata/.pg_strom.123.gpu2.sock"; got != want {
		t.Fatalf("SocketPath = %q, want %q", got, want)
	}
}

func TestSocketModeIs0600(t *testing.T) {
	s, _ := startServer(t, 1)
	st, err := os.Stat(s.SocketPath())
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Type() != os.ModeSocket || st.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v, want socket with 0600", st.Mode())
	}
}

func TestConcurrentStatus(t *testing.T) {
	const clients = 32
	s, _ := startServer(t, 4)
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func(id uint32) {
			defer wg.Done()
			c, err := net.Dial("unix", s.SocketPath())
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := c.Write(protocol.EncodeRequest(protocol.TagStatus, id, nil)); err != nil {
				errs <- err
				return
			}
			reply, h, err := protocol.ReadMessage(c, 0)
			if err != nil {
				errs <- err
				return
			}
			if h.Tag != protocol.TagSuccess || h.RequestID != id {
				errs <- errors.New("wrong reply header: " + h.Tag.String())
				return
			}
			st, err := protocol.DecodeStatusReply(reply)
			if err != nil {
				errs <- err
				return
			}
			if st.DeviceIndex != 3 || st.Workers != 4 || st.Connections < 1 ||
				st.PoolUsed != fakeStats.Used || st.PoolTotal != fakeStats.Total || st.PoolLimit != fakeStats.Limit {
				errs <- errors.New("wrong status reply")
				t.Logf("bad status reply: %+v", st)
			}
		}(uint32(1000 + i))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// A worker counts a request after its reply is written, so the count can
	// trail the last client's read by a moment.
	waitFor(t, "RequestsServed to reach the client count", func() bool { return s.Stats().RequestsServed == clients })
	waitFor(t, "connections to drop to 0", func() bool { return s.Stats().Connections == 0 })
}

func TestPipelinedRequestsOnOneConnection(t *testing.T) {
	const n = 200
	s, _ := startServer(t, 8)
	c := dial(t, s)
	var batch []byte
	for i := uint32(1); i <= n; i++ {
		batch = append(batch, protocol.EncodeRequest(protocol.TagStatus, i, nil)...)
	}
	if _, err := c.Write(batch); err != nil {
		t.Fatal(err)
	}
	seen := make(map[uint32]bool)
	for i := 0; i < n; i++ {
		_, h, err := protocol.ReadMessage(c, 0)
		if err != nil {
			t.Fatalf("reply %d: %v", i, err)
		}
		if h.Tag != protocol.TagSuccess || seen[h.RequestID] {
			t.Fatalf("reply %d: tag %s id %d (duplicate=%v)", i, h.Tag, h.RequestID, seen[h.RequestID])
		}
		seen[h.RequestID] = true
	}
	if len(seen) != n {
		t.Fatalf("got %d distinct replies, want %d", len(seen), n)
	}
}

func TestMalformedMessageGetsErrorAndClose(t *testing.T) {
	s, _ := startServer(t, 2)
	good := dial(t, s)
	bad := dial(t, s)

	garbage := make([]byte, protocol.HeaderSize)
	copy(garbage, "not a pg_strom header")
	expectError(t, bad, garbage, protocol.ErrCodeProtocol)
	expectClosed(t, bad)

	// Status with a payload is malformed too (the header is fine).
	bad2 := dial(t, s)
	e := expectError(t, bad2, protocol.EncodeRequest(protocol.TagStatus, 77, []byte{1, 2, 3}), protocol.ErrCodeProtocol)
	if e.Message == "" || e.File == "" || e.Line == 0 {
		t.Fatalf("error reply lacks message or position: %+v", e)
	}
	expectClosed(t, bad2)

	// The other client is unaffected.
	_, h := roundTrip(t, good, protocol.EncodeRequest(protocol.TagStatus, 5, nil))
	if h.Tag != protocol.TagSuccess || h.RequestID != 5 {
		t.Fatalf("good client got tag %s id %d", h.Tag, h.RequestID)
	}
}

func TestUnsupportedRequestGetsErrorAndClose(t *testing.T) {
	s, _ := startServer(t, 1)
	c := dial(t, s)
	reply, h := roundTrip(t, c, protocol.EncodeRequest(protocol.TagOpenSession, 9, []byte("session")))
	if h.Tag != protocol.TagError || h.RequestID != 9 {
		t.Fatalf("reply tag %s id %d, want Error for request 9", h.Tag, h.RequestID)
	}
	e, err := protocol.DecodeError(reply)
	if err != nil || e.Code != protocol.ErrCodeUnsupported {
		t.Fatalf("error reply %+v (%v), want code %d", e, err, protocol.ErrCodeUnsupported)
	}
	expectClosed(t, c)
}

func TestPanicInHandlerIsRecovered(t *testing.T) {
	s, pool := startServer(t, 2)
	c := dial(t, s)
	pool.panicking.Store(true)
	e := expectError(t, c, protocol.EncodeRequest(protocol.TagStatus, 1, nil), protocol.ErrCodeInternal)
	if e.Message == "" {
		t.Fatal("internal error reply has no message")
	}
	expectClosed(t, c)

	pool.panicking.Store(false)
	c2 := dial(t, s)
	if _, h := roundTrip(t, c2, protocol.EncodeRequest(protocol.TagStatus, 2, nil)); h.Tag != protocol.TagSuccess {
		t.Fatalf("after a recovered panic: reply tag %s, want Success", h.Tag)
	}
	if got := s.Stats().Workers; got != 2 {
		t.Fatalf("workers after panic = %d, want 2 (the panicking worker must survive)", got)
	}
}

func TestSetWorkersGrowsAndShrinks(t *testing.T) {
	s, _ := startServer(t, 3)
	if got := s.Stats().Workers; got != 3 {
		t.Fatalf("initial workers = %d, want 3", got)
	}
	s.SetWorkers(16)
	if got := s.Stats().Workers; got != 16 {
		t.Fatalf("after grow: workers = %d, want 16", got)
	}
	s.SetWorkers(2)
	waitFor(t, "workers to shrink to 2", func() bool { return s.Stats().Workers == 2 })
	s.SetWorkers(0)
	waitFor(t, "workers clamped to 1", func() bool { return s.Stats().Workers == MinWorkers })
	s.SetWorkers(100000)
	if got := s.Stats().Workers; got != MaxWorkers {
		t.Fatalf("workers = %d, want clamp to %d", got, MaxWorkers)
	}
	s.SetWorkers(4)
	waitFor(t, "workers to shrink to 4", func() bool { return s.Stats().Workers == 4 })

	// The resized pool still serves.
	c := dial(t, s)
	reply, _ := roundTrip(t, c, protocol.EncodeRequest(protocol.TagStatus, 1, nil))
	st, err := protocol.DecodeStatusReply(reply)
	if err != nil || st.Workers != 4 {
		t.Fatalf("status after resize: %+v, %v; want 4 workers", st, err)
	}
}

func TestCloseRemovesSocketAndDisconnects(t *testing.T) {
	s, _ := startServer(t, 2)
	c := dial(t, s)
	if _, h := roundTrip(t, c, protocol.EncodeRequest(protocol.TagStatus, 1, nil)); h.Tag != protocol.TagSuccess {
		t.Fatal("no Success before close")
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := os.Lstat(s.SocketPath()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket file after Close: %v, want not-exist", err)
	}
	expectClosed(t, c)
	if st := s.Stats(); st.Workers != 0 || st.Connections != 0 {
		t.Fatalf("after Close: %+v, want no workers and no connections", st)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestStaleSocketIsReplaced(t *testing.T) {
	path := SocketPath(t.TempDir(), 1, 0)
	// A socket file left behind by a dead service: bound, never unlinked.
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: path}); err != nil {
		t.Fatal(err)
	}
	unix.Close(fd)
	if _, err := net.Dial("unix", path); err == nil {
		t.Fatal("stale socket accepted a connection; test setup is wrong")
	}

	s, err := New(Config{SocketPath: path, Workers: 1, Pool: &fakePool{}, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatalf("New over a stale socket: %v", err)
	}
	defer s.Close()
	c := dial(t, s)
	if _, h := roundTrip(t, c, protocol.EncodeRequest(protocol.TagStatus, 1, nil)); h.Tag != protocol.TagSuccess {
		t.Fatalf("reply tag %s, want Success", h.Tag)
	}
}

func TestRefusesToReplaceNonSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "regular")
	if err := os.WriteFile(path, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := New(Config{SocketPath: path, Workers: 1, Pool: &fakePool{}, Logger: zerolog.Nop()}); err == nil {
		t.Fatal("New replaced a regular file")
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "keep me" {
		t.Fatalf("regular file changed: %q, %v", b, err)
	}
}

func TestSocketPathTooLong(t *testing.T) {
	long := filepath.Join(t.TempDir(), string(make([]byte, 0))+"x")
	for len(long) <= maxSunPath {
		long += "x"
	}
	if _, err := New(Config{SocketPath: long, Workers: 1, Pool: &fakePool{}, Logger: zerolog.Nop()}); err == nil {
		t.Fatal("New accepted a socket path longer than sun_path")
	}
}
