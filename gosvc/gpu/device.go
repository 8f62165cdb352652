package gpu

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"

	"gorgonia.org/cu"

	"github.com/pgstrom-go/pg_strom/gosvc/server"
)

// Device is one GPU with its retained primary context.  CUDA calls go
// through Do, which makes the context current on a locked OS thread: Go
// moves goroutines between threads, and the current context is per thread.
type Device struct {
	index int
	dev   cu.Device
	ctx   cu.CUContext
	// lost is the first sticky error (isSticky) a call met, wrapping
	// server.ErrDeviceLost; from then on Do fails at once with it.
	lost atomic.Pointer[error]
	// shared is PostgreSQL's shared buffers as this device reads them;
	// nil until Backend.RegisterShared succeeded for it.
	shared *sharedMapping
}

// OpenDevice retains device index's primary context and sets its per-thread
// stack limit (pg_strom.cuda_stack_limit, bytes; 0 leaves the default).
func OpenDevice(index, stackLimit int) (*Device, error) {
	dev, err := cu.GetDevice(index)
	if err != nil {
		return nil, fmt.Errorf("device %d: cuDeviceGet: %w", index, err)
	}
	// Workers wait for their streams in cuStreamSynchronize; the default
	// scheduling spins there, which cost the service about 3 core-µs per
	// 8 kB page on the H200 once pages no longer crossed the socket.
	if err := dev.SetPrimaryCtxFlags(cu.SchedBlockingSync); err != nil {
		return nil, fmt.Errorf("device %d: cuDevicePrimaryCtxSetFlags(CU_CTX_SCHED_BLOCKING_SYNC): %w", index, err)
	}
	ctx, err := dev.RetainPrimaryCtx()
	if err != nil {
		return nil, fmt.Errorf("device %d: cuDevicePrimaryCtxRetain: %w", index, err)
	}
	d := &Device{index: index, dev: dev, ctx: ctx}
	if stackLimit > 0 {
		err := d.Do(func() error { return cu.SetLimit(cu.StackSize, int64(stackLimit)) })
		if err != nil {
			dev.ReleasePrimaryCtx()
			return nil, fmt.Errorf("device %d: set CU_LIMIT_STACK_SIZE to %d: %w", index, stackLimit, err)
		}
	}
	return d, nil
}

// Index is the CUDA ordinal.
func (d *Device) Index() int { return d.index }

// Do runs fn with the device's context current on a locked OS thread.
// Every CUDA call of the executor goes through here, so this is where a
// sticky error is noticed: the error is returned wrapping
// server.ErrDeviceLost (the server then has the service exit and be
// restarted), and every later Do, from tasks in flight or new ones, fails
// with it without touching the poisoned context.
func (d *Device) Do(fn func() error) error {
	if lost := d.lost.Load(); lost != nil {
		return *lost
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cu.PushCurrentCtx(d.ctx); err != nil {
		return d.checkLost(fmt.Errorf("device %d: cuCtxPushCurrent: %w", d.index, err))
	}
	fnErr := fn()
	if _, err := cu.PopCurrentCtx(); err != nil {
		fnErr = errors.Join(fnErr, fmt.Errorf("device %d: cuCtxPopCurrent: %w", d.index, err))
	}
	return d.checkLost(fnErr)
}

// checkLost marks the device lost when err is sticky and returns err
// wrapping server.ErrDeviceLost then.
func (d *Device) checkLost(err error) error {
	if !isSticky(err) {
		return err
	}
	lost := fmt.Errorf("device %d: %w: %w", d.index, server.ErrDeviceLost, err)
	if !d.lost.CompareAndSwap(nil, &lost) {
		return fmt.Errorf("%w: %w", server.ErrDeviceLost, err)
	}
	return lost
}

// Alloc allocates device memory (cuMemAlloc); with Free it implements
// mempool.Allocator.
func (d *Device) Alloc(size uint64) (uintptr, error) {
	if size == 0 {
		return 0, fmt.Errorf("device %d: cuMemAlloc of 0 bytes", d.index)
	}
	var ptr cu.DevicePtr
	err := d.Do(func() (err error) {
		ptr, err = cu.MemAlloc(int64(size))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("device %d: cuMemAlloc(%d): %w", d.index, size, err)
	}
	return uintptr(ptr), nil
}

// FreeMemory is the device memory no one holds now (cuMemGetInfo).
func (d *Device) FreeMemory() (uint64, error) {
	var free int64
	err := d.Do(func() (err error) {
		free, _, err = cu.MemInfo()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("device %d: cuMemGetInfo: %w", d.index, err)
	}
	return uint64(max(free, 0)), nil
}

// Free releases memory from Alloc (cuMemFree).
func (d *Device) Free(ptr uintptr) error {
	err := d.Do(func() error { return cu.MemFree(cu.DevicePtr(ptr)) })
	if err != nil {
		return fmt.Errorf("device %d: cuMemFree(%#x): %w", d.index, ptr, err)
	}
	return nil
}

// Close releases the primary context; free memory and unload modules first.
func (d *Device) Close() error {
	if err := d.dev.ReleasePrimaryCtx(); err != nil {
		return fmt.Errorf("device %d: cuDevicePrimaryCtxRelease: %w", d.index, err)
	}
	return nil
}
