// Package scan is the GpuScan node kind: a session filters each chunk's
// rows with the program's root qual and answers with their positions, one
// SUCCESS per chunk; TaskFinal returns nothing.  The executors run the
// kernel behind Primitives.
package scan

import (
	"fmt"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// Kind is GpuScan as the registry knows it.
var Kind = nodekind.Kind{ID: xpu.KindGpuScan, Name: "GpuScan", Parse: parse}

// Primitives are what an executor provides to run GpuScan.
type Primitives interface {
	// PrepareScan makes program p (the OpenSession message msg) ready
	// for the GpuScan kernel.
	PrepareScan(msg []byte, p *xpu.Program) (Program, error)
}

// Program is one GpuScan session's program on a device.  Scan may be
// called concurrently; Close once, after the last Scan.
type Program interface {
	// Scan runs the kernel over chunk c and returns its counters and the
	// positions of the rows that pass (or need a recheck).
	Scan(c xpu.Chunk, pages nodekind.Pages) (xpu.ChunkResult, []uint32, error)
	Close() error
}

// parse checks what GpuScan adds to the shared program: nothing, so the
// GpuPreAgg descriptor must be absent.
func parse(_ []byte, p *xpu.Program) (nodekind.Spec, error) {
	if p.PreAggOffset != 0 {
		return nil, fmt.Errorf("xpu program: preagg_offset is %d, must be 0", p.PreAggOffset)
	}
	if p.JoinOffset != 0 {
		return nil, fmt.Errorf("xpu program: join_offset is %d, must be 0", p.JoinOffset)
	}
	return spec{p}, nil
}

type spec struct{ p *xpu.Program }

func (s spec) Prepare(ex nodekind.Executor, msg []byte) (nodekind.Session, error) {
	prims, err := nodekind.PrimitivesOf[Primitives](ex, Kind.Name)
	if err != nil {
		return nil, err
	}
	prog, err := prims.PrepareScan(msg, s.p)
	if err != nil {
		return nil, err
	}
	return session{prog: prog}, nil
}

// session answers each chunk with one SUCCESS of its rows, at most as many
// as the chunk can hold.
type session struct {
	prog Program
	nodekind.NoFinal
}

func (s session) Exec(c xpu.Chunk, pages nodekind.Pages, _ nodekind.ChunkSink) (xpu.ChunkReply, error) {
	res, items, err := s.prog.Scan(c, pages)
	if err != nil {
		return xpu.ChunkReply{}, err
	}
	return xpu.PositionsReply(c, res, items)
}

func (s session) Close() error { return s.prog.Close() }
