package gpu

import (
	"fmt"
	"unsafe"
)

// HostBuffer is pinned (page-locked) host memory: copies to and from the
// device run at full PCIe speed and can be asynchronous.  It lives outside
// the Go heap and must be freed with Free.
type HostBuffer struct {
	dev  *Device
	ptr  unsafe.Pointer
	size uint64
}

// AllocHost allocates pinned host memory (cuMemHostAlloc, portable: usable
// from every device's context).
func (d *Device) AllocHost(size uint64) (*HostBuffer, error) {
	if size == 0 {
		return nil, fmt.Errorf("device %d: cuMemHostAlloc of 0 bytes", d.index)
	}
	var p unsafe.Pointer
	err := d.Do(func() (err error) {
		p, err = memHostAlloc(size)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("device %d: pinned host buffer of %d bytes: %w", d.index, size, err)
	}
	return &HostBuffer{dev: d, ptr: p, size: size}, nil
}

// Bytes views the buffer; the slice is invalid after Free.
func (b *HostBuffer) Bytes() []byte { return unsafe.Slice((*byte)(b.ptr), b.size) }

// Pointer is the buffer's address, for CUDA copy calls.
func (b *HostBuffer) Pointer() unsafe.Pointer { return b.ptr }

// Free releases the buffer (cuMemFreeHost); a second Free is a no-op.
func (b *HostBuffer) Free() error {
	if b.ptr == nil {
		return nil
	}
	err := b.dev.Do(func() error { return memFreeHost(b.ptr) })
	b.ptr, b.size = nil, 0
	if err != nil {
		return fmt.Errorf("device %d: %w", b.dev.index, err)
	}
	return nil
}
