package xpu

// JoinInnerLayout is where xpu_join_inner_layout puts the regions of one
// depth's inner buffer (XpuJoinInner, then the rows, the buckets, the
// chain links and the hashes, each 256-byte aligned), and the buffer's
// size.  Offsets are from the buffer's start.
type JoinInnerLayout struct {
	Depth, NRows, RowSize, NBuckets uint32
	RowsOffset, BucketsOffset       uint64
	NextOffset, HashesOffset        uint64
	Size                            uint64
}

func alignInner(off uint64) uint64 {
	return (off + joinInnerRegAlign - 1) &^ (joinInnerRegAlign - 1)
}

// JoinNBuckets is the service's bucket count for nrows inner rows: the
// next power of two >= nrows, at least 1.
func JoinNBuckets(nrows uint32) uint32 {
	n := uint32(1)
	for n < nrows {
		n <<= 1
	}
	return n
}

// NewJoinInnerLayout lays out a buffer of nrows rows of rowSize bytes
// with nbuckets buckets, as xpu_join_inner_layout does (the host
// executor's tests compare the two).
func NewJoinInnerLayout(depth, nrows, rowSize, nbuckets uint32) JoinInnerLayout {
	l := JoinInnerLayout{Depth: depth, NRows: nrows, RowSize: rowSize, NBuckets: nbuckets}
	l.RowsOffset = joinInnerRegAlign
	l.BucketsOffset = alignInner(l.RowsOffset + uint64(nrows)*uint64(rowSize))
	l.NextOffset = alignInner(l.BucketsOffset + 4*uint64(nbuckets))
	l.HashesOffset = alignInner(l.NextOffset + 4*uint64(nrows))
	l.Size = l.HashesOffset + 4*uint64(nrows)
	return l
}

// PutHeader writes the XpuJoinInner header (JoinInnerSize bytes) into dst.
func (l JoinInnerLayout) PutHeader(dst []byte) {
	_ = dst[JoinInnerSize-1]
	le.PutUint32(dst[offJInnerNRows:], l.NRows)
	le.PutUint32(dst[offJInnerRowSize:], l.RowSize)
	le.PutUint32(dst[offJInnerNBuckets:], l.NBuckets)
	le.PutUint32(dst[offJInnerDepth:], l.Depth)
	le.PutUint64(dst[offJInnerRowsOffset:], l.RowsOffset)
	le.PutUint64(dst[offJInnerBucketsOffset:], l.BucketsOffset)
	le.PutUint64(dst[offJInnerNextOffset:], l.NextOffset)
	le.PutUint64(dst[offJInnerHashesOffset:], l.HashesOffset)
}

// Records are GpuJoin's output records, Stride uint32 words each (the
// outer item, then an inner row index or JoinNoInner per depth): the items
// of a GpuJoin TaskExec reply, whose nitems counts records.
type Records struct {
	Words  []uint32
	Stride int
}

func (r Records) Count() int { return len(r.Words) / r.Stride }
func (r Records) Size() int  { return 4 * len(r.Words) }
func (r Records) Put(dst []byte) {
	for i, w := range r.Words {
		le.PutUint32(dst[4*i:], w)
	}
}

// DecodeChunkRecords decodes a GpuJoin TaskExec reply (Success or
// SuccessHalfway) whose items are records of stride words; clients and
// tests use it.
func DecodeChunkRecords(msg []byte, stride int) (ChunkResult, []uint32, error) {
	return decodeChunkWords(msg, stride)
}
