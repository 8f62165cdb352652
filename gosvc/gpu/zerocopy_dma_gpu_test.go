//go:build gpu

package gpu

import (
	"bytes"
	"math/rand"
	"testing"
	"time"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/pgstrom-go/pg_strom/gosvc/gpu/gatherplan"
	"github.com/pgstrom-go/pg_strom/gosvc/hostexec"
	"github.com/pgstrom-go/pg_strom/gosvc/kinds"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind/kindtest"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// unwrittenByte fills the page areas before a gather, on the device and
// on the host alike, so that a page nothing wrote (an in_place bit without
// its DMA) differs, and a poisoned page (only its header written) matches.
const unwrittenByte = 0xa5

// gatherOnDevice runs only the gather of chunk c (gatherPages) on e's
// device and returns the chunk's page area.
func gatherOnDevice(t *testing.T, e *Executor, c xpu.Chunk, refs []byte) []byte {
	t.Helper()
	lay := layoutFor(c, false)
	mem, err := e.alloc(lay.total, "gather test")
	if err != nil {
		t.Fatal(err)
	}
	defer e.pool.Free(mem)
	l, err := e.getLane(c.ItemsCapacity() * 4)
	if err != nil {
		t.Fatal(err)
	}
	defer e.putLane(l)
	tk := task{sess: &session{ex: e}, lane: l, base: cu.DevicePtr(mem.Ptr), lay: lay, chunk: c, refs: refs, shared: e.dev.shared}
	pagesDev := tk.base + cu.DevicePtr(lay.pagesOff)
	out := make([]byte, c.PagesLen())
	err = e.dev.Do(func() error {
		// on the lane's stream: it does not wait for the NULL stream
		if err := cu.MemsetD8Async(pagesDev, unwrittenByte, int64(len(out)), l.stream); err != nil {
			return err
		}
		if err := tk.gatherPages(); err != nil {
			return err
		}
		if err := l.stream.Synchronize(); err != nil {
			return err
		}
		return cu.MemcpyDtoH(unsafe.Pointer(&out[0]), pagesDev, int64(len(out)))
	})
	if err != nil {
		t.Fatalf("gather on the device: %v", err)
	}
	return out
}

// dmaTestRefs are refs of every kind of run over nbuffers (at least 256)
// buffers: a long run, short runs, shuffled buffers, a run of pages that
// are not all-visible (random visible bits, so invisible line pointers),
// invalid refs inside a run, and a run up to the last buffer.
func dmaTestRefs(rng *rand.Rand, nbuffers uint32) []xputest.PageRef {
	var refs []xputest.PageRef
	run := func(from, n uint32) {
		for b := from; b < from+n; b++ {
			refs = append(refs, xputest.AllVisibleRef(b, 1+rng.Intn(xpu.MaxTuplesPerPage)))
		}
	}
	run(10, 50)
	run(100, 3)
	run(200, 5)
	run(7, 1)
	run(170, 8) // exactly the default threshold
	for _, b := range rng.Perm(40) {
		refs = append(refs, xputest.AllVisibleRef(uint32(60+b), 1+rng.Intn(xpu.MaxTuplesPerPage)))
	}
	for b := uint32(120); b < 140; b++ {
		nlines := rng.Intn(xpu.MaxTuplesPerPage + 1)
		var visible []int
		for off := 1; off <= nlines; off++ {
			if rng.Intn(3) > 0 {
				visible = append(visible, off)
			}
		}
		refs = append(refs, xputest.VisibleRef(b, nlines, visible...))
	}
	// buffers 140..155 with invalid refs at 144 (past the region), 147
	// (too many line pointers) and 150 (an undefined flag): runs 140..143,
	// 145..146, 148..149, 151..155
	for b := uint32(140); b < 156; b++ {
		r := xputest.AllVisibleRef(b, 20)
		switch b {
		case 144:
			r.Buffer = nbuffers
		case 147:
			r.NLines = uint16(xpu.MaxTuplesPerPage + 1)
		case 150:
			r.Flags |= 0x4000
		}
		refs = append(refs, r)
	}
	run(nbuffers-9, 9)
	return refs
}

// The device's page area equals the host executor's gather (memcpy and
// the same ref helpers) for every run shape, with DMA off (threshold 0),
// for every valid page (1) and for runs of 8 or more (the refs' runs are
// shorter than the default threshold), and the counters say
// how many pages went each way.
func TestExecutorZeroCopyGatherDMA(t *testing.T) {
	const nbuffers = 300
	rng := rand.New(rand.NewSource(7))
	region := fakeSharedBuffers(t, nbuffers, func(page func(int) []byte) {
		for i := 0; i < nbuffers; i++ {
			rng.Read(page(i)) // every byte tells where it came from
		}
	})
	nex, _ := executorWithShared(t, &region)
	ex := nex.(*Executor)
	msg := xputest.SharedChunkMessage(1, 5, dmaTestRefs(rng, nbuffers))
	c, err := xpu.ParseChunk(msg)
	if err != nil {
		t.Fatal(err)
	}
	refs := c.Refs(msg)
	want := bytes.Repeat([]byte{unwrittenByte}, c.PagesLen())
	hostexec.GatherPages(region, refs, c.NBlocks, want)
	nvalid := 0
	for i := 0; i < int(c.NBlocks); i++ {
		if xpu.PageRefProblem(refs, i, nbuffers) == "" {
			nvalid++
		}
	}
	if nvalid != int(c.NBlocks)-3 {
		t.Fatalf("%d valid refs of %d, want all but the 3 invalid ones", nvalid, c.NBlocks)
	}

	for _, minPages := range []int{0, 1, 8} {
		ex.gatherDMAMinPages = minPages
		dma0, copies0, kern0 := ex.gather.dmaPages.Load(), ex.gather.dmaCopies.Load(), ex.gather.kernelPages.Load()
		got := gatherOnDevice(t, ex, c, refs)
		for b := 0; b < int(c.NBlocks); b++ {
			g, w := got[b*xpu.BlockSize:(b+1)*xpu.BlockSize], want[b*xpu.BlockSize:(b+1)*xpu.BlockSize]
			if i := firstDifference(g, w); i >= 0 {
				t.Errorf("threshold %d: block %d (buffer %d) differs from the host gather at byte %d: %#x, want %#x",
					minPages, b, xpu.PageRefBuffer(refs, b), i, g[i], w[i])
			}
		}
		plan := gatherplan.Make(refs, int(c.NBlocks), nbuffers, minPages)
		dma, copies, kern := ex.gather.dmaPages.Load()-dma0, ex.gather.dmaCopies.Load()-copies0, ex.gather.kernelPages.Load()-kern0
		t.Logf("threshold %d: %d pages by DMA in %d copies, %d by the kernel", minPages, dma, copies, kern)
		if dma != uint64(plan.DMAPages) || copies != uint64(len(plan.Runs)) || kern != uint64(plan.KernelPages) ||
			dma+kern != uint64(nvalid) {
			t.Errorf("threshold %d: counters %d DMA pages, %d copies, %d kernel pages; want %+v (pages %d and %d)",
				minPages, dma, copies, kern, plan, plan.DMAPages, plan.KernelPages)
		}
		switch {
		case minPages == 0 && dma != 0:
			t.Errorf("threshold 0 copied %d pages by DMA", dma)
		case minPages == 1 && kern != 0:
			t.Errorf("threshold 1 left %d valid pages to the kernel", kern)
		case minPages == 8 && (dma == 0 || kern == 0):
			t.Errorf("threshold 8: %d pages by DMA, %d by the kernel; the refs have runs of both kinds", dma, kern)
		}
	}
	t.Log(ex.GatherSummary())
}

// firstDifference is the first index where a and b (of one length) differ,
// or -1.
func firstDifference(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// A 4096-page chunk of consecutive buffers gathered and scanned with DMA
// off and on: the result is right either way (count of rows with a < 10),
// and the times are logged.
func TestExecutorZeroCopyDMAThroughput(t *testing.T) {
	const nbuffers, nblocks = 8192, 4096
	region := fakeSharedBuffers(t, nbuffers, func(page func(int) []byte) {
		p := xputest.Int4Page(0, 200)
		for i := 0; i < nbuffers; i++ {
			copy(page(i), p)
		}
	})
	nex, _ := executorWithShared(t, &region)
	ex := nex.(*Executor)
	b := xputest.New()
	b.Attr(4, 4, true, xpu.TypeInt4)
	b.Op(xpu.OpLt, xpu.TypeBool, b.Var(0, xpu.TypeInt4), b.ConstInt4(10))
	prep, err := kindtest.Open(kinds.All(), ex, b.Message(1))
	if err != nil {
		t.Fatal(err)
	}
	defer prep.Close()
	refs := make([]xputest.PageRef, nblocks)
	for i := range refs {
		refs[i] = xputest.AllVisibleRef(uint32(1000+i), 200)
	}
	chunk, pages := sharedChunk(t, 1, refs)
	for _, minPages := range []int{0, gatherplan.DefaultMinPages} {
		ex.gatherDMAMinPages = minPages
		for round := 0; round < 3; round++ {
			start := time.Now()
			res, items, err := kindtest.Exec(prep, chunk, pages)
			elapsed := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			if res.NTuples != nblocks*200 || len(items) != nblocks*10 {
				t.Fatalf("threshold %d: result %+v with %d items, want %d tuples and %d items", minPages, res, len(items), nblocks*200, nblocks*10)
			}
			t.Logf("threshold %d, round %d: %d consecutive pages gathered and scanned in %v (%.1f GB/s)", minPages, round, nblocks, elapsed,
				float64(nblocks*xpu.BlockSize)/elapsed.Seconds()/1e9)
		}
	}
	if dma := ex.gather.dmaPages.Load(); dma != 3*nblocks {
		t.Errorf("%d pages went by DMA, want %d (3 rounds with the default threshold)", dma, 3*nblocks)
	}
	t.Log(ex.GatherSummary())
}
