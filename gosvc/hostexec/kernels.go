package hostexec

/*
#cgo CXXFLAGS: -std=c++17 -O2 -Wall -I${SRCDIR}/../../kernels -I${SRCDIR}/../../include
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
