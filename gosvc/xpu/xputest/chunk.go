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

// Item is an XpuChunkResult entry.
func Item(block, lineno int, recheck bool) uint32 {
	it := uint32(block)<<xpu.ItemBlockShift | uint32(lineno)
	if recheck {
		it |= xpu.ItemRecheck
	}
	return it
}

// PageRef is an XpuPageRef of a shared chunk.
type PageRef struct {
	Buffer  uint32
	NLines  uint16
	Flags   uint16
	Visible [xpu.PageVisibleWords]uint32
}

// AllVisibleRef refers to buffer's first nlines line pointers, all visible.
func AllVisibleRef(buffer uint32, nlines int) PageRef {
	return PageRef{Buffer: buffer, NLines: uint16(nlines), Flags: xpu.PageAllVisible}
}

// StampedRef is AllVisibleRef whose page may enter the page cache
// (XPU_PAGE_STAMPED): block blkno of file f, under stamp.
func StampedRef(buffer uint32, nlines int, f xpu.DirectFile, blkno uint32, stamp uint64) PageRef {
	r := AllVisibleRef(buffer, nlines)
	r.Flags |= xpu.PageStamped
	r.Visible[xpu.PageStampLo], r.Visible[xpu.PageStampHi] = uint32(stamp), uint32(stamp>>32)
	r.Visible[xpu.PageStampBlkno] = blkno
	r.Visible[xpu.PageStampSpc], r.Visible[xpu.PageStampDB], r.Visible[xpu.PageStampRel] = f.Spc, f.DB, f.RelNode
	return r
}

// VisibleRef refers to buffer's first nlines line pointers, of which only
// the offsets (1-based) listed are visible.
func VisibleRef(buffer uint32, nlines int, visible ...int) PageRef {
	r := PageRef{Buffer: buffer, NLines: uint16(nlines)}
	for _, off := range visible {
		r.Visible[(off-1)/32] |= 1 << ((off - 1) % 32)
	}
	return r
}

// SharedChunkMessage encodes a TaskExec message of a zero-copy chunk
// (XPU_BUFFER_SHARED) with refs at ChunkPagesOffset.
func SharedChunkMessage(requestID, chunkID uint32, refs []PageRef) []byte {
	msg := protocol.NewMessage(protocol.TagTaskExec, requestID, ChunkPagesOffset+len(refs)*xpu.PageRefSize-protocol.HeaderSize)
	le.PutUint32(msg[xpu.OffChunkNBlocks:], uint32(len(refs)))
	le.PutUint32(msg[xpu.OffChunkPagesOffset:], uint32(ChunkPagesOffset))
	le.PutUint32(msg[xpu.OffChunkID:], chunkID)
	le.PutUint32(msg[xpu.OffChunkBufferID:], xpu.BufferShared)
	for i, r := range refs {
		b := msg[ChunkPagesOffset+i*xpu.PageRefSize:]
		le.PutUint32(b[xpu.OffRefBuffer:], r.Buffer)
		le.PutUint16(b[xpu.OffRefNLines:], r.NLines)
		le.PutUint16(b[xpu.OffRefFlags:], r.Flags)
		for w, v := range r.Visible {
			le.PutUint32(b[xpu.OffRefVisible+4*w:], v)
		}
	}
	return msg
}

// DirectChunkMessage encodes a TaskExec message of a direct-read chunk
// (XPU_BUFFER_DIRECT): f's XpuDirectFile, then the block numbers.
func DirectChunkMessage(requestID, chunkID uint32, f xpu.DirectFile, blknos []uint32) []byte {
	msg := protocol.NewMessage(protocol.TagTaskExec, requestID, xpu.DirectBlknosOffset+4*len(blknos)-protocol.HeaderSize)
	le.PutUint32(msg[xpu.OffChunkNBlocks:], uint32(len(blknos)))
	le.PutUint32(msg[xpu.OffChunkPagesOffset:], uint32(xpu.DirectBlknosOffset))
	le.PutUint32(msg[xpu.OffChunkID:], chunkID)
	le.PutUint32(msg[xpu.OffChunkBufferID:], xpu.BufferDirect)
	var flags uint32
	if f.Checksums {
		flags = xpu.DirectChecksums
	}
	if f.Stamps { // without the stamps themselves: StampedDirectChunkMessage adds them
		flags |= xpu.DirectStamps
	}
	if f.CacheOnly {
		flags |= xpu.DirectCacheOnly
	}
	// XpuDirectFile's fields, in order, 4 bytes each
	for i, v := range []uint32{f.Spc, f.DB, f.RelNode, flags, f.SegBlocks, f.RelNBlocks, f.PgMajor, f.Catversion} {
		le.PutUint32(msg[xpu.DirectFileOffset+4*i:], v)
	}
	for i, b := range blknos {
		le.PutUint32(msg[xpu.DirectBlknosOffset+4*i:], b)
	}
	return msg
}

// StampedDirectChunkMessage is DirectChunkMessage with XPU_DIRECT_STAMPS:
// stamps[i] is block i's visibility-map stamp.
func StampedDirectChunkMessage(requestID, chunkID uint32, f xpu.DirectFile, blknos []uint32, stamps []uint64) []byte {
	n := uint32(len(blknos))
	plain := DirectChunkMessage(requestID, chunkID, f, blknos)
	end := xpu.DirectStampsOffset(n) + 8*uint64(n)
	msg := protocol.NewMessage(protocol.TagTaskExec, requestID, int(end)-protocol.HeaderSize)
	copy(msg[protocol.HeaderSize:], plain[protocol.HeaderSize:])
	flags := le.Uint32(msg[xpu.DirectFileOffset+12:])
	le.PutUint32(msg[xpu.DirectFileOffset+12:], flags|xpu.DirectStamps)
	for i, st := range stamps {
		le.PutUint64(msg[xpu.DirectStampsOffset(n)+8*uint64(i):], st)
	}
	return msg
}
