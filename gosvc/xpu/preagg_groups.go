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

// EncodePreAggGroups builds one PGSTROM_MSG_PREAGG_GROUPS message:
// XpuPreAggGroups followed by entries, a whole number of g.EntrySize-byte
// entries.
func EncodePreAggGroups(requestID uint32, g PreAggGroups, entries []byte) ([]byte, error) {
	if g.EntrySize == 0 || len(entries)%int(g.EntrySize) != 0 {
		return nil, fmt.Errorf("encode preagg groups: %d bytes of entries is not a multiple of entry_size %d", len(entries), g.EntrySize)
	}
	g.NEntries = uint32(len(entries) / int(g.EntrySize))
	msg := protocol.NewMessage(protocol.TagSuccessHalfway, requestID, PreAggGroupsSize+len(entries))
	le.PutUint32(msg[offGrpNEntries:], g.NEntries)
	le.PutUint32(msg[offGrpEntrySize:], g.EntrySize)
	le.PutUint32(msg[offGrpTotal:], g.NGroupsTotal)
	le.PutUint32(msg[offGrpGrowths:], g.NGrowths)
	le.PutUint64(msg[offGrpTableBytes:], g.TableBytes)
	copy(msg[PreAggGroupsEnd:], entries)
	return msg, nil
}

// SplitPreAggGroups encodes entries (whole entries of g.EntrySize bytes) as
// groups messages of at most XPU_PREAGG_GROUPS_BYTES of entries each.  It
// returns at least one message, so the statistics reach the backend even
// when the table holds no group.
func SplitPreAggGroups(requestID uint32, g PreAggGroups, entries []byte) ([][]byte, error) {
	return splitPreAggGroups(requestID, g, entries, PreAggGroupsBytes)
}

func splitPreAggGroups(requestID uint32, g PreAggGroups, entries []byte, maxBytes int) ([][]byte, error) {
	if g.EntrySize == 0 || int(g.EntrySize) > maxBytes {
		return nil, fmt.Errorf("split preagg groups: entry_size %d does not fit %d bytes", g.EntrySize, maxBytes)
	}
	per := maxBytes / int(g.EntrySize) * int(g.EntrySize)
	var msgs [][]byte
	for off := 0; off == 0 || off < len(entries); off += per {
		m, err := EncodePreAggGroups(requestID, g, entries[off:min(off+per, len(entries))])
		if err != nil {
			return nil, fmt.Errorf("split preagg groups: %w", err)
		}
		msgs = append(msgs, m)
	}
	return msgs, nil
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
