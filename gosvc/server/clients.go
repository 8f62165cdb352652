package server

import (
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
)

// SetClientLimits changes the per-client bounds live: connections per
// client process (0 takes DefaultMaxConnsPerClient) and the idle timeout
// of sessions (0 takes DefaultSessionIdleTimeout, negative never).  A
// lowered connection bound refuses new connections only; the idle timeout
// applies from each connection's next wait for a message.
func (s *Server) SetClientLimits(maxConns int, sessionIdle time.Duration) {
	if maxConns <= 0 {
		maxConns = DefaultMaxConnsPerClient
	}
	if sessionIdle == 0 {
		sessionIdle = DefaultSessionIdleTimeout
	}
	s.maxPerClient.Store(int32(min(maxConns, 1<<30)))
	s.sessionIdle.Store(int64(sessionIdle))
}

// peerCred reads the credentials of the process at the other end of f.
func peerCred(f *os.File) (*unix.Ucred, error) {
	raw, err := f.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("peer credentials: %w", err)
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return nil, fmt.Errorf("peer credentials: %w", err)
	}
	if credErr != nil {
		return nil, fmt.Errorf("peer credentials (SO_PEERCRED): %w", credErr)
	}
	return cred, nil
}

// admitPeer checks a new client's credentials against the bounds, under
// connsMu: it must run as the service's user (or as root, which the
// socket's 0600 mode does not keep out either), and its process may not
// hold more than MaxConnsPerClient connections.  It returns the Error
// reply that refuses it, or nil and counts the connection.
func (s *Server) admitPeerLocked(cred *unix.Ucred) *protocol.ErrorReply {
	if !peerUIDAdmitted(cred.Uid, s.peerUID) {
		e := errorReply(protocol.ErrCodeProtocol, fmt.Sprintf(
			"GPU%d service accepts clients of user id %d only, not of user id %d (pid %d)", s.cfg.DeviceIndex, s.peerUID, cred.Uid, cred.Pid))
		return &e
	}
	most := int(s.maxPerClient.Load())
	if n := s.perPeer[cred.Pid]; n >= most {
		e := errorReply(protocol.ErrCodeUnsupported, fmt.Sprintf(
			"process %d holds %d connections to the GPU%d service, the most pg_strom.max_connections_per_backend allows; run on the CPU",
			cred.Pid, n, s.cfg.DeviceIndex))
		return &e
	}
	s.perPeer[cred.Pid]++
	return nil
}

// peerUIDAdmitted says whether a client of user id uid may connect to a
// service that admits user id service.
func peerUIDAdmitted(uid, service uint32) bool {
	return uid == service || uid == 0
}

// forgetPeerLocked uncounts a closed connection of pid.
func (s *Server) forgetPeerLocked(pid int32) {
	if s.perPeer[pid] <= 1 {
		delete(s.perPeer, pid)
		return
	}
	s.perPeer[pid]--
}

// clientCounts is the client processes with a connection open and the
// most connections one of them holds.
func (s *Server) clientCounts() (clients, most int) {
	s.connsMu.Lock()
	defer s.connsMu.Unlock()
	for _, n := range s.perPeer {
		most = max(most, n)
	}
	return len(s.perPeer), most
}
