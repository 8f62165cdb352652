package nodekind

import (
	"errors"
	"fmt"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// Kind is one node kind, as registered.
type Kind struct {
	ID   uint32 // XpuSession.kind (XPU_KIND_*)
	Name string // for errors and logs, e.g. "GpuScan"
	// Parse validates the kind's own part of an OpenSession message msg,
	// whose shared part xpu.ParseProgram accepted as p (p.Kind == ID).
	// Its errors are protocol errors (the registry makes them wrap
	// protocol.ErrProtocol).
	Parse func(msg []byte, p *xpu.Program) (Spec, error)
}

// Spec is one validated session of a kind, not yet on a device.
type Spec interface {
	// Prepare makes the session runnable on ex, whose primitives for the
	// kind it uses; msg is the OpenSession message it was parsed from.
	// An executor without the kind's primitives is an error wrapping
	// ErrNoPrimitives.
	Prepare(ex Executor, msg []byte) (Session, error)
}

// Executor is one device's executor (the gpu package's, the host
// executor, a test's fake).  It runs the sessions of every kind whose
// primitives interface it implements.
type Executor interface {
	// Name names the device in errors, e.g. "GPU0".
	Name() string
}

// ErrNoPrimitives marks a session whose kind the executor cannot run.  It
// wraps protocol.ErrUnsupported.
var ErrNoPrimitives = fmt.Errorf("%w: the executor has no primitives for this node kind", protocol.ErrUnsupported)

// PrimitivesOf returns ex as the primitives P of the kind named kind, or
// an error wrapping ErrNoPrimitives.
func PrimitivesOf[P any](ex Executor, kind string) (P, error) {
	p, ok := ex.(P)
	if !ok {
		return p, fmt.Errorf("%w: %s cannot run %s sessions", ErrNoPrimitives, ex.Name(), kind)
	}
	return p, nil
}

// Pages are the heap pages of one chunk: c.PagesLen() bytes in host
// memory, inside the TaskExec message (inline chunk); or, for a zero-copy
// chunk (c.Shared()), Refs naming pages in PostgreSQL's shared buffers,
// which the executor registered and gathers from itself.  They are valid
// only during Exec.
type Pages struct {
	Bytes []byte
	// Pinned: the bytes lie in memory the executor lent, so the
	// device may read them by DMA directly.
	Pinned bool
	// Refs: a zero-copy chunk's XpuPageRef array (c.NBlocks of them,
	// validated with xpu.CheckPageRefs against the registered buffers);
	// Bytes is nil then.
	Refs []byte
	// Cache: a chunk's traffic with the executor's page store (nil:
	// none).  The executor copies each Hits page from its slot into the
	// chunk's page area (Bytes holds no image there) and each Fills page
	// from the page area into its slot, both before the kernels run, and
	// returns from Exec only once the copies are done.  A zero-copy
	// chunk has no Hits; its Fills are copied from the gathered pages,
	// with the refs applied.
	Cache *CacheMoves
}

// PageMove is one page's copy between a chunk's page area and a page
// store: page Index of the chunk, slot Slot of the store.
type PageMove struct{ Index, Slot uint32 }

// CacheMoves are the copies of one chunk (see Pages.Cache).
type CacheMoves struct{ Hits, Fills []PageMove }

// Len is the number of copies; 0 for nil.
func (m *CacheMoves) Len() int {
	if m == nil {
		return 0
	}
	return len(m.Hits) + len(m.Fills)
}

// PageStore is an executor that keeps images of heap pages for the
// service's page cache (pg_strom.gpu_page_cache_size): the gpu executor
// in device memory, the host executor in its own memory.
type PageStore interface {
	// OpenPageStore makes room for slots pages; called once, before the
	// first session.  An error leaves the executor without a store.
	OpenPageStore(slots int) error
}

// CheckMoves validates m against a chunk of nblocks pages and a store of
// slots pages: every index and slot in range.  (The directory gives a slot
// to one chunk at a time; an executor only needs to stay in bounds.)
func (m *CacheMoves) CheckMoves(nblocks uint32, slots int) error {
	if m == nil {
		return nil
	}
	for _, list := range [][]PageMove{m.Hits, m.Fills} {
		for _, mv := range list {
			if mv.Index >= nblocks || int64(mv.Slot) >= int64(slots) {
				return fmt.Errorf("page cache move %+v outside a chunk of %d pages and a store of %d slots", mv, nblocks, slots)
			}
		}
	}
	return nil
}

// Check reports whether p is what chunk c needs: its pages' bytes, or
// for a zero-copy chunk its refs.
func (p Pages) Check(c xpu.Chunk) error {
	switch {
	case c.Shared() != (p.Refs != nil):
		return fmt.Errorf("chunk %d: shared %v, but refs given %v", c.ChunkID, c.Shared(), p.Refs != nil)
	case p.Refs != nil && len(p.Refs) != c.RefsLen():
		return fmt.Errorf("chunk %d: %d bytes of page refs for %d blocks", c.ChunkID, len(p.Refs), c.NBlocks)
	case p.Refs == nil && len(p.Bytes) != c.PagesLen():
		return fmt.Errorf("chunk %d: %d bytes of pages for %d blocks", c.ChunkID, len(p.Bytes), c.NBlocks)
	}
	return nil
}

// Session is one open session of a kind on an executor.  Exec may be
// called concurrently; Final at most once, after every Exec has returned;
// Close once, last.
type Session interface {
	// Exec runs one chunk (a TaskExec message that xpu.ParseChunk
	// accepted as c) whose pages are pages.  It may send parts of the
	// chunk's results through out, each a SUCCESS_HALFWAY reply, and
	// returns the last part, which the server sends as SUCCESS.  out is
	// valid only until Exec returns.  The server sets the replies'
	// chunk_id and nitems.
	Exec(c xpu.Chunk, pages Pages, out ChunkSink) (xpu.ChunkReply, error)
	// Final runs for TaskFinal, after the session's last Exec returned
	// and before Close; not when the session ends by a disconnect.  It may
	// send results through out (SUCCESS_HALFWAY replies, before the
	// payload-less SUCCESS); out is valid only until Final returns.
	Final(out FinalSink) error
	// Close releases what the session holds on the device.
	Close() error
}

// ChunkSink takes the parts of one chunk's results that Exec sends before
// it returns.  An error means the part was not sent; the request is then
// answered with an Error reply whatever Exec returns.
type ChunkSink interface {
	Halfway(r xpu.ChunkReply) error
}

// FinalSink takes what a session sends at TaskFinal, each payload one
// SUCCESS_HALFWAY reply; errors as for ChunkSink.
type FinalSink interface {
	Halfway(p protocol.Payload) error
}

// Collector is a Session whose plan keeps results on the device that one
// session collects for all (TaskFinal with PGSTROM_FINAL_COLLECT): Collect
// sends them although other sessions of the plan still hold them (the
// backend guarantees they are idle), and leaves the plan holding nothing.
// A session that is not a Collector runs Final for such a TaskFinal.
type Collector interface {
	Collect(out FinalSink) error
}

// NoFinal is Final for kinds that keep nothing until TaskFinal (GpuScan).
type NoFinal struct{}

func (NoFinal) Final(FinalSink) error { return nil }

// errParse wraps a kind's Parse error as a protocol error.
func errParse(k Kind, err error) error {
	if errors.Is(err, protocol.ErrProtocol) {
		return fmt.Errorf("%s session: %w", k.Name, err)
	}
	return fmt.Errorf("%w: %s session: %w", protocol.ErrProtocol, k.Name, err)
}

// InnerLoader is a Session that takes a join's inner rows (GpuJoin's
// JOIN_INNER pieces); the server refuses JOIN_INNER on other sessions.
type InnerLoader interface {
	LoadInner(r protocol.JoinInnerRequest) (protocol.JoinInnerReply, error)
}
