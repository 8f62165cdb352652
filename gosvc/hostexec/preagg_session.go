package hostexec

import (
	"errors"
	"fmt"
	"slices"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/querybuf"
	"github.com/pgstrom-go/pg_strom/gosvc/server"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// preaggSession is a GpuPreAgg program and its reference to the plan's
// shared table; it implements server.Prepared and server.Finalizer, with
// the gpu package's protocol: grow-and-retry on RETRY rows, groups at the
// last Final.
type preaggSession struct {
	*session
	entry *querybuf.Entry // nil once released (by Final or Close)
}

var _ server.Finalizer = (*preaggSession)(nil)

// maxRetryPasses bounds the grow-and-retry loop of one chunk, as in gpu.
const maxRetryPasses = 24

// preparePreAgg takes a reference to the plan's table, which the first
// session of the plan creates.
func (e *Executor) preparePreAgg(s *session, p *xpu.Program) (server.Prepared, error) {
	entrySize := p.PreAgg.EntrySize
	key := querybuf.Key{PlanID: p.PlanID, Device: e.index}
	entry, err := e.tables.Acquire(key, func() (any, error) {
		return e.newTable(e.initialSlots(entrySize), entrySize)
	})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("GpuPreAgg table of plan %#x: %w", p.PlanID, err), s.Close())
	}
	ps := &preaggSession{session: s, entry: entry}
	if got := entry.Value().(*hostTable).layout.EntrySize; got != entrySize {
		err := fmt.Errorf("%w: GpuPreAgg plan %#x: entry_size %d, but another session of the plan uses %d",
			protocol.ErrProtocol, p.PlanID, entrySize, got)
		return nil, errors.Join(err, ps.Close())
	}
	return ps, nil
}

// Exec accumulates one chunk into the shared table.  Rows the full table
// turned away (RETRY) run again once the table has grown; the reply holds
// only the RECHECK rows, ascending.
func (s *preaggSession) Exec(c xpu.Chunk, pages server.Pages) (xpu.ChunkResult, []uint32, error) {
	return s.ex.runTask(c, pages, true, s.accumulate)
}

func (s *preaggSession) accumulate(t *task) error {
	var recheck []uint32
	var retry []uint32 // a prefix of t.retry
	var ntuples, nrecheck uint32
	for pass := 0; ; pass++ {
		if pass == maxRetryPasses {
			return fmt.Errorf("%d rows still RETRY after %d passes", len(retry), pass)
		}
		var version uint32
		var err error
		s.entry.Shared(func(v any) {
			tab := v.(*hostTable)
			version = tab.growths
			tab.run.Lock()
			defer tab.run.Unlock()
			// retry is nil on the first pass (every page) and never empty
			// after it: the loop ends when no row is left to retry
			runPreAgg(s.prog, t.pages, t.chunk.NBlocks, retry, tab.bytes, t.items, t.counters)
			err = t.collect(xpu.KernelGpuPreAgg)
		})
		if err != nil {
			return err
		}
		if pass == 0 {
			ntuples = t.counters[xpu.CounterNTuples]
		}
		nrecheck += t.counters[xpu.CounterNRecheck]
		n := 0
		for _, it := range t.result {
			switch {
			case it&xpu.ItemRecheck != 0 && it&xpu.ItemRetry == 0:
				recheck = append(recheck, it)
			case it&xpu.ItemRetry != 0 && it&xpu.ItemRecheck == 0:
				t.retry[n] = it &^ xpu.ItemRetry
				n++
			default:
				return fmt.Errorf("%s returned item %#x, neither RECHECK nor RETRY", xpu.KernelGpuPreAgg, it)
			}
		}
		retry = t.retry[:n]
		if n == 0 {
			break
		}
		if err := s.grow(version); err != nil {
			return err
		}
	}
	if uint32(len(recheck)) != nrecheck {
		return fmt.Errorf("%s counted %d RECHECK rows but returned %d", xpu.KernelGpuPreAgg, nrecheck, len(recheck))
	}
	slices.Sort(recheck)
	t.result = recheck
	t.counters[xpu.CounterNTuples], t.counters[xpu.CounterNRecheck] = ntuples, nrecheck
	return nil
}

// grow replaces the table with a larger one, unless another session has
// already done so since this one ran against version.
func (s *preaggSession) grow(version uint32) error {
	var err error
	s.entry.Exclusive(func(v any) any {
		tab := v.(*hostTable)
		if tab.growths != version {
			return tab
		}
		nt, gerr := s.ex.growTable(tab)
		err = gerr // with nt, the old table could not be freed: the new one is in use anyway
		if nt == nil {
			return tab
		}
		return nt
	})
	return err
}

// Final returns the groups when this session holds the table's last
// reference, and frees the table; otherwise nothing.
func (s *preaggSession) Final(requestID uint32) ([][]byte, error) {
	if s.entry == nil {
		return nil, errors.New("GpuPreAgg session: Final after the table was released")
	}
	var msgs [][]byte
	var ferr error
	_, err := s.ex.tables.Release(s.entry, func(v any) { msgs, ferr = s.ex.finalTable(v.(*hostTable), requestID) })
	s.entry = nil
	if err != nil {
		return nil, fmt.Errorf("GpuPreAgg session: release the table: %w", err)
	}
	return msgs, ferr
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
	var errs []error
	if s.entry != nil {
		var ferr error
		_, err := s.ex.tables.Release(s.entry, func(v any) { ferr = s.ex.free(v.(*hostTable).mem, "the GpuPreAgg table") })
		s.entry = nil
		errs = append(errs, err, ferr)
	}
	errs = append(errs, s.session.Close())
	return errors.Join(errs...)
}
