package xpu

import (
	"fmt"
	"math/bits"
)

// PreAggTable is an XpuPreAggTable header and where its parts lie: the
// header, then nslots uint32 slots at SlotsOffset, then Capacity entries at
// EntriesOffset, both 256-byte aligned from the table start.
type PreAggTable struct {
	NSlots        uint32 // a power of two
	Capacity      uint32 // NSlots / 2
	NEntries      uint32 // taken so far by the kernels; may exceed Capacity
	EntrySize     uint32
	SlotsOffset   uint64
	EntriesOffset uint64
}

// PreAggMaxSlots bounds nslots so every count fits the header's uint32s.
const PreAggMaxSlots = 1 << 31

// NewPreAggTable lays out an empty table of nslots slots (a power of two,
// at least 2) for entries of entrySize bytes.
func NewPreAggTable(nslots, entrySize uint32) (PreAggTable, error) {
	if nslots < 2 || nslots > PreAggMaxSlots || bits.OnesCount32(nslots) != 1 {
		return PreAggTable{}, fmt.Errorf("preagg table: %d slots, want a power of two in [2, %d]", nslots, uint32(PreAggMaxSlots))
	}
	if entrySize == 0 || entrySize%PreAggEntryAlign != 0 || entrySize > uint32(PreAggMaxEntry) {
		return PreAggTable{}, fmt.Errorf("preagg table: entry_size %d", entrySize)
	}
	slotsOff := alignTable(uint64(PreAggTableSize))
	return PreAggTable{
		NSlots:        nslots,
		Capacity:      nslots / 2,
		EntrySize:     entrySize,
		SlotsOffset:   slotsOff,
		EntriesOffset: alignTable(slotsOff + uint64(nslots)*uint64(preaggSlotSize)),
	}, nil
}

func alignTable(n uint64) uint64 {
	return (n + preaggTableAlign - 1) / preaggTableAlign * preaggTableAlign
}

// Bytes is the device memory the table needs.
func (t PreAggTable) Bytes() uint64 {
	return t.EntriesOffset + uint64(t.Capacity)*uint64(t.EntrySize)
}

// Used is how many entries the kernels filled: min(NEntries, Capacity).
func (t PreAggTable) Used() uint32 { return min(t.NEntries, t.Capacity) }

// Header encodes the XpuPreAggTable struct.
func (t PreAggTable) Header() []byte {
	b := make([]byte, PreAggTableSize)
	le.PutUint32(b[OffTableNSlots:], t.NSlots)
	le.PutUint32(b[OffTableCapacity:], t.Capacity)
	le.PutUint32(b[OffTableNEntries:], t.NEntries)
	le.PutUint32(b[OffTableEntrySize:], t.EntrySize)
	le.PutUint64(b[OffTableSlotsOffset:], t.SlotsOffset)
	le.PutUint64(b[OffTableEntriesOffset:], t.EntriesOffset)
	return b
}

// DecodePreAggTable decodes a header read back from the device; it checks
// what the service relies on to read the entries.
func DecodePreAggTable(b []byte) (PreAggTable, error) {
	if len(b) < PreAggTableSize {
		return PreAggTable{}, fmt.Errorf("preagg table header: %d bytes, want %d", len(b), PreAggTableSize)
	}
	got := PreAggTable{
		NSlots:        le.Uint32(b[OffTableNSlots:]),
		Capacity:      le.Uint32(b[OffTableCapacity:]),
		NEntries:      le.Uint32(b[OffTableNEntries:]),
		EntrySize:     le.Uint32(b[OffTableEntrySize:]),
		SlotsOffset:   le.Uint64(b[OffTableSlotsOffset:]),
		EntriesOffset: le.Uint64(b[OffTableEntriesOffset:]),
	}
	want, err := NewPreAggTable(got.NSlots, got.EntrySize)
	if err != nil {
		return PreAggTable{}, fmt.Errorf("preagg table header read back: %w", err)
	}
	want.NEntries = got.NEntries
	if got != want {
		return PreAggTable{}, fmt.Errorf("preagg table header read back %+v, want %+v (the kernel changed the layout)", got, want)
	}
	return got, nil
}

// PreAggSlotsFor is the slot count of a table grown from one of nslots
// slots whose kernels took nentries entries: at least twice the slots, and
// room (nslots/2 entries) for every entry taken, since nentries counts the
// groups the full table turned away too.
func PreAggSlotsFor(nslots, nentries uint32) (uint32, error) {
	want := max(2*uint64(nslots), 2*uint64(nentries))
	if want > PreAggMaxSlots {
		return 0, fmt.Errorf("preagg table: %d entries need more than %d slots", nentries, uint32(PreAggMaxSlots))
	}
	return 1 << bits.Len64(want-1), nil
}
