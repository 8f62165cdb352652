package hostexec

import (
	"errors"
	"fmt"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/join"
	"github.com/pgstrom-go/pg_strom/gosvc/mempool"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

var _ join.Primitives = (*Executor)(nil)

// PrepareJoin copies the program into pool memory; the join package's
// protocol does the rest, as in the gpu package: the plan's inner
// buffers through the executor's querybuf table, the launch loop per
// chunk, and Close.
func (e *Executor) PrepareJoin(msg []byte, p *xpu.Program, j *xpu.Join) (nodekind.Session, error) {
	s, err := e.upload(msg, p)
	if err != nil {
		return nil, err
	}
	js := join.New[*hostInner](e.tables, joinOps{e: e, prog: s.prog}, s, p, j, e.index)
	if e.joinCapacity != 0 {
		js.Capacity = func(xpu.Chunk, int) uint32 { return e.joinCapacity }
	}
	stride := j.Stride()
	return js.Prepared(func(c xpu.Chunk, pages nodekind.Pages, capacity uint32, probe func(join.Task[*hostInner]) error) error {
		return e.runJoinTask(c, pages, s.prog, stride, capacity, probe)
	}), nil
}

// hostInner is one depth's inner buffer in pool memory.
type hostInner struct {
	mem    mempool.Chunk
	b      []byte
	layout xpu.JoinInnerLayout
}

func (h *hostInner) Bytes() uint64 { return h.layout.Size }

// joinOps is the Executor's side of the inner buffers of one session's
// plan; prog is the session's program, which the build reads (every
// session of a plan sends the same one).
type joinOps struct {
	e    *Executor
	prog []byte
}

func (o joinOps) NewInner(depth int, nrows, rowSize uint32) (*hostInner, error) {
	l := xpu.NewJoinInnerLayout(uint32(depth), nrows, rowSize, xpu.JoinNBuckets(nrows))
	mem, b, err := o.e.alloc(l.Size, fmt.Sprintf("GpuJoin inner buffer of depth %d", depth))
	if err != nil {
		return nil, err
	}
	l.PutHeader(b)
	clear(b[l.BucketsOffset : l.BucketsOffset+4*uint64(l.NBuckets)])
	return &hostInner{mem: mem, b: b, layout: l}, nil
}

func (o joinOps) CopyRows(in *hostInner, first uint32, rows []byte) error {
	off := in.layout.RowsOffset + uint64(first)*uint64(in.layout.RowSize)
	if uint64(len(rows))%uint64(in.layout.RowSize) != 0 || off+uint64(len(rows)) > in.layout.BucketsOffset {
		return fmt.Errorf("%d bytes of rows from row %d do not fit %d rows of %d bytes", len(rows), first, in.layout.NRows, in.layout.RowSize)
	}
	copy(in.b[off:], rows)
	return nil
}

func (o joinOps) Build(in *hostInner, depth int) error {
	var counters [xpu.JoinCounterCount]uint32
	runJoinBuild(o.prog, uint32(depth), in.b, counters[:])
	return join.KernelStatus(counters[xpu.CounterStatus], xpu.KernelGpuJoinBld)
}

func (o joinOps) FreeInner(in *hostInner) error {
	return o.e.free(in.mem, "GpuJoin inner buffer")
}

// joinTask is one chunk's work area in pool memory: counters, the output
// of capacity records, two cursor lists of one cursor per tuple the
// chunk can hold (the kernel resumes from one and suspends into the
// other), and the gathered pages of a zero-copy chunk.
type joinTask struct {
	prog, pages     []byte
	nblocks         uint32
	counters        []uint32
	out             []uint32
	capacity        uint32
	resume, suspend []byte
	nresume         uint32
}

func (e *Executor) runJoinTask(c xpu.Chunk, pages nodekind.Pages, prog []byte, stride int, capacity uint32, probe func(join.Task[*hostInner]) error) error {
	if err := e.checkPages(c, pages); err != nil {
		return err
	}
	if err := e.checkPageCache(c, pages.Cache); err != nil {
		return err
	}
	if err := e.faults.beforeTask(); err != nil {
		return fmt.Errorf("chunk %d: %w", c.ChunkID, err)
	}
	cursors := uint64(c.ItemsCapacity()) * uint64(xpu.JoinCursorSize)
	outOff := alignTask(uint64(xpu.JoinCounterCount) * 4)
	resumeOff := alignTask(outOff + uint64(capacity)*uint64(stride)*4)
	suspendOff := alignTask(resumeOff + cursors)
	pagesOff := alignTask(suspendOff + cursors)
	total := pagesOff
	if pages.Refs != nil {
		total += uint64(c.PagesLen())
	}
	mem, b, err := e.alloc(total, fmt.Sprintf("GpuJoin chunk %d", c.ChunkID))
	if err != nil {
		return err
	}
	t := &joinTask{
		prog: prog, pages: pages.Bytes, nblocks: c.NBlocks, capacity: capacity,
		counters: words(b, xpu.JoinCounterCount),
		out:      words(b[outOff:], int(capacity)*stride),
		resume:   b[resumeOff : resumeOff+cursors],
		suspend:  b[suspendOff : suspendOff+cursors],
	}
	if pages.Refs != nil {
		t.pages = b[pagesOff:total]
		gather(e.shared, pages.Refs, c.NBlocks, t.pages)
	}
	e.copyPageCache(pages.Cache, t.pages)
	err = probe(t)
	return errors.Join(err, e.free(mem, "GpuJoin chunk memory"))
}

// Launch runs the kernel code once; the records it returns stay in the
// task's output until the next Launch.
func (t *joinTask) Launch(inners []*hostInner, resume bool) (join.Launch, error) {
	bufs := make([][]byte, len(inners))
	for d, in := range inners {
		bufs[d] = in.b
	}
	start := time.Now()
	if resume {
		// the last launch's suspend list is this one's resume list
		t.resume, t.suspend = t.suspend, t.resume
		runJoin(t.prog, t.pages, t.nblocks, t.resume, t.nresume, bufs, t.out, t.capacity, t.suspend, t.counters)
	} else {
		runJoin(t.prog, t.pages, t.nblocks, nil, 0, bufs, t.out, t.capacity, t.suspend, t.counters)
	}
	elapsed := time.Since(start)
	if err := join.KernelStatus(t.counters[xpu.CounterStatus], xpu.KernelGpuJoin); err != nil {
		return join.Launch{}, err
	}
	nsusp := t.counters[xpu.CounterNSuspend]
	if uint64(nsusp)*uint64(xpu.JoinCursorSize) > uint64(len(t.suspend)) {
		return join.Launch{}, fmt.Errorf("%s suspended %d rows, more than the chunk holds", xpu.KernelGpuJoin, nsusp)
	}
	t.nresume = nsusp
	n := min(t.counters[xpu.CounterNItems], t.capacity)
	stride := len(t.out) / int(t.capacity)
	return join.Launch{
		Records:   t.out[:int(n)*stride],
		NTuples:   t.counters[xpu.CounterNTuples],
		NRecheck:  t.counters[xpu.CounterNRecheck],
		NSuspend:  nsusp,
		GpuTimeNs: uint64(elapsed.Nanoseconds()),
	}, nil
}
