package service

import (
	"errors"
	"io"

	"github.com/pgstrom-go/pg_strom/gosvc/control"
)

// received is one result of Channel.Receive.
type received struct {
	msg control.Message
	err error
}

// startReader receives control messages on a goroutine, so the main loop can
// wait on them together with its ticker and timeouts.  It stops after
// io.EOF or an I/O error; a malformed message is passed on and reading goes
// on.
func (s *service) startReader() {
	s.msgs = make(chan received)
	s.readerWG.Add(1)
	go func() {
		defer s.readerWG.Done()
		for {
			m, err := s.ch.Receive()
			select {
			case s.msgs <- received{m, err}:
			case <-s.quit:
				return
			}
			if err != nil && !errors.Is(err, control.ErrMalformed) {
				return
			}
		}
	}()
}

// isGone says whether a receive error means the supervisor has gone away.
func isGone(err error) bool { return errors.Is(err, io.EOF) }

// screen sorts one receive result: a malformed message is logged and
// skipped (msg nil, gone false, err nil), a closed channel reports gone, and
// any other error is returned for the caller to treat as fatal.
func (s *service) screen(r received) (msg control.Message, gone bool, err error) {
	switch {
	case r.err == nil:
		return r.msg, false, nil
	case errors.Is(r.err, control.ErrMalformed):
		s.log.Warn().Err(r.err).Msg("ignoring a malformed control message")
		return nil, false, nil
	case isGone(r.err):
		return nil, true, nil
	default:
		return nil, false, r.err
	}
}
