package server

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
)

// inbound is a message being received, and the memory it holds.
type inbound struct {
	msg    []byte
	hdr    protocol.Header
	lent   []byte // the body, in memory the executor lent
	charge int64  // bytes of budget reserved
	from   *budget
	alloc  int64 // bytes allocated and counted in BodyBytes
}

// releaseInbound gives back what in holds; a no-op once a command took it.
func (s *Server) releaseInbound(in *inbound) {
	s.returnBody(in.lent)
	in.from.release(in.charge)
	s.bodyBytes.Add(-in.alloc)
	*in = inbound{}
}

// errIdleSession marks a connection closed by the session idle timeout.
var errIdleSession = errors.New("the session sent nothing (pg_strom.gpu_session_idle_timeout)")

// errTooLarge marks a message longer than its tag allows.
var errTooLarge = errors.New("message too large")

// readRequest reads the next message of c into in.
//
// Between messages there is no deadline while the connection has
// commands in flight; else a connection with a session (an idle cursor)
// waits up to the session idle timeout, one without IdleTimeout.
// From the first byte on, the message must keep arriving: each piece gets
// MessageTimeout, and the whole message MessageTimeout plus its length at
// MinBodyRate.  The header is checked before anything is allocated, and
// against the most its tag may carry; the body is allocated as its bytes
// arrive (or lent by the executor), after its length was reserved from the
// body budget, so memory follows bytes received, never a header's claim.
func (s *Server) readRequest(c *clientConn, rd *bufio.Reader, in *inbound) error {
	for {
		var idle time.Time
		if c.session == nil {
			idle = time.Now().Add(s.cfg.IdleTimeout)
		} else if d := time.Duration(s.sessionIdle.Load()); d > 0 {
			idle = time.Now().Add(d)
		}
		if err := c.f.SetReadDeadline(idle); err != nil {
			return err
		}
		_, err := rd.Peek(1)
		if err == nil {
			break
		}
		if errors.Is(err, os.ErrDeadlineExceeded) && len(c.slots) > 0 {
			continue // not idle: its commands are still being answered
		}
		if errors.Is(err, os.ErrDeadlineExceeded) && c.session != nil {
			return fmt.Errorf("%w after %v: %w", errIdleSession, time.Duration(s.sessionIdle.Load()), err)
		}
		if errors.Is(err, io.EOF) {
			return io.EOF
		}
		return fmt.Errorf("waiting for a message: %w", err)
	}

	start := time.Now()
	if err := c.f.SetReadDeadline(start.Add(s.cfg.MessageTimeout)); err != nil {
		return err
	}
	var hdr [protocol.HeaderSize]byte
	if _, err := io.ReadFull(rd, hdr[:]); err != nil {
		return fmt.Errorf("read message header: %w", err)
	}
	h, err := protocol.DecodeHeader(hdr[:])
	if err != nil {
		return err
	}
	in.hdr = h
	if limit := maxLength(h.Tag); h.Length > limit {
		if h.Tag == protocol.TagOpenSession {
			// a legal program this service will not take: the
			// backend runs the node on the CPU
			return fmt.Errorf("%w: %w: OpenSession of %d bytes, this GPU service takes at most %d",
				protocol.ErrUnsupported, errTooLarge, h.Length, limit)
		}
		return fmt.Errorf("%w: %w: %s of %d bytes, at most %d", protocol.ErrProtocol, errTooLarge, h.Tag, h.Length, limit)
	}
	n := int(h.Length)
	var buf []byte
	if s.lendable(h) {
		// Lent memory (pinned, on a GPU) is taken whole at once: only
		// once the body has begun to arrive, so that a header alone
		// never commits it.
		if _, err := rd.Peek(min(n-protocol.HeaderSize, firstPiece)); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("read %s message body of %d bytes: %w", h.Tag, n-protocol.HeaderSize, err)
		}
	}
	if in.lent = s.lend(h); in.lent != nil {
		buf = in.lent[:n:n]
	} else {
		if from := s.budgetFor(n); from != nil {
			charge := min(int64(n), from.total)
			if !from.acquire(charge, c.closed, s.done) {
				return errConnClosed
			}
			in.from, in.charge = from, charge
			start = time.Now() // waiting for the budget is not the client's time
		}
		buf = s.allocBody(in, min(n, firstPiece))
	}
	copy(buf, hdr[:])
	end := start.Add(s.cfg.MessageTimeout + time.Duration(float64(n)/MinBodyRate*float64(time.Second)))
	got := protocol.HeaderSize
	for got < n {
		if got == len(buf) { // only for memory of our own: lent memory is whole
			bigger := s.allocBody(in, min(n, 2*len(buf)))
			copy(bigger, buf)
			s.bodyBytes.Add(-int64(len(buf)))
			in.alloc -= int64(len(buf))
			buf = bigger
		}
		piece := min(len(buf), got+readPiece)
		deadline := time.Now().Add(s.cfg.MessageTimeout)
		if deadline.After(end) {
			deadline = end
		}
		if err := c.f.SetReadDeadline(deadline); err != nil {
			return err
		}
		m, err := io.ReadFull(rd, buf[got:piece])
		got += m
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("read %s message body of %d bytes (%d received): %w", h.Tag, n-protocol.HeaderSize, got-protocol.HeaderSize, err)
		}
	}
	in.msg = buf[:n:n]
	return nil
}

// budgetFor is the budget a message of n bytes is received under: none
// for the tiny requests whose length their tag fixes (Status, TaskFinal,
// LinkProbe: they never wait), a small budget up to firstPiece (they never
// wait behind a large body), the body budget above.
func (s *Server) budgetFor(n int) *budget {
	switch {
	case n <= protocol.HeaderSize+protocol.LinkProbeSize:
		return nil
	case n <= firstPiece:
		return s.small
	}
	return s.bodies
}

// allocBody allocates n bytes of body and counts them.
func (s *Server) allocBody(in *inbound, n int) []byte {
	in.alloc += int64(n)
	s.bodyBytes.Add(int64(n))
	return make([]byte, n)
}
