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

// clientConn is one accepted client.  Its receiver reads and queues its
// requests; its writer writes its replies; workers run its commands and
// hand their replies to the writer.
type clientConn struct {
	f         *os.File
	closed    chan struct{} // closed by close
	closeOnce sync.Once
	session   *session // the open session; only the receiver touches it
	pid       int32    // the client process (SO_PEERCRED)

	// slots holds one token per command in flight: queued, running, or
	// with its reply not yet written.  At cap the receiver waits.
	slots    chan struct{}
	inflight sync.WaitGroup // commands queued or executing (replies not yet queued)

	// the fair queue's, under its lock
	pending []command
	inRing  bool

	// the writer's outbox
	outMu      sync.Mutex
	outCond    sync.Cond // the writer waits for work
	roomCond   sync.Cond // bounded sends wait for outBytes to fall
	out        []outItem
	outBytes   int64         // bytes in out and being written
	outBusy    bool          // the writer is writing an item
	outDead    bool          // the writer has exited: sends are discarded
	writerDone chan struct{} // closed when the writer exits
	log        func(error)   // reports a failed write
}

// command is one parsed request waiting for a worker.
type command struct {
	conn   *clientConn
	header protocol.Header
	req    protocol.Request
	sess   *session        // session requests: holds one reference
	prog   *xpu.Program    // OpenSession
	spec   nodekind.Spec   // OpenSession: the kind's validated session
	chunk  xpu.Chunk       // TaskExec
	direct *directChunk    // TaskExec of a direct-read chunk
	stamps *xpu.PageStamps // TaskExec of a zero-copy chunk: its stamped pages
	piece  uint64          // JoinInner: its number among the session's pieces
	body   []byte          // TaskExec received into memory the executor lent
	charge int64           // bytes of budget the message holds
	from   *budget         // the budget charged
	alloc  int64           // bytes of BodyBytes the message accounts for

	queuedAt time.Time // when it joined the queue
}

// serveConn registers a new client and starts its receiver and writer; a
// client over the connection cap gets an Error reply and is closed.
func (s *Server) serveConn(f *os.File) {
	c := &clientConn{
		f:          f,
		closed:     make(chan struct{}),
		slots:      make(chan struct{}, s.cfg.MaxInflight),
		writerDone: make(chan struct{}),
	}
	c.outCond.L = &c.outMu
	c.roomCond.L = &c.outMu
	c.log = func(err error) { s.log.Debug().Err(err).Msg("writing a reply; closing the connection") }
	cred, err := peerCred(f)
	if err != nil {
		s.log.Warn().Err(err).Msg("refusing a client connection")
		f.Close()
		return
	}
	c.pid = cred.Pid
	s.connsMu.Lock()
	if s.closed {
		s.connsMu.Unlock()
		f.Close()
		return
	}
	if n := len(s.conns); n >= s.cfg.MaxConnections {
		s.connsMu.Unlock()
		s.refuse(f, n)
		return
	}
	if e := s.admitPeerLocked(cred); e != nil {
		s.connsMu.Unlock()
		s.refuseClient(f, *e)
		return
	}
	s.conns[c] = struct{}{}
	s.connections.Add(1)
	s.receivers.Add(1)
	s.connsMu.Unlock()
	go c.writeLoop(s.cfg.WriteTimeout)
	go s.receive(c)
}

// refusalLog rate-limits the log line of refused connections.
type refusalLog struct {
	mu     sync.Mutex
	last   time.Time
	missed uint64
}

// refuse answers a client over the connection cap and closes it, without
// holding up the accept loop.
func (s *Server) refuse(f *os.File, open int) {
	s.refused.Add(1)
	s.refusedLog.mu.Lock()
	if now := time.Now(); now.Sub(s.refusedLog.last) >= 10*time.Second {
		s.log.Warn().Int("open", open).Int("max_connections", s.cfg.MaxConnections).
			Uint64("refused_since_last_report", s.refusedLog.missed+1).
			Msgf("GPU%d: refusing a client connection: %d connections are open, the most this device's GPU service accepts; the client runs its GPU nodes on the CPU",
				s.cfg.DeviceIndex, open)
		s.refusedLog.last, s.refusedLog.missed = now, 0
	} else {
		s.refusedLog.missed++
	}
	s.refusedLog.mu.Unlock()
	e := errorReply(protocol.ErrCodeUnsupported, fmt.Sprintf(
		"GPU%d service has %d connections open, the most it accepts; run on the CPU", s.cfg.DeviceIndex, open))
	answerAndClose(f, e)
}

// refuseClient answers a client refused for its own bounds or its user,
// and closes it.  Its log line is rate-limited with refuse's.
func (s *Server) refuseClient(f *os.File, e protocol.ErrorReply) {
	s.refused.Add(1)
	s.refusedLog.mu.Lock()
	if now := time.Now(); now.Sub(s.refusedLog.last) >= 10*time.Second {
		s.log.Warn().Uint64("refused_since_last_report", s.refusedLog.missed+1).Msgf("refusing a client connection: %s", e.Message)
		s.refusedLog.last, s.refusedLog.missed = now, 0
	} else {
		s.refusedLog.missed++
	}
	s.refusedLog.mu.Unlock()
	answerAndClose(f, e)
}

// answerAndClose sends e and closes f, without holding up the accept loop.
func answerAndClose(f *os.File, e protocol.ErrorReply) {
	msg := protocol.EncodeError(0, e)
	go func() {
		defer f.Close()
		f.SetWriteDeadline(time.Now().Add(time.Second))
		f.Write(msg)
	}()
}

// dropConn closes and forgets a client.
func (s *Server) dropConn(c *clientConn) {
	c.close()
	s.connsMu.Lock()
	if _, ok := s.conns[c]; ok {
		delete(s.conns, c)
		s.forgetPeerLocked(c.pid)
		s.connections.Add(-1)
	}
	s.connsMu.Unlock()
}

// receive reads requests from one client and queues them, until the client
// goes away, sends something bad, or the server closes.  Whatever ends it,
// the connection's queued commands are dropped: they will not run.
func (s *Server) receive(c *clientConn) {
	defer s.receivers.Done()
	defer func() {
		s.dropConn(c)
		<-c.writerDone
		s.dropCommands(s.queue.take(c))
		c.endSession()
	}()
	// in is a message no command owns yet; whatever ends the loop (an
	// error, a refusal, a panic) gives its memory back.
	var in inbound
	defer func() { s.releaseInbound(&in) }()
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
		in = inbound{}
		err := s.readRequest(c, rd, &in)
		if err != nil {
			switch {
			case errors.Is(err, protocol.ErrProtocol), errors.Is(err, protocol.ErrUnsupported):
				code := int32(protocol.ErrCodeProtocol)
				if errors.Is(err, protocol.ErrUnsupported) {
					code = protocol.ErrCodeUnsupported
				}
				s.log.Debug().Err(err).Msg("refusing a message from a client")
				s.reject(c, in.hdr.RequestID, errorReply(code, err.Error()))
			case errors.Is(err, errIdleSession):
				s.dropped.Add(1)
				s.log.Info().Int32("pid", c.pid).Msgf("GPU%d: closing the connection of process %d: %v; its node continues on the CPU", s.cfg.DeviceIndex, c.pid, err)
			case errors.Is(err, os.ErrDeadlineExceeded):
				s.dropped.Add(1)
				s.log.Debug().Err(err).Msg("dropping a client past its read deadline")
			case !isDisconnect(err):
				s.log.Debug().Err(err).Msg("reading from a client")
			}
			return
		}
		req, err := protocol.ParseRequest(in.msg)
		if err == nil && !c.takeSlot(s.done) {
			return
		}
		cmd := command{conn: c, header: in.hdr, req: req, body: in.lent, from: in.from, charge: in.charge, alloc: in.alloc}
		if err == nil {
			err = s.admit(c, &cmd)
			if err != nil {
				c.releaseSlot()
			}
		}
		if err != nil {
			code := int32(protocol.ErrCodeProtocol)
			if errors.Is(err, protocol.ErrUnsupported) {
				code = protocol.ErrCodeUnsupported
			}
			s.log.Debug().Err(err).Uint32("request_id", in.hdr.RequestID).Msg("rejecting a request")
			s.reject(c, in.hdr.RequestID, errorReply(code, err.Error()))
			return
		}
		in = inbound{} // the command owns the body now
		if !s.enqueue(cmd) {
			s.dropCommands([]command{cmd})
			return
		}
	}
}

// takeSlot waits for room in the connection's in-flight bound; false when
// the connection or the server closes first.
func (c *clientConn) takeSlot(done <-chan struct{}) bool {
	select {
	case c.slots <- struct{}{}:
		return true
	case <-c.closed:
	case <-done:
	}
	return false
}

func (c *clientConn) releaseSlot() { <-c.slots }

// reject sends an Error reply after the client's earlier requests have been
// answered, so replies keep their order, and waits until it is written;
// the caller then closes the connection.
func (s *Server) reject(c *clientConn, requestID uint32, e protocol.ErrorReply) {
	c.inflight.Wait()
	if err := c.send(outItem{msgs: [][]byte{protocol.EncodeError(requestID, e)}, closeAfter: true}); err != nil {
		s.log.Debug().Err(err).Msg("sending an error reply")
		return
	}
	<-c.writerDone
}

// enqueue hands a command to the workers; false when the server is
// closing: the caller then drops the command (dropCommands).
func (s *Server) enqueue(cmd command) bool {
	cmd.conn.inflight.Add(1)
	return s.queue.push(cmd)
}

// dropCommands forgets commands no worker will run: those of a closed
// connection, or of a closing server.
func (s *Server) dropCommands(cmds []command) {
	for i := range cmds {
		cmd := &cmds[i]
		if _, ok := cmd.req.(protocol.OpenSessionRequest); ok && cmd.sess != nil {
			// never prepared: wake the session's tasks and let the
			// last release go
			cmd.sess.setPrepared(nil, errors.New("the connection closed before the session was opened"))
		}
		cmd.releaseSession()
		s.releaseBody(cmd)
		cmd.conn.inflight.Done()
		cmd.conn.releaseSlot()
	}
}

// releaseBody gives back a command's body: lent memory to the executor,
// its share of the budget and of BodyBytes.
func (s *Server) releaseBody(cmd *command) {
	s.returnBody(cmd.body)
	cmd.from.release(cmd.charge)
	s.bodyBytes.Add(-cmd.alloc)
	cmd.body, cmd.from, cmd.charge, cmd.alloc = nil, nil, 0, 0
}

func isDisconnect(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, os.ErrClosed) || errors.Is(err, os.ErrDeadlineExceeded) ||
		errors.Is(err, errConnClosed)
}
