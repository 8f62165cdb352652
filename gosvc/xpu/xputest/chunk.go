package xputest

import (
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// ChunkPagesOffset is where ChunkMessage puts the pages.
var ChunkPagesOffset = alignUp(xpu.ChunkEnd, xpu.PagesAlign)

// ChunkMessage encodes a TaskExec message carrying pages (a multiple of
// xpu.BlockSize bytes).
func ChunkMessage(requestID, chunkID uint32, pages []byte) []byte {
	msg := protocol.NewMessage(protocol.TagTaskExec, requestID, ChunkPagesOffset+len(pages)-protocol.HeaderSize)
	le.PutUint32(msg[xpu.OffChunkNBlocks:], uint32(len(pages)/xpu.BlockSize))
	le.PutUint32(msg[xpu.OffChunkPagesOffset:], uint32(ChunkPagesOffset))
	le.PutUint32(msg[xpu.OffChunkID:], chunkID)
	copy(msg[ChunkPagesOffset:], pages)
	return msg
}

// BufferChunkMessage encodes a TaskExec message whose nblocks pages are
// at pagesOffset in the connection's shared buffer bufferID.
func BufferChunkMessage(requestID, chunkID, bufferID, pagesOffset uint32, nblocks int) []byte {
	msg := protocol.NewMessage(protocol.TagTaskExec, requestID, xpu.ChunkEnd-protocol.HeaderSize)
	le.PutUint32(msg[xpu.OffChunkNBlocks:], uint32(nblocks))
	le.PutUint32(msg[xpu.OffChunkPagesOffset:], pagesOffset)
	le.PutUint32(msg[xpu.OffChunkID:], chunkID)
	le.PutUint32(msg[xpu.OffChunkBufferID:], bufferID)
	return msg
}

// Item is an XpuChunkResult entry.
func Item(block, lineno int, recheck bool) uint32 {
	it := uint32(block)<<xpu.ItemBlockShift | uint32(lineno)
	if recheck {
		it |= xpu.ItemRecheck
	}
	return it
}
