//go:build gpu

package gpu

import (
	"math/rand"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/pgstrom-go/pg_strom/gosvc/kinds"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind/kindtest"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// sharedBufferOffset places buffer 0 off a page boundary, as PostgreSQL
// 15 places BufferBlocks (cache-line aligned only).
const sharedBufferOffset = 128

// fakeSharedBuffers maps nbuffers pages standing for PostgreSQL's shared
// buffers, lets fill write them, then makes the mapping read-only as the
// service sees the real ones.
func fakeSharedBuffers(t *testing.T, nbuffers int, fill func(page func(i int) []byte)) xpu.SharedRegion {
	t.Helper()
	mem, err := unix.Mmap(-1, 0, sharedBufferOffset+(nbuffers+1)*xpu.BlockSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Munmap(mem) })
	fill(func(i int) []byte {
		off := sharedBufferOffset + i*xpu.BlockSize
		return mem[off : off+xpu.BlockSize]
	})
	if err := unix.Mprotect(mem, unix.PROT_READ); err != nil {
		t.Fatal(err)
	}
	return xpu.SharedRegion{Base: uintptr(unsafe.Pointer(&mem[sharedBufferOffset])), NBuffers: uint32(nbuffers)}
}

// registerShared registers region with device 0 of b, timed, and checks
// that a second registration is refused.
func registerShared(t *testing.T, b *Backend, region xpu.SharedRegion) {
	t.Helper()
	start := time.Now()
	if err := b.RegisterShared(0, region); err != nil {
		t.Fatalf("RegisterShared: %v", err)
	}
	t.Logf("registered %d MB of shared buffers in %v", region.Size()>>20, time.Since(start))
	if err := b.RegisterShared(0, region); err == nil {
		t.Error("a second RegisterShared of device 0 succeeded")
	}
}

func sharedChunk(t *testing.T, chunkID uint32, refs []xputest.PageRef) (xpu.Chunk, nodekind.Pages) {
	t.Helper()
	msg := xputest.SharedChunkMessage(1, chunkID, refs)
	c, err := xpu.ParseChunk(msg)
	if err != nil {
		t.Fatal(err)
	}
	return c, nodekind.Pages{Refs: c.Refs(msg)}
}

// The pages of scanPages, gathered from shared buffers 5 and 2: every
// program gives what it gives on the inline chunk.  Then the refs' own
// visibility and nlines are applied on the device.
func TestExecutorZeroCopyGather(t *testing.T) {
	pages, ntuples := scanPages()
	region := fakeSharedBuffers(t, 8, func(page func(int) []byte) {
		copy(page(5), pages[:xpu.BlockSize])
		copy(page(2), pages[xpu.BlockSize:])
	})
	ex, pool := executorWithShared(t, &region)
	chunk, refs := sharedChunk(t, 77, []xputest.PageRef{xputest.AllVisibleRef(5, 9), xputest.AllVisibleRef(2, 3)})
	runScanCases(t, ex, pool, chunk, refs, ntuples)

	// a > 10 AND b < 2.5 passes 0/2, 0/7, 1/1, 1/3: with 0/7 invisible
	// and block 1 cut at one line pointer, 0/2 and 1/1 remain.
	prep, err := kindtest.Open(kinds.All(), ex, programAB())
	if err != nil {
		t.Fatal(err)
	}
	defer prep.Close()
	chunk, refs = sharedChunk(t, 78, []xputest.PageRef{xputest.VisibleRef(5, 9, 2, 5), xputest.AllVisibleRef(2, 1)})
	res, items, err := kindtest.Exec(prep, chunk, refs)
	if err != nil {
		t.Fatal(err)
	}
	if res.NTuples != 3 {
		t.Errorf("%d tuples examined, want 3 (0/2, 0/5, 1/1)", res.NTuples)
	}
	checkItems(t, "visibility and nlines", items, []uint32{item(0, 2, false), item(1, 1, false)})
}

// A 4096-page chunk of shuffled buffers from a 1 GB region: the gathered
// result is right (count of rows with a > 10), and the time is logged.
func TestExecutorZeroCopyThroughput(t *testing.T) {
	const nbuffers, nblocks = 131072, 4096
	region := fakeSharedBuffers(t, nbuffers, func(page func(int) []byte) {
		p := xputest.Int4Page(0, 200)
		for i := 0; i < nbuffers; i++ {
			copy(page(i), p)
		}
	})
	ex, _ := executorWithShared(t, &region)
	b := xputest.New()
	b.Attr(4, 4, true, xpu.TypeInt4)
	b.Op(xpu.OpLt, xpu.TypeBool, b.Var(0, xpu.TypeInt4), b.ConstInt4(10))
	prep, err := kindtest.Open(kinds.All(), ex, b.Message(1))
	if err != nil {
		t.Fatal(err)
	}
	defer prep.Close()
	rng := rand.New(rand.NewSource(1))
	refs := make([]xputest.PageRef, nblocks)
	for i := range refs {
		refs[i] = xputest.AllVisibleRef(uint32(rng.Intn(nbuffers)), 200)
	}
	chunk, pages := sharedChunk(t, 1, refs)
	for round := 0; round < 3; round++ {
		start := time.Now()
		res, items, err := kindtest.Exec(prep, chunk, pages)
		elapsed := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		if res.NTuples != nblocks*200 || len(items) != nblocks*10 {
			t.Fatalf("result %+v with %d items, want %d tuples and %d items", res, len(items), nblocks*200, nblocks*10)
		}
		t.Logf("round %d: %d pages gathered and scanned in %v (%.1f GB/s; GPU time %v)", round, nblocks, elapsed,
			float64(nblocks*xpu.BlockSize)/elapsed.Seconds()/1e9, time.Duration(res.GpuTimeNs))
	}
}
