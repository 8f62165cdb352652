// Package preagg is the GpuPreAgg session protocol that every executor
// (the gpu package's devices, the test-only host executor) follows around
// the plan's shared hash table: join the table through querybuf, accumulate
// a chunk with grow-and-retry passes, return the groups at the last Final.
// What touches the table itself (run the kernel, grow, read, free) is the
// executor's, behind the Table, Task and Executor interfaces, so this
// package needs neither CUDA nor a device.
package preagg

import (
	"errors"
	"fmt"
	"slices"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/querybuf"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// MaxPasses bounds the grow-and-retry loop of one chunk: every growth at
// least doubles the table, so this is never reached unless the kernel keeps
// reporting RETRY into a table with room.
const MaxPasses = 24

// Table is one version of a plan's shared hash table, the value of its
// querybuf entry.  The entry's read lock is held while a chunk accumulates
// into it, its write lock while it is replaced by a larger one.
type Table interface {
	// EntrySize is the bytes of one group entry, fixed by the plan.
	EntrySize() uint32
	// Growths counts the times the table was grown; it also identifies
	// this version of the table, so a session can tell whether another
	// one grew it meanwhile.
	Growths() uint32
}

// Counters are what one pass of the GpuPreAgg kernel counted.
type Counters struct {
	NTuples  uint32 // rows examined (a retry pass: the retry items)
	NRecheck uint32 // XPU_ITEM_RECHECK items written
}

// Task is one chunk's work, on the executor's side.
type Task interface {
	// Pass runs the GpuPreAgg kernel once over tab, with the entry's read
	// lock held: over every row of the chunk when retry is nil, else over
	// the retry items only (never empty then; no flags).  It returns the
	// items the kernel wrote, which the caller reads before the next Pass,
	// and its counters.
	Pass(tab Table, retry []uint32) ([]uint32, Counters, error)
	// Grow returns a larger table with every group of old, with the
	// entry's write lock held.  A nil table keeps old in use; a table with
	// an error is used anyway (old could not be freed, say).
	Grow(old Table) (Table, error)
}

// Executor is what a plan's tables need from the executor that made them.
type Executor interface {
	// FinalTable reads the groups of t, which no session uses any more,
	// frees it, and encodes the groups messages of requestID.
	FinalTable(t Table, requestID uint32) ([][]byte, error)
	// FreeTable frees t, whose groups are lost.
	FreeTable(t Table) error
}

// Session is one session's reference to its plan's shared table; it is
// not safe for concurrent use (one session runs one chunk at a time), but
// the sessions of one plan may run at once.
type Session struct {
	tables *querybuf.Table
	ex     Executor
	entry  *querybuf.Entry // nil once released (by Final or Close)
}

// Join takes a reference to the table of key (the plan on one device),
// which the first session of the plan creates with create.  A session
// whose entrySize differs from the table's is a protocol error.
func Join(tables *querybuf.Table, key querybuf.Key, entrySize uint32, ex Executor, create func() (Table, error)) (*Session, error) {
	entry, err := tables.Acquire(key, func() (any, error) { return create() })
	if err != nil {
		return nil, fmt.Errorf("GpuPreAgg table of plan %#x: %w", key.PlanID, err)
	}
	s := &Session{tables: tables, ex: ex, entry: entry}
	if got := entry.Value().(Table).EntrySize(); got != entrySize {
		err := fmt.Errorf("%w: GpuPreAgg plan %#x: entry_size %d, but another session of the plan uses %d",
			protocol.ErrProtocol, key.PlanID, entrySize, got)
		return nil, errors.Join(err, s.Close())
	}
	return s, nil
}

// Result is one chunk accumulated: the RECHECK items (ascending) and the
// counters to report.
type Result struct {
	Recheck []uint32
	Counters
}

// Accumulate runs one chunk into the shared table.  Rows the full table
// turned away (RETRY) run again, alone, once the table has grown; the
// result holds only the RECHECK rows and the first pass's NTuples (the
// chunk's rows, not counting the retries again).
func (s *Session) Accumulate(t Task) (Result, error) {
	var recheck, retry []uint32
	var ntuples, nrecheck uint32
	for pass := 0; ; pass++ {
		if pass == MaxPasses {
			return Result{}, fmt.Errorf("%d rows still RETRY after %d passes", len(retry), pass)
		}
		var version uint32
		var items []uint32
		var c Counters
		var err error
		s.entry.Shared(func(v any) {
			tab := v.(Table)
			version = tab.Growths()
			items, c, err = t.Pass(tab, retry)
		})
		if err != nil {
			return Result{}, err
		}
		if pass == 0 {
			ntuples = c.NTuples
		}
		nrecheck += c.NRecheck
		retry = retry[:0]
		for _, it := range items {
			switch {
			case it&xpu.ItemRecheck != 0 && it&xpu.ItemRetry == 0:
				recheck = append(recheck, it)
			case it&xpu.ItemRetry != 0 && it&xpu.ItemRecheck == 0:
				retry = append(retry, it&^xpu.ItemRetry)
			default:
				return Result{}, fmt.Errorf("%s returned item %#x, neither RECHECK nor RETRY", xpu.KernelGpuPreAgg, it)
			}
		}
		if len(retry) == 0 {
			break
		}
		if err := s.grow(version, t); err != nil {
			return Result{}, err
		}
	}
	if uint32(len(recheck)) != nrecheck {
		return Result{}, fmt.Errorf("%s counted %d RECHECK rows but returned %d", xpu.KernelGpuPreAgg, nrecheck, len(recheck))
	}
	slices.Sort(recheck)
	return Result{Recheck: recheck, Counters: Counters{NTuples: ntuples, NRecheck: nrecheck}}, nil
}

// grow replaces the table with a larger one, unless another session has
// already done so since this one ran against version: its RETRY rows then
// simply run again in the table that one made.
func (s *Session) grow(version uint32, t Task) error {
	var err error
	s.entry.Exclusive(func(v any) any {
		tab := v.(Table)
		if tab.Growths() != version {
			return tab
		}
		nt, gerr := t.Grow(tab)
		err = gerr // with nt, the old table could not be freed: the new one is in use anyway
		if nt == nil {
			return tab
		}
		return nt
	})
	return err
}

// Final returns the groups when this session holds the table's last
// reference (every session of the plan has finished, so nothing writes the
// table), and frees the table; otherwise nothing.  The querybuf entry's
// last release runs this once per table.
func (s *Session) Final(requestID uint32) ([][]byte, error) {
	if s.entry == nil {
		return nil, errors.New("GpuPreAgg session: Final after the table was released")
	}
	var msgs [][]byte
	var ferr error
	_, err := s.tables.Release(s.entry, func(v any) { msgs, ferr = s.ex.FinalTable(v.(Table), requestID) })
	s.entry = nil
	if err != nil {
		return nil, fmt.Errorf("GpuPreAgg session: release the table: %w", err)
	}
	return msgs, ferr
}

// Close drops the table reference if Final did not (a disconnect: the last
// one frees the table, its groups are lost with the query); after Final it
// does nothing.
func (s *Session) Close() error {
	if s.entry == nil {
		return nil
	}
	var ferr error
	_, err := s.tables.Release(s.entry, func(v any) { ferr = s.ex.FreeTable(v.(Table)) })
	s.entry = nil
	return errors.Join(err, ferr)
}
