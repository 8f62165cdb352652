package server

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/pagecache"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// storeExecutor is a fakeExecutor with a page store in memory, which it
// applies as the real executors do, and which reports each chunk's pages
// (their markers) and the copies it made.
type storeExecutor struct {
	fakeExecutor
	store []byte
}

func (e *storeExecutor) OpenPageStore(slots int) error {
	e.store = make([]byte, slots*xpu.BlockSize)
	return nil
}

type chunkSeen struct {
	markers      []uint32
	hits, fills  int
	cacheInvalid error
}

func newStoreExecutor(seen chan<- chunkSeen, fail *bool) *storeExecutor {
	e := &storeExecutor{}
	e.onExec = func(c xpu.Chunk, p nodekind.Pages) error {
		var cs chunkSeen
		if m := p.Cache; m != nil {
			cs.cacheInvalid = m.CheckMoves(c.NBlocks, len(e.store)/xpu.BlockSize)
			for _, h := range m.Hits {
				copy(p.Bytes[int(h.Index)*xpu.BlockSize:int(h.Index+1)*xpu.BlockSize], e.store[int(h.Slot)*xpu.BlockSize:])
			}
			for _, f := range m.Fills {
				copy(e.store[int(f.Slot)*xpu.BlockSize:int(f.Slot+1)*xpu.BlockSize], p.Bytes[int(f.Index)*xpu.BlockSize:])
			}
			cs.hits, cs.fills = len(m.Hits), len(m.Fills)
		}
		for b := 0; b < int(c.NBlocks); b++ {
			pg := p.Bytes[b*xpu.BlockSize:]
			if binary.LittleEndian.Uint16(pg[14:]) == 0 {
				cs.markers = append(cs.markers, 0)
				continue
			}
			cs.markers = append(cs.markers, binary.LittleEndian.Uint32(pg[8000+24:]))
		}
		seen <- cs
		if *fail {
			return errors.New("injected executor failure")
		}
		return nil
	}
	return e
}

// TestPageCacheServesEqualStampsOnly runs direct-read chunks with stamps
// through a server with a page cache: a page read once is served from the
// store while its stamp is the same, even after the file changed (which,
// in PostgreSQL, a changed stamp would have announced), and read from the
// file again under a new stamp; new and bounced pages are never cached,
// and a chunk whose Exec failed leaves nothing cached.
func TestPageCacheServesEqualStampsOnly(t *testing.T) {
	pages := [][]byte{directPage(10, true), directPage(11, true), directPage(12, false), directPage(13, true), make([]byte, xpu.BlockSize)}
	dir := writeDirectRelation(t, 16384, 2, pages)
	seen := make(chan chunkSeen, 1)
	fail := false
	ex := newStoreExecutor(seen, &fail)
	cache := openPageCacheForTest(t, ex, 16)
	s, err := New(Config{
		SocketPath: SocketPath(t.TempDir(), 4242, 0),
		Workers:    1,
		Pool:       &fakePool{},
		Executor:   ex,
		Kinds:      testKinds,
		DataDir:    dir,
		PageCache:  cache,
		Logger:     zerolog.New(zerolog.NewTestWriter(t)),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c := dial(t, s)
	expectSuccess(t, c, sessionMsg(1))
	f := xpu.DirectFile{Spc: xpu.DefaultTablespace, DB: 5, RelNode: 16384, SegBlocks: 2, RelNBlocks: 5, Stamps: true}
	blknos := []uint32{3, 0, 2, 4, 1}
	stamps := func(v uint64) []uint64 { return []uint64{v, v, v, v, v} }

	// run sends one chunk and returns its read report (hits in NTuples,
	// bounced blocks in items) and what the kernels saw
	run := func(req uint32, st []uint64) (xpu.ChunkResult, []uint32, chunkSeen) {
		t.Helper()
		if _, err := c.Write(xputest.StampedDirectChunkMessage(req, req, f, blknos, st)); err != nil {
			t.Fatal(err)
		}
		report, h, err := protocol.ReadMessage(c, 0)
		if err != nil || h.Tag != protocol.TagSuccessHalfway {
			t.Fatalf("first reply %s, %v", h.Tag, err)
		}
		r, items, err := xpu.DecodeChunkResult(report)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := protocol.ReadMessage(c, 0); err != nil {
			t.Fatal(err)
		}
		cs := <-seen
		if cs.cacheInvalid != nil {
			t.Fatal(cs.cacheInvalid)
		}
		return r, items, cs
	}
	hitsOf := func(r xpu.ChunkResult, _ []uint32, cs chunkSeen) (uint32, chunkSeen) { return r.NTuples, cs }

	// a failed chunk fills nothing
	fail = true
	if hits, cs := hitsOf(run(2, stamps(5))); hits != 0 || cs.fills != 3 {
		t.Fatalf("first read: %d hits, %d fills, want 0 and 3 (blocks 3, 0, 1)", hits, cs.fills)
	}
	fail = false
	if hits, cs := hitsOf(run(3, stamps(5))); hits != 0 || cs.fills != 3 || fmt.Sprint(cs.markers) != "[13 10 0 0 11]" {
		t.Fatalf("after a failed chunk: %d hits, %d fills, pages %v", hits, cs.fills, cs.markers)
	}
	// the file changes; the same stamps are served from the store
	if err := os.WriteFile(filepath.Join(dir, "base", "5", "16384"), append(directPage(99, true), directPage(98, true)...), 0o644); err != nil {
		t.Fatal(err)
	}
	if hits, cs := hitsOf(run(4, stamps(5))); hits != 3 || cs.hits != 3 || cs.fills != 0 || fmt.Sprint(cs.markers) != "[13 10 0 0 11]" {
		t.Fatalf("same stamps: %d hits (report %d), %d fills, pages %v; want 3 hits and the cached [13 10 0 0 11]", cs.hits, hits, cs.fills, cs.markers)
	}
	// a new stamp for block 0 only, and stamp 0 (do not cache) for block 3
	st := stamps(5)
	st[1], st[0] = 6, 0
	if hits, cs := hitsOf(run(5, st)); hits != 1 || fmt.Sprint(cs.markers) != "[13 99 0 0 11]" || cs.fills != 1 {
		t.Fatalf("new stamp: %d hits, %d fills, pages %v; want 1 hit (block 1), block 0 read again and refilled", hits, cs.fills, cs.markers)
	}
	if st := cache.Stats(); st.Used != 3 {
		t.Fatalf("cache %+v: want 3 slots used", st)
	}

	// cache-only: no file is read; what the cache lacks is bounced as not
	// cached and hidden from the kernels
	f.CacheOnly = true
	r, items, cs := run(6, stamps(5))
	// blocks 3 and 1 are cached under stamp 5, block 0 under stamp 6 now,
	// blocks 2 and 4 are not cacheable: two hits
	var bounced []string
	for _, it := range items {
		bounced = append(bounced, fmt.Sprintf("%d/%d", it&xpu.BounceIndexMask, it>>xpu.BounceShift))
	}
	want := fmt.Sprintf("[1/%d 2/%d 3/%d]", xpu.BounceNotCached, xpu.BounceNotCached, xpu.BounceNotCached)
	if r.NTuples != 2 || fmt.Sprint(bounced) != want || fmt.Sprint(cs.markers) != "[13 0 0 0 11]" || cs.fills != 0 {
		t.Fatalf("cache-only: %d hits, bounced %v, pages %v, %d fills; want 2 hits, %s, [13 0 0 0 11], 0 fills",
			r.NTuples, bounced, cs.markers, cs.fills, want)
	}
}

func openPageCacheForTest(t *testing.T, ex nodekind.PageStore, slots int) *pagecache.Cache {
	t.Helper()
	if err := ex.OpenPageStore(slots); err != nil {
		t.Fatal(err)
	}
	c, err := pagecache.New(slots)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
