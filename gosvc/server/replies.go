package server

import (
	"fmt"
	"sync"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// halfways sends the SUCCESS_HALFWAY replies of one request as a session
// emits them, framed here so that a session cannot write a wrong length,
// tag or request id.  Once the request's last reply is due (end), nothing
// more goes out: a session that kept its sink cannot write after the
// SUCCESS or ERROR that ends the request.  The first failure is kept, and
// the request is answered with an Error reply.
type halfways struct {
	conn    *clientConn
	id      uint32
	limit   int64             // Config.OutboxBytes: a send waits while the outbox is full
	suspend func(wait func()) // how it waits: its worker slot given back

	mu    sync.Mutex
	ended bool
	sent  int
	err   error // the first failed send
}

func (s *Server) newHalfways(conn *clientConn, id uint32) *halfways {
	return &halfways{conn: conn, id: id, limit: s.cfg.OutboxBytes, suspend: s.whileSuspended}
}

// send frames p and writes it at once, under the lock, so end waits for a
// send in progress; bad, when set, is why p is not sent.
func (h *halfways) send(p protocol.Payload, bad error) error {
	var msg []byte
	if bad == nil {
		var err error
		if msg, err = protocol.Frame(protocol.TagSuccessHalfway, h.id, p); err != nil {
			bad = fmt.Errorf("request %d: SuccessHalfway reply %d: %w", h.id, h.sent+1, err)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ended {
		// not kept in h.err: the request's answer has gone out
		return fmt.Errorf("%w: request %d: a SuccessHalfway reply after the request was answered", protocol.ErrBadReply, h.id)
	}
	if bad == nil {
		if bad = h.conn.sendBounded(outItem{msgs: [][]byte{msg}}, h.limit, h.suspend); bad != nil {
			h.conn.close() // a partial write desynchronizes the stream
		}
	}
	if bad != nil {
		if h.err == nil {
			h.err = bad
		}
		return bad
	}
	h.sent++
	return nil
}

// end stops further sends and returns the first failure.
func (h *halfways) end() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ended = true
	return h.err
}

// Halfway is nodekind.FinalSink's.
func (h *halfways) Halfway(p protocol.Payload) error { return h.send(p, nil) }

// chunkHalfways is nodekind.ChunkSink for one chunk: the server, not the
// session, sets each part's chunk_id.
type chunkHalfways struct {
	*halfways
	chunkID uint32
}

func (c chunkHalfways) Halfway(r xpu.ChunkReply) error {
	r, err := checkChunkReply(c.chunkID, r)
	return c.send(r, err)
}

// checkChunkReply sets the chunk id of a TaskExec reply and checks that
// its item count fits XpuChunkResult.nitems.
func checkChunkReply(chunkID uint32, r xpu.ChunkReply) (xpu.ChunkReply, error) {
	if r.Items != nil {
		if n := r.Items.Count(); n < 0 || uint64(n) > uint64(^uint32(0)) {
			return r, fmt.Errorf("%w: chunk %d: %d items do not fit XpuChunkResult.nitems", protocol.ErrBadReply, chunkID, n)
		}
	}
	r.Result.ChunkID = chunkID
	return r, nil
}
