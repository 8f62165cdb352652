package xputest

import (
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// Region stands for PostgreSQL's shared buffers in tests: anonymous shared
// memory outside the Go heap, so its address may be handed to C code (the
// host executor reads pages there by address, as the service does in the
// real shared buffers).
type Region struct {
	Mem []byte
}

// NewRegion maps nbuffers zeroed pages.
func NewRegion(nbuffers int) (*Region, error) {
	mem, err := unix.Mmap(-1, 0, nbuffers*xpu.BlockSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, err
	}
	return &Region{Mem: mem}, nil
}

// Page is shared buffer i.
func (r *Region) Page(i int) []byte { return r.Mem[i*xpu.BlockSize : (i+1)*xpu.BlockSize] }

// Shared describes the region as the service's configuration does.
func (r *Region) Shared() xpu.SharedRegion {
	return xpu.SharedRegion{Base: uintptr(unsafe.Pointer(&r.Mem[0])), NBuffers: uint32(len(r.Mem) / xpu.BlockSize)}
}

// Close unmaps the region.
func (r *Region) Close() error { return unix.Munmap(r.Mem) }
