package gpu

import (
	"errors"
	"fmt"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// sharedMapping is PostgreSQL's shared buffers as one device reads them:
// the device address of buffer 0 of the registered region, and its host
// address, from which runs of buffers are copied by DMA (the region is
// registered, so at pinned speed).
type sharedMapping struct {
	dptr     cu.DevicePtr
	host     unsafe.Pointer // memory Go does not own
	nbuffers uint32
}

// sharedRegistration is the one registration of the region in this process
// (cuMemHostRegister is process-wide: PORTABLE makes it every context's),
// made by the first device that asks and undone at Close.
type sharedRegistration struct {
	region xpu.SharedRegion
	by     *Device // whose context registered it
}

// RegisterShared (service.SharedRegistrar) registers PostgreSQL's shared
// buffers, mapped read-only in this process, with device index: pinned,
// mapped into the device's address space and read-only.  The first device
// pays for pinning the whole region; the others only look up their device
// address.  The device's executor then gathers zero-copy chunks with DMA
// and kern_gather_pages (gatherPages).
//
// The whole region is registered at once.  Should its time or memory call
// for registering lazily in segments, registerSegment is the place: a
// mapping per segment, and a chunk's refs resolved per segment.
func (b *Backend) RegisterShared(index int, region xpu.SharedRegion) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	d, err := b.device(index)
	if err != nil {
		return err
	}
	m := b.modules[index]
	switch {
	case m == nil:
		return fmt.Errorf("device %d has no kernels module loaded", index)
	case m.kernels.gatherErr != nil:
		return fmt.Errorf("the kernels module cannot gather shared pages: %w", m.kernels.gatherErr)
	case d.shared != nil:
		return fmt.Errorf("device %d: shared buffers already registered", index)
	case region.Base == 0 || region.NBuffers == 0:
		return fmt.Errorf("device %d: empty shared buffer region %#x, %d buffers", index, region.Base, region.NBuffers)
	case b.shared != nil && b.shared.region != region:
		return fmt.Errorf("device %d: shared region %#x+%d differs from the one registered (%#x+%d)",
			index, region.Base, region.Size(), b.shared.region.Base, b.shared.region.Size())
	}
	first := b.shared == nil
	var dptr cu.DevicePtr
	err = d.Do(func() error {
		if first {
			if err := registerSegment(region.Base, region.Size()); err != nil {
				return err
			}
		}
		var err error
		if dptr, err = mappedDevicePointer(region.Base); err != nil && first {
			err = errors.Join(err, memHostUnregisterMapped(region.Base))
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("device %d: register %d MB of shared buffers at %#x: %w", index, region.Size()>>20, region.Base, err)
	}
	if first {
		b.shared = &sharedRegistration{region: region, by: d}
	}
	d.shared = &sharedMapping{dptr: dptr, host: hostPointer(region.Base), nbuffers: region.NBuffers}
	return nil
}

// registerSegment registers [base, base+size) of the shared buffers.
func registerSegment(base uintptr, size uint64) error { return memHostRegisterMapped(base, size) }

// unregisterShared undoes RegisterShared; called by Close after the
// executors are closed (no kernel reads the region any more) and before
// the contexts are released.
func (b *Backend) unregisterShared() error {
	r := b.shared
	if r == nil {
		return nil
	}
	b.shared = nil
	for _, d := range b.devices {
		d.shared = nil
	}
	err := r.by.Do(func() error { return memHostUnregisterMapped(r.region.Base) })
	if err != nil {
		return fmt.Errorf("device %d: unregister shared buffers: %w", r.by.index, err)
	}
	return nil
}
