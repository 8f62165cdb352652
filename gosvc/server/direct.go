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

// key names d's relation in the page cache.
func (d *directChunk) key() pagecache.Key {
	return pagecache.Key{Spc: d.file.Spc, DB: d.file.DB, Rel: d.file.RelNode}
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
	inline := asInline(cmd.chunk)
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
	giveBack := func() {
		if pinned {
			s.returnBody(body)
		} else {
			s.bodyBytes.Add(-int64(n))
			s.bodies.release(charge)
		}
	}
	r, err := startDirectRead(sess.directFiles(s.cfg.DataDir), s.cfg.PageCache, d, body[:n])
	if err == nil {
		err = sink.Halfway(xpu.ChunkReply{
			Result: xpu.ChunkResult{NTuples: uint32(r.hits()), GpuTimeNs: uint64(r.report.Elapsed.Nanoseconds())},
			Items:  xpu.Positions(r.report.Bounced),
		})
		if err != nil {
			r.end(err)
		}
	}
	if err != nil {
		giveBack()
		return xpu.Chunk{}, nodekind.Pages{}, nil, err
	}
	pages := nodekind.Pages{Bytes: body[:n], Pinned: pinned, Cache: r.moves()}
	done := func(execErr error) {
		r.end(execErr)
		giveBack()
	}
	return inline, pages, done, nil
}

// asInline is a direct-read chunk as the executors see it once its pages
// are read: an inline chunk whose pages start the body.
func asInline(c xpu.Chunk) xpu.Chunk {
	c.BufferID, c.PagesOffset = 0, 0
	return c
}

// directRead is one direct-read chunk's read and use of the page cache,
// apart from the connection and the memory budget, so that a fuzz target
// can drive the same steps in process.
type directRead struct {
	d      *directChunk
	plan   *pagecache.Plan // nil without a cache or stamps
	skip   []bool          // the pages the cache serves; nil when none
	report direct.Report
}

// startDirectRead looks d's blocks up in cache (nil: none) and reads the
// others from files into body (d's pages, in order); a cache-only chunk
// reads no file and bounces what the cache does not serve.  On error the
// chunk's use of the cache has already ended.
func startDirectRead(files *direct.Files, cache *pagecache.Cache, d *directChunk, body []byte) (*directRead, error) {
	r := &directRead{d: d}
	if cache != nil && d.stamps != nil {
		r.plan = cache.Lookup(d.key(), d.blknos, d.stamps)
		r.skip = r.plan.HitMask()
	}
	var err error
	if d.file.CacheOnly {
		r.report = bounceUncached(r.plan, body, len(d.blknos))
	} else {
		r.report, err = files.ReadChunkSkipping(d.file, d.blknos, body, r.skip)
	}
	if err != nil {
		r.end(err)
		return nil, err
	}
	return r, nil
}

// hits is how many of the chunk's pages the cache serves: the read
// report's count.
func (r *directRead) hits() int {
	if r.plan == nil {
		return 0
	}
	return len(r.plan.Hits)
}

// moves reserves store slots for the usable pages read and returns the
// copies the executor makes (nil: none).  It is called only once the read
// report is out, so a chunk whose report could not be sent evicts and
// fills nothing.
func (r *directRead) moves() *nodekind.CacheMoves {
	if r.plan == nil {
		return nil
	}
	r.plan.Reserve(r.d.key(), r.d.blknos, r.d.stamps, fillable(r.report.Verdicts, r.skip))
	return r.plan.Moves()
}

// end ends the chunk's use of the cache with Exec's error: the fills
// become visible only when the kernels ran without one.
func (r *directRead) end(execErr error) {
	if r.plan != nil {
		endFills(r.plan, execErr)
	}
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
