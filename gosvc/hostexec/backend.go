package hostexec

import (
	"fmt"
	"os"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/pgstrom-go/pg_strom/gosvc/control"
	"github.com/pgstrom-go/pg_strom/gosvc/mempool"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// EnvVar, set to "1" in the postmaster's environment, is the only way to
// run the host executor (the test script sets it; see the launcher).
const EnvVar = "PG_STROM_TEST_HOST_EXECUTOR"

// DeviceName is what gpu_device_info shows, so no one mistakes it for a
// GPU.
const DeviceName = "host executor (test only)"

// maxMemory caps the memory the device claims: the pool takes at most
// gpu_mempool_max_ratio of it, and tests need little.
const maxMemory = 16 << 30

// Backend is the host executor's service.Backend: one device, index 0.
type Backend struct {
	mu        sync.Mutex
	open      bool
	loaded    bool
	mem       *hostMemory
	shared    xpu.SharedRegion // registered shared buffers; NBuffers 0: none
	executors []*Executor
	faults    *faults // FaultsEnv, read by Devices; nil: none
}

// NewBackend returns the backend; nothing is taken until OpenDevice.
func NewBackend() *Backend { return &Backend{mem: newHostMemory()} }

// HostExecutor marks the backend for the service (service.HostBackend):
// no kernels fatbin, and a WARNING at start.
func (b *Backend) HostExecutor() bool { return true }

// DriverVersion is 0: there is no CUDA driver.
func (b *Backend) DriverVersion() (int, error) { return 0, nil }

// Devices lists the one host device.  It refuses to run when the
// environment does not ask for it, so the library cannot serve by mistake
// if it is ever loaded some other way than by the launcher's test mode.
func (b *Backend) Devices() ([]control.DeviceInfo, error) {
	if os.Getenv(EnvVar) != "1" {
		return nil, fmt.Errorf("the TEST-ONLY host executor was loaded without %s=1 in the environment", EnvVar)
	}
	// The environment is the service's by now (service.ApplyEnviron ran
	// before the backend is asked anything).
	f, err := parseFaults(os.Getenv(FaultsEnv))
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.faults = f
	b.mu.Unlock()
	total := hostMemoryFigure()
	if f.devicePool > 0 {
		total = f.devicePool
	}
	return []control.DeviceInfo{{
		Index:           0,
		Name:            DeviceName,
		TotalMemory:     total,
		Multiprocessors: runtime.NumCPU(),
		PCIBusID:        "host",
		PCIeLink:        "none (host memory)",
	}}, nil
}

// hostMemoryFigure is half the machine's RAM, at most maxMemory.
func hostMemoryFigure() uint64 {
	var si unix.Sysinfo_t
	if err := unix.Sysinfo(&si); err != nil || si.Totalram == 0 {
		return 4 << 30
	}
	return min(uint64(si.Totalram)*uint64(si.Unit)/2, maxMemory)
}

func checkIndex(index int) error {
	if index != 0 {
		return fmt.Errorf("host executor: no device %d (only 0)", index)
	}
	return nil
}

// OpenDevice has nothing to open; the stack limit does not apply.
func (b *Backend) OpenDevice(index, stackLimit int) error {
	if err := checkIndex(index); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.open {
		return fmt.Errorf("host executor: device %d is already open", index)
	}
	b.open = true
	return nil
}

// Allocator is host memory (see hostMemory).
func (b *Backend) Allocator(index int) (mempool.Allocator, error) {
	if err := checkIndex(index); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.open {
		return nil, fmt.Errorf("host executor: device %d is not open", index)
	}
	return b.mem, nil
}

// LoadModule loads nothing: the kernels are compiled into this library.
// The service passes no image in this mode; one given is ignored.
func (b *Backend) LoadModule(index int, image []byte) (string, error) {
	if err := checkIndex(index); err != nil {
		return "", err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.open {
		return "", fmt.Errorf("host executor: device %d is not open", index)
	}
	b.loaded = true
	return catalog(), nil
}

// Executor runs the device's sessions with memory from pool.
func (b *Backend) Executor(index int, pool *mempool.Pool) (nodekind.Executor, error) {
	if err := checkIndex(index); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.loaded || pool == nil {
		return nil, fmt.Errorf("host executor: executor for device %d asked before its pool or module", index)
	}
	e := newExecutor(index, pool, b.mem, b.shared)
	e.faults = b.faults
	b.executors = append(b.executors, e)
	return e, nil
}

// RegisterShared (service.SharedRegistrar) takes note of PostgreSQL's
// shared buffers: the executor reads the pages of zero-copy chunks there
// by address, as a GPU reads them through its registration.
func (b *Backend) RegisterShared(index int, region xpu.SharedRegion) error {
	if err := checkIndex(index); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case !b.loaded:
		return fmt.Errorf("host executor: shared buffers registered before device %d's module", index)
	case region.Base == 0 || region.NBuffers == 0:
		return fmt.Errorf("host executor: empty shared buffer region %#x, %d buffers", region.Base, region.NBuffers)
	}
	b.shared = region
	return nil
}

// Close checks that the pools returned every mapping.
func (b *Backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.executors, b.open, b.loaded, b.shared = nil, false, false, xpu.SharedRegion{}
	if n := b.mem.live(); n != 0 {
		return fmt.Errorf("host executor: closed with %d host memory mappings live", n)
	}
	return nil
}
