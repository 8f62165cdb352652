package xpu

import (
	"fmt"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
)

// ChunkResult is XpuChunkResult, the payload header of a TaskExec reply.
type ChunkResult struct {
	ChunkID   uint32
	NItems    uint32 // ChunkReply.Put sets it to Items.Count()
	NTuples   uint32
	NRecheck  uint32
	GpuTimeNs uint64
}

// Items are the items of one TaskExec reply, in the shape of the node
// kind (GpuScan's and GpuPreAgg's: Positions).
type Items interface {
	// Count is XpuChunkResult.nitems.
	Count() int
	// Size is the bytes the items take after XpuChunkResult.
	Size() int
	// Put writes the items into dst, which has exactly Size() bytes.
	Put(dst []byte)
}

// Positions are row positions (XPU_ITEM_*), 4 bytes each: the items of
// GpuScan and GpuPreAgg.
type Positions []uint32

func (p Positions) Count() int { return len(p) }
func (p Positions) Size() int  { return 4 * len(p) }
func (p Positions) Put(dst []byte) {
	for i, it := range p {
		le.PutUint32(dst[4*i:], it)
	}
}

// ChunkReply is the payload of one TaskExec reply (SUCCESS_HALFWAY or
// SUCCESS): XpuChunkResult, then the items.  It is a protocol.Payload;
// Put writes Items.Count() as nitems, whatever Result.NItems says.
type ChunkReply struct {
	Result ChunkResult
	Items  Items // nil: none
}

// Len is the payload's size.
func (r ChunkReply) Len() int {
	if r.Items == nil {
		return ChunkResultSize
	}
	return ChunkResultSize + r.Items.Size()
}

// Put encodes the payload into dst (Len() bytes).
func (r ChunkReply) Put(dst []byte) {
	if r.Items != nil {
		r.Result.NItems = uint32(r.Items.Count())
		r.Items.Put(dst[ChunkResultSize:])
	} else {
		r.Result.NItems = 0
	}
	le.PutUint32(dst[offResChunkID-resultOffset:], r.Result.ChunkID)
	le.PutUint32(dst[offResNItems-resultOffset:], r.Result.NItems)
	le.PutUint32(dst[offResNTuples-resultOffset:], r.Result.NTuples)
	le.PutUint32(dst[offResNRecheck-resultOffset:], r.Result.NRecheck)
	le.PutUint64(dst[offResGpuTime-resultOffset:], r.Result.GpuTimeNs)
}

// PositionsReply is the reply of a kind whose items are rows of chunk c
// (GpuScan, GpuPreAgg): at most c.ItemsCapacity() of them, the most the
// chunk can hold.  More is an error wrapping protocol.ErrBadReply.
func PositionsReply(c Chunk, r ChunkResult, items []uint32) (ChunkReply, error) {
	if len(items) > c.ItemsCapacity() {
		return ChunkReply{}, fmt.Errorf("%w: chunk %d: %d items, more than the %d rows the chunk can hold",
			protocol.ErrBadReply, c.ChunkID, len(items), c.ItemsCapacity())
	}
	r.ChunkID = c.ChunkID
	return ChunkReply{Result: r, Items: Positions(items)}, nil
}

// EncodeChunkResult builds the Success reply to a TaskExec: XpuChunkResult
// followed by the items; tests and fakes use it.
func EncodeChunkResult(requestID uint32, r ChunkResult, items []uint32) []byte {
	msg, err := protocol.Frame(protocol.TagSuccess, requestID, ChunkReply{Result: r, Items: Positions(items)})
	if err != nil {
		panic(err) // only tests build oversized replies
	}
	return msg
}

// DecodeChunkResult decodes a TaskExec reply (Success or SuccessHalfway)
// whose items are Positions; clients and tests use it.
func DecodeChunkResult(msg []byte) (ChunkResult, []uint32, error) {
	return decodeChunkWords(msg, 1)
}

// decodeChunkWords decodes a TaskExec reply whose nitems items are stride
// uint32 words each.
func decodeChunkWords(msg []byte, stride int) (ChunkResult, []uint32, error) {
	h, err := protocol.DecodeHeader(msg)
	if err != nil {
		return ChunkResult{}, nil, fmt.Errorf("decode chunk result: %w", err)
	}
	switch {
	case h.Tag != protocol.TagSuccess && h.Tag != protocol.TagSuccessHalfway:
		return ChunkResult{}, nil, protoErr("decode chunk result: tag %s, want Success or SuccessHalfway", h.Tag)
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
	if want := uint64(ResultEnd) + 4*uint64(stride)*uint64(r.NItems); want != uint64(len(msg)) {
		return ChunkResult{}, nil, protoErr("decode chunk result: %d items of %d words need %d bytes, message has %d", r.NItems, stride, want, len(msg))
	}
	items := make([]uint32, int(r.NItems)*stride)
	for i := range items {
		items[i] = le.Uint32(msg[ResultEnd+4*i:])
	}
	return r, items, nil
}
