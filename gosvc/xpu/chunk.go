package xpu

import "github.com/pgstrom-go/pg_strom/gosvc/protocol"

// Chunk is a validated XpuChunk (the TaskExec payload header).
type Chunk struct {
	NBlocks     uint32
	PagesOffset uint32
	ChunkID     uint32
}

// PagesLen is the byte length of the chunk's pages.
func (c Chunk) PagesLen() int { return int(c.NBlocks) * BlockSize }

// Pages returns the chunk's pages inside the message ParseChunk accepted.
func (c Chunk) Pages(msg []byte) []byte {
	return msg[c.PagesOffset : int(c.PagesOffset)+c.PagesLen()]
}

// ItemsCapacity is how many items the kernel may write for this chunk.
func (c Chunk) ItemsCapacity() int { return int(c.NBlocks) * MaxTuplesPerPage }

// ParseChunk validates a whole TaskExec message (header included): the
// block count, the alignment of the pages and that the pages end exactly
// where the message ends.
func ParseChunk(msg []byte) (Chunk, error) {
	if err := checkMessage(msg, protocol.TagTaskExec, ChunkEnd); err != nil {
		return Chunk{}, err
	}
	c := Chunk{
		NBlocks:     le.Uint32(msg[OffChunkNBlocks:]),
		PagesOffset: le.Uint32(msg[OffChunkPagesOffset:]),
		ChunkID:     le.Uint32(msg[OffChunkID:]),
	}
	want := uint64(c.PagesOffset) + uint64(c.NBlocks)*uint64(BlockSize)
	switch {
	case c.NBlocks == 0 || c.NBlocks > uint32(MaxBlocksPerChunk):
		return Chunk{}, protoErr("xpu chunk %d: %d blocks, want 1..%d", c.ChunkID, c.NBlocks, MaxBlocksPerChunk)
	case c.PagesOffset%PagesAlign != 0:
		return Chunk{}, protoErr("xpu chunk %d: pages_offset %d is not a multiple of %d", c.ChunkID, c.PagesOffset, PagesAlign)
	case c.PagesOffset < uint32(ChunkEnd):
		return Chunk{}, protoErr("xpu chunk %d: pages_offset %d overlaps the chunk header (which ends at %d)", c.ChunkID, c.PagesOffset, ChunkEnd)
	case want != uint64(len(msg)):
		return Chunk{}, protoErr("xpu chunk %d: %d pages at offset %d end at byte %d, but the message has %d bytes",
			c.ChunkID, c.NBlocks, c.PagesOffset, want, len(msg))
	}
	return c, nil
}
