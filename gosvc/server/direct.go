package server

import (
	"errors"
	"fmt"

	"github.com/pgstrom-go/pg_strom/gosvc/direct"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/pagecache"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// directChunk is a direct-read chunk's validated file, block numbers and,
// with XPU_DIRECT_STAMPS, the blocks' visibility-map stamps.
type directChunk struct {
	file   xpu.DirectFile
	blknos []uint32
	stamps []uint64
}

// parseDirect validates a direct-read chunk on the receiver: a bad file
// locator or block number is a protocol error and closes the connection.
func parseDirect(c xpu.Chunk, msg []byte) (*directChunk, error) {
	f, blknos, stamps, err := xpu.ParseDirect(c, msg)
	if err != nil {
		return nil, err
	}
	return &directChunk{file: f, blknos: blknos, stamps: stamps}, nil
}

// errExecNotReturned stands for the outcome of an Exec that did not return
// (it panicked): the chunk's page cache fills are abandoned.
var errExecNotReturned = errors.New("the executor did not return")

// readDirect reads a direct-read chunk's blocks from the relation's files
// into memory the executor lends (pinned, so the device DMAs it as an
// inline chunk's pages) or, without a lender, ordinary memory, and sends
// the read report as the chunk's first SUCCESS_HALFWAY reply.  With a page
// cache and stamps, the blocks the cache holds under the same stamp are
// not read: the executor copies them from its store, and it copies the
// usable pages read into the store (Pages.Cache).  It returns the chunk as
// the executors see it (inline pages), the pages, and what to call with
// Exec's error once Exec returned: it gives the memory back and ends the
// chunk's use of the cache.
func (s *Server) readDirect(sess *session, cmd *command, sink chunkHalfways) (xpu.Chunk, nodekind.Pages, func(error), error) {
	d := cmd.direct
	if s.cfg.DataDir == "" {
		return xpu.Chunk{}, nodekind.Pages{}, nil,
			fmt.Errorf("%w: the service does not know the data directory; send the pages zero-copy or inline", protocol.ErrUnsupported)
	}
	inline := cmd.chunk
	inline.BufferID, inline.PagesOffset = 0, 0
	n := inline.PagesLen()
	var body []byte
	if lender, ok := s.cfg.Executor.(BodyLender); ok {
		if b := lender.LendBody(n); b != nil && len(b) >= n {
			body = b
		} else if b != nil {
			s.returnBody(b)
		}
	}
	pinned := body != nil
	var charge int64
	if !pinned {
		// a message of a few kB asks for up to 64 MB: the same budget
		// as a message that brings its pages holds it
		charge = min(int64(n), s.bodies.total)
		granted := false
		s.whileSuspended(func() { granted = s.bodies.acquire(charge, cmd.conn.closed, s.done) })
		if !granted {
			return xpu.Chunk{}, nodekind.Pages{}, nil, errConnClosed
		}
		body = make([]byte, n)
		s.bodyBytes.Add(int64(n))
	}
	var plan *pagecache.Plan
	key := pagecache.Key{Spc: d.file.Spc, DB: d.file.DB, Rel: d.file.RelNode}
	if s.cfg.PageCache != nil && d.stamps != nil {
		plan = s.cfg.PageCache.Lookup(key, d.blknos, d.stamps)
	}
	done := func(execErr error) {
		if plan != nil {
			if execErr == nil {
				plan.Commit()
			} else {
				plan.Abort()
			}
		}
		if pinned {
			s.returnBody(body)
		} else {
			s.bodyBytes.Add(-int64(n))
			s.bodies.release(charge)
		}
	}
	var skip []bool
	if plan != nil {
		skip = plan.HitMask()
	}
	var rep direct.Report
	var err error
	if d.file.CacheOnly {
		rep = bounceUncached(plan, body[:n], len(d.blknos))
	} else {
		rep, err = sess.directFiles(s.cfg.DataDir).ReadChunkSkipping(d.file, d.blknos, body[:n], skip)
	}
	if err == nil {
		var hits int
		if plan != nil {
			hits = len(plan.Hits)
		}
		err = sink.Halfway(xpu.ChunkReply{
			Result: xpu.ChunkResult{NTuples: uint32(hits), GpuTimeNs: uint64(rep.Elapsed.Nanoseconds())},
			Items:  xpu.Positions(rep.Bounced),
		})
	}
	if err != nil {
		done(err)
		return xpu.Chunk{}, nodekind.Pages{}, nil, err
	}
	pages := nodekind.Pages{Bytes: body[:n], Pinned: pinned}
	if plan != nil {
		plan.Reserve(key, d.blknos, d.stamps, fillable(rep.Verdicts, skip))
		pages.Cache = plan.Moves()
	}
	return inline, pages, done, nil
}

// bounceUncached is the read report of a cache-only chunk
// (XPU_DIRECT_CACHE_ONLY): no file is read, and every block the cache
// does not serve is bounced as not cached, its page hidden from the
// kernels.  Without a cache (plan nil) that is every block.
func bounceUncached(plan *pagecache.Plan, pages []byte, nblocks int) direct.Report {
	rep := direct.Report{Verdicts: make([]direct.Verdict, nblocks)}
	for i := 0; i < nblocks; i++ {
		if plan != nil && plan.Hit(i) {
			continue
		}
		direct.HidePage(pages[i*xpu.BlockSize : (i+1)*xpu.BlockSize])
		rep.Verdicts[i] = direct.PageNotCached
		rep.Bounced = append(rep.Bounced, uint32(i)|xpu.BounceNotCached<<xpu.BounceShift)
	}
	return rep
}

// fillable lists the pages that were read (not skipped) and that the
// kernels take as they are: new and bounced pages are not cached.
func fillable(verdicts []direct.Verdict, skip []bool) []int {
	var out []int
	for i, v := range verdicts {
		if v == direct.PageUsable && (skip == nil || !skip[i]) {
			out = append(out, i)
		}
	}
	return out
}
