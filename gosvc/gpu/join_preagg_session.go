package gpu

import (
	"fmt"

	"gorgonia.org/cu"

	"github.com/pgstrom-go/pg_strom/gosvc/join"
	"github.com/pgstrom-go/pg_strom/gosvc/joinpreagg"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/preagg"
	"github.com/pgstrom-go/pg_strom/gosvc/querybuf"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

var _ joinpreagg.Primitives = (*Executor)(nil)

// PrepareJoinPreAgg uploads the program, makes the join part (the plan's
// inner buffers on this device, as PrepareJoin's: kern_gpujoin_build
// accepts a fused session) and takes a reference to the plan's table (as
// PreparePreAgg's).  The joinpreagg package's protocol (shared with the
// host executor) does the rest.
func (e *Executor) PrepareJoinPreAgg(msg []byte, p *xpu.Program, j *xpu.Join, pa *xpu.PreAgg) (nodekind.Session, error) {
	if e.kern.joinPreAggErr != nil {
		return nil, fmt.Errorf("the kernels module cannot run GpuPreAgg fused over GpuJoin: %w", e.kern.joinPreAggErr)
	}
	s, err := e.upload(msg, p)
	if err != nil {
		return nil, err
	}
	inner := join.New[*devInner](e.tables, joinOps{e: e, sess: s}, joinpreagg.NoProgram, p, j, e.dev.index)
	entrySize := pa.EntrySize
	key := querybuf.Key{PlanID: p.PlanID, Device: e.dev.index}
	agg, err := preagg.Join(e.tables, key, entrySize, s, tableOps{e}, func() (*devTable, error) {
		l, err := e.getLane(0)
		if err != nil {
			return nil, err
		}
		defer e.putLane(l)
		return e.newTable(l, e.initialSlots(entrySize), entrySize)
	})
	if err != nil {
		return nil, err // inner holds nothing yet
	}
	fs := &joinpreagg.Session[*devInner, *devTable]{Inner: inner, Agg: agg}
	return fs.Prepared(func(c xpu.Chunk, pages nodekind.Pages, inners []*devInner) (xpu.ChunkResult, []uint32, error) {
		var ptrs [xpu.JoinMaxDepths]cu.DevicePtr // NULL past the depths
		for d, in := range inners {
			ptrs[d] = in.ptr()
		}
		return e.runTask(s, c, pages, true, func(t *task) error {
			t.kernel = xpu.KernelGpuJoinPreAgg
			r, err := agg.Accumulate(joinPreAggTask{preaggTask: preaggTask{t}, inners: &ptrs})
			// with an error, runTask drops what r left in the task
			t.items, t.counters[xpu.CounterNTuples], t.counters[xpu.CounterNRecheck] = r.Recheck, r.NTuples, r.NRecheck
			return err
		})
	}), nil
}

// joinPreAggTask is a fused chunk's task as the preagg package drives it:
// GpuPreAgg's (Grow), with the fused kernel over the depths' buffers.
type joinPreAggTask struct {
	preaggTask
	inners *[xpu.JoinMaxDepths]cu.DevicePtr
}

// Pass runs the fused kernel over the table with the context current.
func (p joinPreAggTask) Pass(tab *devTable, retry []uint32) ([]uint32, preagg.Counters, error) {
	t := p.t
	err := t.sess.ex.dev.Do(func() error { return t.foldPass(t.sess.ex.kern.joinPreAgg, tab.ptr(), p.inners, retry) })
	if st := t.counters[xpu.CounterStatus]; err != nil && st == xpu.StatusBadInner {
		err = join.KernelStatus(st, xpu.KernelGpuJoinPreAgg) // an inner buffer the kernel refused
	}
	if err != nil {
		return nil, preagg.Counters{}, err
	}
	return t.items, preagg.Counters{NTuples: t.counters[xpu.CounterNTuples], NRecheck: t.counters[xpu.CounterNRecheck]}, nil
}
