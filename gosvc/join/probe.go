package join

import (
	"fmt"
	"slices"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// Output capacity of one launch (one reply), in records: 4 x the most
// tuples the chunk can hold, at least MinCapacity, and at most what
// MaxReplyBytes of records hold.  The output buffer and the backend's
// receive buffer are bounded by it.
const (
	MinCapacity   = 64 << 10
	MaxReplyBytes = 32 << 20
)

// DefaultCapacity is the capacity of a launch over chunk c whose records
// have stride words.
func DefaultCapacity(c xpu.Chunk, stride int) uint32 {
	n := 4 * uint64(c.NBlocks) * uint64(xpu.MaxTuplesPerPage)
	n = min(n, uint64(MaxReplyBytes/(4*stride)))
	return uint32(max(n, MinCapacity))
}

// MaxLaunches bounds the launches of one chunk: each launch but the last
// writes capacity records, so this is never reached unless the kernel
// stops making progress.
const MaxLaunches = 1 << 20

// probe runs one chunk's launch loop: the first launch over the chunk's
// tuples, then one over the cursors each launch suspended, until none
// did.  Every launch but the last is one SUCCESS_HALFWAY reply through
// out; the last is returned, for the server to send as SUCCESS.
func (s *Session[I]) probe(c xpu.Chunk, t Task[I], inners []I, capacity uint32, out nodekind.ChunkSink) (xpu.ChunkReply, error) {
	stride := s.join.Stride()
	for n := 0; n < MaxLaunches; n++ {
		l, err := t.Launch(inners, n > 0)
		if err != nil {
			return xpu.ChunkReply{}, fmt.Errorf("GpuJoin chunk %d launch %d: %w", c.ChunkID, n+1, err)
		}
		nrec := len(l.Records) / stride
		switch {
		case len(l.Records)%stride != 0 || nrec > int(capacity):
			return xpu.ChunkReply{}, fmt.Errorf("%w: %s returned %d words, not at most %d records of %d", protocol.ErrBadReply, xpu.KernelGpuJoin, len(l.Records), capacity, stride)
		case l.NSuspend > 0 && nrec == 0:
			return xpu.ChunkReply{}, fmt.Errorf("%s suspended %d rows without writing a record", xpu.KernelGpuJoin, l.NSuspend)
		}
		reply := xpu.ChunkReply{
			Result: xpu.ChunkResult{ChunkID: c.ChunkID, NTuples: l.NTuples, NRecheck: l.NRecheck, GpuTimeNs: l.GpuTimeNs},
			Items:  xpu.Records{Words: l.Records, Stride: stride},
		}
		if l.NSuspend == 0 {
			// the records lie in the task's memory, which the executor
			// frees (and a concurrent chunk may reuse) before the server
			// frames this reply
			reply.Items = xpu.Records{Words: slices.Clone(l.Records), Stride: stride}
			return reply, nil
		}
		// framed (copied) before it returns: the next launch reuses the output
		if err := out.Halfway(reply); err != nil {
			return xpu.ChunkReply{}, err
		}
	}
	return xpu.ChunkReply{}, fmt.Errorf("GpuJoin chunk %d: rows still suspended after %d launches", c.ChunkID, MaxLaunches)
}

// prepared is a Session with its executor's Exec.
type prepared[I Inner] struct {
	*Session[I]
	exec ExecFunc[I]
	nodekind.NoFinal
}

// Exec answers a chunk with its records, in as many replies as the
// launch loop takes.
func (p *prepared[I]) Exec(c xpu.Chunk, pages nodekind.Pages, out nodekind.ChunkSink) (xpu.ChunkReply, error) {
	inners, err := p.Inners()
	if err != nil {
		return xpu.ChunkReply{}, err
	}
	capacity := p.Capacity(c, p.join.Stride())
	if capacity == 0 {
		return xpu.ChunkReply{}, fmt.Errorf("GpuJoin chunk %d: output capacity 0", c.ChunkID)
	}
	var reply xpu.ChunkReply
	err = p.exec(c, pages, capacity, func(t Task[I]) error {
		var err error
		reply, err = p.probe(c, t, inners, capacity, out)
		return err
	})
	return reply, err
}

// LoadInner implements nodekind.InnerLoader.
func (p *prepared[I]) LoadInner(r protocol.JoinInnerRequest) (protocol.JoinInnerReply, error) {
	return p.Session.LoadInner(r)
}

// Prepared returns the session as the server runs it: exec runs its
// chunks, LoadInner its JOIN_INNER pieces, Close releases the buffers
// and the program.  Final sends nothing: a non-fused GpuJoin keeps
// nothing for TaskFinal.
func (s *Session[I]) Prepared(exec ExecFunc[I]) nodekind.Session {
	return &prepared[I]{Session: s, exec: exec}
}
