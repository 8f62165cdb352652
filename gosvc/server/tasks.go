package server

import (
	"errors"
	"fmt"

	"github.com/pgstrom-go/pg_strom/gosvc/logpipe"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// executorError answers a failed executor call.
func (s *Server) executorError(id uint32, what string, err error) ([]byte, bool) {
	code, closeConn := executorErrorCode(err)
	s.log.Debug().Err(err).Uint32("request_id", id).Int32("code", code).Msg(what + " failed")
	return protocol.EncodeError(id, errorReply(code, fmt.Sprintf("%s: %v", what, err))), !closeConn
}

// openSession uploads a validated program to the device.
func (s *Server) openSession(cmd *command) ([]byte, bool) {
	id := cmd.header.RequestID
	r := cmd.req.(protocol.OpenSessionRequest)
	set := false
	defer func() {
		if !set { // Prepare panicked: never leave the session's tasks waiting
			cmd.sess.setPrepared(nil, errors.New("internal error while preparing the session"))
		}
	}()
	p, err := s.cfg.Executor.Prepare(r.Msg, cmd.prog)
	if err == nil && p == nil {
		err = errors.New("the executor prepared nothing")
	}
	cmd.sess.setPrepared(p, err)
	set = true
	if err != nil {
		return s.executorError(id, "open session", err)
	}
	if logpipe.DebugEnabled() {
		s.log.Debug().Uint32("request_id", id).Uint64("plan_id", cmd.prog.PlanID).
			Int("nodes", len(cmd.prog.Nodes)).Msg("session opened")
	}
	return protocol.EncodeSuccess(id), true
}

// taskExec runs one chunk once the session's Prepare has finished.
func (s *Server) taskExec(cmd *command) ([]byte, bool) {
	id := cmd.header.RequestID
	sess := cmd.sess
	<-sess.ready
	if sess.prepared == nil {
		return s.executorError(id, "task exec", fmt.Errorf("%w: %v", errSessionFailed, sess.prepErr))
	}
	var pages Pages
	if b := cmd.buf; b != nil {
		pages = Pages{Bytes: cmd.chunk.Pages(b.mem), Pinned: b.pinned}
	} else {
		pages = Pages{Bytes: cmd.chunk.Pages(cmd.req.(protocol.TaskExecRequest).Msg), Pinned: cmd.body != nil}
	}
	res, items, err := sess.prepared.Exec(cmd.chunk, pages)
	if err != nil {
		return s.executorError(id, fmt.Sprintf("task exec of chunk %d", cmd.chunk.ChunkID), err)
	}
	if len(items) > cmd.chunk.ItemsCapacity() {
		e := errorReply(protocol.ErrCodeInternal, fmt.Sprintf("chunk %d: the executor returned %d items, more than the %d possible",
			cmd.chunk.ChunkID, len(items), cmd.chunk.ItemsCapacity()))
		return protocol.EncodeError(id, e), true
	}
	res.ChunkID = cmd.chunk.ChunkID
	return xpu.EncodeChunkResult(id, res, items), true
}

// taskFinal closes the session: it drops the connection's reference, which
// the command carries, and answers once the session's running tasks are
// done, Final (if the session has one) has run and its device memory is
// released.  Final's messages go out before the Success header, in the same
// write.
func (s *Server) taskFinal(cmd *command) ([]byte, bool) {
	id := cmd.header.RequestID
	sess := cmd.sess
	sess.requestFinal(id)
	cmd.releaseSession()
	<-sess.released
	if err := errors.Join(sess.finalErr, sess.closeErr); err != nil {
		return s.executorError(id, "task final", err)
	}
	if err := checkFinalMessages(id, sess.final); err != nil {
		s.log.Warn().Err(err).Uint32("request_id", id).Msg("task final")
		return protocol.EncodeError(id, errorReply(protocol.ErrCodeInternal, err.Error())), true
	}
	cmd.preface = sess.final
	return protocol.EncodeSuccess(id), true
}

// checkFinalMessages makes sure Final returned whole groups messages of
// this request: the backend reads them as framed messages, so one bad
// length would desynchronize the connection.
func checkFinalMessages(id uint32, msgs [][]byte) error {
	for i, m := range msgs {
		h, err := protocol.DecodeHeader(m)
		switch {
		case err != nil:
			return fmt.Errorf("task final: message %d of the executor's Final: %w", i, err)
		case h.Tag != protocol.TagSuccessHalfway || h.RequestID != id || uint64(h.Length) != uint64(len(m)):
			return fmt.Errorf("task final: message %d of the executor's Final is %s for request %d, %d of %d bytes; want SuccessHalfway for request %d",
				i, h.Tag, h.RequestID, h.Length, len(m), id)
		}
	}
	return nil
}
