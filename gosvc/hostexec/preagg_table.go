package hostexec

import (
	"errors"
	"fmt"
	"math/bits"
	"sync"

	"github.com/pgstrom-go/pg_strom/gosvc/mempool"
	"github.com/pgstrom-go/pg_strom/gosvc/preagg"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// hostTable is one GpuPreAgg hash table in pool memory, the value of a
// querybuf entry shared by the sessions of one plan, as the gpu package's
// devTable: the entry's read lock is held while a chunk accumulates into
// it, its write lock while it is replaced by a larger one.
type hostTable struct {
	// run serializes the kernel code on this table: its "atomics" are
	// plain memory operations on the host, so two chunks accumulating at
	// once would lose updates.
	run     sync.Mutex
	mem     mempool.Chunk
	bytes   []byte
	layout  xpu.PreAggTable // as written; NEntries is the kernels' business
	growths uint32          // also identifies this version of the table
	// cannotGrow is why growing this table failed for want of room, as
	// the gpu package's devTable: later growths fail at once.
	cannotGrow error
}

// EntrySize, Growths and Bytes make a hostTable a preagg.Table.
func (t *hostTable) EntrySize() uint32 { return t.layout.EntrySize }
func (t *hostTable) Growths() uint32   { return t.growths }
func (t *hostTable) Bytes() uint64     { return t.mem.Size }

// The gpu package's sizes, so tables grow at the same points.
const (
	defaultPreAggSlots   = 64 << 10
	maxInitialTableBytes = 64 << 20
)

// initialSlots is the slot count of a new table of entrySize-byte entries.
func (e *Executor) initialSlots(entrySize uint32) uint32 {
	byMemory := uint32(1) << (bits.Len32(2*maxInitialTableBytes/entrySize) - 1)
	return max(2, min(e.preaggSlots, byMemory))
}

// newTable allocates an empty table: every byte zero (no slot linked, no
// entry VALID), then the header.
func (e *Executor) newTable(nslots, entrySize uint32) (*hostTable, error) {
	lay, err := xpu.NewPreAggTable(nslots, entrySize)
	if err != nil {
		return nil, fmt.Errorf("GpuPreAgg table of %d slots: %w", nslots, err)
	}
	mem, b, err := e.alloc(lay.Bytes(), "GpuPreAgg hash table")
	if err != nil {
		return nil, err
	}
	clear(b)
	copy(b, lay.Header())
	return &hostTable{mem: mem, bytes: b, layout: lay}, nil
}

// header decodes the table's header as the kernels left it.
func (t *hostTable) header() (xpu.PreAggTable, error) {
	return xpu.DecodePreAggTable(t.bytes[:xpu.PreAggTableSize])
}

// growTable replaces a full table by one with at least twice the slots
// and room for every entry its kernels asked for, copying the groups over
// with the rehash code; the caller holds the entry's write lock.
func (e *Executor) growTable(old *hostTable) (*hostTable, error) {
	if old.cannotGrow != nil {
		return nil, old.cannotGrow
	}
	nt, err := e.growTableOnce(old)
	if err != nil && nt == nil && (errors.Is(err, errTableTooLarge) || errors.Is(err, mempool.ErrExhausted)) {
		err = fmt.Errorf("%w: %w", preagg.ErrCannotGrow, err)
		old.cannotGrow = err
	}
	return nt, err
}

// errTableTooLarge: the groups do not fit the largest table the header
// can describe.
var errTableTooLarge = errors.New("GpuPreAgg table cannot grow further")

func (e *Executor) growTableOnce(old *hostTable) (*hostTable, error) {
	hdr, err := old.header()
	if err != nil {
		return nil, fmt.Errorf("grow: %w", err)
	}
	nslots, err := xpu.PreAggSlotsFor(hdr.NSlots, hdr.NEntries)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errTableTooLarge, err)
	}
	nt, err := e.newTable(nslots, hdr.EntrySize)
	if err != nil {
		return nil, fmt.Errorf("grow the GpuPreAgg table to %d slots: %w", nslots, err)
	}
	if hdr.Used() > 0 {
		runRehash(old.bytes, nt.bytes)
	}
	nh, err := nt.header()
	if err == nil && nh.NEntries > nh.Capacity {
		err = fmt.Errorf("%s took %d entries of a table of %d: groups would be lost", xpu.KernelPreAggRehash, nh.NEntries, nh.Capacity)
	}
	if err != nil {
		return nil, fmt.Errorf("grow: %w", joinFree(err, e, nt.mem))
	}
	nt.growths = old.growths + 1
	if err := e.free(old.mem, "the outgrown GpuPreAgg table"); err != nil {
		return nt, err
	}
	return nt, nil
}

// groups returns the VALID entries of a table no one writes any more.
func (t *hostTable) groups() (xpu.PreAggTable, []byte, error) {
	hdr, err := t.header()
	if err != nil {
		return hdr, nil, err
	}
	size := uint64(hdr.EntrySize)
	ents := t.bytes[hdr.EntriesOffset : hdr.EntriesOffset+uint64(hdr.Used())*size]
	var valid []byte
	for off := uint64(0); off < uint64(len(ents)); off += size {
		if ent := ents[off : off+size]; xpu.EntryValid(ent) {
			valid = append(valid, ent...)
		}
	}
	return hdr, valid, nil
}

func joinFree(err error, e *Executor, c mempool.Chunk) error {
	if ferr := e.free(c, "GpuPreAgg hash table"); ferr != nil {
		return fmt.Errorf("%w (and: %w)", err, ferr)
	}
	return err
}
