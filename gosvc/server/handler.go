package server

import (
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/logpipe"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
)

// execute runs one command on a worker and hands its reply to the
// connection's writer; the command's in-flight slot is freed once the reply
// is written (or discarded, on a closed connection).  A panic is recovered,
// answered with ErrCodeInternal, and the connection is closed: whatever
// state the request touched can no longer be trusted.
func (s *Server) execute(cmd command) {
	c := cmd.conn
	replied := false
	reply := func(msg []byte, closeAfter bool) {
		replied = true
		c.send(outItem{msgs: [][]byte{msg}, closeAfter: closeAfter, done: c.releaseSlot})
	}
	defer c.inflight.Done()
	defer cmd.releaseSession() // after the reply is queued, so TaskFinal's comes after it
	defer s.releaseBody(&cmd)
	defer func() {
		if r := recover(); r != nil {
			s.log.Warn().Interface("panic", r).Str("stack", stack()).
				Uint32("request_id", cmd.header.RequestID).Msg("recovered panic while handling a request")
			if replied {
				c.close()
				return
			}
			e := errorReply(protocol.ErrCodeInternal, fmt.Sprintf("internal error: %v", r))
			reply(protocol.EncodeError(cmd.header.RequestID, e), true)
		}
	}()
	started := time.Now()
	msg, keepOpen := s.handle(&cmd)
	reply(msg, !keepOpen)
	if logpipe.DebugEnabled() {
		// where a node's waits go: the queue (workers busy) or the work
		s.log.Debug().Stringer("tag", cmd.header.Tag).Uint32("request_id", cmd.header.RequestID).
			Int64("queued_us", started.Sub(cmd.queuedAt).Microseconds()).
			Int64("ran_us", time.Since(started).Microseconds()).Msg("command served")
	}
	if keepOpen {
		s.served.Add(1)
	}
}

// handle builds the reply to one request; keepOpen is false when the
// connection must be closed after the reply.
func (s *Server) handle(cmd *command) (reply []byte, keepOpen bool) {
	id := cmd.header.RequestID
	switch cmd.req.Tag() {
	case protocol.TagStatus:
		if logpipe.DebugEnabled() {
			s.log.Debug().Uint32("request_id", id).Msg("status request served")
		}
		return protocol.EncodeStatusReply(id, s.statusReply()), true
	case protocol.TagOpenSession:
		return s.openSession(cmd)
	case protocol.TagTaskExec:
		return s.taskExec(cmd)
	case protocol.TagTaskFinal:
		return s.taskFinal(cmd)
	case protocol.TagLinkProbe:
		return s.linkProbe(cmd)
	case protocol.TagJoinInner:
		return s.joinInner(cmd)
	default:
		e := errorReply(protocol.ErrCodeUnsupported,
			fmt.Sprintf("request tag %d is not supported by this GPU service yet", cmd.req.Tag()))
		return protocol.EncodeError(id, e), false
	}
}

func (s *Server) statusReply() protocol.StatusReply {
	ps := s.cfg.Pool.Stats()
	st := s.Stats()
	return protocol.StatusReply{
		DeviceIndex:    int32(s.cfg.DeviceIndex),
		Workers:        st.Workers,
		Connections:    st.Connections,
		Queued:         st.Queued,
		PoolUsed:       ps.Used,
		PoolTotal:      ps.Total,
		PoolLimit:      ps.Limit,
		RequestsServed: st.RequestsServed,
	}
}

// errorReply fills an Error reply with the caller's position, which the
// backend shows in its ereport.
func errorReply(code int32, msg string) protocol.ErrorReply {
	e := protocol.ErrorReply{Code: code, Message: msg}
	if pc, file, line, ok := runtime.Caller(1); ok {
		e.File = filepath.Base(file)
		e.Line = int32(line)
		if fn := runtime.FuncForPC(pc); fn != nil {
			e.Func = filepath.Base(fn.Name())
		}
	}
	return e
}

func stack() string { return string(debug.Stack()) }
