package preagg

import (
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// Kind is GpuPreAgg as the registry knows it.
var Kind = nodekind.Kind{ID: xpu.KindGpuPreAgg, Name: "GpuPreAgg", Parse: parse}

// Primitives are what an executor provides to run GpuPreAgg.
type Primitives interface {
	// PreparePreAgg makes program p (the OpenSession message msg) with
	// descriptor pa ready for the GpuPreAgg kernel: the executor Joins its
	// plan's table and returns Session.Prepared with its ExecFunc.
	PreparePreAgg(msg []byte, p *xpu.Program, pa *xpu.PreAgg) (nodekind.Session, error)
}

// parse validates the GpuPreAgg descriptor and its arrays.
func parse(msg []byte, p *xpu.Program) (nodekind.Spec, error) {
	pa, err := xpu.ParsePreAgg(msg, p)
	if err != nil {
		return nil, err
	}
	return spec{p: p, pa: pa}, nil
}

type spec struct {
	p  *xpu.Program
	pa *xpu.PreAgg
}

func (s spec) Prepare(ex nodekind.Executor, msg []byte) (nodekind.Session, error) {
	prims, err := nodekind.PrimitivesOf[Primitives](ex, Kind.Name)
	if err != nil {
		return nil, err
	}
	return prims.PreparePreAgg(msg, s.p, s.pa)
}
