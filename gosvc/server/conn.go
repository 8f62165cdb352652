package server

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// readBuffer is the receiver's read buffer: a burst of small requests costs
// one system call, and a read at least this large (the body of an inline
// chunk) goes straight into the message.
const readBuffer = 64 << 10

// writeTimeout bounds one reply write, so a client that stops reading cannot
// hold a worker forever.
const writeTimeout = 30 * time.Second

// clientConn is one accepted client.
type clientConn struct {
	f         *os.File
	writeMu   sync.Mutex     // replies on one connection never interleave
	inflight  sync.WaitGroup // commands queued or executing for this client
	closeOnce sync.Once
	session   *session // the open session; only the receiver touches it
}

// command is one parsed request waiting for a worker.
type command struct {
	conn   *clientConn
	header protocol.Header
	req    protocol.Request
	sess   *session      // session requests: holds one reference
	prog   *xpu.Program  // OpenSession
	spec   nodekind.Spec // OpenSession: the kind's validated session
	chunk  xpu.Chunk     // TaskExec
	body   []byte        // TaskExec received into memory the executor lent
}

// write sends msgs back to back: no other reply comes between them.  Each
// message gets its own deadline, so a long series of large messages is not
// cut off while the client keeps reading.
func (c *clientConn) write(msgs ...[]byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	for _, msg := range msgs {
		if err := c.f.SetWriteDeadline(time.Now().Add(writeTimeout)); err != nil {
			return fmt.Errorf("set write deadline: %w", err)
		}
		if _, err := c.f.Write(msg); err != nil {
			return fmt.Errorf("write reply: %w", err)
		}
	}
	return nil
}

// close closes the socket; a receiver blocked in read returns at once.
func (c *clientConn) close() {
	c.closeOnce.Do(func() { c.f.Close() })
}

// serveConn registers a new client and starts its receiver.
func (s *Server) serveConn(f *os.File) {
	c := &clientConn{f: f}
	s.connsMu.Lock()
	if s.closed {
		s.connsMu.Unlock()
		f.Close()
		return
	}
	s.conns[c] = struct{}{}
	s.connections.Add(1)
	s.receivers.Add(1)
	s.connsMu.Unlock()
	go s.receive(c)
}

// dropConn closes and forgets a client.
func (s *Server) dropConn(c *clientConn) {
	c.close()
	s.connsMu.Lock()
	if _, ok := s.conns[c]; ok {
		delete(s.conns, c)
		s.connections.Add(-1)
	}
	s.connsMu.Unlock()
}

// receive reads requests from one client and queues them, until the client
// goes away, sends something bad, or the server closes.
func (s *Server) receive(c *clientConn) {
	defer s.receivers.Done()
	defer s.dropConn(c)
	defer c.endSession()
	// lent is a body the executor lent that no command owns yet; whatever
	// ends the loop (an error, a refusal, a panic) gives it back.
	var lent []byte
	defer func() { s.returnBody(lent) }()
	defer func() {
		if r := recover(); r != nil {
			s.log.Warn().Interface("panic", r).Str("stack", stack()).Msg("recovered panic while reading a request")
			s.reject(c, 0, errorReply(protocol.ErrCodeInternal, fmt.Sprintf("internal error while reading a request: %v", r)))
		}
	}()
	// Plain reads: no request carries a descriptor any more.  A
	// descriptor a client passes anyway (SCM_RIGHTS) is closed by the
	// kernel when read(2), which takes no ancillary data, consumes the
	// bytes it came with; it never enters this process's table.
	rd := bufio.NewReaderSize(c.f, readBuffer)
	for {
		lent = nil
		msg, hdr, err := protocol.ReadMessageInto(rd, protocol.MaxLength, s.lendBody(&lent))
		if err != nil {
			if errors.Is(err, protocol.ErrProtocol) {
				s.log.Debug().Err(err).Msg("malformed message from a client")
				s.reject(c, hdr.RequestID, errorReply(protocol.ErrCodeProtocol, err.Error()))
			} else if !isDisconnect(err) {
				s.log.Debug().Err(err).Msg("reading from a client")
			}
			return
		}
		req, err := protocol.ParseRequest(msg)
		cmd := command{conn: c, header: hdr, req: req, body: lent}
		if err == nil {
			err = s.admit(c, &cmd)
		}
		if err != nil {
			code := int32(protocol.ErrCodeProtocol)
			if errors.Is(err, protocol.ErrUnsupported) {
				code = protocol.ErrCodeUnsupported
			}
			s.log.Debug().Err(err).Uint32("request_id", hdr.RequestID).Msg("rejecting a request")
			s.reject(c, hdr.RequestID, errorReply(code, err.Error()))
			return
		}
		if !s.enqueue(cmd) {
			cmd.releaseSession()
			return
		}
		lent = nil // the command returns it after its reply
	}
}

// reject sends an Error reply after the client's earlier requests have been
// answered, so replies keep their order; the caller then closes the
// connection.
func (s *Server) reject(c *clientConn, requestID uint32, e protocol.ErrorReply) {
	c.inflight.Wait()
	if err := c.write(protocol.EncodeError(requestID, e)); err != nil {
		s.log.Debug().Err(err).Msg("sending an error reply")
	}
}

// enqueue hands a command to the workers; false when the server is closing.
// The read lock lets Close know that no enqueue is in progress once it holds
// the write lock, so it can drain the queue completely.
func (s *Server) enqueue(cmd command) bool {
	s.enqueueMu.RLock()
	defer s.enqueueMu.RUnlock()
	select {
	case <-s.done:
		return false
	default:
	}
	cmd.conn.inflight.Add(1)
	select {
	case s.queue <- cmd:
		return true
	case <-s.done:
		cmd.conn.inflight.Done()
		return false
	}
}

// drainQueue forgets the commands no worker will run; called by Close after
// the workers have exited and no enqueue can happen.
func (s *Server) drainQueue() {
	for {
		select {
		case cmd := <-s.queue:
			cmd.releaseSession()
			s.returnBody(cmd.body)
			cmd.conn.inflight.Done()
		default:
			return
		}
	}
}

func isDisconnect(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, os.ErrClosed) || errors.Is(err, os.ErrDeadlineExceeded)
}
