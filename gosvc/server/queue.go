package server

import "sync"

// fairQueue holds the commands waiting for a worker: one FIFO per
// connection, served round robin, so a connection that pipelines hundreds
// of commands delays another connection's command by at most one of its
// own per worker.  Within a connection the order is kept, which sessions
// rely on (see session).
type fairQueue struct {
	mu     sync.Mutex
	ring   []*clientConn
	n      int  // commands queued
	closed bool // no more commands are accepted

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
	c.pending = append(c.pending, cmd)
	if !c.inRing {
		c.inRing = true
		q.ring = append(q.ring, c)
	}
	q.n++
	q.dispatch()
	return true
}

// popLocked takes the next connection's oldest command.
func (q *fairQueue) popLocked() (command, bool) {
	if len(q.ring) == 0 {
		return command{}, false
	}
	c := q.ring[0]
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
