package server

import (
	"os"
	"testing"
	"time"
)

// A client that stops reading shows in ClientUsage with the reply bytes
// queued for it and its command in flight; a client that reads shows none,
// and the stalled one comes first.
func TestClientUsageShowsStalledReader(t *testing.T) {
	ex := &floodExecutor{fakeExecutor: &fakeExecutor{}, parts: 16, partPairs: 32 << 10} // 16 x 256 kB
	s := startExecServer(t, 4, ex)
	stalled := startFlood(t, s, 7)
	idle := dial(t, s)
	expectSuccess(t, idle, testSessionMsg(1))

	me := int32(os.Getpid())
	deadline := time.Now().Add(10 * time.Second)
	var u []ClientUsage
	for time.Now().Before(deadline) {
		if u = s.ClientUsage(); len(u) == 1 && u[0].ReplyBytes >= 1<<20 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	// both connections are this process's
	if len(u) != 1 || u[0].PID != me || u[0].Connections != 2 || u[0].Commands < 1 || u[0].ReplyBytes < 1<<20 {
		t.Fatalf("ClientUsage = %+v, want pid %d with 2 connections, a command in flight and at least 1 MB of replies queued", u, me)
	}

	readFlood(t, stalled, ex, 7)
	for time.Now().Before(deadline) {
		if u = s.ClientUsage(); len(u) == 1 && u[0].ReplyBytes == 0 && u[0].Commands == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("after the replies were read, ClientUsage = %+v, want no commands and no reply bytes", u)
}
