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

// RawJoinCol is an XpuJoinCol as it goes on the wire.
type RawJoinCol struct {
	Depth      int16
	InnerXType xpu.Type
	Offset     uint32
	Width      uint32
	Reserved   uint32
}

// RawJoin is an XpuJoinDesc with its arrays.  Quals nil: quals_offset 0.
type RawJoin struct {
	Flags  uint32
	Depths []RawJoinDepth
	Keys   []RawJoinKey
	Cols   []RawJoinCol
	Quals  []int32
}

// JoinDepth turns the builder into a GpuJoin one and adds a depth of
// type t whose inner rows are rowSize bytes; JoinKey adds its keys.
func (b *Builder) JoinDepth(t xpu.JoinType, rowSize uint32) int {
	if b.Join == nil {
		b.Kind = xpu.KindGpuJoin
		if b.PreAgg != nil {
			b.Kind = xpu.KindGpuJoinPreAgg
		}
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

// JoinCol adds a payload column of depth (an inner slot of type t at
// offset, width bytes) and returns its index.
func (b *Builder) JoinCol(depth int, t xpu.Type, offset, width uint32) int {
	j := b.Join
	j.Cols = append(j.Cols, RawJoinCol{Depth: int16(depth), InnerXType: t, Offset: offset, Width: width})
	return len(j.Cols) - 1
}

// InnerVar appends an INNER_VAR node reading payload column col.
func (b *Builder) InnerVar(col int) int {
	return b.Raw(RawNode{Opcode: xpu.OpInnerVar, Restype: b.Join.Cols[col].InnerXType, Aux: int32(col)})
}

// JoinQual makes node the residual join qual of depth (the others -1).
func (b *Builder) JoinQual(depth, node int) {
	j := b.Join
	if j.Quals == nil {
		j.Quals = make([]int32, len(j.Depths))
		for i := range j.Quals {
			j.Quals[i] = -1
		}
	}
	j.Quals[depth] = int32(node)
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
	le.PutUint32(d[xpu.OffJDescNCols:], uint32(len(j.Cols)))
	if len(j.Cols) > 0 {
		le.PutUint32(d[xpu.OffJDescColsOffset:], uint32(l.JoinColsOffset))
	}
	if j.Quals != nil {
		le.PutUint32(d[xpu.OffJDescQualsOffset:], uint32(l.JoinQualsOffset))
	}
	for i, c := range j.Cols {
		e := msg[l.JoinColsOffset+i*xpu.JoinColSize:]
		le.PutUint16(e[xpu.OffJColDepth:], uint16(c.Depth))
		le.PutUint16(e[xpu.OffJColInnerXType:], uint16(c.InnerXType))
		le.PutUint32(e[xpu.OffJColOffset:], c.Offset)
		le.PutUint32(e[xpu.OffJColWidth:], c.Width)
		le.PutUint32(e[xpu.OffJColReserved:], c.Reserved)
	}
	for i, q := range j.Quals {
		le.PutUint32(msg[l.JoinQualsOffset+4*i:], uint32(q))
	}
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
