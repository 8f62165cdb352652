package server

import (
	"errors"
	"io"
	"net"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// FuzzSocket throws arbitrary byte streams at a live server socket (with a
// plumbing-only executor, a data directory and a page cache): whatever a
// client sends, the service must answer or close that connection within
// fuzzStreamDeadline, send only well-formed replies, keep its page cache
// moves sound, and keep serving everyone else.
func FuzzSocket(f *testing.F) {
	f.Add(protocol.EncodeRequest(protocol.TagStatus, 1, nil))
	f.Add(append(sessionMsg(1), xputest.ChunkMessage(2, 7, make([]byte, xpu.BlockSize))...))
	f.Add(append(sessionMsg(1), protocol.EncodeRequest(protocol.TagTaskFinal, 2, nil)...))
	f.Add(xputest.ChunkMessage(2, 7, make([]byte, xpu.BlockSize)))
	// retired: ATTACH_BUFFER, and a chunk naming an attached buffer
	f.Add(protocol.EncodeRequest(protocol.TagRetiredAttachBuffer, 3, make([]byte, 16)))
	f.Add(append(sessionMsg(1), xputest.PutU32(xputest.ChunkMessage(2, 7, make([]byte, xpu.BlockSize)), xpu.OffChunkBufferID, 1)...))
	f.Add([]byte("GET / HTTP/1.0\r\n\r\n"))
	f.Add(protocol.EncodeLinkProbe(4, 1<<20, 1))
	f.Add(protocol.EncodeLinkProbe(5, 1<<20+1, 1))
	f.Add(protocol.EncodeLinkProbe(6, 1<<20, 65))
	f.Add(protocol.EncodeRequest(protocol.TagLinkProbe, 7, make([]byte, protocol.LinkProbeSize-4)))
	f.Add(append(protocol.EncodeLinkProbe(8, 2<<20, 2), protocol.EncodeRequest(protocol.TagStatus, 9, nil)...))
	// zero-copy chunks: refs within and past the registered buffers
	shared := xputest.SharedChunkMessage(2, 7, []xputest.PageRef{xputest.AllVisibleRef(1, 5), xputest.VisibleRef(fuzzSharedBuffers-1, 9, 9)})
	f.Add(append(sessionMsg(1), shared...))
	f.Add(append(sessionMsg(1), xputest.SharedChunkMessage(2, 7, []xputest.PageRef{xputest.AllVisibleRef(fuzzSharedBuffers, 5)})...))
	f.Add(append(sessionMsg(1), shared[:len(shared)-4]...))
	f.Add(shared)
	// JOIN_INNER on a GpuScan session, and a cut one
	joinInner := protocol.EncodeJoinInner(2, protocol.JoinInnerRequest{PlanID: 1, RowSize: 16, NRows: 2, PieceRows: 2, Rows: make([]byte, 32)})
	f.Add(append(sessionMsg(1), joinInner...))
	f.Add(append(sessionMsg(1), joinInner[:len(joinInner)-8]...))
	// direct-read chunks (fuzz_direct_test.go): plain, stamped, cache-only
	for _, seed := range directSeeds() {
		f.Add(seed)
	}

	s, ex, _ := newFuzzServer(f)

	f.Fuzz(func(t *testing.T, stream []byte) {
		c, err := net.Dial("unix", s.SocketPath())
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(fuzzStreamDeadline))
		go func() {
			// End of stream tells the service no more bytes will come, so a
			// truncated message ends the connection instead of waiting.
			// It is sent once the stream's commands are done: a service
			// that sees the end drops the commands still queued, and the
			// executor (and a direct read's cache fills) would rarely run.
			c.Write(stream)
			waitAnswered(s, c.(*net.UnixConn))
			c.(*net.UnixConn).CloseWrite()
		}()
		// Drain replies until the service closes the connection; a message
		// it cannot frame, an Error reply that does not decode, or a
		// connection still open at the deadline is a bug.
		for {
			reply, h, err := protocol.ReadMessage(c, protocol.MaxLength)
			if err == io.EOF || isReset(err) {
				break
			}
			if isTimeout(err) {
				t.Fatalf("the service neither closed the connection nor answered within %v", fuzzStreamDeadline)
			}
			if err != nil {
				t.Fatalf("the service sent something that is not a message: %v", err)
			}
			switch h.Tag {
			case protocol.TagSuccess, protocol.TagSuccessHalfway:
			case protocol.TagError:
				if _, err := protocol.DecodeError(reply); err != nil {
					t.Fatalf("the service sent a malformed Error reply: %v", err)
				}
			default:
				t.Fatalf("the service sent a %s, not a reply", h.Tag)
			}
		}
		if err := ex.takeViolation(); err != nil {
			t.Fatalf("the executor got unsound work: %v", err)
		}
		// The service is still there for the next client.
		probe, err := net.Dial("unix", s.SocketPath())
		if err != nil {
			t.Fatalf("dial after the stream: %v", err)
		}
		defer probe.Close()
		probe.SetDeadline(time.Now().Add(fuzzStatusDeadline))
		if _, err := probe.Write(protocol.EncodeRequest(protocol.TagStatus, 9, nil)); err != nil {
			t.Fatalf("status write: %v", err)
		}
		if _, h, err := protocol.ReadMessage(probe, 0); err != nil || h.Tag != protocol.TagSuccess {
			t.Fatalf("status after the stream: tag %v, err %v", h.Tag, err)
		}
	})
}

// waitAnswered returns once the service has read every byte sent on c and
// no connection has a command in flight (queued, running, or its reply
// not yet written), or after fuzzSettle: a command that waits for more of
// the stream (a GpuJoin chunk before its inner rows) ends with the
// connection instead.  Within a fuzzing process inputs run one at a time,
// so the only connection is the input's.
func waitAnswered(s *Server, c *net.UnixConn) {
	start := time.Now()
	var quietSince time.Time
	for now := start; now.Sub(start) < fuzzSettle; now = time.Now() {
		switch {
		case unsentBytes(c) != 0 || s.commandsInFlight():
			quietSince = time.Time{}
		case quietSince.IsZero():
			quietSince = now
		case now.Sub(quietSince) >= fuzzQuiet:
			return
		}
		// Yield rather than sleep: a sleep lasts a millisecond or more,
		// which would be most of an input's time.
		runtime.Gosched()
	}
}

// unsentBytes is how much of what was written on c the service has not
// read yet (SIOCOUTQ); 0 when that cannot be told.
func unsentBytes(c *net.UnixConn) int {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	raw.Control(func(fd uintptr) {
		if v, err := unix.IoctlGetInt(int(fd), unix.SIOCOUTQ); err == nil {
			n = v
		}
	})
	return n
}

// commandsInFlight reports whether some connection holds an in-flight slot.
func (s *Server) commandsInFlight() bool {
	s.connsMu.Lock()
	defer s.connsMu.Unlock()
	for c := range s.conns {
		if len(c.slots) > 0 {
			return true
		}
	}
	return false
}

// The deadlines of one input: together below the 10 s after which Go's
// fuzzing calls an input a hang, and far above what an input takes on a
// loaded machine (milliseconds), so a failure is a service that stopped.
const (
	fuzzStreamDeadline = 5 * time.Second
	fuzzStatusDeadline = 3 * time.Second
	// fuzzSettle bounds waitAnswered; fuzzQuiet is how long it must see
	// nothing in flight, since the receiver may be between reading a
	// message and queueing it.
	fuzzSettle = 100 * time.Millisecond
	fuzzQuiet  = 200 * time.Microsecond
)

// fuzzSharedBuffers is how many shared buffers the fuzzed server registered.
const fuzzSharedBuffers = 16

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// isReset: the service closed the connection while we were reading.
func isReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op)
}
