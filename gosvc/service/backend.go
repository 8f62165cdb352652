package service

import (
	"github.com/pgstrom-go/pg_strom/gosvc/control"
	"github.com/pgstrom-go/pg_strom/gosvc/mempool"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
)

// Backend is everything the service needs from CUDA.  Devices are addressed
// by CUDA ordinal (control.DeviceInfo.Index), so no CUDA type leaks out of
// the gpu package; *gpu.Backend implements it.
type Backend interface {
	// DriverVersion is cuDriverGetVersion, e.g. 12080.
	DriverVersion() (int, error)
	// Devices lists the CUDA devices.
	Devices() ([]control.DeviceInfo, error)
	// OpenDevice retains the device's context and sets its stack limit.
	OpenDevice(index, stackLimit int) error
	// Allocator returns the device-memory allocator of an open device.
	Allocator(index int) (mempool.Allocator, error)
	// LoadModule loads a fatbin image on an open device, replacing any
	// module loaded before, and returns the module's kernel catalog.  It
	// fails when the image has no code for the device's architecture.
	LoadModule(index int, image []byte) (catalog string, err error)
	// Executor returns the executor that runs the device's sessions with
	// memory from pool; called after LoadModule.  A nil executor makes the
	// server answer sessions as unsupported.
	Executor(index int, pool *mempool.Pool) (nodekind.Executor, error)
	// Close unloads modules and releases the devices; memory from the
	// allocators must have been freed before.
	Close() error
}

// MemoryReporter is implemented by a backend whose devices' free memory
// can be asked (cuMemGetInfo): an automatic page cache is sized from it.
type MemoryReporter interface {
	FreeMemory(index int) (uint64, error)
}

// HostBackend is implemented by a backend that runs the kernels' host code
// on the CPU instead of a GPU (the TEST-ONLY hostexec package).  The
// service then skips the kernels fatbin (LoadModule gets a nil image) and
// says at WARNING level that no GPU is used, so a log never hides it.
type HostBackend interface {
	Backend
	HostExecutor() bool
}

// hostExecutor reports whether b is a HostBackend that says so.
func hostExecutor(b Backend) bool {
	h, ok := b.(HostBackend)
	return ok && h.HostExecutor()
}
