package server

import (
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
)

// minLentBody is the smallest TaskExec body the receiver asks the
// executor's BodyLender for; smaller ones are cheap to allocate and copy.
const minLentBody = 1 << 20

// lend returns memory the executor lends for the body of h, or nil: only
// large TaskExec bodies go into pinned memory the executor lends, when it
// does (the lender bounds what it lends).
func (s *Server) lend(h protocol.Header) []byte {
	if !s.lendable(h) {
		return nil
	}
	b := s.cfg.Executor.(BodyLender).LendBody(int(h.Length))
	if b == nil {
		return nil
	}
	if uint64(len(b)) < uint64(h.Length) {
		s.returnBody(b)
		return nil
	}
	return b
}

// lendable reports whether a message of header h is received into lent
// memory when the executor has some.
func (s *Server) lendable(h protocol.Header) bool {
	_, ok := s.cfg.Executor.(BodyLender)
	return ok && h.Tag == protocol.TagTaskExec && h.Length >= minLentBody
}

// returnBody gives a lent body back to the executor; nil is a no-op.
func (s *Server) returnBody(b []byte) {
	if b == nil {
		return
	}
	if err := s.cfg.Executor.(BodyLender).ReturnBody(b); err != nil {
		s.log.Warn().Err(err).Msg("returning a request body to the executor")
	}
}

// ReleaseIdle lets the executor free host memory idle for at least delay
// (pg_strom.gpu_mempool_release_delay); a no-op for executors that keep
// none.
func (s *Server) ReleaseIdle(now time.Time, delay time.Duration) {
	r, ok := s.cfg.Executor.(HostMemoryKeeper)
	if !ok {
		return
	}
	if err := r.ReleaseIdle(now, delay); err != nil {
		s.log.Warn().Err(err).Msg("releasing idle host memory")
	}
}

// HostBytes is the host memory the executor keeps between requests (0 for
// executors that keep none).
func (s *Server) HostBytes() uint64 {
	if r, ok := s.cfg.Executor.(HostMemoryKeeper); ok {
		return r.HostBytes()
	}
	return 0
}
