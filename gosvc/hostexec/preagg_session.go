package hostexec

import (
	"errors"

	"github.com/pgstrom-go/pg_strom/gosvc/preagg"
	"github.com/pgstrom-go/pg_strom/gosvc/querybuf"
	"github.com/pgstrom-go/pg_strom/gosvc/server"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// preaggSession is a GpuPreAgg program and its reference to the plan's
// shared table; it implements server.Prepared and server.Finalizer with
// the preagg package's protocol, as the gpu package does: grow-and-retry
// on RETRY rows, groups at the last Final.
type preaggSession struct {
	*session
	shared *preagg.Session
}

var _ server.Finalizer = (*preaggSession)(nil)

// preparePreAgg takes a reference to the plan's table, which the first
// session of the plan creates.
func (e *Executor) preparePreAgg(s *session, p *xpu.Program) (server.Prepared, error) {
	entrySize := p.PreAgg.EntrySize
	key := querybuf.Key{PlanID: p.PlanID, Device: e.index}
	shared, err := preagg.Join(e.tables, key, entrySize, tableOps{e}, func() (preagg.Table, error) {
		t, err := e.newTable(e.initialSlots(entrySize), entrySize)
		if err != nil {
			return nil, err // not t: a nil *hostTable is no nil preagg.Table
		}
		return t, nil
	})
	if err != nil {
		return nil, errors.Join(err, s.Close())
	}
	return &preaggSession{session: s, shared: shared}, nil
}

// Exec accumulates one chunk into the shared table.  Rows the full table
// turned away (RETRY) run again once the table has grown; the reply holds
// only the RECHECK rows, ascending.
func (s *preaggSession) Exec(c xpu.Chunk, pages server.Pages) (xpu.ChunkResult, []uint32, error) {
	return s.ex.runTask(c, pages, true, func(t *task) error {
		r, err := s.shared.Accumulate(preaggTask{s: s, t: t})
		if err != nil {
			return err
		}
		t.result = r.Recheck
		t.counters[xpu.CounterNTuples], t.counters[xpu.CounterNRecheck] = r.NTuples, r.NRecheck
		return nil
	})
}

// preaggTask is a chunk's task as the preagg package drives it.
type preaggTask struct {
	s *preaggSession
	t *task
}

// Pass runs the kernel code over the table.  The retry items are copied
// into the task's pool memory first, where the GPU path uploads them.
func (p preaggTask) Pass(tab preagg.Table, retry []uint32) ([]uint32, preagg.Counters, error) {
	t, ht := p.t, tab.(*hostTable)
	if retry != nil {
		// nil stays nil: it tells the kernel code to run over every page
		retry = t.retry[:copy(t.retry, retry)]
	}
	ht.run.Lock()
	defer ht.run.Unlock()
	runPreAgg(p.s.prog, t.pages, t.chunk.NBlocks, retry, ht.bytes, t.items, t.counters)
	if err := t.collect(xpu.KernelGpuPreAgg); err != nil {
		return nil, preagg.Counters{}, err
	}
	return t.result, preagg.Counters{NTuples: t.counters[xpu.CounterNTuples], NRecheck: t.counters[xpu.CounterNRecheck]}, nil
}

// Grow grows the table.
func (p preaggTask) Grow(old preagg.Table) (preagg.Table, error) {
	nt, err := p.s.ex.growTable(old.(*hostTable))
	if nt == nil {
		return nil, err // not nt: a nil *hostTable is no nil preagg.Table
	}
	return nt, err
}

// Final returns the groups when this session holds the table's last
// reference, and frees the table; otherwise nothing.
func (s *preaggSession) Final(requestID uint32) ([][]byte, error) {
	return s.shared.Final(requestID)
}

// tableOps is the Executor's side of its tables for the preagg package.
type tableOps struct{ e *Executor }

func (o tableOps) FinalTable(t preagg.Table, requestID uint32) ([][]byte, error) {
	return o.e.finalTable(t.(*hostTable), requestID)
}

func (o tableOps) FreeTable(t preagg.Table) error {
	return o.e.free(t.(*hostTable).mem, "the GpuPreAgg table")
}

// finalTable reads the groups of a table nobody uses any more, frees it,
// and encodes the groups messages.
func (e *Executor) finalTable(t *hostTable, requestID uint32) ([][]byte, error) {
	hdr, valid, err := t.groups()
	if err = errors.Join(err, e.free(t.mem, "the GpuPreAgg table")); err != nil {
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

// Close drops the table reference if Final did not (a disconnect: the
// last one frees the table, its groups are lost with the query) and frees
// the program.
func (s *preaggSession) Close() error {
	return errors.Join(s.shared.Close(), s.session.Close())
}
