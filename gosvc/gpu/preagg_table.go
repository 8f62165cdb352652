package gpu

import (
	"errors"
	"fmt"
	"math/bits"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/pgstrom-go/pg_strom/gosvc/mempool"
	"github.com/pgstrom-go/pg_strom/gosvc/preagg"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// devTable is one GpuPreAgg hash table in device memory, the value of a
// querybuf entry shared by the sessions of one plan on one device.  The
// entry's read lock is held while a kernel accumulates into it, its write
// lock while it is replaced by a larger one.
type devTable struct {
	mem     mempool.Chunk
	layout  xpu.PreAggTable // as written; NEntries is the device's business
	growths uint32          // also identifies this version of the table
	// cannotGrow is why growing this table failed for want of room
	// (wrapping preagg.ErrCannotGrow), under the entry's write lock: later
	// growths fail at once instead of waiting for memory again
	// (allocWait) while every session of the plan waits on the lock;
	// their rows go to the CPU meanwhile.
	cannotGrow error
}

func (t *devTable) ptr() cu.DevicePtr { return cu.DevicePtr(t.mem.Ptr) }

// EntrySize, Growths and Bytes make a devTable a preagg.Table.
func (t *devTable) EntrySize() uint32 { return t.layout.EntrySize }
func (t *devTable) Growths() uint32   { return t.growths }
func (t *devTable) Bytes() uint64     { return t.mem.Size }

const (
	// defaultPreAggSlots: 64Ki slots hold 32Ki groups before the first
	// growth, which most GROUP BYs never need.
	defaultPreAggSlots = 64 << 10
	// maxInitialTableBytes caps the entries of a new table, so a plan with
	// wide entries does not take a large table before it has any group.
	maxInitialTableBytes = 64 << 20
	// finalPiece is how much of the entries one pinned download moves.
	finalPiece = 8 << 20
)

// initialSlots is the slot count of a new table of entrySize-byte entries.
func (e *Executor) initialSlots(entrySize uint32) uint32 {
	byMemory := uint32(1) << (bits.Len32(2*maxInitialTableBytes/entrySize) - 1)
	return max(2, min(e.preaggSlots, byMemory))
}

// newTable allocates an empty table and initializes it on the lane's
// stream: every byte zero (no slot linked, no entry VALID), then the
// header.  It returns once the table is ready for any stream.
func (e *Executor) newTable(l *lane, nslots, entrySize uint32) (*devTable, error) {
	lay, err := xpu.NewPreAggTable(nslots, entrySize)
	if err != nil {
		return nil, err
	}
	mem, err := e.alloc(lay.Bytes(), "GpuPreAgg hash table")
	if err != nil {
		return nil, err
	}
	hdr := lay.Header()
	err = e.dev.Do(func() error {
		st := l.stream
		if err := cu.MemsetD32Async(cu.DevicePtr(mem.Ptr), 0, int64(lay.Bytes()/4), st); err != nil {
			return fmt.Errorf("zero: cuMemsetD32Async: %w", err)
		}
		if err := cu.MemcpyHtoDAsync(cu.DevicePtr(mem.Ptr), unsafe.Pointer(&hdr[0]), int64(len(hdr)), st); err != nil {
			return fmt.Errorf("write header: cuMemcpyHtoDAsync: %w", err)
		}
		if err := st.Synchronize(); err != nil {
			return fmt.Errorf("cuStreamSynchronize: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("device %d: initialize a GpuPreAgg table of %d slots: %w", e.dev.index, nslots, err), e.pool.Free(mem))
	}
	return &devTable{mem: mem, layout: lay}, nil
}

// readHeader downloads the table's header; call it with the context
// current and no kernel writing the table.
func readHeader(t *devTable) (xpu.PreAggTable, error) {
	b := make([]byte, xpu.PreAggTableSize)
	if err := cu.MemcpyDtoH(unsafe.Pointer(&b[0]), t.ptr(), int64(len(b))); err != nil {
		return xpu.PreAggTable{}, fmt.Errorf("read the GpuPreAgg table header: cuMemcpyDtoH: %w", err)
	}
	return xpu.DecodePreAggTable(b)
}

// growTable replaces a full table by one with at least twice the slots and
// room for every entry its kernels asked for, copying the groups over with
// the rehash kernel; the caller holds the entry's write lock.
func (e *Executor) growTable(old *devTable, l *lane) (*devTable, error) {
	if old.cannotGrow != nil {
		return nil, old.cannotGrow
	}
	nt, err := e.growTableOnce(old, l)
	if err != nil && nt == nil && (errors.Is(err, ErrTableTooLarge) ||
		errors.Is(err, mempool.ErrExhausted) || errors.Is(err, cu.OutOfMemory)) {
		err = fmt.Errorf("%w: %w", preagg.ErrCannotGrow, err)
		old.cannotGrow = err
	}
	return nt, err
}

func (e *Executor) growTableOnce(old *devTable, l *lane) (*devTable, error) {
	var hdr xpu.PreAggTable
	err := e.dev.Do(func() (err error) {
		hdr, err = readHeader(old)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("device %d: grow: %w", e.dev.index, err)
	}
	nslots, err := xpu.PreAggSlotsFor(hdr.NSlots, hdr.NEntries)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTableTooLarge, err)
	}
	nt, err := e.newTable(l, nslots, hdr.EntrySize)
	if err != nil {
		return nil, fmt.Errorf("grow the GpuPreAgg table to %d slots: %w", nslots, err)
	}
	err = e.dev.Do(func() error { return e.rehash(l, old, nt, hdr.Used()) })
	if err != nil {
		return nil, errors.Join(fmt.Errorf("device %d: grow: %w", e.dev.index, err), e.pool.Free(nt.mem))
	}
	nt.growths = old.growths + 1
	if err := e.pool.Free(old.mem); err != nil {
		return nt, fmt.Errorf("device %d: free the outgrown GpuPreAgg table: %w", e.dev.index, err)
	}
	return nt, nil
}

// ErrTableTooLarge: the groups do not fit the largest table the header can
// describe.
var ErrTableTooLarge = errors.New("GpuPreAgg table cannot grow further")

// rehash copies the used entries of from into to and checks that all of
// them found room.
func (e *Executor) rehash(l *lane, from, to *devTable, used uint32) error {
	if used > 0 {
		fromPtr, toPtr := from.ptr(), to.ptr()
		args := []unsafe.Pointer{unsafe.Pointer(&fromPtr), unsafe.Pointer(&toPtr)}
		grid := (int(used) + xpu.GpuScanThreads - 1) / xpu.GpuScanThreads
		if err := e.kern.rehash.Launch(grid, 1, 1, xpu.GpuScanThreads, 1, 1, 0, l.stream, args); err != nil {
			return fmt.Errorf("launch %s: %w", xpu.KernelPreAggRehash, err)
		}
	}
	if err := l.stream.Synchronize(); err != nil {
		return fmt.Errorf("%s: cuStreamSynchronize: %w", xpu.KernelPreAggRehash, err)
	}
	hdr, err := readHeader(to)
	if err != nil {
		return err
	}
	if hdr.NEntries > hdr.Capacity {
		return fmt.Errorf("%s took %d entries of a table of %d: groups would be lost", xpu.KernelPreAggRehash, hdr.NEntries, hdr.Capacity)
	}
	return nil
}

// readGroups downloads the VALID entries of a table no kernel writes any
// more, through the lane's pinned buffer, a piece at a time.
func (e *Executor) readGroups(l *lane, t *devTable) (hdr xpu.PreAggTable, valid []byte, err error) {
	err = e.dev.Do(func() error {
		if hdr, err = readHeader(t); err != nil {
			return err
		}
		size := uint64(hdr.EntrySize)
		total := uint64(hdr.Used()) * size
		piece := max(finalPiece/size, 1) * size
		var scratch []byte
		for off := uint64(0); off < total; off += piece {
			n := min(piece, total-off)
			dst := l.pinned(int(n))
			if dst == nil {
				if scratch == nil {
					scratch = make([]byte, min(piece, total))
				}
				dst = scratch[:n]
			}
			src := t.ptr() + cu.DevicePtr(hdr.EntriesOffset+off)
			if err := cu.MemcpyDtoHAsync(unsafe.Pointer(&dst[0]), src, int64(n), l.stream); err != nil {
				return fmt.Errorf("download entries: cuMemcpyDtoHAsync: %w", err)
			}
			if err := l.stream.Synchronize(); err != nil {
				return fmt.Errorf("download entries: cuStreamSynchronize: %w", err)
			}
			for i := uint64(0); i < n; i += size {
				if ent := dst[i : i+size]; xpu.EntryValid(ent) {
					valid = append(valid, ent...)
				}
			}
		}
		return nil
	})
	if err != nil {
		return hdr, nil, fmt.Errorf("device %d: read the GpuPreAgg groups: %w", e.dev.index, err)
	}
	return hdr, valid, nil
}
