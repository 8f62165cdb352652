package hostexec

import (
	"errors"
	"fmt"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/hostpool"
	"github.com/pgstrom-go/pg_strom/gosvc/mempool"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/preagg"
	"github.com/pgstrom-go/pg_strom/gosvc/querybuf"
	"github.com/pgstrom-go/pg_strom/gosvc/scan"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// Executor runs sessions on the host; it implements the node kinds'
// primitives like the gpu package's, with the same memory use from the
// pool, so the pool's figures and exhaustion behave as on a GPU.
type Executor struct {
	index  int
	pool   *mempool.Pool
	mem    *hostMemory
	tables *querybuf.Table // GpuPreAgg tables and GpuJoin inner buffers of the plans
	// preaggSlots is the slot count of a new GpuPreAgg table (before the
	// memory cap of initialSlots); tests lower it to force growth.
	preaggSlots uint32
	// joinCapacity, when not 0, is the records of one GpuJoin launch
	// (one reply); tests lower it to force the launch loop.
	joinCapacity    uint32
	hostpool.Bodies // lent request bodies, see bodies.go
	// shared is PostgreSQL's shared buffers in this process, registered
	// before the executor was made; NBuffers 0: zero-copy chunks fail.
	shared xpu.SharedRegion
	// faults are the injected ones (FaultsEnv); nil: none
	faults *faults
	// store holds the page cache's images (pagestore.go)
	store pageStore
}

var (
	_ scan.Primitives    = (*Executor)(nil)
	_ preagg.Primitives  = (*Executor)(nil)
	_ nodekind.PageStore = (*Executor)(nil)
)

func newExecutor(index int, pool *mempool.Pool, mem *hostMemory, shared xpu.SharedRegion) *Executor {
	return &Executor{index: index, pool: pool, mem: mem, tables: querybuf.NewTable(), preaggSlots: defaultPreAggSlots,
		Bodies: newBodies(), shared: shared}
}

// As in the gpu package: pool exhaustion is often momentary, so an
// allocation waits this long before it fails.
const (
	allocWait       = 2 * time.Second
	allocMaxBackoff = 50 * time.Millisecond
)

// alloc takes memory from the pool, waiting briefly while it is exhausted,
// and returns it with its bytes; the final error wraps
// mempool.ErrExhausted.
func (e *Executor) alloc(size uint64, what string) (mempool.Chunk, []byte, error) {
	deadline := time.Now().Add(allocWait)
	backoff := time.Millisecond
	for {
		c, err := e.pool.Alloc(size)
		if err == nil {
			b, err := e.mem.bytes(c)
			if err != nil {
				return c, nil, errors.Join(err, e.pool.Free(c))
			}
			return c, b[:size], nil
		}
		if !errors.Is(err, mempool.ErrExhausted) || size > e.pool.Stats().Limit || time.Now().After(deadline) {
			return c, nil, fmt.Errorf("host device %d: %s (%d bytes): %w", e.index, what, size, err)
		}
		time.Sleep(backoff)
		backoff = min(2*backoff, allocMaxBackoff)
	}
}

func (e *Executor) free(c mempool.Chunk, what string) error {
	if err := e.pool.Free(c); err != nil {
		return fmt.Errorf("host device %d: free %s: %w", e.index, what, err)
	}
	return nil
}

// Name names the device in errors.
func (e *Executor) Name() string { return fmt.Sprintf("host device %d", e.index) }

// PrepareScan copies the OpenSession message into pool memory (the GPU
// uploads it; the kernel code reads the program from there).
func (e *Executor) PrepareScan(msg []byte, p *xpu.Program) (scan.Program, error) {
	return e.upload(msg, p)
}

// upload copies the OpenSession message into pool memory.
func (e *Executor) upload(msg []byte, p *xpu.Program) (*session, error) {
	mem, b, err := e.alloc(uint64(len(msg)), "session program")
	if err != nil {
		return nil, err
	}
	copy(b, msg)
	return &session{ex: e, mem: mem, prog: b, planID: p.PlanID}, nil
}

// session is one program in pool memory; it implements scan.Program.
type session struct {
	ex     *Executor
	mem    mempool.Chunk
	prog   []byte // the OpenSession message, in mem
	planID uint64
}

// Close frees the program.
func (s *session) Close() error { return s.ex.free(s.mem, "session program") }

// Scan runs GpuScan over one chunk.  The pages are read where they are (as
// the GPU path reads a pinned lent body); counters and items are in
// pool memory, as on the device.
func (s *session) Scan(c xpu.Chunk, pages nodekind.Pages) (xpu.ChunkResult, []uint32, error) {
	return s.ex.runTask(c, pages, false, func(t *task) error {
		runScan(s.prog, t.pages, c.NBlocks, t.items, t.counters)
		return t.collect(xpu.KernelGpuScan)
	})
}
