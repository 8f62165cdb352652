package server

import (
	"sync"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// Defaults of the bounds in Config; a zero field takes its default.
//
// Connections are never timed out while they hold an open session: a
// backend keeps its connection idle between chunks of a scan for as long as
// an idle cursor lasts, and an OpenSession is the first thing a backend
// sends after connecting.  Idle connections are counted against the
// connection cap instead.  A connection without a session and with nothing
// in flight (a Status client that went quiet) is closed after IdleTimeout.
// Once the first byte of a message has arrived, the whole message must
// arrive: no byte for MessageTimeout, or the message not complete within
// MessageTimeout plus its length at MinBodyRate, closes the connection.
const (
	// DefaultMaxConnections bounds the open client connections of one
	// device.  Each backend opens one per GPU node it runs (parallel
	// workers their own), so this is well above max_connections times a
	// few nodes; past it a client gets an Error reply (PGSTROM_ERR_
	// UNSUPPORTED: the backend runs the node on the CPU) and a log line.
	DefaultMaxConnections = 1024
	// DefaultMaxInflight bounds one connection's commands queued,
	// running or with a reply not yet written; a backend keeps at most
	// GPU_TASK_MAX_INFLIGHT (3) chunks and one TaskFinal in flight, or at
	// its start OpenSession and a first JoinInner piece per depth (at most
	// XPU_JOIN_MAX_DEPTHS, 4).  At the bound the receiver stops reading
	// that connection.
	DefaultMaxInflight = 16
	// DefaultMessageTimeout is how long a partial message may go without
	// a byte (and, plus MinBodyRate, how long it may take in all).
	DefaultMessageTimeout = 10 * time.Second
	// DefaultIdleTimeout closes a connection with no open session and
	// nothing in flight that sends nothing.
	DefaultIdleTimeout = 60 * time.Second
	// DefaultBodyBudget bounds the request bodies the server holds in
	// ordinary memory (not lent by the executor) across connections,
	// from their header until their command is done.  A message larger
	// than the budget reserves the whole budget.
	DefaultBodyBudget = int64(protocol.MaxLength)
	// Bodies up to firstPiece are received under a budget of their own,
	// a sixteenth of the body budget, so that they never wait behind a
	// large one.
	smallBudgetShare = 16
	// DefaultWriteTimeout is how long a reply may wait for the client to
	// read a byte; a client that stops reading for that long is
	// disconnected.  Only that connection's
	// writer waits: workers never write to a socket.
	DefaultWriteTimeout = 30 * time.Second

	// DefaultOutboxBytes bounds the SuccessHalfway replies a connection
	// has queued for its writer: two of GpuPreAgg's largest groups
	// messages (64 MB).  A command that has more is suspended until the
	// client reads (a backend emitting groups reads one message at a
	// time); its worker runs other commands meanwhile (workers.go).
	DefaultOutboxBytes = 128 << 20

	// DefaultMaxConnsPerClient bounds one client process's open
	// connections (pg_strom.max_connections_per_backend): a backend holds
	// one per GPU node it runs, and an open cursor keeps its node's, so
	// one session with many open cursors could otherwise take the whole
	// MaxConnections and send everyone's queries to the CPU.  Past it the
	// client gets an Error reply (PGSTROM_ERR_UNSUPPORTED: the node runs
	// on the CPU).
	DefaultMaxConnsPerClient = 64
	// DefaultSessionIdleTimeout closes a connection with an open session
	// and nothing in flight that sends nothing for so long: an idle cursor
	// holds device memory (a GpuJoin's inner tables, a GpuPreAgg's device
	// table) that other queries could use.  Its backend finds the
	// connection closed at its next chunk and continues on the CPU.
	DefaultSessionIdleTimeout = 10 * time.Minute

	// MinBodyRate is the slowest a message body may arrive, on average.
	MinBodyRate = 16 << 20 // bytes per second
	// MaxSessionLength caps an OpenSession message (a device program);
	// a larger one is answered PGSTROM_ERR_UNSUPPORTED, so the backend
	// runs the node on the CPU.
	MaxSessionLength = 64 << 20
)

// firstPiece is the most the receiver allocates for a body before its
// bytes arrive; past it the buffer doubles as bytes arrive.
const firstPiece = 64 << 10

// readPiece is the most read under one progress deadline.
const readPiece = 1 << 20

func (cfg *Config) setDefaults() {
	if cfg.MaxConnections <= 0 {
		cfg.MaxConnections = DefaultMaxConnections
	}
	if cfg.MaxInflight <= 0 {
		cfg.MaxInflight = DefaultMaxInflight
	}
	if cfg.MessageTimeout <= 0 {
		cfg.MessageTimeout = DefaultMessageTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.BodyBudget <= 0 {
		cfg.BodyBudget = DefaultBodyBudget
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	if cfg.OutboxBytes <= 0 {
		cfg.OutboxBytes = DefaultOutboxBytes
	}
}

// maxLength is the longest message of a tag the server reads: requests
// without payload are capped at their exact size, so a header claiming
// more is refused before anything is allocated.
func maxLength(tag protocol.Tag) uint32 {
	switch tag {
	case protocol.TagStatus, protocol.TagTaskFinal:
		return uint32(protocol.HeaderSize)
	case protocol.TagLinkProbe:
		return uint32(protocol.HeaderSize + protocol.LinkProbeSize)
	case protocol.TagOpenSession:
		return MaxSessionLength
	case protocol.TagJoinInner:
		return protocol.JoinInnerMaxLength
	case protocol.TagTaskExec:
		return uint32(xpu.MaxTaskExecLength)
	}
	return protocol.MaxLength // replies, refused by ParseRequest
}

// budget is a first-come first-served semaphore of bytes.
type budget struct {
	mu      sync.Mutex
	total   int64
	avail   int64
	waiters []*budgetWaiter
}

type budgetWaiter struct {
	n     int64
	ready chan struct{}
}

func newBudget(total int64) *budget { return &budget{total: total, avail: total} }

// acquire takes n bytes (at most the total), waiting in line; false when
// cancel or done closes first.
func (b *budget) acquire(n int64, cancel, done <-chan struct{}) bool {
	b.mu.Lock()
	if len(b.waiters) == 0 && b.avail >= n {
		b.avail -= n
		b.mu.Unlock()
		return true
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	b.waiters = append(b.waiters, w)
	b.mu.Unlock()
	select {
	case <-w.ready:
		return true
	case <-cancel:
	case <-done:
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-w.ready: // granted meanwhile: give it back
		b.avail += n
		b.grantLocked()
		return false
	default:
	}
	for i, o := range b.waiters {
		if o == w {
			b.waiters = append(b.waiters[:i], b.waiters[i+1:]...)
			break
		}
	}
	b.grantLocked() // the head may have changed
	return false
}

// release gives n bytes back.
func (b *budget) release(n int64) {
	if b == nil || n == 0 {
		return
	}
	b.mu.Lock()
	b.avail += n
	b.grantLocked()
	b.mu.Unlock()
}

func (b *budget) grantLocked() {
	for len(b.waiters) > 0 && b.avail >= b.waiters[0].n {
		w := b.waiters[0]
		b.waiters = b.waiters[1:]
		b.avail -= w.n
		close(w.ready)
	}
}

// reserved is the bytes taken now.
func (b *budget) reserved() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total - b.avail
}
