package server

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"

	"github.com/pgstrom-go/pg_strom/gosvc/direct"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/pagecache"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// The fuzzed server's data directory: relations whose segment files hold
// heap pages of every kind the direct reader tells apart, so that a
// mutated direct-read chunk lands on real files, in and past them.
const (
	fuzzDB = 5
	// fuzzRelMixed: 10 blocks in segments of 4 (three files): usable, not
	// all-visible, new, bad-header and bad-checksum pages.
	fuzzRelMixed = 16384
	// fuzzRelReal: PostgreSQL's own pages (gosvc/direct/testdata, from an
	// initdb -k cluster) as blocks 0 and 3, in segments of 2.
	fuzzRelReal = 16385
	// fuzzRelShort: its file has 2 blocks, its chunks claim 4: reads past
	// the end of the file.
	fuzzRelShort = 16386
	// fuzzRelSpc: 3 blocks, one per segment, in tablespace fuzzSpc
	// (pg_tblspc/<spc> is a symbolic link, as PostgreSQL makes it).
	fuzzRelSpc = 16387
	fuzzSpc    = 16390
	fuzzMajor  = 15
	fuzzCatver = 202209061
	// fuzzCacheSlots is small, so that fills evict.
	fuzzCacheSlots = 8
)

var (
	fuzzFileMixed = xpu.DirectFile{Spc: xpu.DefaultTablespace, DB: fuzzDB, RelNode: fuzzRelMixed, SegBlocks: 4, RelNBlocks: 10}
	fuzzFileReal  = xpu.DirectFile{Spc: xpu.DefaultTablespace, DB: fuzzDB, RelNode: fuzzRelReal, SegBlocks: 2, RelNBlocks: 4, Checksums: true}
	fuzzFileShort = xpu.DirectFile{Spc: xpu.DefaultTablespace, DB: fuzzDB, RelNode: fuzzRelShort, SegBlocks: 4, RelNBlocks: 4}
	fuzzFileSpc   = xpu.DirectFile{Spc: fuzzSpc, DB: fuzzDB, RelNode: fuzzRelSpc, SegBlocks: 1, RelNBlocks: 3, PgMajor: fuzzMajor, Catversion: fuzzCatver}
)

// withChecksum sets pd_checksum of page as block blkno.
func withChecksum(page []byte, blkno uint32) []byte {
	binary.LittleEndian.PutUint16(page[8:], direct.PageChecksum(page, blkno))
	return page
}

// fuzzDataDir writes the relations above into a new PGDATA.
func fuzzDataDir(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	le := binary.LittleEndian
	badHeader := directPage(105, true)
	le.PutUint16(badHeader[12:], 8100) // pd_lower above pd_upper
	badSum := withChecksum(directPage(106, true), 6)
	badSum[8] ^= 0xff
	mixed := [][]byte{
		withChecksum(directPage(100, true), 0),
		withChecksum(directPage(101, true), 1),
		withChecksum(directPage(102, false), 2),
		make([]byte, xpu.BlockSize),
		withChecksum(directPage(104, true), 4),
		withChecksum(badHeader, 5),
		badSum,
		withChecksum(directPage(107, false), 7),
		withChecksum(directPage(108, true), 8),
		withChecksum(directPage(109, true), 9),
	}
	writeFuzzRelation(tb, dir, fuzzFileMixed, mixed)

	real := make([][]byte, 4)
	for i, name := range map[int]string{0: "checksummed_block0.page", 3: "checksummed_block3.page"} {
		b, err := os.ReadFile(filepath.Join("..", "direct", "testdata", name))
		if err != nil || len(b) != xpu.BlockSize {
			tb.Fatalf("real heap page %s: %d bytes, %v", name, len(b), err)
		}
		real[i] = b
	}
	real[1] = withChecksum(directPage(201, true), 1)
	real[2] = withChecksum(directPage(202, false), 2)
	writeFuzzRelation(tb, dir, fuzzFileReal, real)

	writeFuzzRelation(tb, dir, fuzzFileShort, [][]byte{directPage(300, true), directPage(301, true)})

	spc := tb.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "pg_tblspc"), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.Symlink(spc, filepath.Join(dir, "pg_tblspc", fmt.Sprint(fuzzSpc))); err != nil {
		tb.Fatal(err)
	}
	writeFuzzRelation(tb, dir, fuzzFileSpc, [][]byte{directPage(400, true), directPage(401, false), directPage(402, true)})
	return dir
}

// writeFuzzRelation writes pages as blocks 0.. of f's segment files.
func writeFuzzRelation(tb testing.TB, dataDir string, f xpu.DirectFile, pages [][]byte) {
	tb.Helper()
	for i, p := range pages {
		seg, off := f.Locate(uint32(i))
		name := filepath.Join(dataDir, f.SegmentPath(seg))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			tb.Fatal(err)
		}
		fd, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			tb.Fatal(err)
		}
		_, err = fd.WriteAt(p, off)
		if cerr := fd.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
}

// fuzzExecutor is the fuzzed server's executor: a probingExecutor (link
// probes) with a page store, which it applies as the real executors do.
// What no input may cause is recorded as a violation, which the fuzz
// target reports: a cache move outside the chunk or the store, a page
// both served and filled, or a page that a cached direct read hands to the
// kernels although the reader would have bounced it.
type fuzzExecutor struct {
	*probingExecutor
	store       []byte
	cacheChunks atomic.Int64 // chunks that came with cache moves
	mu          sync.Mutex
	violation   error
}

func newFuzzExecutor() *fuzzExecutor {
	e := &fuzzExecutor{probingExecutor: &probingExecutor{fakeExecutor: &fakeExecutor{}}}
	e.onExec = e.exec
	return e
}

func (e *fuzzExecutor) OpenPageStore(slots int) error {
	e.store = make([]byte, slots*xpu.BlockSize)
	return nil
}

func (e *fuzzExecutor) exec(c xpu.Chunk, p nodekind.Pages) error {
	m := p.Cache
	if m == nil {
		return nil
	}
	e.cacheChunks.Add(1)
	if err := checkCacheMoves(m, c.NBlocks, len(e.store)/xpu.BlockSize); err != nil {
		return e.violate(err)
	}
	for _, h := range m.Hits {
		copy(p.Bytes[int(h.Index)*xpu.BlockSize:int(h.Index+1)*xpu.BlockSize], e.store[int(h.Slot)*xpu.BlockSize:])
	}
	for b := 0; b < int(c.NBlocks); b++ {
		page := p.Bytes[b*xpu.BlockSize : (b+1)*xpu.BlockSize]
		// a page the reader hid has pd_upper 0: the kernels see no tuples
		if binary.LittleEndian.Uint16(page[14:]) == 0 {
			continue
		}
		if v := direct.CheckPage(page, 0, false); v != direct.PageUsable {
			return e.violate(fmt.Errorf("chunk %d: page %d reaches the kernels with verdict %#x", c.ChunkID, b, uint32(v)))
		}
	}
	for _, f := range m.Fills {
		copy(e.store[int(f.Slot)*xpu.BlockSize:int(f.Slot+1)*xpu.BlockSize], p.Bytes[int(f.Index)*xpu.BlockSize:])
	}
	return nil
}

// checkCacheMoves is CheckMoves and: no page is named twice, and a slot
// filled is neither filled twice nor read by the same chunk.  (Several
// pages may read one slot: a chunk may name a block twice.)
func checkCacheMoves(m *nodekind.CacheMoves, nblocks uint32, slots int) error {
	if err := m.CheckMoves(nblocks, slots); err != nil {
		return err
	}
	pages := map[uint32]bool{}
	read := map[uint32]bool{}
	for _, h := range m.Hits {
		if pages[h.Index] {
			return fmt.Errorf("page cache moves %+v name page %d twice", m, h.Index)
		}
		pages[h.Index], read[h.Slot] = true, true
	}
	filled := map[uint32]bool{}
	for _, f := range m.Fills {
		if pages[f.Index] || filled[f.Slot] || read[f.Slot] {
			return fmt.Errorf("page cache moves %+v name page %d or fill slot %d twice", m, f.Index, f.Slot)
		}
		pages[f.Index], filled[f.Slot] = true, true
	}
	return nil
}

func (e *fuzzExecutor) violate(err error) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.violation == nil {
		e.violation = err
	}
	return err
}

// takeViolation returns the first violation since the last call.
func (e *fuzzExecutor) takeViolation() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	err := e.violation
	e.violation = nil
	return err
}

// newFuzzServer is the server the socket fuzzer talks to: shared buffers
// for zero-copy chunks, a data directory for direct-read chunks and a page
// cache for stamped ones.
func newFuzzServer(tb testing.TB) (*Server, *fuzzExecutor, *pagecache.Cache) {
	tb.Helper()
	ex := newFuzzExecutor()
	if err := ex.OpenPageStore(fuzzCacheSlots); err != nil {
		tb.Fatal(err)
	}
	cache, err := pagecache.New(fuzzCacheSlots)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := New(Config{
		SocketPath:    SocketPath(tb.TempDir(), 4242, 0),
		Workers:       4,
		Pool:          &fakePool{},
		Executor:      ex,
		Kinds:         testKinds,
		SharedBuffers: fuzzSharedBuffers,
		DataDir:       fuzzDataDir(tb),
		PageCache:     cache,
		Logger:        zerolog.Nop(),
	})
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return s, ex, cache
}

// stamps is one stamp per block, all v.
func stamps(n int, v uint64) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// directSeeds are the fuzzer's direct-read streams: each opens a session
// and sends direct-read chunks (plain, with checksums, in a tablespace,
// stamped twice so that the second is served from the cache, cache-only),
// and near misses of each field ParseDirect checks.
func directSeeds() [][]byte {
	cat := func(msgs ...[]byte) []byte {
		out := sessionMsg(1)
		for _, m := range msgs {
			out = append(out, m...)
		}
		return out
	}
	mixed := []uint32{3, 0, 2, 9, 5, 4, 6, 7, 1, 8}
	stamped := fuzzFileMixed
	stamped.Stamps = true
	cacheOnly := stamped
	cacheOnly.CacheOnly = true
	checked := fuzzFileMixed
	checked.Checksums = true
	realStamped := fuzzFileReal
	realStamped.Stamps = true

	seeds := [][]byte{
		cat(xputest.DirectChunkMessage(2, 1, fuzzFileMixed, mixed)),
		cat(xputest.DirectChunkMessage(2, 1, checked, mixed)),
		cat(xputest.DirectChunkMessage(2, 1, fuzzFileReal, []uint32{0, 1, 2, 3}),
			xputest.DirectChunkMessage(3, 2, fuzzFileSpc, []uint32{2, 0, 1})),
		cat(stampedSequence()...),
		cat(xputest.StampedDirectChunkMessage(2, 1, realStamped, []uint32{3, 2, 1, 0}, []uint64{1, 2, 3, 4}),
			xputest.StampedDirectChunkMessage(3, 2, realStamped, []uint32{3, 2, 1, 0}, []uint64{1, 9, 3, 9})),
		cat(xputest.StampedDirectChunkMessage(2, 1, cacheOnly, []uint32{0, 8}, stamps(2, 7))),
		// a block named twice in a chunk, under one stamp and under two
		cat(xputest.StampedDirectChunkMessage(2, 1, stamped, []uint32{4, 4, 8, 4}, []uint64{3, 3, 3, 5}),
			xputest.StampedDirectChunkMessage(3, 2, stamped, []uint32{4, 8, 4, 8}, stamps(4, 3))),
		// past the end of a file: an error reply, then the connection goes on
		cat(xputest.DirectChunkMessage(2, 1, fuzzFileShort, []uint32{0, 3}), chunkMsg(3, 2, 1)),
		// a direct chunk outside a session
		xputest.DirectChunkMessage(2, 1, fuzzFileMixed, []uint32{0}),
	}
	// near misses: each a protocol error that closes the connection
	bad := func(mut func(f *xpu.DirectFile)) []byte {
		f := fuzzFileMixed
		mut(&f)
		return cat(xputest.DirectChunkMessage(2, 1, f, []uint32{0, 1}))
	}
	seeds = append(seeds,
		bad(func(f *xpu.DirectFile) { f.RelNBlocks = 1 }),
		bad(func(f *xpu.DirectFile) { f.SegBlocks = 0 }),
		bad(func(f *xpu.DirectFile) { f.SegBlocks = xpu.DirectMaxSegBlocks + 1 }),
		bad(func(f *xpu.DirectFile) { f.RelNode = 0 }),
		bad(func(f *xpu.DirectFile) { f.Spc = xpu.GlobalTablespace }),
		bad(func(f *xpu.DirectFile) { f.Spc = fuzzSpc }),    // no version directory
		bad(func(f *xpu.DirectFile) { f.CacheOnly = true }), // without stamps
	)
	unknownFlag := xputest.DirectChunkMessage(2, 1, fuzzFileMixed, []uint32{0})
	binary.LittleEndian.PutUint32(unknownFlag[xpu.DirectFileOffset+12:], 0x80)
	cutStamps := xputest.StampedDirectChunkMessage(2, 1, stamped, []uint32{0, 1}, stamps(2, 1))
	return append(seeds, cat(unknownFlag), cat(cutStamps[:len(cutStamps)-8]))
}

// stampedSequence is a stamped chunk of the mixed relation sent twice,
// so that the second is served from the cache, then a cache-only chunk,
// then TaskFinal (a session must be open).
func stampedSequence() [][]byte {
	f := fuzzFileMixed
	f.Stamps = true
	cacheOnly := f
	cacheOnly.CacheOnly = true
	blknos := []uint32{3, 0, 2, 9, 5, 4, 6, 7, 1, 8}
	st := stamps(len(blknos), 7)
	st[1] = 0 // block 0 under stamp 0: never cached
	return [][]byte{
		xputest.StampedDirectChunkMessage(2, 1, f, blknos, st),
		xputest.StampedDirectChunkMessage(3, 2, f, blknos, st),
		xputest.StampedDirectChunkMessage(4, 3, cacheOnly, []uint32{0, 1, 9, 3}, stamps(4, 7)),
		protocol.EncodeRequest(protocol.TagTaskFinal, 5, nil),
	}
}

// TestFuzzSocketReachesDirectReads guards the fuzzer's setup: through the
// fuzzed server, stampedSequence's first chunk is read from the data
// directory and fills the cache, the second is served from it, and the
// cache-only one is served what the cache holds.  Without a data
// directory or a page cache, FuzzSocket would only ever see refusals.
func TestFuzzSocketReachesDirectReads(t *testing.T) {
	s, ex, cache := newFuzzServer(t)
	c := dial(t, s)
	expectSuccess(t, c, sessionMsg(1))
	var hits []uint32
	seq := stampedSequence()
	for _, msg := range seq[:3] {
		report, h := roundTrip(t, c, msg)
		if h.Tag != protocol.TagSuccessHalfway {
			e, _ := protocol.DecodeError(report)
			t.Fatalf("reply %s (%+v), want the read report", h.Tag, e)
		}
		r, _, err := xpu.DecodeChunkResult(report)
		if err != nil {
			t.Fatal(err)
		}
		hits = append(hits, r.NTuples)
		if _, h, err := protocol.ReadMessage(c, 0); err != nil || h.Tag != protocol.TagSuccess {
			t.Fatalf("chunk result %s, %v", h.Tag, err)
		}
	}
	expectSuccess(t, c, seq[3])
	if err := ex.takeViolation(); err != nil {
		t.Fatal(err)
	}
	// usable without checksums: blocks 1, 4, 6, 8, 9 (and 0, under
	// stamp 0); the cache-only chunk's blocks 1 and 9 are cached, 0 and
	// 3 (new) are not
	if fmt.Sprint(hits) != "[0 5 2]" || ex.cacheChunks.Load() != 3 {
		t.Fatalf("cache hits %v in the read reports, %d chunks with cache moves; want [0 5 2] and 3 (cache %s)",
			hits, ex.cacheChunks.Load(), cache.Summary())
	}
	if st := cache.Stats(); st.Used != 5 || st.Fills != 5 {
		t.Fatalf("cache %+v: want the 5 usable blocks filled", st)
	}
}

// TestFuzzExecutorFlagsUnsoundWork: the fuzzer's oracle reports what it
// must, so a clean FuzzSocket run means something.
func TestFuzzExecutorFlagsUnsoundWork(t *testing.T) {
	ex := newFuzzExecutor()
	if err := ex.OpenPageStore(2); err != nil {
		t.Fatal(err)
	}
	c := xpu.Chunk{ChunkID: 1, NBlocks: 2}
	usable := append(directPage(1, true), directPage(2, true)...)
	notVisible := append(directPage(1, true), directPage(2, false)...)
	hidden := append([]byte(nil), notVisible...)
	clear(hidden[xpu.BlockSize : xpu.BlockSize+24])
	fill := func(moves ...nodekind.PageMove) *nodekind.CacheMoves { return &nodekind.CacheMoves{Fills: moves} }
	for _, tc := range []struct {
		name  string
		pages []byte
		moves *nodekind.CacheMoves
		bad   bool
	}{
		{"sound", usable, fill(nodekind.PageMove{Index: 0, Slot: 1}, nodekind.PageMove{Index: 1, Slot: 0}), false},
		{"a hidden page", hidden, fill(nodekind.PageMove{Index: 0, Slot: 0}), false},
		{"no cache moves", notVisible, nil, false},
		{"a page the reader bounces", notVisible, fill(nodekind.PageMove{Index: 0, Slot: 0}), true},
		{"a slot past the store", usable, fill(nodekind.PageMove{Index: 0, Slot: 2}), true},
		{"a page past the chunk", usable, fill(nodekind.PageMove{Index: 2, Slot: 0}), true},
		{"a slot filled twice", usable, fill(nodekind.PageMove{Index: 0, Slot: 1}, nodekind.PageMove{Index: 1, Slot: 1}), true},
		{"a slot read twice", usable, &nodekind.CacheMoves{Hits: []nodekind.PageMove{{Index: 0, Slot: 1}, {Index: 1, Slot: 1}}}, false},
		{"a slot read and filled", usable, &nodekind.CacheMoves{Hits: []nodekind.PageMove{{Index: 0, Slot: 1}}, Fills: []nodekind.PageMove{{Index: 1, Slot: 1}}}, true},
		{"a page hit and filled", usable, &nodekind.CacheMoves{Hits: []nodekind.PageMove{{Index: 0, Slot: 0}}, Fills: []nodekind.PageMove{{Index: 0, Slot: 1}}}, true},
	} {
		err := ex.exec(c, nodekind.Pages{Bytes: append([]byte(nil), tc.pages...), Cache: tc.moves})
		if got := ex.takeViolation(); (got != nil) != tc.bad || (err != nil) != tc.bad {
			t.Errorf("%s: violation %v, Exec error %v; want a violation: %v", tc.name, got, err, tc.bad)
		}
	}
}
