package xputest

import "github.com/pgstrom-go/pg_strom/gosvc/xpu"

// RawJoinDepth is an XpuJoinDepth as it goes on the wire.
type RawJoinDepth struct {
	Type     xpu.JoinType
	Reserved int16
	NKeys    uint32
	KeyFirst uint32
	RowSize  uint32
}

// RawJoinKey is an XpuJoinKey as it goes on the wire.
type RawJoinKey struct {
	Node       int32
	OuterXType xpu.Type
	InnerXType xpu.Type
	Offset     uint32
	Width      uint32
}

// RawJoin is an XpuJoinDesc with its arrays.
type RawJoin struct {
	Flags  uint32
	Depths []RawJoinDepth
	Keys   []RawJoinKey
}

// JoinDepth turns the builder into a GpuJoin one and adds a depth of
// type t whose inner rows are rowSize bytes; JoinKey adds its keys.
func (b *Builder) JoinDepth(t xpu.JoinType, rowSize uint32) int {
	if b.Join == nil {
		b.Kind = xpu.KindGpuJoin
		b.Join = &RawJoin{}
	}
	j := b.Join
	j.Depths = append(j.Depths, RawJoinDepth{Type: t, KeyFirst: uint32(len(j.Keys)), RowSize: rowSize})
	return len(j.Depths) - 1
}

// JoinKey adds a key to the last depth: outer node (of its result type)
// equals the inner slot of type inner at offset, width bytes wide.
func (b *Builder) JoinKey(node int, inner xpu.Type, offset, width uint32) int {
	j := b.Join
	j.Keys = append(j.Keys, RawJoinKey{Node: int32(node), OuterXType: b.Nodes[node].Restype, InnerXType: inner, Offset: offset, Width: width})
	j.Depths[len(j.Depths)-1].NKeys++
	return len(j.Keys) - 1
}

// putJoin writes the descriptor and its arrays at l's offsets.
func (b *Builder) putJoin(msg []byte, l Layout) {
	j := b.Join
	le.PutUint32(msg[xpu.OffSessJoinOffset:], uint32(l.JoinOffset))
	d := msg[l.JoinOffset:]
	le.PutUint32(d[xpu.OffJDescNDepths:], uint32(len(j.Depths)))
	le.PutUint32(d[xpu.OffJDescDepthsOffset:], uint32(l.JoinDepthsOffset))
	le.PutUint32(d[xpu.OffJDescNKeys:], uint32(len(j.Keys)))
	le.PutUint32(d[xpu.OffJDescKeysOffset:], uint32(l.JoinKeysOffset))
	le.PutUint32(d[xpu.OffJDescFlags:], j.Flags)
	for i, dp := range j.Depths {
		e := msg[l.JoinDepthsOffset+i*xpu.JoinDepthSize:]
		le.PutUint16(e[xpu.OffJDepthJoinType:], uint16(dp.Type))
		le.PutUint16(e[xpu.OffJDepthReserved:], uint16(dp.Reserved))
		le.PutUint32(e[xpu.OffJDepthNKeys:], dp.NKeys)
		le.PutUint32(e[xpu.OffJDepthKeyFirst:], dp.KeyFirst)
		le.PutUint32(e[xpu.OffJDepthRowSize:], dp.RowSize)
	}
	for i, k := range j.Keys {
		e := msg[l.JoinKeysOffset+i*xpu.JoinKeySize:]
		le.PutUint32(e[xpu.OffJKeyNode:], uint32(k.Node))
		le.PutUint16(e[xpu.OffJKeyOuterXType:], uint16(k.OuterXType))
		le.PutUint16(e[xpu.OffJKeyInnerXType:], uint16(k.InnerXType))
		le.PutUint32(e[xpu.OffJKeyOffset:], k.Offset)
		le.PutUint32(e[xpu.OffJKeyWidth:], k.Width)
	}
}

// IntSlot is an inner row's key slot of an integer type (int2/4/8, date,
// timestamps): the NULL flag, then the value sign-extended at +8.
func IntSlot(row []byte, off uint32, v int64, null bool) {
	if null {
		row[off] = 1
		return
	}
	le.PutUint64(row[off+8:], uint64(v))
}

// TextSlot is an inner row's key slot of a text type: the length at +4,
// the bytes from +8.
func TextSlot(row []byte, off uint32, s string) {
	le.PutUint32(row[off+4:], uint32(len(s)))
	copy(row[off+8:], s)
}
