// Package gatherplan decides how a zero-copy chunk's pages reach the
// device: which runs of consecutive shared buffers the copy engines move
// by DMA and which pages kern_gather_pages reads with SM loads.  It is
// pure Go (no CUDA), so it is tested on any machine.
//
// The SM loads compete with the compute kernels of other streams for SMs
// (on the H200 a compute-heavy query moved 31-33 GB/s zero-copy against
// 53-55 GB/s of DMA); DMA does not, but costs a cuMemcpyHtoDAsync per
// contiguous run, so only runs long enough to amortize the call go by
// DMA.  After a fresh load and pg_prewarm a table's pages mostly lie in
// consecutive buffers; after concurrent loads, or on PostgreSQL 18, many
// lie in runs of a few buffers, which the kernel gathers faster than one
// copy a run (test/device/gather_probe.cu measures both).
package gatherplan

import (
	"encoding/binary"
	"fmt"
	"os"
	"strconv"

	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// DefaultMinPages is the shortest run of consecutive shared buffers copied
// by DMA when the environment does not say; 0 would never use DMA.  On the
// H200 the gather kernel moved scattered pages at 51 GB/s, one contiguous
// copy at 55, and a chunk whose runs of 8-127 pages went by DMA at 30-36:
// each copy costs about 10 us to enqueue and a few on the copy engine, as
// much as the kernel takes for the run's pages.  From 256 pages (2 MB) on,
// a run's copy costs a few per cent of its transfer.
var DefaultMinPages = 256

// MinPagesEnv overrides DefaultMinPages for the service's life (read when
// a device's executor is made, at service start: the service inherits the
// postmaster's environment).  0 turns DMA off, so both paths can be
// measured against each other on one cluster.
const MinPagesEnv = "PGSTROM_GATHER_DMA_MIN_PAGES"

// maxMinPages bounds the setting; any value above the largest chunk
// (xpu.MaxBlocksPerChunk) already means "never".
const maxMinPages = 1 << 20

// MinPagesFromEnv is the threshold the environment asks for, and a line
// saying why its value was ignored ("" when none was).
func MinPagesFromEnv() (minPages int, problem string) {
	v, ok := os.LookupEnv(MinPagesEnv)
	if !ok || v == "" {
		return DefaultMinPages, ""
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > maxMinPages {
		return DefaultMinPages, fmt.Sprintf("%s=%q ignored: not a page count in 0..%d", MinPagesEnv, v, maxMinPages)
	}
	return n, ""
}

// Run is refs First..First+N-1 of a chunk naming the consecutive shared
// buffers Buffer..Buffer+N-1: one contiguous source and one contiguous
// destination (the chunk's page area is in ref order).
type Run struct {
	First, N int
	Buffer   uint32
}

// Plan is how a chunk's pages reach the device.
type Plan struct {
	Runs        []Run // copied by DMA
	DMAPages    int   // pages in Runs
	KernelPages int   // valid refs that kern_gather_pages reads
}

// Make splits refs (nblocks XpuPageRefs) into runs of consecutive shared
// buffers and keeps those of at least minPages for DMA (none when minPages
// is 0).  An invalid ref (xpu_page_ref_valid, xpu.PageRefProblem) ends a
// run and is never part of one: the kernel poisons its page, and nothing
// may be copied from an address it names.
func Make(refs []byte, nblocks int, nbuffers uint32, minPages int) Plan {
	var p Plan
	start, n := 0, 0 // the current run of valid refs
	var last uint32  // its last buffer
	flush := func() {
		if minPages > 0 && n >= minPages {
			p.Runs = append(p.Runs, Run{First: start, N: n, Buffer: last - uint32(n-1)})
			p.DMAPages += n
		} else {
			p.KernelPages += n
		}
		n = 0
	}
	for i := 0; i < nblocks; i++ {
		if xpu.PageRefProblem(refs, i, nbuffers) != "" {
			flush()
			continue
		}
		buffer := xpu.PageRefBuffer(refs, i)
		if n > 0 && uint64(buffer) != uint64(last)+1 {
			flush()
		}
		if n == 0 {
			start = i
		}
		last = buffer
		n++
	}
	flush()
	return p
}

// InPlaceLen is the bytes of kern_gather_pages's in_place bitmap for
// nblocks pages: one bit a page, in uint32 words.
func InPlaceLen(nblocks int) int { return (nblocks + 31) / 32 * 4 }

// MarkInPlace writes the in_place bitmap of runs into b (InPlaceLen bytes;
// cleared first, as it may be a reused staging buffer): bit i%32 of
// little-endian word i/32 for each page i copied by DMA.
func MarkInPlace(b []byte, runs []Run) {
	clear(b)
	for _, r := range runs {
		for i := r.First; i < r.First+r.N; i++ {
			w := binary.LittleEndian.Uint32(b[i/32*4:])
			binary.LittleEndian.PutUint32(b[i/32*4:], w|1<<(i%32))
		}
	}
}
