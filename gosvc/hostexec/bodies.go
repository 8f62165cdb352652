package hostexec

import (
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

func newBodies() hostpool.Bodies {
	return hostpool.NewBodies(hostpool.New(func(size uint64) ([]byte, func() error, error) {
		return make([]byte, size), func() error { return nil }, nil
	}, lentBodyGrain, lentBodyLimit))
}
