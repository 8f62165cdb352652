//go:build gpu

package gpu

import (
	"errors"
	"fmt"
	"math"
	"net"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/pgstrom-go/pg_strom/gosvc/kinds"
	"github.com/pgstrom-go/pg_strom/gosvc/mempool"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind/kindtest"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/server"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// The tuples are (a int4, b float8, c text).
var (
	scanCols = []xputest.Column{xputest.ColInt4, xputest.ColFloat8, xputest.ColText}
	longText = strings.Repeat("L", 200) // a 4-byte-header varlena
)

// scanPages builds two heap pages; the comments give each program's
// expected outcome: P1 `a > 10 AND b < 2.5`, P2 `100 / (a - 12) > 1`,
// P3 `c = 'hello' OR c IS NULL OR c = longText`.
func scanPages() (pages []byte, ntuples uint32) {
	p0 := xputest.NewPage()
	p0.AddTuple(scanCols, []any{int32(5), 1.0, "x"})             // 1: P2 -14
	p0.AddTuple(scanCols, []any{int32(11), 2.0, "hello"})        // 2: P1, P3; P2 -100
	p0.AddTuple(scanCols, []any{nil, 1.5, "n"})                  // 3: NULL a
	p0.AddUnused()                                               // 4: invisible
	p0.AddTuple(scanCols, []any{int32(20), nil, nil})            // 5: P1 T AND NULL; P2 12; P3 NULL c
	p0.AddTuple(scanCols, []any{int32(12), 3.0, longText})       // 6: P2 division by zero; P3
	p0.AddTuple(scanCols, []any{int32(15), 2.4999, "z"})         // 7: P1; P2 33
	p0.AddTuple(scanCols, []any{int32(math.MinInt32), 0.0, "m"}) // 8: P2 overflow in a - 12
	p0.AddTuple(scanCols, []any{nil, nil, nil})                  // 9: P3 NULL c
	p1 := xputest.NewPage()
	p1.AddTuple(scanCols, []any{int32(100), -1.0, "p"}) // 1: P1; P2 1
	p1.AddTuple(scanCols, []any{int32(13), 2.5, "q"})   // 2: P1 2.5 < 2.5 false; P2 100
	p1.AddTuple(scanCols, []any{int32(12), 0.0, "r"})   // 3: P1; P2 division by zero
	return append(append([]byte(nil), p0.Bytes()...), p1.Bytes()...), 11
}

func scanAttrs(b *xputest.Builder, textType xpu.Type) {
	b.Attr(4, 4, true, xpu.TypeInt4)
	b.Attr(8, 8, true, xpu.TypeFloat8)
	b.Attr(-1, 4, false, textType)
}

func programAB() []byte {
	b := xputest.New()
	scanAttrs(b, xpu.TypeInvalid)
	gt := b.Op(xpu.OpGt, xpu.TypeBool, b.Var(0, xpu.TypeInt4), b.ConstInt4(10))
	lt := b.Op(xpu.OpLt, xpu.TypeBool, b.Var(1, xpu.TypeFloat8), b.ConstFloat8(2.5))
	b.Op(xpu.OpAnd, xpu.TypeBool, gt, lt)
	return b.Message(1)
}

func programDiv() []byte {
	b := xputest.New()
	scanAttrs(b, xpu.TypeInvalid)
	d := b.Op(xpu.OpSub, xpu.TypeInt4, b.Var(0, xpu.TypeInt4), b.ConstInt4(12))
	q := b.Op(xpu.OpDiv, xpu.TypeInt4, b.ConstInt4(100), d)
	b.Op(xpu.OpGt, xpu.TypeBool, q, b.ConstInt4(1))
	return b.Message(1)
}

func programText() []byte {
	b := xputest.New()
	scanAttrs(b, xpu.TypeText)
	c := b.Var(2, xpu.TypeText)
	eq := b.Op(xpu.OpEq, xpu.TypeBool, c, b.ConstText(xpu.TypeText, "hello"))
	isNull := b.Op(xpu.OpIsNull, xpu.TypeBool, c)
	eqLong := b.Op(xpu.OpEq, xpu.TypeBool, c, b.ConstText(xpu.TypeText, longText))
	b.Op(xpu.OpOr, xpu.TypeBool, eq, isNull, eqLong)
	return b.Message(1)
}

func item(block, lp int, recheck bool) uint32 { return xputest.Item(block, lp, recheck) }

// executorOnDevice0 loads the kernels on device 0 and returns its executor.
func executorOnDevice0(t *testing.T) (nodekind.Executor, *mempool.Pool) {
	t.Helper()
	return executorWithShared(t, nil)
}

// executorWithShared is executorOnDevice0 with region (when not nil)
// registered before the executor is made, as the service does.
func executorWithShared(t *testing.T, region *xpu.SharedRegion) (nodekind.Executor, *mempool.Pool) {
	t.Helper()
	image := buildFatbin(t, deviceArchs(t))
	b := NewBackend()
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Backend.Close: %v", err)
		}
	})
	if err := b.OpenDevice(0, 32<<10); err != nil {
		t.Fatal(err)
	}
	if _, err := b.LoadModule(0, image); err != nil {
		t.Fatal(err)
	}
	if region != nil {
		registerShared(t, b, *region)
	}
	alloc, err := b.Allocator(0)
	if err != nil {
		t.Fatal(err)
	}
	devs, err := Devices()
	if err != nil {
		t.Fatal(err)
	}
	pool, err := mempool.New(alloc, mempool.Config{SegmentSize: 256 << 20, MaxRatio: 0.5, DeviceMemory: devs[0].TotalMemory})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() }) // runs before b.Close
	ex, err := b.Executor(0, pool)
	if err != nil {
		t.Fatalf("Executor: %v", err)
	}
	return ex, pool
}

// checkItems asserts each block's entries ascend, then compares the sorted
// list with want.
func checkItems(t *testing.T, name string, got, want []uint32) {
	t.Helper()
	last := map[uint32]uint32{}
	for _, it := range got {
		blk, lp := (it&^xpu.ItemRecheck)>>xpu.ItemBlockShift, it&xpu.ItemOffsetMask
		if prev, ok := last[blk]; ok && lp <= prev {
			t.Errorf("%s: block %d entries not ascending: %d after %d", name, blk, lp, prev)
		}
		last[blk] = lp
	}
	sorted := append([]uint32(nil), got...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i]&^xpu.ItemRecheck < sorted[j]&^xpu.ItemRecheck })
	if fmt.Sprintf("%#x", sorted) != fmt.Sprintf("%#x", want) {
		t.Errorf("%s: items %#x, want %#x", name, sorted, want)
	}
}

func TestExecutorGpuScan(t *testing.T) {
	ex, pool := executorOnDevice0(t)
	pages, ntuples := scanPages()
	chunkMsg := xputest.ChunkMessage(2, 77, pages)
	chunk, err := xpu.ParseChunk(chunkMsg)
	if err != nil {
		t.Fatal(err)
	}
	runScanCases(t, ex, pool, chunk, nodekind.Pages{Bytes: chunk.Pages(chunkMsg)}, ntuples)
}

// scanCase is one program over scanPages and its expected outcome.
type scanCase struct {
	name     string
	session  []byte
	want     []uint32
	nrecheck uint32
}

func scanCases() []scanCase {
	return []scanCase{
		{"a > 10 AND b < 2.5", programAB(), []uint32{item(0, 2, false), item(0, 7, false), item(1, 1, false), item(1, 3, false)}, 0},
		{"100 / (a - 12) > 1", programDiv(), []uint32{item(0, 5, false), item(0, 6, true), item(0, 7, false), item(0, 8, true), item(1, 2, false), item(1, 3, true)}, 3},
		{"text", programText(), []uint32{item(0, 2, false), item(0, 5, false), item(0, 6, false), item(0, 9, false)}, 0},
	}
}

// runScanCases runs every scanCase over chunk 77 (the pages of scanPages)
// in its own session and checks the results and the pool afterwards.
func runScanCases(t *testing.T, ex nodekind.Executor, pool *mempool.Pool, chunk xpu.Chunk, pages nodekind.Pages, ntuples uint32) {
	t.Helper()
	for _, c := range scanCases() {
		prep, err := kindtest.Open(kinds.All(), ex, c.session)
		if err != nil {
			t.Fatalf("%s: Prepare: %v", c.name, err)
		}
		res, items, err := kindtest.Exec(prep, chunk, pages)
		if err != nil {
			t.Fatalf("%s: Exec: %v", c.name, err)
		}
		t.Logf("%s: %+v items %#x", c.name, res, items)
		if res.ChunkID != 77 || res.NItems != uint32(len(items)) || res.NTuples != ntuples ||
			res.NRecheck != c.nrecheck || res.GpuTimeNs == 0 {
			t.Errorf("%s: result %+v, want chunk 77, %d tuples, %d rechecks", c.name, res, ntuples, c.nrecheck)
		}
		checkItems(t, c.name, items, c.want)
		if err := prep.Close(); err != nil {
			t.Errorf("%s: Close: %v", c.name, err)
		}
	}
	if used := pool.Stats().Used; used != 0 {
		t.Fatalf("%d bytes of device memory still in use after the sessions closed", used)
	}
}

// TestExecutorConcurrentChunks runs many chunks of one session at once:
// every result must be the same.
func TestExecutorConcurrentChunks(t *testing.T) {
	ex, _ := executorOnDevice0(t)
	prep := prepareAB(t, ex)
	pages, _ := scanPages()
	var big []byte
	for i := 0; i < 512; i++ { // 1024 blocks, 8 MB
		big = append(big, pages...)
	}
	msg := xputest.ChunkMessage(1, 5, big)
	chunk, err := xpu.ParseChunk(msg)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		go func() {
			res, items, err := kindtest.Exec(prep, chunk, nodekind.Pages{Bytes: chunk.Pages(msg)})
			if err == nil && (len(items) != 4*512 || res.NTuples != 11*512) {
				err = fmt.Errorf("%d items, %d tuples; want %d and %d", len(items), res.NTuples, 4*512, 11*512)
			}
			errs <- err
		}()
	}
	for w := 0; w < 8; w++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestExecutorBadPage(t *testing.T) {
	ex, _ := executorOnDevice0(t)
	prep := prepareAB(t, ex)
	p := xputest.NewPage()
	p.AddTuple(scanCols, []any{int32(11), 2.0, "x"})
	page := p.Bytes()
	// Line pointer 1 now claims 4000 bytes at offset 8000: past the page.
	le := uint32(8000) | 1<<15 | 4000<<17
	page[24], page[25], page[26], page[27] = byte(le), byte(le>>8), byte(le>>16), byte(le>>24)
	msg := xputest.ChunkMessage(1, 6, page)
	chunk, _ := xpu.ParseChunk(msg)
	_, _, err := kindtest.Exec(prep, chunk, nodekind.Pages{Bytes: chunk.Pages(msg)})
	if !errors.Is(err, xpu.ErrBadPage) {
		t.Fatalf("Exec of a page with an out-of-page line pointer: %v, want XPU_STATUS_BAD_PAGE", err)
	}
}

// TestServerWithGpuExecutor runs OpenSession, TaskExec and TaskFinal over
// a device socket.
func TestServerWithGpuExecutor(t *testing.T) {
	ex, pool := executorOnDevice0(t)
	srv, err := server.New(server.Config{
		SocketPath: server.SocketPath(t.TempDir(), 1, 0), Workers: 4, Pool: pool, Executor: ex, Kinds: kinds.All(),
		Logger: zerolog.New(zerolog.NewTestWriter(t)),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c, err := net.Dial("unix", srv.SocketPath())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	pages, _ := scanPages()
	batch := append(programDiv(), xputest.ChunkMessage(2, 8, pages)...)
	batch = append(batch, protocol.EncodeRequest(protocol.TagTaskFinal, 3, nil)...)
	if _, err := c.Write(batch); err != nil {
		t.Fatal(err)
	}
	expectDivSessionReplies(t, c, "over the socket", pool)
}

// expectDivSessionReplies reads the replies to programDiv (request 1), its
// chunk of scanPages (request 2, chunk id 8) and TaskFinal (request 3), and
// checks the items and that the pool is empty afterwards.
func expectDivSessionReplies(t *testing.T, c net.Conn, label string, pool *mempool.Pool) {
	t.Helper()
	for i := 0; i < 3; i++ {
		reply, h, err := protocol.ReadMessage(c, 0)
		if err != nil {
			t.Fatal(err)
		}
		if h.Tag != protocol.TagSuccess {
			e, _ := protocol.DecodeError(reply)
			t.Fatalf("request %d: %s %+v", h.RequestID, h.Tag, e)
		}
		if h.RequestID == 2 {
			res, items, err := xpu.DecodeChunkResult(reply)
			if err != nil || res.ChunkID != 8 || res.NRecheck != 3 {
				t.Fatalf("chunk result %+v, %v", res, err)
			}
			checkItems(t, label, items, []uint32{item(0, 5, false), item(0, 6, true), item(0, 7, false), item(0, 8, true), item(1, 2, false), item(1, 3, true)})
		}
	}
	if used := pool.Stats().Used; used != 0 {
		t.Fatalf("%d bytes in use after TaskFinal", used)
	}
}

// prepareAB uploads programAB to the device; the session closes with the test.
func prepareAB(t *testing.T, ex nodekind.Executor) nodekind.Session {
	t.Helper()
	sess := programAB()
	prep, err := kindtest.Open(kinds.All(), ex, sess)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { prep.Close() })
	return prep
}

// An inline chunk received into memory the executor lent is read by DMA
// straight from there (Pinned) and gives the same results.
func TestExecutorLentBody(t *testing.T) {
	ex, pool := executorOnDevice0(t)
	lender := ex.(server.BodyLender)
	pages, ntuples := scanPages()
	src := xputest.ChunkMessage(2, 77, pages)
	body := lender.LendBody(len(src))
	if len(body) < len(src) {
		t.Fatalf("LendBody(%d) lent %d bytes", len(src), len(body))
	}
	msg := body[:len(src)]
	copy(msg, src)
	chunk, err := xpu.ParseChunk(msg)
	if err != nil {
		t.Fatal(err)
	}
	runScanCases(t, ex, pool, chunk, nodekind.Pages{Bytes: chunk.Pages(msg), Pinned: true}, ntuples)
	if err := lender.ReturnBody(body); err != nil {
		t.Fatal(err)
	}
	if again := lender.LendBody(len(src)); &again[0] != &body[0] {
		t.Fatal("the returned body was not reused")
	} else if err := lender.ReturnBody(again); err != nil {
		t.Fatal(err)
	}
}
