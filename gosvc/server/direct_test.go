package server

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// startDirectServer serves with PGDATA dataDir (direct-read chunks).
func startDirectServer(t *testing.T, ex nodekind.Executor, dataDir string) *Server {
	t.Helper()
	s, err := New(Config{
		SocketPath: SocketPath(t.TempDir(), 4242, 0),
		Workers:    2,
		Pool:       &fakePool{},
		Executor:   ex,
		Kinds:      testKinds,
		DataDir:    dataDir,
		Logger:     zerolog.New(zerolog.NewTestWriter(t)),
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// directPage is an all-visible heap page with one tuple whose first data
// word is marker, so a test can tell the pages apart.
func directPage(marker uint32, allVisible bool) []byte {
	p := make([]byte, xpu.BlockSize)
	le := binary.LittleEndian
	flags := uint16(0)
	if allVisible {
		flags = 0x0004
	}
	le.PutUint16(p[10:], flags)
	le.PutUint16(p[12:], 28)   // pd_lower: one line pointer
	le.PutUint16(p[14:], 8000) // pd_upper
	le.PutUint16(p[16:], 8192) // pd_special
	le.PutUint16(p[18:], 8192|4)
	le.PutUint32(p[24:], 8000|1<<15|100<<17) // LP_NORMAL at 8000, 100 bytes
	le.PutUint32(p[8000+24:], marker)
	return p
}

// writeDirectRelation writes base/5/<node> with the pages, in segments of
// segBlocks blocks, under a new PGDATA.
func writeDirectRelation(t *testing.T, node uint32, segBlocks int, pages [][]byte) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "base", "5"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, p := range pages {
		name := filepath.Join(dir, "base", "5", fmt.Sprint(node))
		if seg := i / segBlocks; seg > 0 {
			name += fmt.Sprintf(".%d", seg)
		}
		f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt(p, int64(i%segBlocks)*int64(xpu.BlockSize)); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	return dir
}

func TestDirectChunkReportThenInlinePages(t *testing.T) {
	pages := [][]byte{directPage(10, true), directPage(11, true), directPage(12, false), directPage(13, true), make([]byte, xpu.BlockSize)}
	dir := writeDirectRelation(t, 16384, 2, pages)
	seen := make(chan []uint32, 1)
	ex := &fakeExecutor{onExec: func(c xpu.Chunk, p nodekind.Pages) error {
		if c.Direct() || !c.Inline() || p.Refs != nil {
			return fmt.Errorf("the executor got a direct chunk, not inline pages: %+v", c)
		}
		var markers []uint32
		for b := 0; b < int(c.NBlocks); b++ {
			pg := p.Bytes[b*xpu.BlockSize:]
			if binary.LittleEndian.Uint16(pg[14:]) == 0 {
				markers = append(markers, 0) // no tuples for the kernels
				continue
			}
			markers = append(markers, binary.LittleEndian.Uint32(pg[8000+24:]))
		}
		seen <- markers
		return nil
	}}
	s := startDirectServer(t, ex, dir)
	c := dial(t, s)
	expectSuccess(t, c, sessionMsg(1))

	f := xpu.DirectFile{Spc: xpu.DefaultTablespace, DB: 5, RelNode: 16384, SegBlocks: 2, RelNBlocks: 5}
	if _, err := c.Write(xputest.DirectChunkMessage(2, 9, f, []uint32{3, 0, 2, 4, 1})); err != nil {
		t.Fatal(err)
	}
	report, h, err := protocol.ReadMessage(c, 0)
	if err != nil || h.Tag != protocol.TagSuccessHalfway {
		t.Fatalf("first reply %s, %v: want the read report (SuccessHalfway)", h.Tag, err)
	}
	r, items, err := xpu.DecodeChunkResult(report)
	want := uint32(2) | xpu.BounceNotAllVisible<<xpu.BounceShift // block 2 is index 2
	if err != nil || r.ChunkID != 9 || len(items) != 1 || items[0] != want {
		t.Fatalf("read report %+v %#v (%v), want block index 2 bounced as not all-visible", r, items, err)
	}
	final, h, err := protocol.ReadMessage(c, 0)
	if err != nil || h.Tag != protocol.TagSuccess {
		t.Fatalf("second reply %s, %v: want Success", h.Tag, err)
	}
	if r, _, err := xpu.DecodeChunkResult(final); err != nil || r.ChunkID != 9 || r.NItems != 5 {
		t.Fatalf("chunk result %+v, %v", r, err)
	}
	if got := <-seen; fmt.Sprint(got) != "[13 10 0 0 11]" {
		t.Fatalf("the executor saw pages %v, want [13 10 0 0 11] (block 2 bounced, block 4 new)", got)
	}
}

func TestDirectChunkErrors(t *testing.T) {
	dir := writeDirectRelation(t, 16384, 4, [][]byte{directPage(1, true), directPage(2, true)})
	good := xpu.DirectFile{Spc: xpu.DefaultTablespace, DB: 5, RelNode: 16384, SegBlocks: 4, RelNBlocks: 3}

	// a block the file does not have: an error reply naming file and block;
	// the connection stays usable
	s := startDirectServer(t, &fakeExecutor{}, dir)
	c := dial(t, s)
	expectSuccess(t, c, sessionMsg(1))
	reply, h := roundTrip(t, c, xputest.DirectChunkMessage(2, 1, good, []uint32{0, 2}))
	expectErrorReply(t, reply, h, protocol.ErrCodeDevice, "block 2 of relation file base/5/16384")
	expectSuccess(t, c, chunkMsg(3, 2, 1))

	// a locator out of bounds: a protocol error, and the connection closes
	bad := good
	bad.RelNBlocks = 1
	if _, err := c.Write(xputest.DirectChunkMessage(4, 3, bad, []uint32{1})); err != nil {
		t.Fatal(err)
	}
	reply, h, err := protocol.ReadMessage(c, 0)
	if err != nil {
		t.Fatal(err)
	}
	expectErrorReply(t, reply, h, protocol.ErrCodeProtocol, "not below the relation's 1 blocks")
	expectClosed(t, c)

	// a service that does not know PGDATA answers Unsupported
	s = startDirectServer(t, &fakeExecutor{}, "")
	c = dial(t, s)
	expectSuccess(t, c, sessionMsg(1))
	reply, h = roundTrip(t, c, xputest.DirectChunkMessage(2, 1, good, []uint32{0}))
	expectErrorReply(t, reply, h, protocol.ErrCodeUnsupported, "data directory")
}

// The memory a direct-read chunk's pages are read into is charged to the
// body budget while the chunk runs, like the pages of an inline chunk:
// a message of a few bytes cannot make the service allocate unbudgeted.
func TestDirectChunkPagesCharged(t *testing.T) {
	pages := [][]byte{directPage(1, true), directPage(2, true), directPage(3, true)}
	dir := writeDirectRelation(t, 16384, 4, pages)
	var srv *Server
	during := make(chan Stats, 1)
	ex := &fakeExecutor{onExec: func(xpu.Chunk, nodekind.Pages) error {
		during <- srv.Stats()
		return nil
	}}
	srv = startDirectServer(t, ex, dir)
	c := dial(t, srv)
	expectSuccess(t, c, sessionMsg(1))
	f := xpu.DirectFile{Spc: xpu.DefaultTablespace, DB: 5, RelNode: 16384, SegBlocks: 4, RelNBlocks: 3}
	if _, err := c.Write(xputest.DirectChunkMessage(2, 9, f, []uint32{0, 1, 2})); err != nil {
		t.Fatal(err)
	}
	for _, want := range []protocol.Tag{protocol.TagSuccessHalfway, protocol.TagSuccess} {
		if _, h, err := protocol.ReadMessage(c, 0); err != nil || h.Tag != want {
			t.Fatalf("reply %s, %v: want %s", h.Tag, err, want)
		}
	}
	st := <-during
	if n := int64(3 * xpu.BlockSize); st.BodyReserved < n || st.BodyBytes < n {
		t.Fatalf("while the chunk ran: %d bytes reserved, %d allocated; want at least its %d bytes of pages in each",
			st.BodyReserved, st.BodyBytes, n)
	}
	waitFor(t, "the pages' memory to be given back", func() bool {
		st := srv.Stats()
		return st.BodyReserved == 0 && st.BodyBytes == 0
	})
}
