package server

import (
	"sync"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
)

// fairQueue holds the commands waiting for a worker: one FIFO per
// connection, served round robin, so a connection that pipelines hundreds
// of commands delays another connection's command by at most one of its
// own per worker.  Within a connection the order is kept, which sessions
// rely on (see session).
//
// A session's setup and end (OpenSession, JoinInner, TaskFinal) and Status
// jump the round: the node that sends them has no chunk in flight and
// waits, so behind the chunks of every other connection (a partitioned
// table's node per partition opens and closes a session for each one,
// while 16 other participants keep the workers busy) it leaves its share
// of the device idle.  Every other dispatch at most goes to such a
// command, so a client that sends nothing else still cannot hold back the
// others' chunks.
type fairQueue struct {
	mu          sync.Mutex
	ring        []*clientConn
	n           int  // commands queued
	urgent      int  // of those, control commands (jumpsRound)
	lastControl bool // the last dispatch went to a control command
	closed      bool // no more commands are accepted

	// worker slots (workers.go), under mu
	limit     int             // slots wanted
	active    int             // slots held by running commands
	suspended int             // commands waiting for their client, slot given back
	resumers  []chan struct{} // suspended commands ready to run again, in order
	dispatch  func()          // hands out free slots; called with mu held
}

func newFairQueue() *fairQueue { return &fairQueue{} }

// push queues cmd behind its connection's earlier commands; false when the
// queue is closed.
func (q *fairQueue) push(cmd command) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	c := cmd.conn
	cmd.queuedAt = time.Now()
	if jumpsRound(cmd) {
		q.urgent++
	}
	c.pending = append(c.pending, cmd)
	if !c.inRing {
		c.inRing = true
		q.ring = append(q.ring, c)
	}
	q.n++
	q.dispatch()
	return true
}

// jumpsRound reports whether cmd is a control command, served ahead of
// the round robin.
func jumpsRound(cmd command) bool {
	switch cmd.header.Tag {
	case protocol.TagOpenSession, protocol.TagJoinInner, protocol.TagTaskFinal, protocol.TagStatus:
		return true
	}
	return false
}

// popLocked takes the oldest command of the first connection whose next
// command is a control command, unless the last dispatch went to one;
// otherwise that of the next connection in the round.
func (q *fairQueue) popLocked() (command, bool) {
	if len(q.ring) == 0 {
		return command{}, false
	}
	at := 0
	if q.urgent > 0 && !q.lastControl {
		for i, c := range q.ring {
			if jumpsRound(c.pending[0]) {
				at = i
				break
			}
		}
	}
	c := q.ring[at]
	copy(q.ring[1:at+1], q.ring[:at]) // the ones passed over keep their turn
	q.ring[0] = nil
	q.ring = q.ring[1:]
	cmd := c.pending[0]
	c.pending[0] = command{}
	c.pending = c.pending[1:]
	if len(c.pending) > 0 {
		q.ring = append(q.ring, c)
	} else {
		c.inRing = false
		c.pending = nil
	}
	q.n--
	q.lastControl = jumpsRound(cmd)
	if q.lastControl {
		q.urgent--
	}
	return cmd, true
}

// take removes and returns the queued commands of c (nil for all
// connections), which will not run.
func (q *fairQueue) take(c *clientConn) []command {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []command
	keep := q.ring[:0]
	for _, o := range q.ring {
		if c != nil && o != c {
			keep = append(keep, o)
			continue
		}
		for _, cmd := range o.pending {
			if jumpsRound(cmd) {
				q.urgent--
			}
		}
		out = append(out, o.pending...)
		o.pending, o.inRing = nil, false
	}
	clear(q.ring[len(keep):])
	q.ring = keep
	q.n -= len(out)
	return out
}

// close refuses further commands; suspended commands resume at once.
func (q *fairQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.dispatch()
	q.mu.Unlock()
}

func (q *fairQueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.n
}
