package service

import (
	"errors"
	"fmt"
	"sync"

	"github.com/pgstrom-go/pg_strom/gosvc/control"
	"github.com/pgstrom-go/pg_strom/gosvc/mempool"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
)

// fakeBackend stands in for the GPU: devices are plain descriptions, device
// memory is counted, and a module "loads" unless its image is rejectImage.
type fakeBackend struct {
	mu          sync.Mutex
	devs        []control.DeviceInfo
	rejectImage string
	stackLimits map[int]int
	loads       []string
	live        map[uintptr]uint64 // device memory handed out
	executors   []int              // devices whose executor was asked for
	next        uintptr
	closed      bool
}

func newFakeBackend(n int) *fakeBackend {
	b := &fakeBackend{stackLimits: map[int]int{}, live: map[uintptr]uint64{}, next: 0x10000}
	for i := 0; i < n; i++ {
		b.devs = append(b.devs, control.DeviceInfo{
			Index: i, CCMajor: 9, CCMinor: i, Multiprocessors: 132, TotalMemory: 16 << 30,
			Name: fmt.Sprintf("Fake GPU %d", i), PCIBusID: fmt.Sprintf("0000:%02x:00.0", 0x3b+i), PCIeLink: "unknown",
		})
	}
	return b
}

func (b *fakeBackend) DriverVersion() (int, error) { return 12080, nil }

func (b *fakeBackend) Devices() ([]control.DeviceInfo, error) {
	return append([]control.DeviceInfo(nil), b.devs...), nil
}

func (b *fakeBackend) OpenDevice(index, stackLimit int) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stackLimits[index] = stackLimit
	return nil
}

func (b *fakeBackend) Allocator(index int) (mempool.Allocator, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.stackLimits[index]; !ok {
		return nil, fmt.Errorf("device %d not open", index)
	}
	return fakeAllocator{b}, nil
}

func (b *fakeBackend) LoadModule(index int, image []byte) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.loads = append(b.loads, string(image))
	if string(image) == b.rejectImage {
		return "", errors.New("CUDA_ERROR_NO_BINARY_FOR_GPU")
	}
	return "fake kernels; opcodes: none", nil
}

// Executor returns no executor: the servers answer sessions as
// unsupported (the server package tests sessions with its own fake).
func (b *fakeBackend) Executor(index int, pool *mempool.Pool) (nodekind.Executor, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if pool == nil || len(b.loads) == 0 {
		return nil, fmt.Errorf("executor for device %d asked before its pool or module", index)
	}
	b.executors = append(b.executors, index)
	return nil, nil
}

func (b *fakeBackend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.live) != 0 {
		return fmt.Errorf("closing the backend with %d allocations live", len(b.live))
	}
	b.closed = true
	return nil
}

func (b *fakeBackend) snapshot() (loads []string, closed bool, stackLimits map[int]int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	sl := map[int]int{}
	for k, v := range b.stackLimits {
		sl[k] = v
	}
	return append([]string(nil), b.loads...), b.closed, sl
}

type fakeAllocator struct{ b *fakeBackend }

func (a fakeAllocator) Alloc(size uint64) (uintptr, error) {
	a.b.mu.Lock()
	defer a.b.mu.Unlock()
	p := a.b.next
	a.b.next += uintptr(size)
	a.b.live[p] = size
	return p, nil
}

func (a fakeAllocator) Free(ptr uintptr) error {
	a.b.mu.Lock()
	defer a.b.mu.Unlock()
	if _, ok := a.b.live[ptr]; !ok {
		return fmt.Errorf("free of unknown pointer %#x", ptr)
	}
	delete(a.b.live, ptr)
	return nil
}
