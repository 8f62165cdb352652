package gpu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/pgstrom-go/pg_strom/gosvc/preagg"
	"github.com/pgstrom-go/pg_strom/gosvc/querybuf"
	"github.com/pgstrom-go/pg_strom/gosvc/server"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// preaggSession is a GpuPreAgg program on the device and its reference to
// the plan's shared hash table; it implements server.Prepared and
// server.Finalizer.  The protocol around the table (grow-and-retry, groups
// at the last Final) is the preagg package's, shared with the host
// executor.
type preaggSession struct {
	*session
	shared *preagg.Session
}

var _ server.Finalizer = (*preaggSession)(nil)

// preparePreAgg uploads the program and takes a reference to the plan's
// table, which the first session of the plan on this device creates.
func (e *Executor) preparePreAgg(msg []byte, p *xpu.Program) (server.Prepared, error) {
	if e.kern.preaggErr != nil {
		return nil, fmt.Errorf("the kernels module cannot run GpuPreAgg: %w", e.kern.preaggErr)
	}
	s, err := e.upload(msg, p)
	if err != nil {
		return nil, err
	}
	entrySize := p.PreAgg.EntrySize
	key := querybuf.Key{PlanID: p.PlanID, Device: e.dev.index}
	shared, err := preagg.Join(e.tables, key, entrySize, tableOps{e}, func() (preagg.Table, error) {
		l, err := e.getLane(0)
		if err != nil {
			return nil, err
		}
		defer e.putLane(l)
		t, err := e.newTable(l, e.initialSlots(entrySize), entrySize)
		if err != nil {
			return nil, err // not t: a nil *devTable is no nil preagg.Table
		}
		return t, nil
	})
	if err != nil {
		return nil, errors.Join(err, s.Close())
	}
	return &preaggSession{session: s, shared: shared}, nil
}

// Exec accumulates one chunk into the shared table.  Rows the full table
// turned away (RETRY) run again, from the pages still on the device, once
// the table has grown; the reply holds only the RECHECK rows, ascending.
func (s *preaggSession) Exec(c xpu.Chunk, pages server.Pages) (xpu.ChunkResult, []uint32, error) {
	return s.ex.runTask(s.session, c, pages, true, func(t *task) error {
		t.kernel = xpu.KernelGpuPreAgg
		r, err := s.shared.Accumulate(preaggTask{t})
		if err != nil {
			return err
		}
		t.items = r.Recheck
		t.counters[xpu.CounterNTuples], t.counters[xpu.CounterNRecheck] = r.NTuples, r.NRecheck
		return nil
	})
}

// preaggTask is a chunk's task as the preagg package drives it.
type preaggTask struct{ t *task }

// Pass runs the kernel over the table with the context current.
func (p preaggTask) Pass(tab preagg.Table, retry []uint32) ([]uint32, preagg.Counters, error) {
	t := p.t
	err := t.sess.ex.dev.Do(func() error { return t.preaggPass(tab.(*devTable).ptr(), retry) })
	if err != nil {
		return nil, preagg.Counters{}, err
	}
	return t.items, preagg.Counters{NTuples: t.counters[xpu.CounterNTuples], NRecheck: t.counters[xpu.CounterNRecheck]}, nil
}

// Grow grows the table on the task's lane.
func (p preaggTask) Grow(old preagg.Table) (preagg.Table, error) {
	nt, err := p.t.sess.ex.growTable(old.(*devTable), p.t.lane)
	if nt == nil {
		return nil, err // not nt: a nil *devTable is no nil preagg.Table
	}
	return nt, err
}

// preaggPass runs the GpuPreAgg kernel once, with the context current:
// over every page (retry nil: the first pass, which uploads them) or over
// the retry items (later passes; the pages are still on the device).
func (t *task) preaggPass(table cu.DevicePtr, retry []uint32) error {
	st := t.lane.stream
	sessPtr := cu.DevicePtr(t.sess.mem.Ptr)
	pagesDev := t.base + cu.DevicePtr(t.lay.pagesOff)
	itemsPtr := t.base + cu.DevicePtr(t.lay.itemsOff)
	counters := t.base
	var retryPtr cu.DevicePtr
	nblocks, nretry := uint64(t.chunk.NBlocks), uint64(len(retry))
	grid := int(t.chunk.NBlocks)
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
			unsafe.Pointer(&itemsPtr), unsafe.Pointer(&counters),
		}
		err = t.launch(t.sess.ex.kern.preagg, grid, args)
	}
	if err != nil {
		return errors.Join(err, st.Synchronize())
	}
	if err := st.Synchronize(); err != nil {
		return fmt.Errorf("%s: cuStreamSynchronize: %w", t.kernel, err)
	}
	return t.collect()
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

// Final returns the groups when this session holds the table's last
// reference, and frees the table; otherwise nothing.
func (s *preaggSession) Final(requestID uint32) ([][]byte, error) {
	return s.shared.Final(requestID)
}

// tableOps is the Executor's side of its tables for the preagg package.
type tableOps struct{ e *Executor }

func (o tableOps) FinalTable(t preagg.Table, requestID uint32) ([][]byte, error) {
	return o.e.finalTable(t.(*devTable), requestID)
}

func (o tableOps) FreeTable(t preagg.Table) error { return o.e.freeTable(t.(*devTable)) }

// finalTable reads the groups of a table nobody uses any more, frees it,
// and encodes the groups messages.
func (e *Executor) finalTable(t *devTable, requestID uint32) ([][]byte, error) {
	l, err := e.getLane(finalPiece)
	if err != nil {
		return nil, errors.Join(err, e.freeTable(t))
	}
	hdr, valid, err := e.readGroups(l, t)
	e.putLane(l)
	if err = errors.Join(err, e.freeTable(t)); err != nil {
		return nil, err
	}
	g := xpu.PreAggGroups{
		EntrySize:    hdr.EntrySize,
		NGroupsTotal: uint32(len(valid) / int(hdr.EntrySize)),
		NGrowths:     t.growths,
		TableBytes:   t.mem.Size,
	}
	return xpu.SplitPreAggGroups(requestID, g, valid)
}

func (e *Executor) freeTable(t *devTable) error {
	if err := e.pool.Free(t.mem); err != nil {
		return fmt.Errorf("device %d: free the GpuPreAgg table: %w", e.dev.index, err)
	}
	return nil
}

// Close drops the table reference if Final did not (a disconnect: the last
// one frees the table, its groups are lost with the query) and frees the
// program.
func (s *preaggSession) Close() error {
	return errors.Join(s.shared.Close(), s.session.Close())
}
