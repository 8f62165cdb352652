package gpu

import (
	"errors"
	"fmt"
	"time"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/pgstrom-go/pg_strom/gosvc/join"
	"github.com/pgstrom-go/pg_strom/gosvc/mempool"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

var _ join.Primitives = (*Executor)(nil)

// PrepareJoin uploads the program; the join package's protocol (shared
// with the host executor) does the rest: the plan's inner buffers on
// this device through the querybuf table, the launch loop per chunk, and
// Close.
func (e *Executor) PrepareJoin(msg []byte, p *xpu.Program, j *xpu.Join) (nodekind.Session, error) {
	if e.kern.joinErr != nil {
		return nil, fmt.Errorf("the kernels module cannot run GpuJoin: %w", e.kern.joinErr)
	}
	s, err := e.upload(msg, p)
	if err != nil {
		return nil, err
	}
	js := join.New[*devInner](e.tables, joinOps{e: e, sess: s}, s, p, j, e.dev.index)
	if e.joinCapacity != 0 {
		js.Capacity = func(xpu.Chunk, int) uint32 { return e.joinCapacity }
	}
	stride := j.Stride()
	return js.Prepared(func(c xpu.Chunk, pages nodekind.Pages, capacity uint32, probe func(join.Task[*devInner]) error) error {
		return e.runJoinTask(s, c, pages, stride, capacity, probe)
	}), nil
}

// devInner is one depth's inner buffer in device memory.
type devInner struct {
	mem    mempool.Chunk
	layout xpu.JoinInnerLayout
}

func (d *devInner) Bytes() uint64              { return d.layout.Size }
func (d *devInner) ptr() cu.DevicePtr          { return cu.DevicePtr(d.mem.Ptr) }
func (d *devInner) at(off uint64) cu.DevicePtr { return d.ptr() + cu.DevicePtr(off) }

// joinOps is the Executor's side of the inner buffers of one session's
// plan; sess's program is what the build kernel reads (every session of
// a plan sends the same one).
type joinOps struct {
	e    *Executor
	sess *session
}

// onLane runs fn with the context current and a lane whose pinned buffer
// stages at least stage bytes, then drains its stream.
func (o joinOps) onLane(stage int, fn func(l *lane) error) error {
	l, err := o.e.getLane(stage)
	if err != nil {
		return err
	}
	defer o.e.putLane(l)
	return o.e.dev.Do(func() error {
		err := fn(l)
		if serr := l.stream.Synchronize(); serr != nil {
			err = errors.Join(err, fmt.Errorf("cuStreamSynchronize: %w", serr))
		}
		return err
	})
}

// NewInner allocates the buffer (xpu_join_inner_layout's layout), writes
// its header and zeroes its buckets.
func (o joinOps) NewInner(depth int, nrows, rowSize uint32) (*devInner, error) {
	l := xpu.NewJoinInnerLayout(uint32(depth), nrows, rowSize, xpu.JoinNBuckets(nrows))
	mem, err := o.e.alloc(l.Size, fmt.Sprintf("GpuJoin inner buffer of depth %d", depth))
	if err != nil {
		return nil, err
	}
	in := &devInner{mem: mem, layout: l}
	hdr := make([]byte, xpu.JoinInnerSize)
	l.PutHeader(hdr)
	err = o.onLane(len(hdr), func(ln *lane) error {
		if err := cu.MemsetD32Async(in.at(l.BucketsOffset), 0, int64(l.NBuckets), ln.stream); err != nil {
			return fmt.Errorf("zero the buckets: cuMemsetD32Async: %w", err)
		}
		src := unsafe.Pointer(&hdr[0])
		if b := ln.pinned(len(hdr)); b != nil {
			copy(b, hdr)
			src = unsafe.Pointer(&b[0])
		}
		if err := cu.MemcpyHtoDAsync(in.ptr(), src, int64(len(hdr)), ln.stream); err != nil {
			return fmt.Errorf("write the header: cuMemcpyHtoDAsync: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("device %d: GpuJoin inner buffer of depth %d: %w", o.e.dev.index, depth, err), o.e.pool.Free(mem))
	}
	return in, nil
}

// CopyRows uploads whole rows, staged through a lane's pinned buffer.
func (o joinOps) CopyRows(in *devInner, first uint32, rows []byte) error {
	l := in.layout
	off := l.RowsOffset + uint64(first)*uint64(l.RowSize)
	if uint64(len(rows))%uint64(l.RowSize) != 0 || off+uint64(len(rows)) > l.BucketsOffset {
		return fmt.Errorf("%d bytes of rows from row %d do not fit %d rows of %d bytes", len(rows), first, l.NRows, l.RowSize)
	}
	if len(rows) == 0 {
		return nil
	}
	return o.onLane(len(rows), func(ln *lane) error {
		src := unsafe.Pointer(&rows[0])
		if b := ln.pinned(len(rows)); b != nil {
			copy(b, rows)
			src = unsafe.Pointer(&b[0])
		}
		if err := cu.MemcpyHtoDAsync(in.at(off), src, int64(len(rows)), ln.stream); err != nil {
			return fmt.Errorf("device %d: upload inner rows: cuMemcpyHtoDAsync: %w", o.e.dev.index, err)
		}
		return nil
	})
}

// buildThreads is the block size of kern_gpujoin_build (any works).
const buildThreads = 256

// Build runs kern_gpujoin_build over every row, a row per thread.
func (o joinOps) Build(in *devInner, depth int) error {
	counters, err := o.e.alloc(devAlign, "GpuJoin build counters")
	if err != nil {
		return err
	}
	var got [xpu.JoinCounterCount]uint32
	err = o.onLane(0, func(ln *lane) error {
		cnt := cu.DevicePtr(counters.Ptr)
		if err := cu.MemsetD32Async(cnt, 0, int64(xpu.JoinCounterCount), ln.stream); err != nil {
			return fmt.Errorf("zero counters: cuMemsetD32Async: %w", err)
		}
		// Every argument travels in 8 bytes: see task.enqueue.
		sessPtr, innerPtr, d := cu.DevicePtr(o.sess.mem.Ptr), in.ptr(), uint64(depth)
		args := []unsafe.Pointer{unsafe.Pointer(&sessPtr), unsafe.Pointer(&d), unsafe.Pointer(&innerPtr), unsafe.Pointer(&cnt)}
		grid := max(1, min((int(in.layout.NRows)+buildThreads-1)/buildThreads, 4*o.e.multiprocessors))
		if err := o.e.kern.joinBuild.Launch(grid, 1, 1, buildThreads, 1, 1, 0, ln.stream, args); err != nil {
			return fmt.Errorf("launch %s: %w", xpu.KernelGpuJoinBld, err)
		}
		if err := cu.MemcpyDtoHAsync(unsafe.Pointer(&got[0]), cnt, int64(4*len(got)), ln.stream); err != nil {
			return fmt.Errorf("download counters: cuMemcpyDtoHAsync: %w", err)
		}
		return nil
	})
	if ferr := o.e.pool.Free(counters); ferr != nil {
		err = errors.Join(err, ferr)
	}
	if err != nil {
		return fmt.Errorf("device %d: %w", o.e.dev.index, err)
	}
	if err := join.KernelStatus(got[xpu.CounterStatus], xpu.KernelGpuJoinBld); err != nil {
		return err
	}
	if got[xpu.CounterNTuples] != in.layout.NRows {
		return fmt.Errorf("%s saw %d of %d rows", xpu.KernelGpuJoinBld, got[xpu.CounterNTuples], in.layout.NRows)
	}
	return nil
}

func (o joinOps) FreeInner(in *devInner) error {
	if err := o.e.pool.Free(in.mem); err != nil {
		return fmt.Errorf("device %d: free a GpuJoin inner buffer: %w", o.e.dev.index, err)
	}
	return nil
}

// joinLayout places one GpuJoin chunk's buffers in one pool chunk after
// the counters and pages (and refs) of chunkLayout: the output of
// capacity records and two cursor lists of one cursor per tuple the chunk
// can hold, each 256-byte aligned.
type joinLayout struct {
	chunkLayout
	outOff, cursorsA, cursorsB uint64
}

func joinLayoutFor(c xpu.Chunk, stride int, capacity uint32, moves int) joinLayout {
	l := joinLayout{chunkLayout: layoutFor(c, false).withPairs(moves)}
	cursors := uint64(c.ItemsCapacity()) * uint64(xpu.JoinCursorSize)
	l.outOff = alignDev(l.total)
	l.cursorsA = alignDev(l.outOff + uint64(capacity)*uint64(stride)*4)
	l.cursorsB = alignDev(l.cursorsA + cursors)
	l.total = l.cursorsB + cursors
	return l
}

// joinTask is one GpuJoin chunk on the device: a task (pages, counters,
// lane) and the launch loop's buffers.
type joinTask struct {
	task
	jl              joinLayout
	stride          int
	capacity        uint32
	resume, suspend cu.DevicePtr
	nresume         uint32
	counters        [xpu.JoinCounterCount]uint32
	records         []uint32 // the last launch's, copied from the device (grown as needed)
}

func (e *Executor) runJoinTask(s *session, c xpu.Chunk, pages nodekind.Pages, stride int, capacity uint32, probe func(join.Task[*devInner]) error) error {
	if err := pages.Check(c); err != nil {
		return err
	}
	if pages.Refs != nil && e.dev.shared == nil {
		return fmt.Errorf("%w: chunk %d refers to shared buffers, which GPU%d has not registered", protocol.ErrUnsupported, c.ChunkID, e.dev.index)
	}
	if err := e.checkCache(c, pages); err != nil {
		return err
	}
	jl := joinLayoutFor(c, stride, capacity, pages.Cache.Len())
	mem, err := e.alloc(jl.total, fmt.Sprintf("GpuJoin chunk %d", c.ChunkID))
	if err != nil {
		return err
	}
	stage := max(int(capacity)*stride*4, c.RefsLen())
	if pages.Refs == nil && !pages.Pinned {
		stage = max(stage, c.PagesLen())
	}
	l, err := e.getLane(stage)
	if err != nil {
		return errors.Join(err, e.pool.Free(mem))
	}
	base := cu.DevicePtr(mem.Ptr)
	t := &joinTask{
		task: task{sess: s, lane: l, base: base, lay: jl.chunkLayout, chunk: c, pages: pages.Bytes, pinned: pages.Pinned,
			refs: pages.Refs, shared: e.dev.shared, cache: pages.Cache, kernel: xpu.KernelGpuJoin},
		jl: jl, stride: stride, capacity: capacity,
		resume: base + cu.DevicePtr(jl.cursorsA), suspend: base + cu.DevicePtr(jl.cursorsB),
	}
	err = probe(t)
	e.putLane(l)
	if ferr := e.pool.Free(mem); ferr != nil {
		err = errors.Join(err, fmt.Errorf("device %d: free GpuJoin chunk memory: %w", e.dev.index, ferr))
	}
	return err
}

// Launch runs kern_gpujoin_block once: the first over the chunk's pages
// (uploaded or gathered first), the others over the cursors the previous
// launch suspended.
func (t *joinTask) Launch(inners []*devInner, resume bool) (join.Launch, error) {
	start := time.Now()
	if err := t.sess.ex.dev.Do(func() error { return t.launchOnce(inners, resume) }); err != nil {
		return join.Launch{}, err
	}
	return join.Launch{
		Records:   t.records,
		NTuples:   t.counters[xpu.CounterNTuples],
		NRecheck:  t.counters[xpu.CounterNRecheck],
		NSuspend:  t.counters[xpu.CounterNSuspend],
		GpuTimeNs: uint64(time.Since(start).Nanoseconds()),
	}, nil
}

// launchOnce runs with the context current.
func (t *joinTask) launchOnce(inners []*devInner, resume bool) error {
	st := t.lane.stream
	var err error
	grid := int(t.chunk.NBlocks)
	var resumePtr cu.DevicePtr
	nresume := uint64(0)
	if resume {
		// the last launch's suspend list is this one's resume list
		t.resume, t.suspend = t.suspend, t.resume
		resumePtr, nresume = t.resume, uint64(t.nresume)
		grid = (int(t.nresume) + xpu.GpuScanThreads - 1) / xpu.GpuScanThreads
	} else {
		err = t.uploadPages()
	}
	if err == nil {
		err = t.enqueueJoin(inners, grid, resumePtr, nresume)
	}
	if err != nil {
		return errors.Join(err, st.Synchronize())
	}
	if err := st.Synchronize(); err != nil {
		return fmt.Errorf("%s: cuStreamSynchronize: %w", xpu.KernelGpuJoin, err)
	}
	return t.collectJoin()
}

// enqueueJoin queues the counters' reset, the kernel and the counters'
// download.
func (t *joinTask) enqueueJoin(inners []*devInner, grid int, resumePtr cu.DevicePtr, nresume uint64) error {
	st := t.lane.stream
	counters := t.base
	if err := cu.MemsetD32Async(counters, 0, int64(xpu.JoinCounterCount), st); err != nil {
		return fmt.Errorf("zero counters: cuMemsetD32Async: %w", err)
	}
	var in [xpu.JoinMaxDepths]cu.DevicePtr
	for d, b := range inners {
		in[d] = b.ptr()
	}
	// Every argument travels in 8 bytes: see task.enqueue.
	sessPtr := cu.DevicePtr(t.sess.mem.Ptr)
	pagesDev := t.base + cu.DevicePtr(t.lay.pagesOff)
	nblocks, capacity := uint64(t.chunk.NBlocks), uint64(t.capacity)
	out, suspend := t.base+cu.DevicePtr(t.jl.outOff), t.suspend
	args := []unsafe.Pointer{
		unsafe.Pointer(&sessPtr), unsafe.Pointer(&pagesDev), unsafe.Pointer(&nblocks),
		unsafe.Pointer(&resumePtr), unsafe.Pointer(&nresume),
		unsafe.Pointer(&in[0]), unsafe.Pointer(&in[1]), unsafe.Pointer(&in[2]), unsafe.Pointer(&in[3]),
		unsafe.Pointer(&out), unsafe.Pointer(&capacity), unsafe.Pointer(&suspend), unsafe.Pointer(&counters),
	}
	if err := t.sess.ex.kern.join.Launch(max(grid, 1), 1, 1, xpu.GpuScanThreads, 1, 1, 0, st, args); err != nil {
		return fmt.Errorf("launch %s: %w", xpu.KernelGpuJoin, err)
	}
	return t.download(counters, xpu.JoinCounterCount, t.counters[:], 0)
}

// collectJoin checks the counters and downloads the records written.
func (t *joinTask) collectJoin() error {
	t.fromStage(t.counters[:], 0)
	if err := join.KernelStatus(t.counters[xpu.CounterStatus], xpu.KernelGpuJoin); err != nil {
		return err
	}
	if n := t.counters[xpu.CounterNSuspend]; n > uint32(t.chunk.ItemsCapacity()) {
		return fmt.Errorf("%s suspended %d rows, more than the chunk holds", xpu.KernelGpuJoin, n)
	}
	t.nresume = t.counters[xpu.CounterNSuspend]
	n := int(min(t.counters[xpu.CounterNItems], t.capacity)) * t.stride
	// Sized by what the launch wrote, not by the capacity: a capacity's
	// worth is up to 32 MB, which Go zeroes, for a chunk that often
	// returns a few records.
	if cap(t.records) < n {
		t.records = make([]uint32, n)
	}
	t.records = t.records[:n]
	if n == 0 {
		return nil
	}
	if err := t.download(t.base+cu.DevicePtr(t.jl.outOff), n, t.records, stageCounters); err != nil {
		return fmt.Errorf("download records: %w", err)
	}
	if err := t.lane.stream.Synchronize(); err != nil {
		return fmt.Errorf("download records: cuStreamSynchronize: %w", err)
	}
	t.fromStage(t.records, stageCounters)
	return nil
}
