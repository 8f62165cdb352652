package hostexec

import (
	"github.com/pgstrom-go/pg_strom/gosvc/join"
	"github.com/pgstrom-go/pg_strom/gosvc/joinpreagg"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/preagg"
	"github.com/pgstrom-go/pg_strom/gosvc/querybuf"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

var _ joinpreagg.Primitives = (*Executor)(nil)

// PrepareJoinPreAgg copies the program into pool memory, makes the join
// part (the plan's inner buffers, as PrepareJoin's) and takes a reference
// to the plan's table (as PreparePreAgg's); the joinpreagg package's
// protocol does the rest, as in the gpu package.
func (e *Executor) PrepareJoinPreAgg(msg []byte, p *xpu.Program, j *xpu.Join, pa *xpu.PreAgg) (nodekind.Session, error) {
	s, err := e.upload(msg, p)
	if err != nil {
		return nil, err
	}
	inner := join.New[*hostInner](e.tables, joinOps{e: e, prog: s.prog}, joinpreagg.NoProgram, p, j, e.index)
	entrySize := pa.EntrySize
	create := func() (*hostTable, error) { return e.newTable(e.initialSlots(entrySize), entrySize) }
	agg, err := preagg.Join(e.tables, querybuf.Key{PlanID: p.PlanID, Device: e.index}, entrySize, s, tableOps{e}, create)
	if err != nil {
		return nil, err // inner holds nothing yet
	}
	fs := &joinpreagg.Session[*hostInner, *hostTable]{Inner: inner, Agg: agg}
	return fs.Prepared(func(c xpu.Chunk, pages nodekind.Pages, inners []*hostInner) (xpu.ChunkResult, []uint32, error) {
		return e.runTask(c, pages, true, func(t *task) error {
			r, err := agg.Accumulate(joinPreAggTask{preaggTask: preaggTask{prog: s.prog, t: t, ex: e}, inners: inners})
			// with an error, runTask drops what r left in the task
			t.result, t.counters[xpu.CounterNTuples], t.counters[xpu.CounterNRecheck] = r.Recheck, r.NTuples, r.NRecheck
			return err
		})
	}), nil
}

// joinPreAggTask is a fused chunk's task as the preagg package drives it:
// GpuPreAgg's, with the fused kernel code over the depths' buffers.
type joinPreAggTask struct {
	preaggTask // Grow
	inners     []*hostInner
}

// Pass runs the fused kernel code over the table, as preaggTask.Pass.
func (p joinPreAggTask) Pass(tab *hostTable, retry []uint32) ([]uint32, preagg.Counters, error) {
	t := p.t
	if retry != nil {
		retry = t.retry[:copy(t.retry, retry)]
	}
	bufs := make([][]byte, len(p.inners))
	for d, in := range p.inners {
		bufs[d] = in.b
	}
	tab.run.Lock()
	defer tab.run.Unlock()
	runJoinPreAgg(p.prog, t.pages, t.chunk.NBlocks, retry, tab.bytes, bufs, t.items, t.counters)
	if err := join.KernelStatus(t.counters[xpu.CounterStatus], xpu.KernelGpuJoinPreAgg); err != nil {
		return nil, preagg.Counters{}, err
	}
	if err := t.collect(xpu.KernelGpuJoinPreAgg); err != nil {
		return nil, preagg.Counters{}, err
	}
	return t.result, preagg.Counters{NTuples: t.counters[xpu.CounterNTuples], NRecheck: t.counters[xpu.CounterNRecheck]}, nil
}
