package control

// #cgo CFLAGS: -I${SRCDIR}/../../include
// #include "pg_strom_control.h"
import "C"

import (
	"unsafe"
)

// Sizes and limits, taken from the C header so they cannot drift.
const (
	Magic      = uint32(C.PGSTROM_CTL_MAGIC)
	MaxMessage = int(C.PGSTROM_CTL_MAX_MESSAGE)
	MaxDevices = int(C.PGSTROM_MAX_DEVICES)
	// MaxStatusClients is how many clients a device's STATUS line names.
	MaxStatusClients = int(C.PGSTROM_STATUS_CLIENTS)
	// MaxPageCacheRels is how many relations a PAGE_CACHE message names.
	MaxPageCacheRels = int(C.PGSTROM_PAGE_CACHE_RELS)
	headerSize       = int(C.sizeof_PgStromCtlHeader)
	configSize       = int(C.sizeof_PgStromCtlConfig)
	reasonSize       = int(C.sizeof_PgStromCtlReason)
	devicesSize      = int(C.sizeof_PgStromCtlDevices)
	statsSize        = int(C.sizeof_PgStromCtlStats)
	maxPathLen       = int(C.PGSTROM_PATH_LEN)
	maxReasonLen     = int(C.PGSTROM_REASON_LEN)
	maxDevNameLen    = int(C.PGSTROM_DEVNAME_LEN)
	maxPCIeLen       = int(C.PGSTROM_PCIE_LEN)
	tagConfig        = uint32(C.PGSTROM_CTL_CONFIG)
	tagStop          = uint32(C.PGSTROM_CTL_STOP)
	tagNoGPU         = uint32(C.PGSTROM_CTL_NO_GPU)
	tagReady         = uint32(C.PGSTROM_CTL_READY)
	tagStatus        = uint32(C.PGSTROM_CTL_STATUS)
	tagFatal         = uint32(C.PGSTROM_CTL_FATAL)
	tagPageCache     = uint32(C.PGSTROM_CTL_PAGE_CACHE)
	ExitStopped      = int(C.PGSTROM_EXIT_STOPPED)
	ExitFailed       = int(C.PGSTROM_EXIT_FAILED)
	ExitUsage        = int(C.PGSTROM_EXIT_USAGE)
	ExitNoGPU        = int(C.PGSTROM_EXIT_NO_GPU)
	ExitLoadFailed   = int(C.PGSTROM_EXIT_LOAD_FAILED)
	ServiceEntry     = C.PGSTROM_SERVICE_ENTRY
	MaxLogLineBytes  = int(C.PGSTROM_LOG_MAX_LINE)
)

// message builds a whole control message: header plus the payload bytes.
func message(tag uint32, payload []byte) []byte {
	buf := make([]byte, headerSize+len(payload))
	h := (*C.PgStromCtlHeader)(unsafe.Pointer(&buf[0]))
	h.magic = C.uint32_t(Magic)
	h.tag = C.uint32_t(tag)
	h.length = C.uint32_t(len(buf))
	copy(buf[headerSize:], payload)
	return buf
}

// structBytes views a C struct as its bytes (for copying in and out of
// messages; the struct lives in Go memory).
func structBytes[T any](p *T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), unsafe.Sizeof(*p))
}

// cString reads a NUL-terminated C char array.
func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// putCString writes s into a fixed C char array, truncated so that a NUL
// always fits.
func putCString(dst []byte, s string) {
	n := copy(dst[:len(dst)-1], s)
	for i := n; i < len(dst); i++ {
		dst[i] = 0
	}
}

// charArray views a C char array field as bytes.
func charArray[T any](p *T) []byte { return structBytes(p) }
