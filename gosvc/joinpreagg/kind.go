// Package joinpreagg is the GpuPreAgg fused over GpuJoin node kind (Kind,
// XPU_KIND_GPUJOIN_PREAGG) and its session protocol, made of the two it
// fuses rather than a copy of either: the plan's inner depths are loaded
// exactly as GpuJoin's (join.Session: JOIN_INNER pieces, the query-buffer
// entry per depth and device, the build kernel), and every chunk runs as
// a GpuPreAgg chunk (preagg.Session: the plan's shared table, RETRY passes
// after growth, RECHECK rows, groups at the last TaskFinal or at
// PGSTROM_FINAL_COLLECT) with the fused kernel, which also reads the
// inner buffers.  An item is a whole outer row: none of its join
// combinations was folded when it comes back RECHECK.
package joinpreagg

import (
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// Kind is GpuPreAgg fused over GpuJoin as the registry knows it.
var Kind = nodekind.Kind{ID: xpu.KindGpuJoinPreAgg, Name: "GpuJoinPreAgg", Parse: parse}

// Primitives are what an executor provides to run fused sessions.
type Primitives interface {
	// PrepareJoinPreAgg makes program p (the OpenSession message msg)
	// with join descriptor j and grouping pa ready for
	// kern_gpujoin_build and kern_gpujoin_preagg, and returns
	// Session.Prepared with its ExecFunc.
	PrepareJoinPreAgg(msg []byte, p *xpu.Program, j *xpu.Join, pa *xpu.PreAgg) (nodekind.Session, error)
}

// parse validates both descriptors and the per-combination stage.
func parse(msg []byte, p *xpu.Program) (nodekind.Spec, error) {
	j, pa, err := xpu.ParseJoinPreAgg(msg, p)
	if err != nil {
		return nil, err
	}
	return spec{p: p, j: j, pa: pa}, nil
}

type spec struct {
	p  *xpu.Program
	j  *xpu.Join
	pa *xpu.PreAgg
}

func (s spec) Prepare(ex nodekind.Executor, msg []byte) (nodekind.Session, error) {
	prims, err := nodekind.PrimitivesOf[Primitives](ex, Kind.Name)
	if err != nil {
		return nil, err
	}
	return prims.PrepareJoinPreAgg(msg, s.p, s.j, s.pa)
}
