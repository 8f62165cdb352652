package gpu

import (
	"errors"
	"fmt"
	"sync"

	"github.com/pgstrom-go/pg_strom/gosvc/control"
	"github.com/pgstrom-go/pg_strom/gosvc/mempool"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
)

// Backend is the real GPU side of the service; it satisfies
// service.Backend.  Devices are addressed by CUDA ordinal so the interface
// needs no CUDA types.
type Backend struct {
	mu        sync.Mutex
	devices   map[int]*Device
	modules   map[int]*Module
	executors []*Executor
	shared    *sharedRegistration // PostgreSQL's shared buffers, once registered
}

// NewBackend returns a Backend with no device opened yet.
func NewBackend() *Backend {
	return &Backend{devices: make(map[int]*Device), modules: make(map[int]*Module)}
}

// Executor returns the executor of an open device whose kernels module is
// loaded; it takes device memory from pool.  If the module lacks a kernel,
// the executor is still returned and Prepare fails for the sessions that
// need it.
func (b *Backend) Executor(index int, pool *mempool.Pool) (nodekind.Executor, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	d, err := b.device(index)
	if err != nil {
		return nil, err
	}
	m := b.modules[index]
	if m == nil {
		return nil, fmt.Errorf("device %d has no kernels module loaded", index)
	}
	if pool == nil {
		return nil, fmt.Errorf("device %d: executor without a memory pool", index)
	}
	e := newExecutor(d, pool, m.kernels)
	b.executors = append(b.executors, e)
	return e, nil
}

// DriverVersion is cuDriverGetVersion.
func (b *Backend) DriverVersion() (int, error) { return DriverVersion() }

// Devices lists every CUDA device.
func (b *Backend) Devices() ([]control.DeviceInfo, error) { return Devices() }

// OpenDevice retains the device's primary context and sets its stack limit.
func (b *Backend) OpenDevice(index, stackLimit int) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.devices[index]; ok {
		return fmt.Errorf("device %d is already open", index)
	}
	d, err := OpenDevice(index, stackLimit)
	if err != nil {
		return err
	}
	b.devices[index] = d
	return nil
}

func (b *Backend) device(index int) (*Device, error) {
	d, ok := b.devices[index]
	if !ok {
		return nil, fmt.Errorf("device %d is not open", index)
	}
	return d, nil
}

// Allocator is the device-memory allocator for the device's pool.
func (b *Backend) Allocator(index int) (mempool.Allocator, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	d, err := b.device(index)
	if err != nil {
		return nil, err // not a typed nil inside the interface
	}
	return d, nil
}

// FreeMemory is the memory of an open device that no one holds now.
func (b *Backend) FreeMemory(index int) (uint64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	d, err := b.device(index)
	if err != nil {
		return 0, err
	}
	return d.FreeMemory()
}

// LoadModule loads the fatbin image on the device, replacing the module
// loaded before, and proves it works: the catalog symbol must exist and the
// probe kernel must run.  It returns the catalog string.
func (b *Backend) LoadModule(index int, image []byte) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	d, err := b.device(index)
	if err != nil {
		return "", err
	}
	m, err := d.LoadModule(image)
	if err != nil {
		return "", err
	}
	out, err := m.Probe(32)
	if err == nil && out[0] != ProbeMagic {
		err = fmt.Errorf("device %d: probe kernel wrote %#x, want %#x", index, out[0], ProbeMagic)
	}
	if err != nil {
		m.Unload()
		return "", err
	}
	if old := b.modules[index]; old != nil {
		old.Unload()
	}
	b.modules[index] = m
	return m.Catalog(), nil
}

// Close releases the executors' streams and pinned buffers, unloads the
// modules and releases the contexts; the caller has closed the servers and
// freed the device memory (closed the pools) before.
func (b *Backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	var errs []error
	for _, e := range b.executors {
		errs = append(errs, e.Close())
	}
	b.executors = nil
	errs = append(errs, b.unregisterShared())
	for i, m := range b.modules {
		errs = append(errs, m.Unload())
		delete(b.modules, i)
	}
	for i, d := range b.devices {
		errs = append(errs, d.Close())
		delete(b.devices, i)
	}
	return errors.Join(errs...)
}
