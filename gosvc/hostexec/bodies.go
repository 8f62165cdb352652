package hostexec

import (
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/hostpool"
	"github.com/pgstrom-go/pg_strom/gosvc/server"
)

// The host executor lends request bodies as the gpu package does, from
// ordinary memory, so that the receive path a GPU uses (a chunk read into
// lent memory, Exec on it, the body returned, idle bodies released) runs
// under the real backend in the host-executor suite too.
const (
	lentBodyGrain = 8 << 20
	lentBodyLimit = 256 << 20
)

var (
	_ server.BodyLender       = (*Executor)(nil)
	_ server.HostMemoryKeeper = (*Executor)(nil)
)

func newBodyPool() *hostpool.Pool {
	return hostpool.New(func(size uint64) ([]byte, func() error, error) {
		return make([]byte, size), func() error { return nil }, nil
	}, lentBodyGrain, lentBodyLimit)
}

// LendBody lends memory for an inline chunk's TaskExec message.
func (e *Executor) LendBody(n int) []byte { return e.bodies.Lend(n) }

// ReturnBody takes back what LendBody lent.
func (e *Executor) ReturnBody(b []byte) error { return e.bodies.Return(b) }

// HostBytes is the pinned memory kept for lent bodies, lent or idle.
func (e *Executor) HostBytes() uint64 { return e.bodies.Stats().Total }

// ReleaseIdle frees lent-body buffers idle for at least delay.
func (e *Executor) ReleaseIdle(now time.Time, delay time.Duration) error {
	_, err := e.bodies.ReleaseIdle(now, delay)
	return err
}
