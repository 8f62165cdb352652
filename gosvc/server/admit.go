package server

import (
	"fmt"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// admit runs on the connection's receiver, in arrival order: it validates
// the payload of a session request completely and binds the command to the
// connection's session.  An error is answered and closes the connection.
// Only the receiver touches c.session.
func (s *Server) admit(c *clientConn, cmd *command) error {
	switch r := cmd.req.(type) {
	case protocol.OpenSessionRequest:
		if s.cfg.Executor == nil {
			return fmt.Errorf("%w: OpenSession: GPU device %d has no executor", protocol.ErrUnsupported, s.cfg.DeviceIndex)
		}
		if c.session != nil && !c.session.failed() {
			return fmt.Errorf("%w: OpenSession while a session is open on this connection (send TaskFinal first)", protocol.ErrProtocol)
		}
		prog, spec, err := s.cfg.Kinds.ParseSession(r.Msg)
		if err != nil {
			return fmt.Errorf("OpenSession: %w", err)
		}
		if c.session != nil {
			c.session.release() // a session whose Prepare failed
		}
		c.session = newSession(2) // the connection's reference and this command's
		cmd.sess, cmd.prog, cmd.spec = c.session, prog, spec
	case protocol.TaskExecRequest:
		if c.session == nil {
			return fmt.Errorf("%w: TaskExec without an open session", protocol.ErrProtocol)
		}
		chunk, err := xpu.ParseChunk(r.Msg)
		if err != nil {
			return fmt.Errorf("TaskExec: %w", err)
		}
		// ParseChunk accepts inline and zero-copy chunks only.  Without
		// registered shared buffers taskExec answers a zero-copy chunk
		// Unsupported and the connection stays open.
		if n := s.cfg.SharedBuffers; chunk.Shared() && n > 0 {
			if err := xpu.CheckPageRefs(chunk, r.Msg, n); err != nil {
				return fmt.Errorf("TaskExec: %w", err)
			}
			if cmd.stamps, err = xpu.ParsePageStamps(chunk, r.Msg); err != nil {
				return fmt.Errorf("TaskExec: %w", err)
			}
		}
		if chunk.Direct() {
			if cmd.direct, err = parseDirect(chunk, r.Msg); err != nil {
				return fmt.Errorf("TaskExec: %w", err)
			}
		}
		c.session.acquire()
		cmd.sess, cmd.chunk = c.session, chunk
	case protocol.JoinInnerRequest:
		if c.session == nil {
			return fmt.Errorf("%w: JoinInner without an open session", protocol.ErrProtocol)
		}
		c.session.acquire()
		cmd.sess, cmd.piece = c.session, c.session.nextPiece
		c.session.nextPiece++
	case protocol.LinkProbeRequest:
		if _, ok := s.cfg.Executor.(LinkProber); !ok {
			return fmt.Errorf("%w: LinkProbe: GPU device %d cannot measure its link", protocol.ErrUnsupported, s.cfg.DeviceIndex)
		}
	case protocol.TaskFinalRequest:
		if c.session == nil {
			return fmt.Errorf("%w: TaskFinal without an open session", protocol.ErrProtocol)
		}
		// The connection's reference moves to the command.
		cmd.sess, c.session = c.session, nil
	}
	return nil
}

// endSession drops the connection's reference when it goes away.
func (c *clientConn) endSession() {
	if c.session != nil {
		c.session.release()
		c.session = nil
	}
}

// releaseSession drops the command's reference, if it still holds one.
func (cmd *command) releaseSession() {
	if cmd.sess != nil {
		cmd.sess.release()
		cmd.sess = nil
	}
}
