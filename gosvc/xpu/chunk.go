package xpu

import (
	"fmt"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
)

// Chunk is a validated XpuChunk (the TaskExec payload header).
type Chunk struct {
	NBlocks     uint32
	PagesOffset uint32 // of the pages or the page refs, from the message start
	ChunkID     uint32
	// BufferID 0: the pages follow in the message; BufferShared: page
	// refs follow, the pages are in PostgreSQL's shared buffers.  ParseChunk
	// refuses any other value (they named the connection's shared chunk
	// buffers, ATTACH_BUFFER, which are gone).
	BufferID uint32
}

// Inline reports whether the pages travel in the message itself.
func (c Chunk) Inline() bool { return c.BufferID == 0 }

// Shared reports whether the message carries page refs into PostgreSQL's
// shared buffers (XPU_BUFFER_SHARED) instead of pages.
func (c Chunk) Shared() bool { return c.BufferID == BufferShared }

// Direct reports whether the message carries block numbers that the
// service reads from the relation's files (XPU_BUFFER_DIRECT).
func (c Chunk) Direct() bool { return c.BufferID == BufferDirect }

// PagesLen is the byte length of the chunk's pages.
func (c Chunk) PagesLen() int { return int(c.NBlocks) * BlockSize }

// PagesEnd is where an inline chunk's pages end, from the start of the
// message.
func (c Chunk) PagesEnd() uint64 { return uint64(c.PagesOffset) + uint64(c.PagesLen()) }

// Pages returns an inline chunk's pages inside its message (or a copy of
// the message that ParseChunk validated).
func (c Chunk) Pages(msg []byte) []byte {
	return msg[c.PagesOffset:c.PagesEnd()]
}

// RefsLen is the byte length of a shared chunk's page refs.
func (c Chunk) RefsLen() int { return int(c.NBlocks) * PageRefSize }

// Refs returns the XpuPageRef array of a shared chunk inside its message.
func (c Chunk) Refs(msg []byte) []byte {
	return msg[c.PagesOffset : int(c.PagesOffset)+c.RefsLen()]
}

// ItemsCapacity is how many items the kernel may write for this chunk.
func (c Chunk) ItemsCapacity() int { return int(c.NBlocks) * MaxTuplesPerPage }

// MaxTaskExecLength is the longest valid TaskExec message: an inline
// chunk of MaxBlocksPerChunk pages right after its header, the largest
// of the three shapes.  The service refuses a header that claims more
// before it commits any memory to it.
const MaxTaskExecLength = (ChunkEnd+PagesAlign-1)/PagesAlign*PagesAlign + MaxBlocksPerChunk*BlockSize

// ParseChunk validates a whole TaskExec message (header included): the
// block count and the alignment of the pages, and, for an inline chunk
// (buffer_id 0), that the pages end exactly where the message ends.  A
// direct-read chunk (XPU_BUFFER_DIRECT) must end right after its block
// numbers; ParseDirect checks its XpuDirectFile and the numbers.  A
// shared chunk (XPU_BUFFER_SHARED) must end right after its refs; the refs
// themselves are checked by CheckPageRefs, which needs the count of shared
// buffers.  Any other buffer_id is a protocol error: it named a shared chunk
// buffer a client attached with ATTACH_BUFFER, which the service no longer
// supports.
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
	case !c.Inline() && !c.Shared() && !c.Direct():
		return Chunk{}, protoErr("xpu chunk %d: buffer_id %d is not supported: shared chunk buffers (ATTACH_BUFFER) were removed; want 0 (pages inline), XPU_BUFFER_SHARED (%#x, page refs) or XPU_BUFFER_DIRECT (%#x, block numbers)",
			c.ChunkID, c.BufferID, BufferShared, BufferDirect)
	case c.NBlocks == 0 || c.NBlocks > uint32(MaxBlocksPerChunk):
		return Chunk{}, protoErr("xpu chunk %d: %d blocks, want 1..%d", c.ChunkID, c.NBlocks, MaxBlocksPerChunk)
	case c.PagesOffset%PagesAlign != 0:
		return Chunk{}, protoErr("xpu chunk %d: pages_offset %d is not a multiple of %d", c.ChunkID, c.PagesOffset, PagesAlign)
	case c.Direct():
		if c.PagesOffset != uint32(DirectBlknosOffset) || len(msg) < DirectBlknosOffset {
			return Chunk{}, protoErr("xpu chunk %d: block numbers at offset %d, want %d (after the XpuDirectFile), in a message of %d bytes",
				c.ChunkID, c.PagesOffset, DirectBlknosOffset, len(msg))
		}
		end, what := uint64(c.PagesOffset)+4*uint64(c.NBlocks), "block numbers"
		if le.Uint32(msg[offDirFlags:])&DirectStamps != 0 {
			end, what = DirectStampsOffset(c.NBlocks)+8*uint64(c.NBlocks), "block numbers and stamps"
		}
		if end != uint64(len(msg)) {
			return Chunk{}, protoErr("xpu chunk %d: %d %s at offset %d end at byte %d, but the message has %d bytes",
				c.ChunkID, c.NBlocks, what, c.PagesOffset, end, len(msg))
		}
	case c.Shared():
		end := uint64(c.PagesOffset) + uint64(c.RefsLen())
		if c.PagesOffset < uint32(ChunkEnd) {
			return Chunk{}, protoErr("xpu chunk %d: page refs at offset %d overlap the chunk header (which ends at %d)", c.ChunkID, c.PagesOffset, ChunkEnd)
		}
		if end != uint64(len(msg)) {
			return Chunk{}, protoErr("xpu chunk %d: %d page refs at offset %d end at byte %d, but the message has %d bytes",
				c.ChunkID, c.NBlocks, c.PagesOffset, end, len(msg))
		}
	case c.PagesOffset < uint32(ChunkEnd):
		return Chunk{}, protoErr("xpu chunk %d: pages_offset %d overlaps the chunk header (which ends at %d)", c.ChunkID, c.PagesOffset, ChunkEnd)
	case c.PagesEnd() != uint64(len(msg)):
		return Chunk{}, protoErr("xpu chunk %d: %d pages at offset %d end at byte %d, but the message has %d bytes",
			c.ChunkID, c.NBlocks, c.PagesOffset, c.PagesEnd(), len(msg))
	}
	return c, nil
}

// CheckPageRefs validates every XpuPageRef of a shared chunk c (its
// message msg accepted by ParseChunk) against nbuffers, the count of shared
// buffers registered: buffer < nbuffers, nlines <= XPU_MAX_TUPLES_PER_PAGE
// and no flag outside XPU_PAGE_FLAGS_MASK.  Errors are protocol errors.
func CheckPageRefs(c Chunk, msg []byte, nbuffers uint32) error {
	refs := c.Refs(msg)
	for i := 0; i < int(c.NBlocks); i++ {
		if p := PageRefProblem(refs, i, nbuffers); p != "" {
			return protoErr("xpu chunk %d: %s", c.ChunkID, p)
		}
	}
	return nil
}

// PageRefProblem says why xpu_page_ref_valid refuses ref i of refs, or ""
// when the ref may be followed.
func PageRefProblem(refs []byte, i int, nbuffers uint32) string {
	r := refs[i*PageRefSize:]
	buffer := le.Uint32(r[OffRefBuffer:])
	nlines := le.Uint16(r[OffRefNLines:])
	flags := le.Uint16(r[OffRefFlags:])
	switch {
	case buffer >= nbuffers:
		return fmt.Sprintf("page ref %d names shared buffer %d, but there are %d", i, buffer, nbuffers)
	case int(nlines) > MaxTuplesPerPage:
		return fmt.Sprintf("page ref %d has %d line pointers, at most %d", i, nlines, MaxTuplesPerPage)
	case flags&^PageFlagsMask != 0:
		return fmt.Sprintf("page ref %d has flags %#x, only %#x are defined", i, flags, PageFlagsMask)
	case flags&PageStamped != 0 && flags&PageAllVisible == 0:
		return fmt.Sprintf("page ref %d is stamped but not all-visible (flags %#x)", i, flags)
	}
	return ""
}

// PageRefBuffer is the shared buffer that ref i of refs names.
func PageRefBuffer(refs []byte, i int) uint32 { return le.Uint32(refs[i*PageRefSize+OffRefBuffer:]) }

// SharedRegion is PostgreSQL's shared buffers as the service process sees
// them (mapped read-only): buffer i's page is at Base + i*BlockSize.
type SharedRegion struct {
	Base     uintptr
	NBuffers uint32
}

// Size is the region's length in bytes.
func (r SharedRegion) Size() uint64 { return uint64(r.NBuffers) * uint64(BlockSize) }
