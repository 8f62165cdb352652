package server

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/pgstrom-go/pg_strom/gosvc/mempool"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/pagecache"
)

// PoolStatser is the part of the device memory pool the server reports in
// Status replies; *mempool.Pool satisfies it.
type PoolStatser interface {
	Stats() mempool.Stats
}

// Config describes one device's server.
type Config struct {
	SocketPath  string // see SocketPath
	DeviceIndex int
	Workers     int // initial worker count (pg_strom.max_async_tasks)
	// QueueDepth is kept for compatibility and no longer used: the queue
	// is bounded by MaxConnections times MaxInflight.
	QueueDepth int
	Pool       PoolStatser
	// Executor runs sessions; nil answers them ErrCodeUnsupported.
	Executor nodekind.Executor
	// Kinds are the node kinds whose sessions are accepted; required
	// with an Executor.
	Kinds *nodekind.Registry
	// SharedBuffers is how many of PostgreSQL's shared buffers the
	// executor registered for zero-copy chunks (XPU_BUFFER_SHARED); 0
	// answers such chunks ErrCodeUnsupported, and the backend runs them
	// on the CPU.
	SharedBuffers uint32
	// DataDir is PGDATA, where direct-read chunks (XPU_BUFFER_DIRECT) are
	// read from; "" answers them ErrCodeUnsupported.
	DataDir string
	// PageCache is the directory of the executor's page store (the
	// executor is a nodekind.PageStore that opened PageCache.Slots()
	// slots); nil: direct-read chunks are always read from the files.
	PageCache *pagecache.Cache
	Logger    zerolog.Logger

	// Bounds; a zero field takes the default of the same name (see
	// limits.go for the reasons).
	MaxConnections int           // open connections (DefaultMaxConnections)
	MaxInflight    int           // commands in flight per connection (DefaultMaxInflight)
	MessageTimeout time.Duration // a partial message without progress (DefaultMessageTimeout)
	IdleTimeout    time.Duration // a connection without session and work (DefaultIdleTimeout)
	BodyBudget     int64         // request bodies in ordinary memory (DefaultBodyBudget)
	WriteTimeout   time.Duration // one reply write (DefaultWriteTimeout)
	// OutboxBytes bounds the SuccessHalfway replies of one connection
	// queued for its writer (DefaultOutboxBytes).
	OutboxBytes int64
	// MaxConnsPerClient bounds the open connections of one client
	// process (its SO_PEERCRED pid): pg_strom.max_connections_per_backend
	// (DefaultMaxConnsPerClient).  SetClientLimits changes it live.
	MaxConnsPerClient int
	// SessionIdleTimeout closes a connection that holds an open session,
	// has nothing in flight and sends nothing for that long
	// (pg_strom.gpu_session_idle_timeout; DefaultSessionIdleTimeout, a
	// negative value never).  SetClientLimits changes it live.
	SessionIdleTimeout time.Duration
	// PeerUID is the only user id whose processes may connect (checked by
	// SO_PEERCRED); a zero Config takes the service's own effective uid.
	PeerUID *uint32

	// OnDeviceLost, when set, is called once, from a worker, with the
	// first executor error that wraps ErrDeviceLost; it must not block.
	OnDeviceLost func(error)
}

// Limits on the worker count, matching pg_strom.max_async_tasks.
const (
	MinWorkers        = 1
	MaxWorkers        = 256
	DefaultQueueDepth = 1024
	listenBacklog     = 128
)

// Stats is a snapshot of one server's counters.
type Stats struct {
	Workers uint32 // worker slots (pg_strom.max_async_tasks); 0 once closed
	// Busy is the slots held by running commands; Suspended counts the
	// commands waiting for their client to read, which hold no slot.
	Busy           uint32
	Suspended      uint32
	Connections    uint32 // open client sockets
	Queued         uint32 // commands waiting for a worker
	RequestsServed uint64 // requests answered successfully
	// BodyBytes is the memory allocated for request bodies the server
	// holds now (not counting memory the executor lent): it follows the
	// bytes that arrived, not the lengths that headers claim.
	BodyBytes int64
	// BodyReserved is the budget for bodies taken now (Config.BodyBudget
	// and the small bodies' share).
	BodyReserved int64
	// Refused counts connections refused over MaxConnections or
	// MaxConnsPerClient, or from another user; Dropped counts
	// connections closed for a read deadline or an idle session.
	Refused uint64
	Dropped uint64
	// Clients is the number of client processes with a connection open,
	// and MaxClientConns the most connections one of them holds.
	Clients        uint32
	MaxClientConns uint32
}

// Server serves one device's socket.
type Server struct {
	cfg      Config
	log      zerolog.Logger
	listenFd int
	accept   *acceptLoop
	queue    *fairQueue
	bodies   *budget       // bodies larger than firstPiece
	small    *budget       // the others, but for the tiny ones
	done     chan struct{} // closed by Close

	connsMu sync.Mutex
	conns   map[*clientConn]struct{}
	perPeer map[int32]int // open connections per client pid
	closed  bool

	maxPerClient atomic.Int32 // Config.MaxConnsPerClient, live
	sessionIdle  atomic.Int64 // Config.SessionIdleTimeout in ns, live; <= 0 never
	peerUID      uint32

	connections atomic.Int32
	served      atomic.Uint64
	bodyBytes   atomic.Int64
	refused     atomic.Uint64
	dropped     atomic.Uint64
	refusedLog  refusalLog

	probes linkProbes // one LINK_PROBE at a time

	lostOnce sync.Once // OnDeviceLost is called once

	acceptDone sync.WaitGroup
	receivers  sync.WaitGroup
	workerWG   sync.WaitGroup // goroutines running commands
	closeOnce  sync.Once
	closeErr   error
}

// New starts listening on cfg.SocketPath (replacing a stale socket file) and
// starts the accept loop and cfg.Workers workers.
func New(cfg Config) (*Server, error) {
	if cfg.Pool == nil {
		return nil, errors.New("server config has no pool")
	}
	if cfg.Executor != nil && cfg.Kinds == nil {
		return nil, errors.New("server config has an executor but no node kinds")
	}
	if cfg.QueueDepth <= 0 {
		cfg.QueueDepth = DefaultQueueDepth
	}
	cfg.setDefaults()
	listenFd, err := listenUnix(cfg.SocketPath, listenBacklog)
	if err != nil {
		return nil, fmt.Errorf("device %d: %w", cfg.DeviceIndex, err)
	}
	loop, err := newAcceptLoop(listenFd)
	if err != nil {
		closeListener(listenFd, cfg.SocketPath)
		return nil, fmt.Errorf("device %d: %w", cfg.DeviceIndex, err)
	}
	s := &Server{
		cfg:      cfg,
		log:      cfg.Logger,
		listenFd: listenFd,
		accept:   loop,
		queue:    newFairQueue(),
		bodies:   newBudget(cfg.BodyBudget),
		small:    newBudget(max(cfg.BodyBudget/smallBudgetShare, firstPiece)),
		done:     make(chan struct{}),
		conns:    make(map[*clientConn]struct{}),
		perPeer:  make(map[int32]int),
		peerUID:  uint32(os.Geteuid()),
	}
	if cfg.PeerUID != nil {
		s.peerUID = *cfg.PeerUID
	}
	s.SetClientLimits(cfg.MaxConnsPerClient, cfg.SessionIdleTimeout)
	s.queue.dispatch = s.dispatchLocked
	s.SetWorkers(cfg.Workers)
	s.acceptDone.Add(1)
	go func() {
		defer s.acceptDone.Done()
		loop.run(s.serveConn, func(err error) {
			s.log.Warn().Err(err).Msg("accepting clients")
		})
	}()
	return s, nil
}

func closeListener(fd int, path string) {
	unix.Close(fd)
	os.Remove(path)
}

// SocketPath is the path the server listens on.
func (s *Server) SocketPath() string { return s.cfg.SocketPath }

// Stats returns the current counters.
func (s *Server) Stats() Stats {
	limit, busy, suspended := s.workerCounts()
	clients, most := s.clientCounts()
	return Stats{
		Clients:        uint32(clients),
		MaxClientConns: uint32(most),
		Workers:        uint32(limit),
		Busy:           uint32(busy),
		Suspended:      uint32(suspended),
		Connections:    uint32(s.connections.Load()),
		Queued:         uint32(s.queue.len()),
		RequestsServed: s.served.Load(),
		BodyBytes:      s.bodyBytes.Load(),
		BodyReserved:   s.bodies.reserved() + s.small.reserved(),
		Refused:        s.refused.Load(),
		Dropped:        s.dropped.Load(),
	}
}

// Close stops accepting, closes every client connection, stops the workers,
// waits for all goroutines and removes the socket file.  Commands still
// queued are dropped: their clients are disconnected anyway.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		close(s.done)
		if err := s.accept.wake(); err != nil {
			s.closeErr = err
		}
		s.acceptDone.Wait()
		s.accept.closeFds()
		unix.Close(s.listenFd)
		if err := os.Remove(s.cfg.SocketPath); err != nil && !errors.Is(err, os.ErrNotExist) {
			s.closeErr = errors.Join(s.closeErr, fmt.Errorf("remove %s: %w", s.cfg.SocketPath, err))
		}

		// The closed queue starts no more commands, and those queued
		// are dropped, which releases every receiver waiting on its
		// client's inflight.  Connections close first, so that no
		// command waits for a client to read: running commands end
		// after their current step.
		s.queue.close()
		s.connsMu.Lock()
		s.closed = true
		for c := range s.conns {
			c.close()
		}
		s.connsMu.Unlock()
		s.workerWG.Wait()
		s.dropCommands(s.queue.take(nil))
		s.receivers.Wait()
		s.queue.mu.Lock()
		s.queue.limit = 0
		s.queue.mu.Unlock()
	})
	return s.closeErr
}

// deviceLost reports, once, that the executor's device cannot be used any
// more.  Requests keep being answered (with the executor's errors) until
// the service closes the server.
func (s *Server) deviceLost(err error) {
	s.lostOnce.Do(func() {
		s.log.Warn().Err(err).Msgf("GPU%d cannot be used any more; the GPU service must restart", s.cfg.DeviceIndex)
		if s.cfg.OnDeviceLost != nil {
			s.cfg.OnDeviceLost(err)
		}
	})
}

// FlushReplies waits until every connection's writer has written what it
// was given, or until timeout: a service about to exit lets the Error
// replies of a lost device reach their clients first.  It reports whether
// everything was written.
func (s *Server) FlushReplies(timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		s.connsMu.Lock()
		busy := false
		for c := range s.conns {
			if c.writing() {
				busy = true
				break
			}
		}
		s.connsMu.Unlock()
		if !busy {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}
