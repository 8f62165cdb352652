package server

import (
	"cmp"
	"slices"
)

// ClientUsage is what one client process holds of a device's service:
// its open connections, its commands in flight (queued, running,
// suspended or with a reply not yet written) and the reply bytes waiting
// for it to read.  A client that stopped reading shows here with reply
// bytes that do not fall.
type ClientUsage struct {
	PID         int32
	Connections int
	Commands    int
	ReplyBytes  int64
}

// ClientUsage returns every client process's usage, those holding the
// most reply bytes first, then the most commands, then connections.
func (s *Server) ClientUsage() []ClientUsage {
	s.connsMu.Lock()
	conns := make([]*clientConn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.connsMu.Unlock()

	byPID := make(map[int32]*ClientUsage)
	for _, c := range conns {
		u := byPID[c.pid]
		if u == nil {
			u = &ClientUsage{PID: c.pid}
			byPID[c.pid] = u
		}
		u.Connections++
		u.Commands += len(c.slots)
		c.outMu.Lock()
		u.ReplyBytes += c.outBytes
		c.outMu.Unlock()
	}
	out := make([]ClientUsage, 0, len(byPID))
	for _, u := range byPID {
		out = append(out, *u)
	}
	slices.SortFunc(out, func(a, b ClientUsage) int {
		return cmp.Or(cmp.Compare(b.ReplyBytes, a.ReplyBytes), cmp.Compare(b.Commands, a.Commands),
			cmp.Compare(b.Connections, a.Connections), cmp.Compare(a.PID, b.PID))
	})
	return out
}
