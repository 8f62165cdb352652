package joinpreagg

import (
	"errors"
	"fmt"

	"github.com/pgstrom-go/pg_strom/gosvc/join"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/preagg"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// NoProgram is the program closer of a fused session's join part: its
// GpuPreAgg part closes the program, once.
var NoProgram noProgram

type noProgram struct{}

func (noProgram) Close() error { return nil }

// Session is one fused session: its references to the plan's inner
// buffers (Inner, made with NoProgram as its program) and to the plan's
// table (Agg, which closes the program).
type Session[I join.Inner, T preagg.Table] struct {
	Inner *join.Session[I]
	Agg   *preagg.Session[T]
}

// ExecFunc runs one chunk over the depths' buffers inners (one per depth)
// through the session's Agg.Accumulate, and returns its counters and
// RECHECK rows.
type ExecFunc[I join.Inner] func(c xpu.Chunk, pages nodekind.Pages, inners []I) (xpu.ChunkResult, []uint32, error)

// Prepared returns the session as the server runs it: LoadInner takes
// the depths' JOIN_INNER pieces, exec runs its chunks once every depth is
// loaded, Final and Collect send the groups, Close releases the buffers,
// the table and the program.
func (s *Session[I, T]) Prepared(exec ExecFunc[I]) nodekind.Session {
	return &prepared[I, T]{s: s, exec: exec}
}

type prepared[I join.Inner, T preagg.Table] struct {
	s    *Session[I, T]
	exec ExecFunc[I]
}

// Exec answers a chunk with one SUCCESS of its RECHECK rows (whole outer
// rows), ascending.  A chunk before every depth is loaded is a protocol
// error, as for GpuJoin.
func (p *prepared[I, T]) Exec(c xpu.Chunk, pages nodekind.Pages, _ nodekind.ChunkSink) (xpu.ChunkReply, error) {
	inners, err := p.s.Inner.Inners()
	if err != nil {
		return xpu.ChunkReply{}, fmt.Errorf("GpuJoinPreAgg: %w", err)
	}
	res, items, err := p.exec(c, pages, inners)
	if err != nil {
		return xpu.ChunkReply{}, err
	}
	return xpu.PositionsReply(c, res, items)
}

// LoadInner implements nodekind.InnerLoader.
func (p *prepared[I, T]) LoadInner(r protocol.JoinInnerRequest) (protocol.JoinInnerReply, error) {
	return p.s.Inner.LoadInner(r)
}

// Final sends the groups at the plan's last TaskFinal (preagg.Session.Final).
func (p *prepared[I, T]) Final(out nodekind.FinalSink) error { return p.s.Agg.Final(out) }

// Collect implements nodekind.Collector (preagg.Session.Collect).
func (p *prepared[I, T]) Collect(out nodekind.FinalSink) error { return p.s.Agg.Collect(out) }

// Close releases the inner buffers' references, then the table's and the
// program.
func (p *prepared[I, T]) Close() error {
	return errors.Join(p.s.Inner.Close(), p.s.Agg.Close())
}
