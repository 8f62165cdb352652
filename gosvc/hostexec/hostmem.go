package hostexec

import (
	"fmt"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/pgstrom-go/pg_strom/gosvc/mempool"
)

// hostMemory is the "device memory" of the host executor: anonymous
// mappings outside the Go heap, so the pool's segments behave as device
// segments do (taken and returned whole, never moved or collected) and the
// pool's accounting (used, total, limit, idle release) is the real one.
// MAP_NORESERVE: a 1GB segment costs only the pages the chunks touch.
type hostMemory struct {
	mu   sync.Mutex
	maps map[uintptr][]byte // by base address
}

var _ mempool.Allocator = (*hostMemory)(nil)

func newHostMemory() *hostMemory { return &hostMemory{maps: map[uintptr][]byte{}} }

// Alloc maps size bytes.
func (m *hostMemory) Alloc(size uint64) (uintptr, error) {
	if size == 0 || size > uint64(^uint(0)>>1) {
		return 0, fmt.Errorf("host memory: cannot map %d bytes", size)
	}
	b, err := unix.Mmap(-1, 0, int(size), unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	if err != nil {
		return 0, fmt.Errorf("host memory: mmap of %d bytes: %w", size, err)
	}
	base := uintptr(unsafe.Pointer(&b[0]))
	m.mu.Lock()
	m.maps[base] = b
	m.mu.Unlock()
	return base, nil
}

// Free unmaps a mapping Alloc returned.
func (m *hostMemory) Free(ptr uintptr) error {
	m.mu.Lock()
	b, ok := m.maps[ptr]
	delete(m.maps, ptr)
	m.mu.Unlock()
	if !ok {
		return fmt.Errorf("host memory: free of unknown mapping %#x", ptr)
	}
	if err := unix.Munmap(b); err != nil {
		return fmt.Errorf("host memory: munmap of %#x: %w", ptr, err)
	}
	return nil
}

// bytes is the memory of a pool chunk.  The pool hands out pieces of its
// segments, so the chunk is found inside the mapping that holds it; the
// slice is the mapping's own, not a conversion of a bare address.
func (m *hostMemory) bytes(c mempool.Chunk) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for base, b := range m.maps {
		if c.Ptr >= base && c.Ptr-base+uintptr(c.Size) <= uintptr(len(b)) {
			off := c.Ptr - base
			return b[off : off+uintptr(c.Size) : off+uintptr(c.Size)], nil
		}
	}
	return nil, fmt.Errorf("host memory: chunk %#x+%d lies in no mapping", c.Ptr, c.Size)
}

// live is the number of mappings not yet freed (Close checks it).
func (m *hostMemory) live() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.maps)
}
