package server

import (
	"errors"
	"fmt"
	"time"
)

// errConnClosed answers a reply sent on a connection that has closed: the
// reply is discarded.
var errConnClosed = errors.New("the connection is closed")

// outItem is one entry of a connection's outbox: messages written back to
// back, then done (if set) is called, whether they were written or
// discarded.
type outItem struct {
	msgs       [][]byte
	closeAfter bool // close the connection once they are written
	done       func()
}

// send queues msgs for the connection's writer and returns at once: a
// worker never waits for a client to read.  On a closed connection the
// messages are discarded (done is still called) and errConnClosed is
// returned.  Messages sent by one goroutine go out in order.
func (c *clientConn) send(it outItem) error {
	c.outMu.Lock()
	if c.outDead {
		c.outMu.Unlock()
		if it.done != nil {
			it.done()
		}
		return errConnClosed
	}
	c.out = append(c.out, it)
	c.outCond.Signal()
	c.outMu.Unlock()
	return nil
}

// write queues msgs; see send.
func (c *clientConn) write(msgs ...[]byte) error {
	return c.send(outItem{msgs: msgs})
}

// writeLoop is the connection's writer: it writes the outbox in order,
// each message under its own deadline, until the connection closes; then
// it discards what is left.  A failed write closes the connection (a
// partial write desynchronizes the stream).
func (c *clientConn) writeLoop(timeout time.Duration) {
	defer close(c.writerDone)
	for {
		c.outMu.Lock()
		for len(c.out) == 0 && !c.isClosed() {
			c.outCond.Wait()
		}
		if c.isClosed() {
			rest := c.out
			c.out, c.outDead = nil, true
			c.outMu.Unlock()
			for _, it := range rest {
				if it.done != nil {
					it.done()
				}
			}
			return
		}
		it := c.out[0]
		c.out[0] = outItem{}
		c.out = c.out[1:]
		c.outMu.Unlock()

		err := c.writeNow(it.msgs, timeout)
		if it.done != nil {
			it.done()
		}
		if err != nil || it.closeAfter {
			if err != nil && c.log != nil {
				c.log(err)
			}
			c.close()
		}
	}
}

func (c *clientConn) writeNow(msgs [][]byte, timeout time.Duration) error {
	for _, msg := range msgs {
		if err := c.f.SetWriteDeadline(time.Now().Add(timeout)); err != nil {
			return fmt.Errorf("set write deadline: %w", err)
		}
		if _, err := c.f.Write(msg); err != nil {
			return fmt.Errorf("write reply: %w", err)
		}
	}
	return nil
}

func (c *clientConn) isClosed() bool {
	select {
	case <-c.closed:
		return true
	default:
		return false
	}
}

// close closes the socket; the receiver blocked in read and the writer
// blocked in write return at once, and the writer discards its outbox.
func (c *clientConn) close() {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.f.Close()
		c.outMu.Lock()
		c.outCond.Broadcast()
		c.outMu.Unlock()
	})
}
