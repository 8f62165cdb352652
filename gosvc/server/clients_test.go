package server

import (
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
)

// expectRefusal reads the Error reply a refused connection gets and its
// close.
func expectRefusal(t *testing.T, c net.Conn, code int32, substr string) {
	t.Helper()
	msg, h, err := protocol.ReadMessage(c, 0)
	if err != nil || h.Tag != protocol.TagError {
		t.Fatalf("refused connection: %s (%v), want an Error reply", h.Tag, err)
	}
	e, err := protocol.DecodeError(msg)
	if err != nil || e.Code != code || !strings.Contains(e.Message, substr) {
		t.Fatalf("refusal %+v (%v), want code %d containing %q", e, err, code, substr)
	}
	if _, _, err := protocol.ReadMessage(c, 0); err == nil {
		t.Fatal("the refused connection stayed open")
	}
}

// One process may hold MaxConnsPerClient connections; the next one is
// refused with PGSTROM_ERR_UNSUPPORTED (its node runs on the CPU), and a
// closed connection makes room again.  SetClientLimits changes the bound
// live.
func TestConnectionsPerClientBounded(t *testing.T) {
	s := startLimitedServer(t, 2, &fakeExecutor{}, Config{MaxConnsPerClient: 3})
	var open []net.Conn
	for i := 0; i < 3; i++ {
		c := dial(t, s)
		expectSuccess(t, c, protocol.EncodeRequest(protocol.TagStatus, 1, nil))
		open = append(open, c)
	}
	if st := s.Stats(); st.Clients != 1 || st.MaxClientConns != 3 {
		t.Fatalf("stats: %d clients, at most %d connections; want 1 and 3", st.Clients, st.MaxClientConns)
	}
	expectRefusal(t, dial(t, s), protocol.ErrCodeUnsupported, "max_connections_per_backend")
	open[0].Close()
	waitFor(t, "the closed connection to be forgotten", func() bool { return s.Stats().MaxClientConns == 2 })
	expectSuccess(t, dial(t, s), protocol.EncodeRequest(protocol.TagStatus, 1, nil))
	s.SetClientLimits(4, 0)
	expectSuccess(t, dial(t, s), protocol.EncodeRequest(protocol.TagStatus, 1, nil))
	expectRefusal(t, dial(t, s), protocol.ErrCodeUnsupported, "max_connections_per_backend")
	if n := s.Stats().Refused; n != 2 {
		t.Fatalf("Refused = %d, want 2", n)
	}
}

// A client of another user id is refused; root is admitted.
func TestPeerOfAnotherUserRefused(t *testing.T) {
	for _, c := range []struct {
		uid, service uint32
		want         bool
	}{{1002, 1002, true}, {0, 1002, true}, {1003, 1002, false}, {1002, 0, false}} {
		if got := peerUIDAdmitted(c.uid, c.service); got != c.want {
			t.Errorf("peerUIDAdmitted(%d, %d) = %v, want %v", c.uid, c.service, got, c.want)
		}
	}
	if os.Geteuid() == 0 {
		other := uint32(1)
		s := startLimitedServer(t, 2, &fakeExecutor{}, Config{PeerUID: &other})
		expectSuccess(t, dial(t, s), protocol.EncodeRequest(protocol.TagStatus, 1, nil))
		return
	}
	other := uint32(os.Geteuid() + 1)
	s := startLimitedServer(t, 2, &fakeExecutor{}, Config{PeerUID: &other})
	expectRefusal(t, dial(t, s), protocol.ErrCodeProtocol, "accepts clients of user id")
}

// A connection with an open session that sends nothing is closed after
// the session idle timeout, which releases the session; one with a
// chunk in flight is not idle.  The busy chunk runs ten timeouts long and
// the checks on the quiet connection are made while it runs, so a slow
// machine cannot let the busy connection's own idle time run out first.
func TestIdleSessionClosed(t *testing.T) {
	const idle = 300 * time.Millisecond
	ex := &fakeExecutor{execDelay: 10 * idle}
	s := startLimitedServer(t, 2, ex, Config{SessionIdleTimeout: idle})
	busy := dial(t, s)
	expectSuccess(t, busy, sessionMsg(1))
	quiet := dial(t, s)
	start := time.Now() // the service's last read of quiet comes after this
	expectSuccess(t, quiet, sessionMsg(1))
	if _, err := busy.Write(chunkMsg(2, 2, 1)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := protocol.ReadMessage(quiet, 0); err == nil {
		t.Fatal("the idle session's connection got a message, want it closed")
	}
	if took := time.Since(start); took < idle {
		t.Fatalf("closed after %v, before the idle timeout", took)
	}
	waitFor(t, "the idle session to be released", func() bool { return ex.open.Load() == 1 })
	if n := s.Stats().Dropped; n != 1 {
		t.Fatalf("Dropped = %d, want 1", n)
	}
	if _, h, err := protocol.ReadMessage(busy, 0); err != nil || h.Tag != protocol.TagSuccess {
		t.Fatalf("the busy chunk's reply: %s (%v), want Success: a connection with a chunk in flight was closed", h.Tag, err)
	}
	// a negative timeout never closes
	s.SetClientLimits(0, -1)
	c := dial(t, s)
	expectSuccess(t, c, sessionMsg(1))
	time.Sleep(2 * idle)
	expectSuccess(t, c, protocol.EncodeRequest(protocol.TagStatus, 2, nil))
}
