package server

import (
	"fmt"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// TestZeroCopyStampedPagesFillTheCache sends a zero-copy chunk whose
// all-visible refs are stamped, then cache-only direct-read chunks of the
// same blocks: the stamped pages' gathered images are served from the
// store under their stamps (the pages lie dirty in shared buffers, where
// no file holds them), an unstamped page and a changed stamp are not, and
// a zero-copy chunk whose Exec failed caches nothing.
func TestZeroCopyStampedPagesFillTheCache(t *testing.T) {
	seen := make(chan chunkSeen, 1)
	fail := false
	ex := newStoreExecutor(seen, &fail)
	direct := ex.onExec
	// the gather: buffer b's page carries marker 1000 + b
	ex.onExec = func(c xpu.Chunk, p nodekind.Pages) error {
		if p.Refs != nil {
			p.Bytes = nil
			for i := 0; i < int(c.NBlocks); i++ {
				p.Bytes = append(p.Bytes, directPage(1000+xpu.PageRefBuffer(p.Refs, i), true)...)
			}
			p.Refs = nil
		}
		return direct(c, p)
	}
	dir := writeDirectRelation(t, 16384, 8, [][]byte{directPage(1, true), directPage(2, true), directPage(3, true), directPage(4, true)})
	cache := openPageCacheForTest(t, ex, 16)
	s, err := New(Config{
		SocketPath:     SocketPath(t.TempDir(), 4242, 0),
		Workers:        1,
		Pool:           &fakePool{},
		Executor:       ex,
		Kinds:          testKinds,
		DataDir:        dir,
		PageCache:      cache,
		SharedBuffers:  64,
		MessageTimeout: time.Minute,
		Logger:         zerolog.New(zerolog.NewTestWriter(t)),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c := dial(t, s)
	expectSuccess(t, c, sessionMsg(1))
	f := xpu.DirectFile{Spc: xpu.DefaultTablespace, DB: 5, RelNode: 16384, SegBlocks: 8, RelNBlocks: 4, Stamps: true, CacheOnly: true}

	zeroCopy := func(req uint32) chunkSeen {
		t.Helper()
		refs := []xputest.PageRef{
			xputest.StampedRef(20, 4, f, 2, 7), // block 2, buffer 20
			xputest.AllVisibleRef(21, 4),       // block 1, not stamped
			xputest.StampedRef(22, 4, f, 0, 7), // block 0, buffer 22
		}
		if _, err := c.Write(xputest.SharedChunkMessage(req, req, refs)); err != nil {
			t.Fatal(err)
		}
		if _, h, err := protocol.ReadMessage(c, 0); err != nil || (h.Tag != protocol.TagSuccess) != fail {
			t.Fatalf("zero-copy chunk: reply %s, %v", h.Tag, err)
		}
		return <-seen
	}
	// cacheOnly returns the hits its read report counts and the pages the
	// kernels saw (0 for a page hidden as not cached)
	cacheOnly := func(req uint32, stamps []uint64) (uint32, string) {
		t.Helper()
		if _, err := c.Write(xputest.StampedDirectChunkMessage(req, req, f, []uint32{0, 1, 2}, stamps)); err != nil {
			t.Fatal(err)
		}
		report, _, err := protocol.ReadMessage(c, 0)
		if err != nil {
			t.Fatal(err)
		}
		r, _, err := xpu.DecodeChunkResult(report)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := protocol.ReadMessage(c, 0); err != nil {
			t.Fatal(err)
		}
		return r.NTuples, fmt.Sprint((<-seen).markers)
	}

	fail = true
	if cs := zeroCopy(2); cs.fills != 2 {
		t.Fatalf("failed zero-copy chunk: %d fills, want 2", cs.fills)
	}
	fail = false
	if hits, pages := cacheOnly(3, []uint64{7, 7, 7}); hits != 0 || pages != "[0 0 0]" {
		t.Fatalf("after a failed zero-copy chunk: %d hits, pages %s; want none cached", hits, pages)
	}
	if cs := zeroCopy(4); cs.fills != 2 || cs.hits != 0 {
		t.Fatalf("zero-copy chunk: %d fills, %d hits; want the 2 stamped pages filled", cs.fills, cs.hits)
	}
	if hits, pages := cacheOnly(5, []uint64{7, 7, 7}); hits != 2 || pages != "[1022 0 1020]" {
		t.Fatalf("same stamps: %d hits, pages %s; want blocks 0 and 2 from shared buffers 22 and 20", hits, pages)
	}
	if hits, pages := cacheOnly(6, []uint64{8, 7, 7}); hits != 1 || pages != "[0 0 1020]" {
		t.Fatalf("block 0 under a new stamp: %d hits, pages %s; want only block 2", hits, pages)
	}
	// the same stamped pages again: already cached, nothing to fill
	if cs := zeroCopy(7); cs.fills != 0 {
		t.Fatalf("zero-copy chunk of cached pages: %d fills, want 0", cs.fills)
	}
	if st := cache.Stats(); st.Used != 2 {
		t.Fatalf("cache %+v: want 2 slots used", st)
	}
}
