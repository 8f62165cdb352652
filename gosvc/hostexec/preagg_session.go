package hostexec

import (
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/preagg"
	"github.com/pgstrom-go/pg_strom/gosvc/querybuf"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// PreparePreAgg copies the program into pool memory and takes a reference
// to the plan's table, which the first session of the plan creates; the
// preagg package's protocol does the rest, as in the gpu package:
// grow-and-retry on RETRY rows, groups at the last Final, and Close.
func (e *Executor) PreparePreAgg(msg []byte, p *xpu.Program, pa *xpu.PreAgg) (nodekind.Session, error) {
	s, err := e.upload(msg, p)
	if err != nil {
		return nil, err
	}
	entrySize := pa.EntrySize
	create := func() (*hostTable, error) { return e.newTable(e.initialSlots(entrySize), entrySize) }
	shared, err := preagg.Join(e.tables, querybuf.Key{PlanID: p.PlanID, Device: e.index}, entrySize, s, tableOps{e}, create)
	if err != nil {
		return nil, err
	}
	// A chunk's reply holds only its RECHECK rows, ascending; its RETRY
	// rows have run again in the grown table.
	return shared.Prepared(func(c xpu.Chunk, pages nodekind.Pages) (xpu.ChunkResult, []uint32, error) {
		return e.runTask(c, pages, true, func(t *task) error {
			r, err := shared.Accumulate(preaggTask{prog: s.prog, t: t, ex: e})
			// with an error, runTask drops what r left in the task
			t.result, t.counters[xpu.CounterNTuples], t.counters[xpu.CounterNRecheck] = r.Recheck, r.NTuples, r.NRecheck
			return err
		})
	}), nil
}

// preaggTask is a chunk's task as the preagg package drives it.
type preaggTask struct {
	prog []byte // the OpenSession message the kernel code reads
	t    *task
	ex   *Executor
}

// Pass runs the kernel code over the table.  The retry items are copied
// into the task's pool memory first, where the GPU path uploads them.
func (p preaggTask) Pass(tab *hostTable, retry []uint32) ([]uint32, preagg.Counters, error) {
	t := p.t
	if retry != nil {
		// nil stays nil: it tells the kernel code to run over every page
		retry = t.retry[:copy(t.retry, retry)]
	}
	tab.run.Lock()
	defer tab.run.Unlock()
	runPreAgg(p.prog, t.pages, t.chunk.NBlocks, retry, tab.bytes, t.items, t.counters)
	if err := t.collect(xpu.KernelGpuPreAgg); err != nil {
		return nil, preagg.Counters{}, err
	}
	return t.result, preagg.Counters{NTuples: t.counters[xpu.CounterNTuples], NRecheck: t.counters[xpu.CounterNRecheck]}, nil
}

// Grow grows the table with the rehash code.
func (p preaggTask) Grow(old *hostTable) (*hostTable, error) { return p.ex.growTable(old) }

// tableOps is the Executor's side of its tables for the preagg package.
type tableOps struct{ e *Executor }

// Groups reads the VALID entries in place.
func (tableOps) Groups(t *hostTable) (uint32, []byte, error) {
	hdr, valid, err := t.groups()
	return hdr.EntrySize, valid, err
}

func (o tableOps) FreeTable(t *hostTable) error { return o.e.free(t.mem, "the GpuPreAgg table") }
