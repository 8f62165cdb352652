package gpu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/querybuf"
	"github.com/pgstrom-go/pg_strom/gosvc/server"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// preaggSession is a GpuPreAgg program on the device and its reference to
// the plan's shared hash table; it implements server.Prepared and
// server.Finalizer.
type preaggSession struct {
	*session
	entry *querybuf.Entry // nil once released (by Final or Close)
}

var _ server.Finalizer = (*preaggSession)(nil)

// maxRetryPasses bounds the grow-and-retry loop of one chunk: every pass
// at least doubles the table, so this is never reached unless the kernel
// keeps reporting RETRY into a table with room.
const maxRetryPasses = 24

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
	entry, err := e.tables.Acquire(key, func() (any, error) {
		l, err := e.getLane(0)
		if err != nil {
			return nil, err
		}
		defer e.putLane(l)
		return e.newTable(l, e.initialSlots(entrySize), entrySize)
	})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("GpuPreAgg table of plan %#x: %w", p.PlanID, err), s.Close())
	}
	ps := &preaggSession{session: s, entry: entry}
	if got := entry.Value().(*devTable).layout.EntrySize; got != entrySize {
		err := fmt.Errorf("%w: GpuPreAgg plan %#x: entry_size %d, but another session of the plan uses %d",
			protocol.ErrProtocol, p.PlanID, entrySize, got)
		return nil, errors.Join(err, ps.Close())
	}
	return ps, nil
}

// Exec accumulates one chunk into the shared table.  Rows the full table
// turned away (RETRY) run again, from the pages still on the device, once
// the table has grown; the reply holds only the RECHECK rows, ascending.
func (s *preaggSession) Exec(c xpu.Chunk, pages server.Pages) (xpu.ChunkResult, []uint32, error) {
	return s.ex.runTask(s.session, c, pages, true, func(t *task) error {
		t.kernel = xpu.KernelGpuPreAgg
		return s.accumulate(t)
	})
}

func (s *preaggSession) accumulate(t *task) error {
	var recheck, retry []uint32
	var ntuples, nrecheck uint32
	for pass := 0; ; pass++ {
		if pass == maxRetryPasses {
			return fmt.Errorf("%d rows still RETRY after %d passes", len(retry), pass)
		}
		var version uint32
		var err error
		s.entry.Shared(func(v any) {
			tab := v.(*devTable)
			version = tab.growths
			err = s.ex.dev.Do(func() error { return t.preaggPass(tab.ptr(), pass > 0, retry) })
		})
		if err != nil {
			return err
		}
		if pass == 0 {
			ntuples = t.counters[xpu.CounterNTuples]
		}
		nrecheck += t.counters[xpu.CounterNRecheck]
		retry = retry[:0]
		for _, it := range t.items {
			switch {
			case it&xpu.ItemRecheck != 0 && it&xpu.ItemRetry == 0:
				recheck = append(recheck, it)
			case it&xpu.ItemRetry != 0 && it&xpu.ItemRecheck == 0:
				retry = append(retry, it&^xpu.ItemRetry)
			default:
				return fmt.Errorf("%s returned item %#x, neither RECHECK nor RETRY", t.kernel, it)
			}
		}
		if len(retry) == 0 {
			break
		}
		if err := s.grow(version, t.lane); err != nil {
			return err
		}
	}
	if uint32(len(recheck)) != nrecheck {
		return fmt.Errorf("%s counted %d RECHECK rows but returned %d", t.kernel, nrecheck, len(recheck))
	}
	slices.Sort(recheck)
	t.items = recheck
	t.counters[xpu.CounterNTuples], t.counters[xpu.CounterNRecheck] = ntuples, nrecheck
	return nil
}

// grow replaces the table with a larger one, unless another session has
// already done so since this one ran against version.
func (s *preaggSession) grow(version uint32, l *lane) error {
	var err error
	s.entry.Exclusive(func(v any) any {
		tab := v.(*devTable)
		if tab.growths != version {
			return tab
		}
		nt, gerr := s.ex.growTable(tab, l)
		if nt == nil {
			err = gerr
			return tab
		}
		err = gerr // the old table could not be freed: the new one is in use anyway
		return nt
	})
	return err
}

// preaggPass runs the GpuPreAgg kernel once, with the context current:
// over every page (the first pass, which uploads them) or over the retry
// items (later passes; the pages are still on the device).
func (t *task) preaggPass(table cu.DevicePtr, again bool, retry []uint32) error {
	st := t.lane.stream
	sessPtr := cu.DevicePtr(t.sess.mem.Ptr)
	pagesDev := t.base + cu.DevicePtr(t.lay.pagesOff)
	itemsPtr := t.base + cu.DevicePtr(t.lay.itemsOff)
	counters := t.base
	var retryPtr cu.DevicePtr
	nblocks, nretry := uint64(t.chunk.NBlocks), uint64(len(retry))
	grid := int(t.chunk.NBlocks)
	var err error
	if !again {
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
// reference (every session of the plan on this device has finished, so no
// kernel writes the table), and frees the table; otherwise nothing.  The
// querybuf entry's last release runs this once per table.
func (s *preaggSession) Final(requestID uint32) ([][]byte, error) {
	if s.entry == nil {
		return nil, errors.New("GpuPreAgg session: Final after the table was released")
	}
	var msgs [][]byte
	var ferr error
	_, err := s.ex.tables.Release(s.entry, func(v any) { msgs, ferr = s.ex.finalTable(v.(*devTable), requestID) })
	s.entry = nil
	if err != nil {
		return nil, fmt.Errorf("GpuPreAgg session: release the table: %w", err)
	}
	return msgs, ferr
}

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
	var errs []error
	if s.entry != nil {
		var ferr error
		_, err := s.ex.tables.Release(s.entry, func(v any) { ferr = s.ex.freeTable(v.(*devTable)) })
		s.entry = nil
		errs = append(errs, err, ferr)
	}
	errs = append(errs, s.session.Close())
	return errors.Join(errs...)
}
