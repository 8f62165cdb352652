package hostexec

/*
#cgo CXXFLAGS: -std=c++17 -O2 -Wall -I${SRCDIR}/../../kernels -I${SRCDIR}/../../include
#include <stdlib.h>
#include "hostexec.h"
*/
import "C"

import (
	"unsafe"

	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// The wrappers take byte slices of host memory (pool memory or the chunk's
// pages), none of which holds Go pointers, so cgo may pass them.

func charPtr(b []byte) *C.char { return (*C.char)(unsafe.Pointer(&b[0])) }

func u32Ptr(u []uint32) *C.uint32_t {
	if len(u) == 0 {
		return nil
	}
	return (*C.uint32_t)(unsafe.Pointer(&u[0]))
}

// runScan is kern_gpuscan_block over every page of the chunk.
func runScan(session, pages []byte, nblocks uint32, items, counters []uint32) {
	C.hostexec_gpuscan(charPtr(session), charPtr(pages), C.uint32_t(nblocks), u32Ptr(items), u32Ptr(counters))
}

// runPreAgg is kern_gpupreagg_block: over every page when retry is empty,
// over the retry items otherwise.
func runPreAgg(session, pages []byte, nblocks uint32, retry []uint32, table []byte, items, counters []uint32) {
	C.hostexec_gpupreagg(charPtr(session), charPtr(pages), C.uint32_t(nblocks),
		u32Ptr(retry), C.uint32_t(len(retry)), unsafe.Pointer(&table[0]), u32Ptr(items), u32Ptr(counters))
}

// runRehash is kern_gpupreagg_rehash.
func runRehash(from, to []byte) {
	C.hostexec_preagg_rehash(unsafe.Pointer(&from[0]), unsafe.Pointer(&to[0]))
}

// gather is kern_gather_pages: the pages refs name, read by address in
// the shared region, into pages (nblocks * BlockSize bytes), each with its
// ref applied.
func gather(shared xpu.SharedRegion, refs []byte, nblocks uint32, pages []byte) {
	C.hostexec_gather(C.uint64_t(shared.Base), C.uint64_t(shared.NBuffers), charPtr(refs), C.uint32_t(nblocks), charPtr(pages))
}

// GatherPages is gather for the GPU executor's tests: what a zero-copy
// chunk's page area must hold after the device gathered it, however its
// pages travelled (by DMA or by kern_gather_pages).
func GatherPages(shared xpu.SharedRegion, refs []byte, nblocks uint32, pages []byte) {
	gather(shared, refs, nblocks, pages)
}

// catalog is the kernels catalog (pg_strom_catalog.h), marked as the host
// executor's.
func catalog() string { return C.GoString(C.hostexec_catalog()) }

// words views n uint32 of host memory b (4-byte aligned) as a slice.
func words(b []byte, n int) []uint32 {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), n)
}

// runJoinBuild is kern_gpujoin_build over one depth's buffer.
func runJoinBuild(session []byte, depth uint32, inner []byte, counters []uint32) {
	C.hostexec_gpujoin_build(charPtr(session), C.uint32_t(depth), unsafe.Pointer(&inner[0]), u32Ptr(counters))
}

// runJoin is kern_gpujoin_block: over every tuple of the chunk when
// nresume is 0 and resume nil, else over nresume cursors of resume.
// inners are the depths' buffers (pool memory), suspend and resume two
// disjoint cursor lists.
func runJoin(session, pages []byte, nblocks uint32, resume []byte, nresume uint32, inners [][]byte,
	out []uint32, capacity uint32, suspend []byte, counters []uint32) {
	ptrs := innerPtrs(inners)
	defer C.free(unsafe.Pointer(ptrs))
	var res unsafe.Pointer
	if resume != nil {
		res = unsafe.Pointer(&resume[0])
	}
	C.hostexec_gpujoin(charPtr(session), charPtr(pages), C.uint32_t(nblocks), res, C.uint32_t(nresume),
		&ptrs[0], u32Ptr(out), C.uint32_t(capacity), unsafe.Pointer(&suspend[0]), u32Ptr(counters))
}

// innerPtrs is the kernels' inner0..inner3 as an array of
// XPU_JOIN_MAX_DEPTHS pointers (NULL past the depths) in C memory, which
// the caller frees: cgo refuses a Go array of pointers into memory Go
// does not own.
func innerPtrs(inners [][]byte) *[xpu.JoinMaxDepths]unsafe.Pointer {
	ptrs := (*[xpu.JoinMaxDepths]unsafe.Pointer)(C.calloc(C.size_t(xpu.JoinMaxDepths), C.size_t(unsafe.Sizeof(unsafe.Pointer(nil)))))
	for d, b := range inners {
		ptrs[d] = unsafe.Pointer(&b[0])
	}
	return ptrs
}

// runJoinPreAgg is kern_gpujoin_preagg: over every page when retry is
// empty, over the retry items otherwise, with the depths' buffers inners.
func runJoinPreAgg(session, pages []byte, nblocks uint32, retry []uint32, table []byte, inners [][]byte, items, counters []uint32) {
	ptrs := innerPtrs(inners)
	defer C.free(unsafe.Pointer(ptrs))
	C.hostexec_gpujoin_preagg(charPtr(session), charPtr(pages), C.uint32_t(nblocks),
		u32Ptr(retry), C.uint32_t(len(retry)), unsafe.Pointer(&table[0]), &ptrs[0], u32Ptr(items), u32Ptr(counters))
}

// joinInnerLayoutC is xpu_join_inner_layout: the header bytes and the
// buffer's size, for the test that xpu.NewJoinInnerLayout agrees.
func joinInnerLayoutC(depth, nrows, rowSize, nbuckets uint32) ([]byte, uint64) {
	hdr := C.calloc(1, C.size_t(xpu.JoinInnerSize))
	defer C.free(hdr)
	size := uint64(C.hostexec_join_inner_layout(hdr, C.uint32_t(depth), C.uint32_t(nrows), C.uint32_t(rowSize), C.uint32_t(nbuckets)))
	return C.GoBytes(hdr, C.int(xpu.JoinInnerSize)), size
}
