package server

import (
	"errors"
	"sync"

	"github.com/pgstrom-go/pg_strom/gosvc/logpipe"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
)

// linkProbes serializes the probes of one server: two at once would share
// the link and each measure about half of it.
type linkProbes struct{ mu sync.Mutex }

// linkProbe measures the device's link with the executor's LinkProber
// (admit made sure there is one).  A failure keeps the connection open,
// except a protocol error.
func (s *Server) linkProbe(cmd *command) ([]byte, bool) {
	id := cmd.header.RequestID
	r := cmd.req.(protocol.LinkProbeRequest)
	prober, ok := s.cfg.Executor.(LinkProber)
	if !ok {
		e := errorReply(protocol.ErrCodeUnsupported, "link probe: this GPU service's executor cannot measure the link")
		return protocol.EncodeError(id, e), false
	}
	s.probes.mu.Lock()
	h2d, d2h, err := prober.ProbeLink(r.Bytes, int(r.Copies))
	s.probes.mu.Unlock()
	if err == nil && (h2d == 0 || d2h == 0) {
		err = errors.New("the executor measured no time")
	}
	if err != nil {
		return s.executorError(id, "link probe", err)
	}
	if logpipe.DebugEnabled() {
		s.log.Debug().Uint32("request_id", id).Uint64("bytes", r.Bytes).Uint32("copies", r.Copies).
			Uint64("h2d_ns", h2d).Uint64("d2h_ns", d2h).Msg("link probe served")
	}
	return protocol.EncodeLinkProbeReply(id, protocol.LinkProbeReply{
		DeviceIndex: int32(s.cfg.DeviceIndex),
		Copies:      r.Copies,
		Bytes:       r.Bytes,
		H2DNs:       h2d,
		D2HNs:       d2h,
	}), true
}
