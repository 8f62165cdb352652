package xpu

import "github.com/pgstrom-go/pg_strom/gosvc/protocol"

// Chunk is a validated XpuChunk (the TaskExec payload header).
type Chunk struct {
	NBlocks     uint32
	PagesOffset uint32 // from the message start, or from the buffer's start
	ChunkID     uint32
	BufferID    uint32 // 0: the pages follow in the message; N: in shared buffer N
}

// Inline reports whether the pages travel in the message itself.
func (c Chunk) Inline() bool { return c.BufferID == 0 }

// PagesLen is the byte length of the chunk's pages.
func (c Chunk) PagesLen() int { return int(c.NBlocks) * BlockSize }

// PagesEnd is where the pages end, from the start of the message (inline) or
// of the shared buffer.
func (c Chunk) PagesEnd() uint64 { return uint64(c.PagesOffset) + uint64(c.PagesLen()) }

// Pages returns the chunk's pages inside the message (inline chunk) or the
// shared buffer (BufferID > 0) they were validated against.
func (c Chunk) Pages(msgOrBuffer []byte) []byte {
	return msgOrBuffer[c.PagesOffset:c.PagesEnd()]
}

// ItemsCapacity is how many items the kernel may write for this chunk.
func (c Chunk) ItemsCapacity() int { return int(c.NBlocks) * MaxTuplesPerPage }

// ParseChunk validates a whole TaskExec message (header included): the
// block count and the alignment of the pages, and, for an inline chunk
// (buffer_id 0), that the pages end exactly where the message ends.  A chunk
// in a shared buffer (buffer_id > 0) must end right after XpuChunk; that its
// pages lie inside the buffer is checked by the caller, which knows the
// connection's buffers.
func ParseChunk(msg []byte) (Chunk, error) {
	if err := checkMessage(msg, protocol.TagTaskExec, ChunkEnd); err != nil {
		return Chunk{}, err
	}
	c := Chunk{
		NBlocks:     le.Uint32(msg[OffChunkNBlocks:]),
		PagesOffset: le.Uint32(msg[OffChunkPagesOffset:]),
		ChunkID:     le.Uint32(msg[OffChunkID:]),
		BufferID:    le.Uint32(msg[OffChunkBufferID:]),
	}
	switch {
	case c.NBlocks == 0 || c.NBlocks > uint32(MaxBlocksPerChunk):
		return Chunk{}, protoErr("xpu chunk %d: %d blocks, want 1..%d", c.ChunkID, c.NBlocks, MaxBlocksPerChunk)
	case c.PagesOffset%PagesAlign != 0:
		return Chunk{}, protoErr("xpu chunk %d: pages_offset %d is not a multiple of %d", c.ChunkID, c.PagesOffset, PagesAlign)
	case !c.Inline():
		if len(msg) != ChunkEnd {
			return Chunk{}, protoErr("xpu chunk %d: pages are in shared buffer %d, but the message has %d bytes after XpuChunk",
				c.ChunkID, c.BufferID, len(msg)-ChunkEnd)
		}
	case c.PagesOffset < uint32(ChunkEnd):
		return Chunk{}, protoErr("xpu chunk %d: pages_offset %d overlaps the chunk header (which ends at %d)", c.ChunkID, c.PagesOffset, ChunkEnd)
	case c.PagesEnd() != uint64(len(msg)):
		return Chunk{}, protoErr("xpu chunk %d: %d pages at offset %d end at byte %d, but the message has %d bytes",
			c.ChunkID, c.NBlocks, c.PagesOffset, c.PagesEnd(), len(msg))
	}
	return c, nil
}
