package gpu

import (
	"errors"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
	"gorgonia.org/cu"

	"github.com/pgstrom-go/pg_strom/gosvc/gpu/gatherplan"
	"github.com/pgstrom-go/pg_strom/gosvc/hostpool"
	"github.com/pgstrom-go/pg_strom/gosvc/mempool"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/preagg"
	"github.com/pgstrom-go/pg_strom/gosvc/querybuf"
	"github.com/pgstrom-go/pg_strom/gosvc/scan"
	"github.com/pgstrom-go/pg_strom/gosvc/server"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// Executor runs sessions on one device: it implements the primitives of
// every node kind (scan.Primitives, preagg.Primitives).
type Executor struct {
	dev    *Device
	pool   *mempool.Pool
	kern   kernels
	tables *querybuf.Table // GpuPreAgg tables and GpuJoin inner buffers of the plans
	// preaggSlots is the slot count of a new GpuPreAgg table (before the
	// memory cap of initialSlots); tests lower it to force growth.
	preaggSlots uint32
	// joinCapacity, when not 0, is the records of one GpuJoin launch
	// (one reply); tests lower it to force the launch loop.
	joinCapacity uint32
	// multiprocessors is the device's SM count, which sizes the grid of the
	// GpuPreAgg kernel's first pass.
	multiprocessors int
	// gatherDMAMinPages is the shortest run of consecutive shared buffers
	// a zero-copy chunk copies by DMA (0: never), from the environment
	// (gatherplan.MinPagesFromEnv); gatherDMAProblem says why its value
	// was ignored.
	gatherDMAMinPages int
	gatherDMAProblem  string
	gather            gatherCounters

	// store is the page cache's device memory (pagestore.go)
	store pageStore

	probeMu sync.Mutex // one link probe at a time (see ProbeLink)

	// pinned memory lent for inline chunks (server.BodyLender and
	// HostMemoryKeeper)
	hostpool.Bodies

	mu     sync.Mutex
	lanes  []*lane // every lane made, for Close
	idle   []*lane
	closed bool
}

var (
	_ scan.Primitives         = (*Executor)(nil)
	_ preagg.Primitives       = (*Executor)(nil)
	_ server.BodyLender       = (*Executor)(nil)
	_ server.HostMemoryKeeper = (*Executor)(nil)
	_ nodekind.PageStore      = (*Executor)(nil)
)

// maxLentBodies bounds the pinned memory a device's executor keeps for
// inline chunks: 64 chunks of the backend's largest (4096 pages), enough
// for 16 workers with 3 chunks in flight each plus those being received,
// and never more than a sixteenth of the host's memory.  Past it, chunks
// are received into ordinary memory and staged.
const maxLentBodies = 64 * (4096*8192 + 1<<20)

func lentBodiesLimit() uint64 {
	var si unix.Sysinfo_t
	if err := unix.Sysinfo(&si); err != nil || si.Totalram == 0 {
		return maxLentBodies
	}
	return min(maxLentBodies, uint64(si.Totalram)*uint64(si.Unit)/16)
}

func newExecutor(d *Device, pool *mempool.Pool, k kernels) *Executor {
	allocHost := func(size uint64) ([]byte, func() error, error) {
		h, err := d.AllocHost(size)
		if err != nil {
			return nil, nil, err
		}
		return h.Bytes(), h.Free, nil
	}
	sms, err := d.dev.Attribute(cu.MultiprocessorCount)
	if err != nil || sms < 1 {
		sms = xpu.MaxBlocksPerChunk // unknown: a block per batch of pages
	}
	minPages, problem := gatherplan.MinPagesFromEnv()
	return &Executor{dev: d, pool: pool, kern: k, tables: querybuf.NewTable(), preaggSlots: defaultPreAggSlots,
		multiprocessors: sms, gatherDMAMinPages: minPages, gatherDMAProblem: problem,
		Bodies: hostpool.NewBodies(hostpool.New(allocHost, pinnedGrain, lentBodiesLimit()))}
}

// Pool exhaustion is often momentary (other tasks finish and free their
// chunks), so an allocation waits this long before it fails.
const (
	allocWait       = 2 * time.Second
	allocMaxBackoff = 50 * time.Millisecond
)

// alloc takes device memory from the pool, waiting briefly while the pool
// is exhausted; the final error wraps mempool.ErrExhausted.
func (e *Executor) alloc(size uint64, what string) (mempool.Chunk, error) {
	deadline := time.Now().Add(allocWait)
	backoff := time.Millisecond
	for {
		c, err := e.pool.Alloc(size)
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, mempool.ErrExhausted) || size > e.pool.Stats().Limit || time.Now().After(deadline) {
			return c, fmt.Errorf("device %d: %s (%d bytes): %w", e.dev.index, what, size, err)
		}
		time.Sleep(backoff)
		backoff = min(2*backoff, allocMaxBackoff)
	}
}

// Name names the device in errors.
func (e *Executor) Name() string { return fmt.Sprintf("GPU%d", e.dev.index) }

// PrepareScan uploads the whole OpenSession message to device memory: the
// GpuScan kernel reads the program from there.
func (e *Executor) PrepareScan(msg []byte, p *xpu.Program) (scan.Program, error) {
	if e.kern.scanErr != nil {
		return nil, fmt.Errorf("the kernels module cannot run GpuScan: %w", e.kern.scanErr)
	}
	return e.upload(msg, p)
}

// upload copies the OpenSession message to device memory and returns
// once it is there.  cuMemcpyHtoD from pageable memory returns when the
// bytes are staged, before its DMA on the legacy stream lands, and the
// lanes' streams are non-blocking: a kernel launched on one right after
// could read the pool chunk's previous contents (another session's
// program, or anything) as this session's program.  Waiting for the
// legacy stream closes that window.
func (e *Executor) upload(msg []byte, p *xpu.Program) (*session, error) {
	mem, err := e.alloc(uint64(len(msg)), "session program")
	if err != nil {
		return nil, err
	}
	err = e.dev.Do(func() error {
		if err := cu.MemcpyHtoD(cu.DevicePtr(mem.Ptr), unsafe.Pointer(&msg[0]), int64(len(msg))); err != nil {
			return fmt.Errorf("cuMemcpyHtoD: %w", err)
		}
		if err := (cu.Stream{}).Synchronize(); err != nil {
			return fmt.Errorf("cuStreamSynchronize of the legacy stream: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("device %d: upload session program: %w", e.dev.index, err), e.pool.Free(mem))
	}
	return &session{ex: e, mem: mem, planID: p.PlanID}, nil
}

// Close releases the lanes; sessions must be closed before.
func (e *Executor) Close() error {
	e.mu.Lock()
	lanes := e.lanes
	e.lanes, e.idle, e.closed = nil, nil, true
	e.mu.Unlock()
	errs := []error{e.CloseBodies()}
	for _, l := range lanes {
		errs = append(errs, l.destroy(e.dev))
	}
	errs = append(errs, e.closePageStore())
	return errors.Join(errs...)
}

// session is a program on the device; it implements scan.Program.
type session struct {
	ex     *Executor
	mem    mempool.Chunk // the OpenSession message
	planID uint64
}

// Close frees the session's device memory.
func (s *session) Close() error {
	if err := s.ex.pool.Free(s.mem); err != nil {
		return fmt.Errorf("device %d: free session program: %w", s.ex.dev.index, err)
	}
	return nil
}
