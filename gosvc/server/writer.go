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
	return c.sendBounded(it, 0, nil)
}

// sendBounded is send, but with limit > 0 it first waits while the outbox
// holds other bytes and adding it's would pass limit: the writer then
// has room again, or the connection closed (errConnClosed).  Replies
// without such a bound are few per connection (one per command in flight,
// MaxInflight); a node may send any number of SuccessHalfway replies, so
// they wait here, and a client that does not read holds at most limit
// bytes plus one message of service memory until its write deadline
// closes it.  The wait runs through suspend (Server.whileSuspended), which
// gives the caller's worker slot to other clients' commands meanwhile; nil
// waits in place.
func (c *clientConn) sendBounded(it outItem, limit int64, suspend func(wait func())) error {
	size := itemBytes(it)
	c.outMu.Lock()
	for limit > 0 && c.outboxFullLocked(size, limit) {
		if suspend == nil {
			c.roomCond.Wait()
			continue
		}
		c.outMu.Unlock()
		suspend(func() { c.waitRoom(size, limit) })
		c.outMu.Lock()
	}
	if c.outDead || c.isClosed() {
		c.outMu.Unlock()
		if it.done != nil {
			it.done()
		}
		return errConnClosed
	}
	c.out = append(c.out, it)
	c.outBytes += size
	c.outCond.Signal()
	c.outMu.Unlock()
	return nil
}

// outboxFullLocked reports whether size more bytes must wait for the
// writer: the outbox holds others and they would pass limit.
func (c *clientConn) outboxFullLocked(size, limit int64) bool {
	return !c.outDead && !c.isClosed() && c.outBytes > 0 && c.outBytes+size > limit
}

// waitRoom waits until size more bytes fit in the outbox (or the
// connection closed).
func (c *clientConn) waitRoom(size, limit int64) {
	c.outMu.Lock()
	for c.outboxFullLocked(size, limit) {
		c.roomCond.Wait()
	}
	c.outMu.Unlock()
}

func itemBytes(it outItem) int64 {
	var n int64
	for _, m := range it.msgs {
		n += int64(len(m))
	}
	return n
}

// write queues msgs; see send.
func (c *clientConn) write(msgs ...[]byte) error {
	return c.send(outItem{msgs: msgs})
}

// writing reports whether the writer has something left to write.
func (c *clientConn) writing() bool {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	return !c.outDead && (len(c.out) > 0 || c.outBusy)
}

// writeLoop is the connection's writer: it writes the outbox in order
// until the connection closes; then it discards what is left.  A client
// that takes no byte for timeout is disconnected (an idle cursor's
// connection, say: its backend then finds the connection closed and
// continues on the CPU), so it cannot hold service memory for longer.  A
// failed write closes the connection (a partial write desynchronizes the
// stream).
func (c *clientConn) writeLoop(timeout time.Duration) {
	defer close(c.writerDone)
	for {
		c.outMu.Lock()
		for len(c.out) == 0 && !c.isClosed() {
			c.outCond.Wait()
		}
		if c.isClosed() {
			rest := c.out
			c.out, c.outDead, c.outBytes = nil, true, 0
			c.roomCond.Broadcast()
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
		c.outBusy = true
		c.outMu.Unlock()

		err := c.writeNow(it.msgs, timeout)
		c.outMu.Lock()
		c.outBusy = false
		c.outBytes -= itemBytes(it)
		c.roomCond.Broadcast()
		c.outMu.Unlock()
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

// writePiece is the most written under one deadline: a client that reads
// a large reply slowly but steadily is not cut off, one that stops
// reading is, timeout after its last read.
const writePiece = 1 << 20

func (c *clientConn) writeNow(msgs [][]byte, timeout time.Duration) error {
	for _, msg := range msgs {
		for off := 0; off < len(msg); {
			end := min(off+writePiece, len(msg))
			if err := c.f.SetWriteDeadline(time.Now().Add(timeout)); err != nil {
				return fmt.Errorf("set write deadline: %w", err)
			}
			n, err := c.f.Write(msg[off:end])
			if err != nil {
				return fmt.Errorf("write reply (%d of %d bytes written): %w", off+n, len(msg), err)
			}
			off = end
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
		c.roomCond.Broadcast()
		c.outMu.Unlock()
	})
}
