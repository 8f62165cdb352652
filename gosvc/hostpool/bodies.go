package hostpool

import "time"

// Bodies is a Pool as an executor lends request bodies from it: embedded
// in an executor, its methods are the server's BodyLender and
// HostMemoryKeeper, so the gpu and host executors share them.
type Bodies struct{ pool *Pool }

// NewBodies wraps p.
func NewBodies(p *Pool) Bodies { return Bodies{pool: p} }

// LendBody lends memory for an inline chunk's TaskExec message.
func (b Bodies) LendBody(n int) []byte { return b.pool.Lend(n) }

// ReturnBody takes back what LendBody lent, for the next chunk.
func (b Bodies) ReturnBody(mem []byte) error { return b.pool.Return(mem) }

// HostBytes is the memory kept for bodies, lent or idle.
func (b Bodies) HostBytes() uint64 { return b.pool.Stats().Total }

// ReleaseIdle frees the buffers idle for at least delay.
func (b Bodies) ReleaseIdle(now time.Time, delay time.Duration) error {
	_, err := b.pool.ReleaseIdle(now, delay)
	return err
}

// CloseBodies frees the idle buffers; lent ones are freed as they come back.
func (b Bodies) CloseBodies() error { return b.pool.Close() }
