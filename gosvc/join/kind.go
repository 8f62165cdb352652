// Package join is the GpuJoin node kind (Kind) and the session protocol
// that every executor (the gpu package's devices, the test-only host
// executor) follows around it: the inner buffers of a plan, one per
// depth and device, loaded from JOIN_INNER pieces by one session and
// shared by all through querybuf; and per chunk the probe kernel's
// launch loop, each launch's records one reply.  What touches a buffer
// or runs a kernel is the executor's, behind the Executor and Task
// interfaces, so this package needs neither CUDA nor a device.
package join

import (
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// Kind is GpuJoin as the registry knows it.
var Kind = nodekind.Kind{ID: xpu.KindGpuJoin, Name: "GpuJoin", Parse: parse}

// Primitives are what an executor provides to run GpuJoin.
type Primitives interface {
	// PrepareJoin makes program p (the OpenSession message msg) with
	// join descriptor j ready for the GpuJoin kernels and returns
	// Session.Prepared with its ExecFunc.
	PrepareJoin(msg []byte, p *xpu.Program, j *xpu.Join) (nodekind.Session, error)
}

// parse validates the join descriptor and its arrays.
func parse(msg []byte, p *xpu.Program) (nodekind.Spec, error) {
	j, err := xpu.ParseJoin(msg, p)
	if err != nil {
		return nil, err
	}
	return spec{p: p, j: j}, nil
}

type spec struct {
	p *xpu.Program
	j *xpu.Join
}

func (s spec) Prepare(ex nodekind.Executor, msg []byte) (nodekind.Session, error) {
	prims, err := nodekind.PrimitivesOf[Primitives](ex, Kind.Name)
	if err != nil {
		return nil, err
	}
	return prims.PrepareJoin(msg, s.p, s.j)
}
