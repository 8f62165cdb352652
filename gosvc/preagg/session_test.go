package preagg

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind/kindtest"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/querybuf"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// fakeTable is a table version; growing makes a new one.  It holds one
// group, an entry of entrySize bytes.
type fakeTable struct {
	entrySize uint32
	growths   uint32
}

func (t *fakeTable) EntrySize() uint32 { return t.entrySize }
func (t *fakeTable) Growths() uint32   { return t.growths }
func (t *fakeTable) Bytes() uint64     { return 1000 * uint64(t.growths+1) }

// fakeExec counts what happens to the tables and the programs.
type fakeExec struct {
	creates, groups, frees, progCloses atomic.Int32
}

func (x *fakeExec) Groups(t *fakeTable) (uint32, []byte, error) {
	x.groups.Add(1)
	return t.entrySize, make([]byte, t.entrySize), nil
}

func (x *fakeExec) FreeTable(*fakeTable) error {
	x.frees.Add(1)
	return nil
}

// Close is the program's.
func (x *fakeExec) Close() error {
	x.progCloses.Add(1)
	return nil
}

func (x *fakeExec) join(t *testing.T, tables *querybuf.Table, entrySize uint32) *Session[*fakeTable] {
	t.Helper()
	s, err := Join(tables, querybuf.Key{PlanID: 0x42}, entrySize, x, x, func() (*fakeTable, error) {
		x.creates.Add(1)
		return &fakeTable{entrySize: entrySize}, nil
	})
	if err != nil {
		t.Fatalf("Join: %v", err)
	}
	return s
}

// groupsOf decodes a Final's one groups message.
func groupsOf(t *testing.T, msgs [][]byte) xpu.PreAggGroups {
	t.Helper()
	if len(msgs) != 1 {
		t.Fatalf("%d groups messages, want 1", len(msgs))
	}
	g, _, err := xpu.DecodePreAggGroups(msgs[0])
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// fakeTask runs pass for every Pass and records the calls.
type fakeTask struct {
	pass    func(tab *fakeTable, retry []uint32) ([]uint32, Counters, error)
	growErr error // Grow fails with it, keeping the old table
	grows   atomic.Int32
	retries [][]uint32 // the retry argument of every Pass
}

func (f *fakeTask) Pass(tab *fakeTable, retry []uint32) ([]uint32, Counters, error) {
	f.retries = append(f.retries, slices.Clone(retry))
	return f.pass(tab, retry)
}

func (f *fakeTask) Grow(old *fakeTable) (*fakeTable, error) {
	f.grows.Add(1)
	if f.growErr != nil {
		return nil, f.growErr
	}
	return &fakeTable{entrySize: old.entrySize, growths: old.growths + 1}, nil
}

const (
	rc = xpu.ItemRecheck
	rt = xpu.ItemRetry
)

func TestRetryGrowsAndRunsOnlyThoseRows(t *testing.T) {
	x := &fakeExec{}
	s := x.join(t, querybuf.NewTable(), 32)
	defer s.Close()
	task := &fakeTask{pass: func(tab *fakeTable, retry []uint32) ([]uint32, Counters, error) {
		if tab.growths == 0 {
			return []uint32{5 | rc, 2 | rt, 9 | rc, 3 | rt}, Counters{NTuples: 100, NRecheck: 2}, nil
		}
		return []uint32{3 | rc}, Counters{NTuples: uint32(len(retry)), NRecheck: 1}, nil
	}}
	r, err := s.Accumulate(task)
	if err != nil {
		t.Fatal(err)
	}
	if task.grows.Load() != 1 || len(task.retries) != 2 {
		t.Fatalf("%d grows, %d passes; want 1 and 2", task.grows.Load(), len(task.retries))
	}
	if task.retries[0] != nil || !slices.Equal(task.retries[1], []uint32{2, 3}) {
		t.Fatalf("retry arguments %v, want nil then [2 3] (no flags)", task.retries)
	}
	want := Result{Recheck: []uint32{3 | rc, 5 | rc, 9 | rc}, Counters: Counters{NTuples: 100, NRecheck: 3}}
	if !slices.Equal(r.Recheck, want.Recheck) || r.Counters != want.Counters {
		t.Fatalf("result %+v, want %+v", r, want)
	}
}

// TestConcurrentGrowIsNotRepeated: two sessions of one plan both see RETRY
// against the first table; only one grows it, the other retries in the
// table that one made.
func TestConcurrentGrowIsNotRepeated(t *testing.T) {
	x := &fakeExec{}
	tables := querybuf.NewTable()
	sessions := []*Session[*fakeTable]{x.join(t, tables, 16), x.join(t, tables, 16)}
	// Both first passes run against version 0 before either grows: each
	// waits, under the read lock, for the other to have run.
	var bothRan sync.WaitGroup
	bothRan.Add(2)
	tasks := make([]*fakeTask, 2)
	for i := range tasks {
		tasks[i] = &fakeTask{pass: func(tab *fakeTable, retry []uint32) ([]uint32, Counters, error) {
			if retry == nil {
				bothRan.Done()
				bothRan.Wait()
				return []uint32{uint32(i) | rt}, Counters{NTuples: 1}, nil
			}
			if tab.growths == 0 {
				return nil, Counters{}, errors.New("retry pass against the outgrown table")
			}
			return nil, Counters{NTuples: 1}, nil
		}}
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = sessions[i].Accumulate(tasks[i])
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if g := tasks[0].grows.Load() + tasks[1].grows.Load(); g != 1 {
		t.Fatalf("the table was grown %d times, want 1", g)
	}
	for i, task := range tasks {
		if len(task.retries) != 2 || !slices.Equal(task.retries[1], []uint32{uint32(i)}) {
			t.Fatalf("session %d passes %v, want nil then [%d]", i, task.retries, i)
		}
	}
	msgs, err := kindtest.Final(sessions[0], 7)
	if err != nil || msgs != nil {
		t.Fatalf("first Final: %v, %v; want nothing", msgs, err)
	}
	msgs, err = kindtest.Final(sessions[1], 7)
	if err != nil {
		t.Fatal(err)
	}
	if g := groupsOf(t, msgs); g.NGrowths != 1 || g.TableBytes != 2000 {
		t.Fatalf("groups %+v, want those of the table grown once", g)
	}
}

func TestRetryForeverStopsAtPassLimit(t *testing.T) {
	x := &fakeExec{}
	s := x.join(t, querybuf.NewTable(), 16)
	defer s.Close()
	task := &fakeTask{pass: func(*fakeTable, []uint32) ([]uint32, Counters, error) {
		return []uint32{1 | rt, 4 | rt}, Counters{NTuples: 2}, nil
	}}
	_, err := s.Accumulate(task)
	if err == nil || !strings.Contains(err.Error(), "2 rows still RETRY after 24 passes") {
		t.Fatalf("error %v, want the pass limit", err)
	}
	if len(task.retries) != MaxPasses || task.grows.Load() != MaxPasses {
		t.Fatalf("%d passes, %d grows; want %d of each", len(task.retries), task.grows.Load(), MaxPasses)
	}
}

func TestBadItemFlags(t *testing.T) {
	for _, it := range []uint32{7 | rc | rt, 7} {
		x := &fakeExec{}
		s := x.join(t, querybuf.NewTable(), 16)
		task := &fakeTask{pass: func(*fakeTable, []uint32) ([]uint32, Counters, error) {
			return []uint32{1 | rc, it}, Counters{NTuples: 2, NRecheck: 1}, nil
		}}
		_, err := s.Accumulate(task)
		if err == nil || !strings.Contains(err.Error(), "neither RECHECK nor RETRY") {
			t.Errorf("item %#x: error %v, want neither RECHECK nor RETRY", it, err)
		}
		if task.grows.Load() != 0 {
			t.Errorf("item %#x: the table grew", it)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRecheckCountMismatch(t *testing.T) {
	x := &fakeExec{}
	s := x.join(t, querybuf.NewTable(), 16)
	defer s.Close()
	task := &fakeTask{pass: func(*fakeTable, []uint32) ([]uint32, Counters, error) {
		return []uint32{1 | rc, 2 | rc}, Counters{NTuples: 5, NRecheck: 3}, nil
	}}
	_, err := s.Accumulate(task)
	if err == nil || !strings.Contains(err.Error(), "counted 3 RECHECK rows but returned 2") {
		t.Fatalf("error %v, want the RECHECK count mismatch", err)
	}
}

func TestPassErrorStops(t *testing.T) {
	x := &fakeExec{}
	s := x.join(t, querybuf.NewTable(), 16)
	defer s.Close()
	boom := errors.New("boom")
	task := &fakeTask{pass: func(*fakeTable, []uint32) ([]uint32, Counters, error) { return nil, Counters{}, boom }}
	if _, err := s.Accumulate(task); !errors.Is(err, boom) {
		t.Fatalf("error %v, want the pass's", err)
	}
}

func TestLastFinalReturnsGroupsOnce(t *testing.T) {
	x := &fakeExec{}
	tables := querybuf.NewTable()
	a, b := x.join(t, tables, 16), x.join(t, tables, 16)
	if x.creates.Load() != 1 {
		t.Fatalf("%d tables created for one plan, want 1", x.creates.Load())
	}
	msgs, err := kindtest.Final(a, 3)
	if err != nil || msgs != nil || x.groups.Load() != 0 || x.frees.Load() != 0 {
		t.Fatalf("first Final: %v, %v, %d reads, %d frees; want nothing", msgs, err, x.groups.Load(), x.frees.Load())
	}
	msgs, err = kindtest.Final(b, 4)
	if err != nil {
		t.Fatal(err)
	}
	if h, err := protocol.DecodeHeader(msgs[0]); err != nil || h.RequestID != 4 {
		t.Fatalf("groups header %+v, %v; want request 4", h, err)
	}
	if g := groupsOf(t, msgs); g.NEntries != 1 || g.NGroupsTotal != 1 || g.EntrySize != 16 || g.NGrowths != 0 || g.TableBytes != 1000 {
		t.Fatalf("groups %+v, want the table's one group", g)
	}
	if _, err := kindtest.Final(a, 5); err == nil {
		t.Fatal("a second Final of one session succeeded")
	}
	if err := errors.Join(a.Close(), b.Close()); err != nil {
		t.Fatalf("Close after Final: %v", err)
	}
	if x.groups.Load() != 1 || x.frees.Load() != 1 || x.progCloses.Load() != 2 || tables.Len() != 0 {
		t.Fatalf("%d reads, %d frees, %d programs closed, %d entries; want 1, 1, 2, 0",
			x.groups.Load(), x.frees.Load(), x.progCloses.Load(), tables.Len())
	}
}

func TestCloseWithoutFinalFreesWhenLast(t *testing.T) {
	x := &fakeExec{}
	tables := querybuf.NewTable()
	a, b := x.join(t, tables, 16), x.join(t, tables, 16)
	if err := a.Close(); err != nil || x.frees.Load() != 0 {
		t.Fatalf("first Close: %v, %d frees; want no free", err, x.frees.Load())
	}
	if err := b.Close(); err != nil || x.frees.Load() != 1 || x.groups.Load() != 0 || x.progCloses.Load() != 2 {
		t.Fatalf("last Close: %v, %d frees, %d reads, %d programs closed; want 1 free, 2 closed",
			err, x.frees.Load(), x.groups.Load(), x.progCloses.Load())
	}
}

func TestJoinRejectsOtherEntrySize(t *testing.T) {
	x := &fakeExec{}
	tables := querybuf.NewTable()
	a := x.join(t, tables, 16)
	_, err := Join(tables, querybuf.Key{PlanID: 0x42}, 32, x, x, func() (*fakeTable, error) {
		t.Error("a second table was created")
		return nil, nil
	})
	if !errors.Is(err, protocol.ErrProtocol) || x.progCloses.Load() != 1 {
		t.Fatalf("error %v, %d programs closed; want a protocol error, the program closed", err, x.progCloses.Load())
	}
	if err := a.Close(); err != nil || x.frees.Load() != 1 || tables.Len() != 0 {
		t.Fatalf("Close: %v, %d frees, %d entries; the rejected session kept a reference", err, x.frees.Load(), tables.Len())
	}
}

func TestJoinSetupError(t *testing.T) {
	boom := errors.New("no memory")
	x := &fakeExec{}
	_, err := Join(querybuf.NewTable(), querybuf.Key{PlanID: 0x42}, 16, x, x, func() (*fakeTable, error) { return nil, boom })
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "GpuPreAgg table of plan 0x42") || x.progCloses.Load() != 1 {
		t.Fatalf("error %v, %d programs closed; want the setup's, naming the plan, and the program closed", err, x.progCloses.Load())
	}
}

// TestGrowFailureKeepsTable: a failed growth (no table) is the chunk's
// error, and the old table stays in use for the other sessions.
func TestGrowFailureKeepsTable(t *testing.T) {
	x := &fakeExec{}
	tables := querybuf.NewTable()
	s := x.join(t, tables, 16)
	boom := errors.New("pool exhausted")
	task := &fakeTask{growErr: boom, pass: func(*fakeTable, []uint32) ([]uint32, Counters, error) {
		return []uint32{1 | rt}, Counters{NTuples: 1}, nil
	}}
	if _, err := s.Accumulate(task); !errors.Is(err, boom) {
		t.Fatalf("error %v, want the growth's", err)
	}
	msgs, err := kindtest.Final(s, 1)
	if err != nil {
		t.Fatal(err)
	}
	if g := groupsOf(t, msgs); g.NGrowths != 0 {
		t.Fatalf("groups %+v of a table that never grew", g)
	}
}

// TestFullTableSendsRetryRowsToTheCPU: a growth that fails for want of
// room (ErrCannotGrow) turns the RETRY rows into RECHECK rows, merged in
// order with the chunk's own RECHECK rows and counted once, and the table
// keeps its groups.
func TestFullTableSendsRetryRowsToTheCPU(t *testing.T) {
	x := &fakeExec{}
	tables := querybuf.NewTable()
	s := x.join(t, tables, 16)
	task := &fakeTask{growErr: fmt.Errorf("grow to 1024 slots: pool exhausted: %w", ErrCannotGrow),
		pass: func(*fakeTable, []uint32) ([]uint32, Counters, error) {
			return []uint32{7 | rt, 4 | rc, 2 | rt}, Counters{NTuples: 10, NRecheck: 1}, nil
		}}
	r, err := s.Accumulate(task)
	if err != nil {
		t.Fatalf("Accumulate: %v, want the RETRY rows returned", err)
	}
	want := Result{Recheck: []uint32{2 | rc, 4 | rc, 7 | rc}, Counters: Counters{NTuples: 10, NRecheck: 3}}
	if !slices.Equal(r.Recheck, want.Recheck) || r.Counters != want.Counters || len(task.retries) != 1 {
		t.Fatalf("result %+v after %d passes, want %+v after 1", r, len(task.retries), want)
	}
	msgs, err := kindtest.Final(s, 1)
	if err != nil {
		t.Fatal(err)
	}
	if g := groupsOf(t, msgs); g.NGrowths != 0 || g.NGroupsTotal != 1 {
		t.Fatalf("groups %+v, want the table's one group, never grown", g)
	}
}

// TestPrepared: the server sees Exec (the executor's, its RECHECK rows as
// the reply, at most the chunk's capacity), Final and Close.
func TestPrepared(t *testing.T) {
	x := &fakeExec{}
	s := x.join(t, querybuf.NewTable(), 16)
	var ran bool
	items := []uint32{1 | xpu.ItemRecheck}
	p := s.Prepared(func(c xpu.Chunk, _ nodekind.Pages) (xpu.ChunkResult, []uint32, error) {
		ran = true
		return xpu.ChunkResult{NRecheck: uint32(len(items))}, items, nil
	})
	r, err := p.Exec(xpu.Chunk{ChunkID: 9, NBlocks: 1}, nodekind.Pages{}, nil)
	if err != nil || !ran || r.Result.ChunkID != 9 || r.Items.Count() != 1 {
		t.Fatalf("Exec: %+v, %v; the executor's exec did not run", r, err)
	}
	items = make([]uint32, xpu.MaxTuplesPerPage+1)
	if _, err := p.Exec(xpu.Chunk{ChunkID: 10, NBlocks: 1}, nodekind.Pages{}, nil); !errors.Is(err, protocol.ErrBadReply) {
		t.Fatalf("Exec with more rows than the chunk holds: %v, want ErrBadReply", err)
	}
	if msgs, err := kindtest.Final(p, 2); err != nil || len(msgs) != 1 {
		t.Fatalf("Final: %d messages, %v", len(msgs), err)
	}
	if err := p.Close(); err != nil || x.frees.Load() != 1 || x.progCloses.Load() != 1 {
		t.Fatalf("Close: %v, %d frees, %d programs closed; want 1 and 1", err, x.frees.Load(), x.progCloses.Load())
	}
}

// A collecting session gets the groups while another session of the plan
// still holds the table; the table is then gone: nobody gets the groups
// again, a late session is refused, and the last Close frees nothing more.
func TestCollectWhileOthersHoldTheTable(t *testing.T) {
	x := &fakeExec{}
	tables := querybuf.NewTable()
	a, b := x.join(t, tables, 16), x.join(t, tables, 16)
	sink := &kindtest.Sink{RequestID: 7}
	if err := b.Collect(sink); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	if g := groupsOf(t, sink.Msgs); g.NEntries != 1 || g.EntrySize != 16 {
		t.Fatalf("collected groups %+v, want the table's one group", g)
	}
	if x.groups.Load() != 1 || x.frees.Load() != 1 || tables.Len() != 1 {
		t.Fatalf("%d reads, %d frees, %d entries after Collect; want 1, 1, 1 (a still holds the entry)",
			x.groups.Load(), x.frees.Load(), tables.Len())
	}
	_, err := Join(tables, querybuf.Key{PlanID: 0x42}, 16, x, x, func() (*fakeTable, error) {
		t.Error("a late session created a table for a collected plan")
		return &fakeTable{entrySize: 16}, nil
	})
	if !errors.Is(err, ErrCollected) || !errors.Is(err, protocol.ErrUnsupported) {
		t.Fatalf("late Join: %v, want ErrCollected (unsupported: the backend falls back)", err)
	}
	if _, err := a.Accumulate(&fakeTask{pass: func(*fakeTable, []uint32) ([]uint32, Counters, error) {
		t.Error("a chunk ran into a collected table")
		return nil, Counters{}, nil
	}}); !errors.Is(err, ErrCollected) {
		t.Fatalf("Accumulate after Collect: %v, want ErrCollected", err)
	}
	msgs, err := kindtest.Final(a, 8)
	if err != nil || msgs != nil {
		t.Fatalf("Final after Collect: %v, %v; want no groups, no error", msgs, err)
	}
	if err := errors.Join(a.Close(), b.Close()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if x.groups.Load() != 1 || x.frees.Load() != 1 || x.progCloses.Load() != 3 || tables.Len() != 0 {
		t.Fatalf("%d reads, %d frees, %d programs closed, %d entries; want 1, 1, 3, 0",
			x.groups.Load(), x.frees.Load(), x.progCloses.Load(), tables.Len())
	}
}

// A session joining while another collects the plan's table is either
// refused (ErrCollected, the backend's CPU path) or joins a live table:
// it never sees the table vanish between its checks.
func TestJoinRacingCollect(t *testing.T) {
	for round := 0; round < 300; round++ {
		x := &fakeExec{}
		tables := querybuf.NewTable()
		collector := x.join(t, tables, 16)
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := collector.Collect(&kindtest.Sink{RequestID: 1}); err != nil {
				errs <- fmt.Errorf("Collect: %w", err)
			}
		}()
		for i := 0; i < 4; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, err := Join(tables, querybuf.Key{PlanID: 0x42}, 16, x, x, func() (*fakeTable, error) {
					return &fakeTable{entrySize: 16}, nil
				})
				switch {
				case err == nil:
					errs <- s.Close()
				case !errors.Is(err, ErrCollected):
					errs <- fmt.Errorf("Join: %w", err)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if err := collector.Close(); err != nil {
			t.Fatalf("round %d: Close: %v", round, err)
		}
	}
}
