package server

import (
	"errors"
	"fmt"

	"github.com/pgstrom-go/pg_strom/gosvc/logpipe"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
)

// executorError answers a failed executor call.
func (s *Server) executorError(id uint32, what string, err error) ([]byte, bool) {
	code, closeConn := executorErrorCode(err)
	if errors.Is(err, ErrDeviceLost) {
		s.deviceLost(fmt.Errorf("%s: %w", what, err))
	}
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
	p, err := cmd.spec.Prepare(s.cfg.Executor, r.Msg)
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
	what := fmt.Sprintf("task exec of chunk %d", cmd.chunk.ChunkID)
	msg := cmd.req.(protocol.TaskExecRequest).Msg
	out := s.newHalfways(cmd.conn, id)
	defer out.end() // also when Exec panics: nothing more goes out
	sink := chunkHalfways{out, cmd.chunk.ChunkID}
	chunk := cmd.chunk
	var pages nodekind.Pages
	execErr := errExecNotReturned // until Exec returns: a panic aborts the cache fills
	if cmd.direct != nil {
		var done func(error)
		var err error
		chunk, pages, done, err = s.readDirect(sess, cmd, sink)
		if err != nil {
			return s.executorError(id, what, errors.Join(err, out.end()))
		}
		defer func() { done(execErr) }()
	} else if cmd.chunk.Shared() {
		if s.cfg.SharedBuffers == 0 {
			return s.executorError(id, what, fmt.Errorf("%w: GPU%d has not registered PostgreSQL's shared buffers; send the pages inline",
				protocol.ErrUnsupported, s.cfg.DeviceIndex))
		}
		pages = nodekind.Pages{Refs: cmd.chunk.Refs(msg)}
		if plan := sharedFills(s.cfg.PageCache, cmd.stamps); plan != nil {
			pages.Cache = plan.Moves()
			defer func() { endFills(plan, execErr) }()
		}
	} else {
		pages = nodekind.Pages{Bytes: cmd.chunk.Pages(msg), Pinned: cmd.body != nil}
	}
	reply, err := sess.prepared.Exec(chunk, pages, sink)
	execErr = err
	if err = errors.Join(out.end(), err); err != nil {
		return s.executorError(id, what, err)
	}
	if reply, err = checkChunkReply(cmd.chunk.ChunkID, reply); err == nil {
		var msg []byte
		if msg, err = protocol.Frame(protocol.TagSuccess, id, reply); err == nil {
			return msg, true
		}
	}
	return s.executorError(id, what, err)
}

// taskFinal closes the session: it drops the connection's reference, which
// the command carries, and answers once the session's running tasks are
// done, Final has run (its SuccessHalfway replies are out) and the
// session's device memory is released.
func (s *Server) taskFinal(cmd *command) ([]byte, bool) {
	id := cmd.header.RequestID
	sess := cmd.sess
	out := s.newHalfways(cmd.conn, id)
	sess.requestFinal(out, cmd.header.Flags&protocol.FinalCollect != 0)
	cmd.releaseSession()
	// the session's chunks may be suspended on this very client
	s.whileSuspended(func() { <-sess.released })
	if err := errors.Join(out.end(), sess.finalErr, sess.closeErr); err != nil {
		return s.executorError(id, "task final", err)
	}
	return protocol.EncodeSuccess(id), true
}
