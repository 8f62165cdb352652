package server

import (
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
)

// queued pushes one command of each tag for c, in order.
func queued(t *testing.T, q *fairQueue, c *clientConn, tags ...protocol.Tag) {
	t.Helper()
	for _, tag := range tags {
		if !q.push(command{conn: c, header: protocol.Header{Tag: tag}}) {
			t.Fatal("push refused by an open queue")
		}
	}
}

// popped takes n commands, naming each by its connection's index in conns.
func popped(t *testing.T, q *fairQueue, conns []*clientConn, n int) (who []int, tags []protocol.Tag) {
	t.Helper()
	q.mu.Lock()
	defer q.mu.Unlock()
	for i := 0; i < n; i++ {
		cmd, ok := q.popLocked()
		if !ok {
			t.Fatalf("pop %d: the queue is empty", i)
		}
		idx := -1
		for j, c := range conns {
			if c == cmd.conn {
				idx = j
			}
		}
		who = append(who, idx)
		tags = append(tags, cmd.header.Tag)
	}
	return who, tags
}

func newTestQueue() *fairQueue {
	q := newFairQueue()
	q.dispatch = func() {} // nothing runs: the test pops by hand
	return q
}

func conns(n int) []*clientConn {
	out := make([]*clientConn, n)
	for i := range out {
		out[i] = &clientConn{}
	}
	return out
}

// A session opened behind other connections' chunks runs next, and the
// round then goes on where it was.
func TestOpenSessionJumpsOtherConnectionsChunks(t *testing.T) {
	q := newTestQueue()
	cs := conns(4)
	for _, c := range cs[:3] {
		queued(t, q, c, protocol.TagTaskExec, protocol.TagTaskExec)
	}
	queued(t, q, cs[3], protocol.TagOpenSession, protocol.TagTaskExec)
	who, tags := popped(t, q, cs, 8)
	want := []int{3, 0, 1, 2, 3, 0, 1, 2}
	for i := range want {
		if who[i] != want[i] {
			t.Fatalf("dispatch order %v, want %v", who, want)
		}
	}
	if tags[0] != protocol.TagOpenSession {
		t.Fatalf("first dispatch %s, want OpenSession", tags[0])
	}
	if q.urgent != 0 || q.n != 0 {
		t.Fatalf("after draining: %d queued, %d control", q.n, q.urgent)
	}
}

// A control command never passes its own connection's earlier commands:
// TaskFinal waits for the session's chunks.
func TestTaskFinalKeepsItsConnectionsOrder(t *testing.T) {
	q := newTestQueue()
	cs := conns(2)
	queued(t, q, cs[0], protocol.TagTaskExec, protocol.TagTaskExec)
	queued(t, q, cs[1], protocol.TagTaskExec, protocol.TagTaskExec, protocol.TagTaskFinal)
	_, tags := popped(t, q, cs, 5)
	seen := 0
	for i, tag := range tags {
		if i > 0 && tags[i-1] == protocol.TagTaskFinal {
			t.Fatalf("order %v: TaskFinal came before a chunk", tags)
		}
		if tag == protocol.TagTaskFinal {
			seen++
		}
	}
	if seen != 1 || tags[4] != protocol.TagTaskFinal {
		t.Fatalf("order %v: want TaskFinal last", tags)
	}
}

// A client that sends only control commands gets at most every other
// dispatch: the others' chunks still run.
func TestControlCommandsCannotStarveChunks(t *testing.T) {
	q := newTestQueue()
	cs := conns(2)
	for i := 0; i < 20; i++ {
		queued(t, q, cs[0], protocol.TagOpenSession, protocol.TagTaskFinal)
	}
	for i := 0; i < 20; i++ {
		queued(t, q, cs[1], protocol.TagTaskExec)
	}
	who, _ := popped(t, q, cs, 20)
	chunks := 0
	for _, w := range who {
		if w == 1 {
			chunks++
		}
	}
	if chunks < 10 {
		t.Fatalf("the chunk connection got %d of 20 dispatches (%v), want at least 10", chunks, who)
	}
}

// Taking a closed connection's commands forgets its control commands too:
// the next dispatch does not look for one that is gone.
func TestTakeForgetsControlCommands(t *testing.T) {
	q := newTestQueue()
	cs := conns(2)
	queued(t, q, cs[0], protocol.TagOpenSession, protocol.TagJoinInner, protocol.TagTaskFinal)
	queued(t, q, cs[1], protocol.TagTaskExec, protocol.TagStatus)
	if got := len(q.take(cs[0])); got != 3 {
		t.Fatalf("took %d commands, want 3", got)
	}
	if q.urgent != 1 || q.n != 2 {
		t.Fatalf("after take: %d queued, %d control; want 2 and 1", q.n, q.urgent)
	}
	_, tags := popped(t, q, cs, 2)
	if tags[0] != protocol.TagTaskExec || tags[1] != protocol.TagStatus {
		t.Fatalf("order %v after take", tags)
	}
}
