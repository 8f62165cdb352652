package gpu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/preagg"
	"github.com/pgstrom-go/pg_strom/gosvc/querybuf"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// PreparePreAgg uploads the program and takes a reference to the plan's
// table, which the first session of the plan on this device creates.  The
// preagg package's protocol (shared with the host executor) does the rest:
// grow-and-retry, groups at the last Final, and Close.
func (e *Executor) PreparePreAgg(msg []byte, p *xpu.Program, pa *xpu.PreAgg) (nodekind.Session, error) {
	if e.kern.preaggErr != nil {
		return nil, fmt.Errorf("the kernels module cannot run GpuPreAgg: %w", e.kern.preaggErr)
	}
	s, err := e.upload(msg, p)
	if err != nil {
		return nil, err
	}
	entrySize := pa.EntrySize
	key := querybuf.Key{PlanID: p.PlanID, Device: e.dev.index}
	shared, err := preagg.Join(e.tables, key, entrySize, s, tableOps{e}, func() (*devTable, error) {
		l, err := e.getLane(0)
		if err != nil {
			return nil, err
		}
		defer e.putLane(l)
		return e.newTable(l, e.initialSlots(entrySize), entrySize)
	})
	if err != nil {
		return nil, err
	}
	// Rows the full table turned away (RETRY) run again, from the pages
	// still on the device, once the table has grown; the reply holds only
	// the RECHECK rows, ascending.
	return shared.Prepared(func(c xpu.Chunk, pages nodekind.Pages) (xpu.ChunkResult, []uint32, error) {
		return e.runTask(s, c, pages, true, func(t *task) error {
			t.kernel = xpu.KernelGpuPreAgg
			r, err := shared.Accumulate(preaggTask{t})
			// with an error, runTask drops what r left in the task
			t.items, t.counters[xpu.CounterNTuples], t.counters[xpu.CounterNRecheck] = r.Recheck, r.NTuples, r.NRecheck
			return err
		})
	}), nil
}

// preaggTask is a chunk's task as the preagg package drives it.
type preaggTask struct{ t *task }

// Pass runs the kernel over the table with the context current.
func (p preaggTask) Pass(tab *devTable, retry []uint32) ([]uint32, preagg.Counters, error) {
	t := p.t
	if err := t.sess.ex.dev.Do(func() error { return t.preaggPass(tab.ptr(), retry) }); err != nil {
		return nil, preagg.Counters{}, err
	}
	return t.items, preagg.Counters{NTuples: t.counters[xpu.CounterNTuples], NRecheck: t.counters[xpu.CounterNRecheck]}, nil
}

// Grow grows the table on the task's lane, whose pinned buffer and stream
// the new table's initialization and the rehash use.
func (p preaggTask) Grow(old *devTable) (*devTable, error) {
	return p.t.sess.ex.growTable(old, p.t.lane)
}

// preaggPass runs the GpuPreAgg kernel once, with the context current:
// over every page (retry nil: the first pass, which uploads them) or over
// the retry items (later passes; the pages are still on the device).
func (t *task) preaggPass(table cu.DevicePtr, retry []uint32) error {
	return t.foldPass(t.sess.ex.kern.preagg, table, nil, retry)
}

// foldPass runs a kernel of kern_gpupreagg_block's contract once (the
// GpuPreAgg kernel, or the fused kernel with inners, the inner buffers of
// its four depths, after table), as preaggPass.
func (t *task) foldPass(fn cu.Function, table cu.DevicePtr, inners *[xpu.JoinMaxDepths]cu.DevicePtr, retry []uint32) error {
	st := t.lane.stream
	sessPtr := cu.DevicePtr(t.sess.mem.Ptr)
	pagesDev := t.base + cu.DevicePtr(t.lay.pagesOff)
	itemsPtr := t.base + cu.DevicePtr(t.lay.itemsOff)
	counters := t.base
	var retryPtr cu.DevicePtr
	nblocks, nretry := uint64(t.chunk.NBlocks), uint64(len(retry))
	grid := t.sess.ex.preaggPagesGrid(int(t.chunk.NBlocks))
	var err error
	if retry == nil {
		err = t.uploadPages()
	} else {
		retryPtr = t.base + cu.DevicePtr(t.lay.retryOff)
		grid = (len(retry) + xpu.GpuScanThreads - 1) / xpu.GpuScanThreads
		err = t.uploadItems(retryPtr, retry)
	}
	if err == nil {
		// Every argument travels in 8 bytes: see task.enqueue.
		args := []unsafe.Pointer{
			unsafe.Pointer(&sessPtr), unsafe.Pointer(&pagesDev), unsafe.Pointer(&nblocks),
			unsafe.Pointer(&retryPtr), unsafe.Pointer(&nretry), unsafe.Pointer(&table),
		}
		if inners != nil {
			for d := range inners {
				args = append(args, unsafe.Pointer(&inners[d]))
			}
		}
		args = append(args, unsafe.Pointer(&itemsPtr), unsafe.Pointer(&counters))
		err = t.launch(fn, grid, args)
	}
	if err != nil {
		return errors.Join(err, st.Synchronize())
	}
	if err := st.Synchronize(); err != nil {
		return fmt.Errorf("%s: cuStreamSynchronize: %w", t.kernel, err)
	}
	return t.collect()
}

// preaggPagesGrid is the grid of a first pass over nblocks pages.  Every
// block folds its rows into a shared-memory table and then each of its groups
// into the device table once, so the fewer the blocks, the fewer updates of
// the device table: two blocks per multiprocessor each take several batches
// of a large chunk, and the chunks of other sessions running on other
// streams fill the rest of the device.
func (e *Executor) preaggPagesGrid(nblocks int) int {
	batches := (nblocks + xpu.PreAggBatchPages - 1) / xpu.PreAggBatchPages
	return max(1, min(batches, 2*e.multiprocessors))
}

// uploadItems queues the copy of items to dst, staged through the lane's
// pinned buffer when it has one.
func (t *task) uploadItems(dst cu.DevicePtr, items []uint32) error {
	src := unsafe.Pointer(&items[0])
	if b := t.lane.pinned(4 * len(items)); b != nil {
		for i, it := range items {
			binary.LittleEndian.PutUint32(b[4*i:], it)
		}
		src = unsafe.Pointer(&b[0])
	}
	if err := cu.MemcpyHtoDAsync(dst, src, int64(4*len(items)), t.lane.stream); err != nil {
		return fmt.Errorf("upload %d retry items: cuMemcpyHtoDAsync: %w", len(items), err)
	}
	return nil
}

// tableOps is the Executor's side of its tables for the preagg package.
type tableOps struct{ e *Executor }

// Groups downloads the VALID entries through a lane's pinned buffer.
func (o tableOps) Groups(t *devTable) (uint32, []byte, error) {
	l, err := o.e.getLane(finalPiece)
	if err != nil {
		return 0, nil, err
	}
	defer o.e.putLane(l)
	hdr, valid, err := o.e.readGroups(l, t)
	return hdr.EntrySize, valid, err
}

func (o tableOps) FreeTable(t *devTable) error {
	if err := o.e.pool.Free(t.mem); err != nil {
		return fmt.Errorf("device %d: free the GpuPreAgg table: %w", o.e.dev.index, err)
	}
	return nil
}
