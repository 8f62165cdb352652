package xpu

import (
	"fmt"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
)

// PreAggGroups is XpuPreAggGroups, the payload header of a groups message
// in the TaskFinal reply of a GpuPreAgg session.
type PreAggGroups struct {
	NEntries     uint32 // entries in this message; the encoders set it
	EntrySize    uint32
	NGroupsTotal uint32 // VALID entries of the whole table
	NGrowths     uint32 // times the table was grown
	TableBytes   uint64 // device memory of the table at the end
}

// GroupsPayload is the payload of one groups reply (SUCCESS_HALFWAY to the
// TaskFinal of a GpuPreAgg session): XpuPreAggGroups followed by whole
// entries of G.EntrySize bytes; Put writes their count as nentries.
type GroupsPayload struct {
	G       PreAggGroups
	Entries []byte
}

// Len is the payload's size.
func (p GroupsPayload) Len() int { return PreAggGroupsSize + len(p.Entries) }

// Put encodes the payload into dst (Len() bytes).
func (p GroupsPayload) Put(dst []byte) {
	g := p.G
	g.NEntries = uint32(len(p.Entries) / int(max(g.EntrySize, 1)))
	le.PutUint32(dst[offGrpNEntries-groupsOffset:], g.NEntries)
	le.PutUint32(dst[offGrpEntrySize-groupsOffset:], g.EntrySize)
	le.PutUint32(dst[offGrpTotal-groupsOffset:], g.NGroupsTotal)
	le.PutUint32(dst[offGrpGrowths-groupsOffset:], g.NGrowths)
	le.PutUint64(dst[offGrpTableBytes-groupsOffset:], g.TableBytes)
	copy(dst[PreAggGroupsSize:], p.Entries)
}

// NewGroupsPayload checks that entries are whole entries of g.EntrySize.
func NewGroupsPayload(g PreAggGroups, entries []byte) (GroupsPayload, error) {
	if g.EntrySize == 0 || len(entries)%int(g.EntrySize) != 0 {
		return GroupsPayload{}, fmt.Errorf("preagg groups: %d bytes of entries is not a multiple of entry_size %d", len(entries), g.EntrySize)
	}
	return GroupsPayload{G: g, Entries: entries}, nil
}

// EncodePreAggGroups builds one groups message of request requestID;
// tests use it.
func EncodePreAggGroups(requestID uint32, g PreAggGroups, entries []byte) ([]byte, error) {
	p, err := NewGroupsPayload(g, entries)
	if err != nil {
		return nil, fmt.Errorf("encode %w", err)
	}
	return protocol.Frame(protocol.TagSuccessHalfway, requestID, p)
}

// SplitPreAggGroups splits entries (whole entries of g.EntrySize bytes)
// into groups payloads of at most XPU_PREAGG_GROUPS_BYTES of entries each;
// the entries alias the argument.  It returns at least one payload, so the
// statistics reach the backend even when the table holds no group.
func SplitPreAggGroups(g PreAggGroups, entries []byte) ([]GroupsPayload, error) {
	return splitPreAggGroups(g, entries, PreAggGroupsBytes)
}

func splitPreAggGroups(g PreAggGroups, entries []byte, maxBytes int) ([]GroupsPayload, error) {
	if g.EntrySize == 0 || int(g.EntrySize) > maxBytes {
		return nil, fmt.Errorf("split preagg groups: entry_size %d does not fit %d bytes", g.EntrySize, maxBytes)
	}
	per := maxBytes / int(g.EntrySize) * int(g.EntrySize)
	var out []GroupsPayload
	for off := 0; off == 0 || off < len(entries); off += per {
		p, err := NewGroupsPayload(g, entries[off:min(off+per, len(entries))])
		if err != nil {
			return nil, fmt.Errorf("split %w", err)
		}
		out = append(out, p)
	}
	return out, nil
}

// DecodePreAggGroups decodes a groups message; clients and tests use it.
// The entries alias msg.
func DecodePreAggGroups(msg []byte) (PreAggGroups, []byte, error) {
	h, err := protocol.DecodeHeader(msg)
	if err != nil {
		return PreAggGroups{}, nil, fmt.Errorf("decode preagg groups: %w", err)
	}
	switch {
	case h.Tag != protocol.TagSuccessHalfway:
		return PreAggGroups{}, nil, protoErr("decode preagg groups: tag %s, want PreAggGroups", h.Tag)
	case uint64(h.Length) != uint64(len(msg)) || len(msg) < PreAggGroupsEnd:
		return PreAggGroups{}, nil, protoErr("decode preagg groups: %d bytes (header says %d), need at least %d", len(msg), h.Length, PreAggGroupsEnd)
	}
	g := PreAggGroups{
		NEntries:     le.Uint32(msg[offGrpNEntries:]),
		EntrySize:    le.Uint32(msg[offGrpEntrySize:]),
		NGroupsTotal: le.Uint32(msg[offGrpTotal:]),
		NGrowths:     le.Uint32(msg[offGrpGrowths:]),
		TableBytes:   le.Uint64(msg[offGrpTableBytes:]),
	}
	if want := uint64(PreAggGroupsEnd) + uint64(g.NEntries)*uint64(g.EntrySize); want != uint64(len(msg)) {
		return PreAggGroups{}, nil, protoErr("decode preagg groups: %d entries of %d bytes need %d bytes, message has %d",
			g.NEntries, g.EntrySize, want, len(msg))
	}
	return g, msg[PreAggGroupsEnd:], nil
}

// EntryValid reports whether a group entry (XpuPreAggEntryHeader first) is
// linked into its table, i.e. a real group.
func EntryValid(entry []byte) bool {
	return le.Uint32(entry[OffEntryFlags:])&PreAggEntryValid != 0
}
