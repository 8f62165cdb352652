package server

import (
	"bytes"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// No request carries a descriptor any more (ATTACH_BUFFER, the memfd
// shared chunk buffers, is gone), and the receiver reads with plain
// read(2).  These tests check that a client that still passes descriptors
// (SCM_RIGHTS) cannot leak them into the service, and that ATTACH_BUFFER
// and TaskExec chunks naming an attached buffer get a clear protocol Error
// and close the connection.

// openFds counts this process's open descriptors.
func openFds(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents) - 1 // ReadDir's own descriptor
}

// sendWithFds writes msg with fds as SCM_RIGHTS on its first bytes; the
// caller keeps its own copies of the descriptors.
func sendWithFds(t *testing.T, c net.Conn, msg []byte, fds ...int) {
	t.Helper()
	n, oobn, err := c.(*net.UnixConn).WriteMsgUnix(msg, unix.UnixRights(fds...), nil)
	if err != nil || oobn == 0 {
		t.Fatalf("sendmsg: %d/%d bytes, %d bytes of ancillary data, %v", n, len(msg), oobn, err)
	}
	if n < len(msg) { // a large message may go out in parts
		if _, err := c.Write(msg[n:]); err != nil {
			t.Fatalf("write: %v", err)
		}
	}
}

// strayFds makes descriptors a client might pass: a memfd made without
// MFD_ALLOW_SEALING (a shrunk reproduction of that kind under the service's
// mapping) and the write end of a pipe.  pipeClosedEverywhere tells whether
// every copy of that write end is closed, in this process (which is also
// the service) and in any socket queue, once the test has closed its own.
type strayFds struct {
	memfd, pipeR, pipeW int
}

func newStrayFds(t *testing.T) *strayFds {
	t.Helper()
	memfd, err := unix.MemfdCreate("pg_strom-stray", unix.MFD_CLOEXEC)
	if err != nil {
		t.Fatalf("memfd_create: %v", err)
	}
	if err := unix.Ftruncate(memfd, 1<<16); err != nil {
		t.Fatal(err)
	}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		t.Fatal(err)
	}
	s := &strayFds{memfd: memfd, pipeR: p[0], pipeW: p[1]}
	t.Cleanup(func() {
		for _, fd := range []int{s.memfd, s.pipeR, s.pipeW} {
			if fd >= 0 {
				unix.Close(fd)
			}
		}
	})
	return s
}

func (s *strayFds) fds() []int { return []int{s.memfd, s.pipeW} }

// closeOwn closes the test's copies of what it passed.
func (s *strayFds) closeOwn() {
	unix.Close(s.memfd)
	unix.Close(s.pipeW)
	s.memfd, s.pipeW = -1, -1
}

// pipeClosedEverywhere: a non-blocking read of the pipe returns 0 (end of
// file) only when no write end is open anywhere, EAGAIN while one is.
func (s *strayFds) pipeClosedEverywhere(t *testing.T) bool {
	t.Helper()
	var b [1]byte
	n, err := unix.Read(s.pipeR, b[:])
	switch {
	case err == nil && n == 0:
		return true
	case err == unix.EAGAIN:
		return false
	}
	t.Fatalf("read of the pipe: %d, %v", n, err)
	return false
}

// TestKernelClosesUnreadDescriptors checks what the receiver relies on:
// on a Linux stream socket, descriptors that come with bytes consumed by
// read(2) (no ancillary buffer) are closed by the kernel, never installed
// in the reader's table; so are those left in the queue of a socket that
// is closed unread.
func TestKernelClosesUnreadDescriptors(t *testing.T) {
	for _, tc := range []struct {
		name string
		read func(t *testing.T, f *os.File, n int)
	}{
		{"whole message", func(t *testing.T, f *os.File, n int) {
			b := make([]byte, n)
			if m, err := f.Read(b); err != nil || m != n {
				t.Fatalf("read %d of %d bytes: %v", m, n, err)
			}
		}},
		{"first bytes only", func(t *testing.T, f *os.File, n int) {
			b := make([]byte, 3)
			if m, err := f.Read(b); err != nil || m != 3 {
				t.Fatalf("read %d of 3 bytes: %v", m, err)
			}
		}},
		{"socket closed unread", func(t *testing.T, f *os.File, n int) { f.Close() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sv, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(sv[0])
			rd := os.NewFile(uintptr(sv[1]), "receiver")
			defer rd.Close()
			stray := newStrayFds(t)
			before := openFds(t)
			msg := bytes.Repeat([]byte{7}, 100)
			if err := unix.Sendmsg(sv[0], msg, unix.UnixRights(stray.fds()...), nil, 0); err != nil {
				t.Fatalf("sendmsg: %v", err)
			}
			tc.read(t, rd, len(msg))
			after := openFds(t)
			if tc.name == "socket closed unread" {
				after++ // the receiver itself
			}
			if after != before {
				t.Fatalf("%d descriptors open after the read, %d before", after, before)
			}
			stray.closeOwn()
			if !stray.pipeClosedEverywhere(t) {
				t.Fatal("the pipe's write end is still open somewhere after the read")
			}
		})
	}
}

// TestAttachBufferRejected: ATTACH_BUFFER, with or without a descriptor,
// before or after a session, is answered with a protocol Error that says
// shared chunk buffers are gone, and the connection is closed; nothing it
// carried stays open in the service, even if the client shrinks its memfd
// (which killed the service with SIGBUS when it mapped them).
func TestAttachBufferRejected(t *testing.T) {
	attach := protocol.EncodeRequest(protocol.TagRetiredAttachBuffer, 5, make([]byte, 16))
	for _, tc := range []struct {
		name    string
		fds     bool
		session bool
	}{
		{"with a memfd", true, false},
		{"without a descriptor", false, false},
		{"with a memfd in a session", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex := &fakeExecutor{}
			s := startExecServer(t, 2, ex)
			stray := newStrayFds(t)
			c := dial(t, s)
			expectSuccess(t, c, protocol.EncodeRequest(protocol.TagStatus, 1, nil))
			before := openFds(t)
			if tc.session {
				expectSuccess(t, c, sessionMsg(2))
				expectSuccess(t, c, chunkMsg(3, 1, 2))
			}
			if tc.fds {
				sendWithFds(t, c, attach, stray.fds()...)
				if err := unix.Ftruncate(stray.memfd, 0); err != nil { // shrink it under the service
					t.Fatal(err)
				}
			} else if _, err := c.Write(attach); err != nil {
				t.Fatal(err)
			}
			reply, h, err := protocol.ReadMessage(c, 0)
			if err != nil {
				t.Fatalf("reply to AttachBuffer: %v", err)
			}
			expectErrorReply(t, reply, h, protocol.ErrCodeProtocol, "AttachBuffer (tag 5) is no longer supported")
			expectClosed(t, c)
			waitFor(t, "the connection to be dropped", func() bool { return s.Stats().Connections == 0 })
			c.Close()
			if n := openFds(t); n != before-2 { // the client's and the service's ends
				t.Fatalf("%d descriptors open after the connection closed, %d before (with the connection)", n, before)
			}
			stray.closeOwn()
			if !stray.pipeClosedEverywhere(t) {
				t.Fatal("the service kept the pipe's write end")
			}
			// The service goes on serving.
			expectSuccess(t, dial(t, s), protocol.EncodeRequest(protocol.TagStatus, 9, nil))
		})
	}
}

// TestRetiredBufferIDRejected: a TaskExec whose buffer_id is neither 0
// (pages inline) nor XPU_BUFFER_SHARED named an attached buffer; it is a
// protocol Error that closes the connection, and no executor sees it.
func TestRetiredBufferIDRejected(t *testing.T) {
	bare := protocol.NewMessage(protocol.TagTaskExec, 3, xpu.ChunkEnd-protocol.HeaderSize)
	bare = xputest.PutU32(bare, xpu.OffChunkNBlocks, 2)
	for _, tc := range []struct {
		name string
		id   uint32
		msg  []byte
	}{
		{"buffer 1, no pages (an old client)", 1, xputest.PutU32(bare, xpu.OffChunkBufferID, 1)},
		{"buffer 16, inline pages", 16, xputest.PutU32(chunkMsg(3, 7, 1), xpu.OffChunkBufferID, 16)},
		{"buffer 0xfffffffd", xpu.BufferDirect - 1, xputest.PutU32(bare, xpu.OffChunkBufferID, xpu.BufferDirect-1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex := &fakeExecutor{}
			s := startSharedServer(t, 2, ex, 8)
			stray := newStrayFds(t)
			c := dial(t, s)
			expectSuccess(t, c, sessionMsg(1))
			expectSuccess(t, c, chunkMsg(2, 1, 1))
			before := openFds(t)
			sendWithFds(t, c, tc.msg, stray.fds()...)
			reply, h, err := protocol.ReadMessage(c, 0)
			if err != nil {
				t.Fatalf("reply: %v", err)
			}
			if h.RequestID != 3 {
				t.Errorf("error reply for request %d, want 3", h.RequestID)
			}
			expectErrorReply(t, reply, h, protocol.ErrCodeProtocol, "is not supported: shared chunk buffers (ATTACH_BUFFER) were removed")
			expectErrorReply(t, reply, h, protocol.ErrCodeProtocol, "buffer_id "+strconv.FormatUint(uint64(tc.id), 10))
			expectClosed(t, c)
			if n := ex.execs.Load(); n != 1 {
				t.Errorf("%d Exec calls, want 1 (the inline chunk only)", n)
			}
			waitFor(t, "the connection to be dropped", func() bool { return s.Stats().Connections == 0 && ex.open.Load() == 0 })
			c.Close()
			if n := openFds(t); n != before-2 {
				t.Fatalf("%d descriptors open after the connection closed, %d before (with the connection)", n, before)
			}
			stray.closeOwn()
			if !stray.pipeClosedEverywhere(t) {
				t.Fatal("the service kept the pipe's write end")
			}
		})
	}
}

// TestDescriptorsWithRequestsAreDropped: descriptors passed with ordinary
// requests (more than the old reader's cap of 32) do not disturb them and
// never open in the service: OpenSession, Status, small inline chunks, a
// large inline chunk received into lent (pinned) memory and a zero-copy
// chunk all succeed, with the right pages, and the descriptor count stays
// where it was after every reply.
func TestDescriptorsWithRequestsAreDropped(t *testing.T) {
	var mu sync.Mutex
	seen := map[uint32]nodekind.Pages{}
	ex := newLendingExecutor(64<<20, func(c xpu.Chunk, p nodekind.Pages) error {
		mu.Lock()
		defer mu.Unlock()
		seen[c.ChunkID] = nodekind.Pages{Bytes: bytes.Clone(p.Bytes), Pinned: p.Pinned, Refs: bytes.Clone(p.Refs)}
		return nil
	})
	s := startSharedServer(t, 4, ex, 8)
	stray := newStrayFds(t)
	c := dial(t, s)
	expectSuccess(t, c, protocol.EncodeRequest(protocol.TagStatus, 1, nil))
	base := openFds(t)

	send := func(msg []byte) []byte {
		t.Helper()
		sendWithFds(t, c, msg, stray.fds()...)
		reply, h, err := protocol.ReadMessage(c, 0)
		if err != nil {
			t.Fatalf("reply: %v", err)
		}
		if h.Tag != protocol.TagSuccess {
			e, _ := protocol.DecodeError(reply)
			t.Fatalf("reply %s %+v, want Success", h.Tag, e)
		}
		if n := openFds(t); n != base {
			t.Fatalf("%d descriptors open after a request with descriptors, %d before", n, base)
		}
		return reply
	}
	send(sessionMsg(2))
	for i := 0; i < 40; i++ {
		send(protocol.EncodeRequest(protocol.TagStatus, uint32(10+i), nil))
	}
	small := bigPages(2, 3)
	send(xputest.ChunkMessage(3, 100, small))
	big := bigPages(1024, 9) // 8MB: received into lent memory
	send(xputest.ChunkMessage(4, 200, big))
	refs := []xputest.PageRef{xputest.AllVisibleRef(7, 3)}
	shared := xputest.SharedChunkMessage(5, 300, refs)
	send(shared)
	send(protocol.EncodeRequest(protocol.TagTaskFinal, 6, nil))

	mu.Lock()
	for _, want := range []struct {
		chunk  uint32
		pages  []byte
		pinned bool
	}{{100, small, false}, {200, big, true}} {
		p := seen[want.chunk]
		if !bytes.Equal(p.Bytes, want.pages) || p.Pinned != want.pinned {
			t.Errorf("chunk %d: %d bytes (equal %v), pinned %v; want %d bytes, pinned %v",
				want.chunk, len(p.Bytes), bytes.Equal(p.Bytes, want.pages), p.Pinned, len(want.pages), want.pinned)
		}
	}
	if p := seen[300]; p.Bytes != nil || !bytes.Equal(p.Refs, shared[xputest.ChunkPagesOffset:]) {
		t.Errorf("zero-copy chunk: %d page bytes, refs equal %v", len(p.Bytes), bytes.Equal(p.Refs, shared[xputest.ChunkPagesOffset:]))
	}
	mu.Unlock()
	if ex.lends.Load() == 0 {
		t.Error("the large inline chunk was not received into lent memory")
	}
	stray.closeOwn()
	if !stray.pipeClosedEverywhere(t) {
		t.Fatal("the service kept a copy of the pipe's write end while the connection is open")
	}
	c.Close()
	waitFor(t, "the connection to be dropped", func() bool { return s.Stats().Connections == 0 })
}

func expectErrorReply(t *testing.T, reply []byte, h protocol.Header, wantCode int32, substr string) {
	t.Helper()
	if h.Tag != protocol.TagError {
		t.Fatalf("reply %s, want Error %d", h.Tag, wantCode)
	}
	e, err := protocol.DecodeError(reply)
	if err != nil || e.Code != wantCode || !strings.Contains(e.Message, substr) {
		t.Fatalf("error %+v (%v), want code %d containing %q", e, err, wantCode, substr)
	}
}
