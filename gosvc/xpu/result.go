package xpu

import (
	"fmt"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
)

// ChunkResult is XpuChunkResult, the payload header of a TaskExec reply.
type ChunkResult struct {
	ChunkID   uint32
	NItems    uint32 // EncodeChunkResult sets it to len(items)
	NTuples   uint32
	NRecheck  uint32
	GpuTimeNs uint64
}

// EncodeChunkResult builds the Success reply to a TaskExec: XpuChunkResult
// followed by the items.
func EncodeChunkResult(requestID uint32, r ChunkResult, items []uint32) []byte {
	r.NItems = uint32(len(items))
	msg := protocol.NewMessage(protocol.TagSuccess, requestID, ChunkResultSize+4*len(items))
	le.PutUint32(msg[offResChunkID:], r.ChunkID)
	le.PutUint32(msg[offResNItems:], r.NItems)
	le.PutUint32(msg[offResNTuples:], r.NTuples)
	le.PutUint32(msg[offResNRecheck:], r.NRecheck)
	le.PutUint64(msg[offResGpuTime:], r.GpuTimeNs)
	p := msg[ResultEnd:]
	for i, it := range items {
		le.PutUint32(p[4*i:], it)
	}
	return msg
}

// DecodeChunkResult decodes a TaskExec reply; clients and tests use it.
func DecodeChunkResult(msg []byte) (ChunkResult, []uint32, error) {
	h, err := protocol.DecodeHeader(msg)
	if err != nil {
		return ChunkResult{}, nil, fmt.Errorf("decode chunk result: %w", err)
	}
	switch {
	case h.Tag != protocol.TagSuccess:
		return ChunkResult{}, nil, protoErr("decode chunk result: tag %s, want Success", h.Tag)
	case uint64(h.Length) != uint64(len(msg)) || len(msg) < ResultEnd:
		return ChunkResult{}, nil, protoErr("decode chunk result: %d bytes (header says %d), need at least %d", len(msg), h.Length, ResultEnd)
	}
	r := ChunkResult{
		ChunkID:   le.Uint32(msg[offResChunkID:]),
		NItems:    le.Uint32(msg[offResNItems:]),
		NTuples:   le.Uint32(msg[offResNTuples:]),
		NRecheck:  le.Uint32(msg[offResNRecheck:]),
		GpuTimeNs: le.Uint64(msg[offResGpuTime:]),
	}
	if want := uint64(ResultEnd) + 4*uint64(r.NItems); want != uint64(len(msg)) {
		return ChunkResult{}, nil, protoErr("decode chunk result: %d items need %d bytes, message has %d", r.NItems, want, len(msg))
	}
	items := make([]uint32, r.NItems)
	for i := range items {
		items[i] = le.Uint32(msg[ResultEnd+4*i:])
	}
	return r, items, nil
}
