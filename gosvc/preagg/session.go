// Package preagg is the GpuPreAgg node kind (Kind), and the session
// protocol that every executor (the gpu package's devices, the test-only
// host executor) follows around
// the plan's shared hash table: join the table through querybuf, accumulate
// a chunk with grow-and-retry passes, return the groups at the last Final.
// What touches the table itself (run the kernel, grow, read, free) is the
// executor's, behind the Table, Task and Executor interfaces, so this
// package needs neither CUDA nor a device.  They are generic in the
// executor's table type, so that an executor's code sees its own tables
// and a nil table is told apart from a non-nil one without reflection.
package preagg

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
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
	// comparable: T's zero value (a nil pointer) means "no table".
	comparable
	// EntrySize is the bytes of one group entry, fixed by the plan.
	EntrySize() uint32
	// Growths counts the times the table was grown; it also identifies
	// this version of the table, so a session can tell whether another
	// one grew it meanwhile.
	Growths() uint32
	// Bytes is the memory the table takes, reported with its groups.
	Bytes() uint64
}

// Counters are what one pass of the GpuPreAgg kernel counted.
type Counters struct {
	NTuples  uint32 // rows examined (a retry pass: the retry items)
	NRecheck uint32 // XPU_ITEM_RECHECK items written
}

// Task is one chunk's work, on the executor's side.
type Task[T Table] interface {
	// Pass runs the GpuPreAgg kernel once over tab, with the entry's read
	// lock held: over every row of the chunk when retry is nil, else over
	// the retry items only (never empty then; no flags).  It returns the
	// items the kernel wrote, which the caller reads before the next Pass,
	// and its counters.
	Pass(tab T, retry []uint32) ([]uint32, Counters, error)
	// Grow returns a larger table with every group of old, with the
	// entry's write lock held.  No table (the zero T) keeps old in use; a
	// table with an error is used anyway (old could not be freed, say).
	// An error wrapping ErrCannotGrow says the table cannot grow now (no
	// device memory for a larger one, or past the largest table): the
	// rows that found it full go to the backend instead of failing.
	Grow(old T) (T, error)
}

// ErrCollected refuses a session of a plan whose groups were collected
// (TaskFinal with PGSTROM_FINAL_COLLECT): the backend's late participant
// then aggregates on the CPU.
var ErrCollected = fmt.Errorf("%w: the plan's groups were already collected", protocol.ErrUnsupported)

// ErrCannotGrow marks a Grow that failed for want of room, not because
// something broke: Accumulate then returns the chunk's RETRY rows to the
// backend as RECHECK rows, which it aggregates on the CPU (a RETRY row
// accumulated nothing on the device, so no row is lost or counted twice).
var ErrCannotGrow = errors.New("the GpuPreAgg table cannot grow")

// Executor is what a plan's tables need from the executor that made them.
type Executor[T Table] interface {
	// Groups returns the VALID entries of t, which no session uses any
	// more, and the entry size its header gives them.
	Groups(t T) (entrySize uint32, valid []byte, err error)
	// FreeTable frees t.
	FreeTable(t T) error
}

// Session is one session's reference to its plan's shared table, and its
// program; it is not safe for concurrent use (one session runs one chunk
// at a time), but the sessions of one plan may run at once.
type Session[T Table] struct {
	tables *querybuf.Table
	ex     Executor[T]
	prog   io.Closer
	entry  *querybuf.Entry // nil once released (by Final or Close)
}

// Join takes a reference to the table of key (the plan on one device),
// which the first session of the plan creates with create, for the session
// of program prog, which Close closes.  A session whose entrySize differs
// from the table's is a protocol error.  On an error, prog is closed.
func Join[T Table](tables *querybuf.Table, key querybuf.Key, entrySize uint32, prog io.Closer, ex Executor[T], create func() (T, error)) (*Session[T], error) {
	entry, err := tables.Acquire(key, func() (any, error) { return create() })
	if err != nil {
		return nil, errors.Join(fmt.Errorf("GpuPreAgg table of plan %#x: %w", key.PlanID, err), prog.Close())
	}
	s := &Session[T]{tables: tables, ex: ex, prog: prog, entry: entry}
	// One look at the table: a Collect by another session of the plan may
	// empty the entry at any moment.
	var got uint32
	collected := false
	entry.Shared(func(v any) {
		var none T
		if t := v.(T); t == none {
			collected = true
		} else {
			got = t.EntrySize()
		}
	})
	if collected {
		return nil, errors.Join(fmt.Errorf("GpuPreAgg plan %#x: %w", key.PlanID, ErrCollected), s.Close())
	}
	if got != entrySize {
		err := fmt.Errorf("%w: GpuPreAgg plan %#x: entry_size %d, but another session of the plan uses %d",
			protocol.ErrProtocol, key.PlanID, entrySize, got)
		return nil, errors.Join(err, s.Close())
	}
	return s, nil
}

// ExecFunc runs one chunk of a session on its executor, through the
// session's Accumulate, and returns its counters and RECHECK rows.
type ExecFunc func(c xpu.Chunk, pages nodekind.Pages) (xpu.ChunkResult, []uint32, error)

// prepared is a Session with its executor's Exec.
type prepared[T Table] struct {
	*Session[T] // Final, Close
	exec        ExecFunc
}

// Exec answers a chunk with one SUCCESS of its RECHECK rows, at most as
// many as the chunk can hold.
func (p *prepared[T]) Exec(c xpu.Chunk, pages nodekind.Pages, _ nodekind.ChunkSink) (xpu.ChunkReply, error) {
	res, items, err := p.exec(c, pages)
	if err != nil {
		return xpu.ChunkReply{}, err
	}
	return xpu.PositionsReply(c, res, items)
}

// Prepared returns the session as the server runs it: exec runs its
// chunks, Final sends the groups, Close releases the table and the
// program.
func (s *Session[T]) Prepared(exec ExecFunc) nodekind.Session {
	return &prepared[T]{Session: s, exec: exec}
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
// chunk's rows, not counting the retries again).  When the table cannot
// grow (ErrCannotGrow), the RETRY rows join the RECHECK rows: the backend
// evaluates and aggregates them on the CPU, and EXPLAIN ANALYZE counts
// them in Recheck Rows and CPU Groups.
func (s *Session[T]) Accumulate(t Task[T]) (Result, error) {
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
			tab := v.(T)
			var none T
			if tab == none {
				err = ErrCollected
				return
			}
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
			if !errors.Is(err, ErrCannotGrow) {
				return Result{}, err
			}
			for _, pos := range retry {
				recheck = append(recheck, pos|xpu.ItemRecheck)
			}
			nrecheck += uint32(len(retry))
			break
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
func (s *Session[T]) grow(version uint32, t Task[T]) error {
	var err error
	s.entry.Exclusive(func(v any) any {
		tab := v.(T)
		if tab.Growths() != version {
			return tab
		}
		nt, gerr := t.Grow(tab)
		err = gerr // with nt, the old table could not be freed: the new one is in use anyway
		var none T
		if nt == none {
			return tab
		}
		return nt
	})
	return err
}

// Final sends the groups when this session holds the table's last
// reference (every session of the plan has finished, so nothing writes the
// table), and frees the table; otherwise it sends nothing.  The querybuf
// entry's last release runs this once per table.
func (s *Session[T]) Final(out nodekind.FinalSink) error {
	if s.entry == nil {
		return errors.New("GpuPreAgg session: Final after the table was released")
	}
	var groups []xpu.GroupsPayload
	var ferr error
	_, err := s.tables.Release(s.entry, func(v any) {
		var none T
		if t := v.(T); t != none { // not collected
			groups, ferr = s.final(t)
		}
	})
	s.entry = nil
	if err != nil {
		return fmt.Errorf("GpuPreAgg session: release the table: %w", err)
	}
	if ferr != nil {
		return fmt.Errorf("GpuPreAgg session: groups: %w", ferr)
	}
	return sendGroups(out, groups)
}

// Collect sends the groups of the plan's table now, although other sessions
// of the plan may still hold it: the backend's participants agreed that
// this one collects, and the others are idle (TaskFinal with
// PGSTROM_FINAL_COLLECT).  The table is freed and the plan's entry left
// empty, so a session that joins later is refused (ErrCollected) and the
// last release frees nothing.
func (s *Session[T]) Collect(out nodekind.FinalSink) error {
	if s.entry == nil {
		return errors.New("GpuPreAgg session: Collect after the table was released")
	}
	var groups []xpu.GroupsPayload
	var ferr error
	s.entry.Exclusive(func(v any) any {
		var none T
		t := v.(T)
		if t == none {
			ferr = ErrCollected
			return v
		}
		groups, ferr = s.final(t)
		return none
	})
	var rerr error
	_, err := s.tables.Release(s.entry, func(v any) { rerr = s.freeTable(v) })
	s.entry = nil
	if err = errors.Join(ferr, err, rerr); err != nil {
		return fmt.Errorf("GpuPreAgg session: collect the groups: %w", err)
	}
	return sendGroups(out, groups)
}

// freeTable is the teardown of a release that sends nothing: a collected
// entry holds no table.
func (s *Session[T]) freeTable(v any) error {
	var none T
	if t := v.(T); t != none {
		return s.ex.FreeTable(t)
	}
	return nil
}

func sendGroups(out nodekind.FinalSink, groups []xpu.GroupsPayload) error {
	for i, g := range groups {
		if err := out.Halfway(g); err != nil {
			return fmt.Errorf("GpuPreAgg session: send groups %d of %d: %w", i+1, len(groups), err)
		}
	}
	return nil
}

// final reads the groups of a table nobody uses any more, frees it, and
// splits the groups into reply payloads.
func (s *Session[T]) final(t T) ([]xpu.GroupsPayload, error) {
	entrySize, valid, err := s.ex.Groups(t)
	if err = errors.Join(err, s.ex.FreeTable(t)); err != nil {
		return nil, err
	}
	g := xpu.PreAggGroups{
		EntrySize:    entrySize,
		NGroupsTotal: uint32(len(valid) / int(entrySize)),
		NGrowths:     t.Growths(),
		TableBytes:   t.Bytes(),
	}
	return xpu.SplitPreAggGroups(g, valid)
}

// Close drops the table reference if Final did not (a disconnect: the last
// one frees the table, its groups are lost with the query), then closes the
// program.
func (s *Session[T]) Close() error {
	var errs []error
	if s.entry != nil {
		var ferr error
		_, err := s.tables.Release(s.entry, func(v any) { ferr = s.freeTable(v) })
		s.entry = nil
		errs = append(errs, err, ferr)
	}
	errs = append(errs, s.prog.Close())
	return errors.Join(errs...)
}
