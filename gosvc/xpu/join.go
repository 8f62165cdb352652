package xpu

import (
	"fmt"
	"strconv"
)

// Join is a validated XpuJoinDesc with its depths and keys: what a GpuJoin
// session joins its outer rows with.  Every key's node is < Program.Root.
type Join struct {
	Depths []JoinDepth
	// Cols are the payload columns (XpuJoinCol) that INNER_VARs of a fused
	// GpuJoin + GpuPreAgg session read; none in a plain GpuJoin session.
	Cols []JoinCol
	// Quals are the residual join qual node of each depth (-1: none) of a
	// fused session; nil without (quals_offset 0).
	Quals []int32
	// InnerKey keys the inner rows' device buffers when nonzero (the
	// leaves' sessions of a partitioned outer side share it); 0: the
	// session's plan id does.
	InnerKey uint64
}

// JoinCol is XpuJoinCol: a payload slot of the inner rows of one depth.
type JoinCol struct {
	Depth      int
	InnerXType Type
	Offset     uint32
	Width      uint32
}

// JoinDepth is XpuJoinDepth with its keys.
type JoinDepth struct {
	Type    JoinType
	RowSize uint32 // bytes of one inner row of the depth
	Keys    []JoinKey
}

// JoinKey is XpuJoinKey.
type JoinKey struct {
	Node       int32
	OuterXType Type
	InnerXType Type
	Offset     uint32 // slot offset in the inner row
	Width      uint32
}

// Stride is the uint32 words of one output record: the outer item and one
// inner row index per depth.
func (j *Join) Stride() int { return 1 + len(j.Depths) }

// Valid reports whether t is a join type of the header.
func (t JoinType) Valid() bool { return t >= JoinInner && t <= JoinAnti }

func (t JoinType) String() string {
	switch t {
	case JoinInner:
		return "INNER"
	case JoinLeft:
		return "LEFT"
	case JoinSemi:
		return "SEMI"
	case JoinAnti:
		return "ANTI"
	}
	return "JoinType(" + strconv.Itoa(int(t)) + ")"
}

// JoinTypesJoinable reports whether an outer key of type outer can be
// joined with an inner slot of type inner on the device: their hash and
// equality there are PostgreSQL's (xpu_join_types_joinable): integers of
// any width, text with varchar, otherwise the same type.
func JoinTypesJoinable(outer, inner Type) bool {
	switch {
	case !outer.Valid() || !inner.Valid():
		return false
	case outer.isInteger() && inner.isInteger():
		return true
	case outer == inner:
		return true
	}
	textual := func(t Type) bool { return t == TypeText || t == TypeVarchar }
	return textual(outer) && textual(inner)
}

// ParseJoin validates the XpuJoinDesc of a GPUJOIN session at join_offset,
// and its depth and key arrays, against msg and the program p that
// ParseProgram accepted from it, as the kernels' xpu_join_setup_serial
// does (and stricter on the encoding: alignment, no overlaps).  Every
// error wraps protocol.ErrProtocol.
func ParseJoin(msg []byte, p *Program) (*Join, error) {
	if p.PreAggOffset != 0 {
		return nil, protoErr("xpu join: preagg_offset is %d in a GpuJoin session, must be 0 (a fused GpuPreAgg is a session of kind %d)", p.PreAggOffset, KindGpuJoinPreAgg)
	}
	j, _, err := parseJoin(msg, p, false, p.regions)
	if err != nil {
		return nil, err
	}
	if j.Quals != nil {
		if err := checkInnerStage(p, j); err != nil {
			return nil, protoErr("xpu join: %v", err)
		}
	}
	return j, nil
}

// parseJoin is ParseJoin's work, for a plain GpuJoin session (payload
// columns with residual quals only) or the join part of a fused one; its
// arrays may overlap none of others.  It returns the regions it used.
func parseJoin(msg []byte, p *Program, fused bool, others []region) (*Join, []region, error) {
	others = others[:len(others):len(others)] // appends below copy
	if p.JoinOffset == 0 {
		return nil, nil, protoErr("xpu join: join_offset is 0 in a GpuJoin session")
	}
	desc := region{"join descriptor", p.JoinOffset, 1, JoinDescSize, alignJoinDesc}
	if err := checkRegions(len(msg), SessionEnd, append(others, desc)...); err != nil {
		return nil, nil, err
	}
	d := msg[p.JoinOffset:]
	ndepths, nkeys := le.Uint32(d[OffJDescNDepths:]), le.Uint32(d[OffJDescNKeys:])
	ncols, colsOff, qualsOff := le.Uint32(d[OffJDescNCols:]), le.Uint32(d[OffJDescColsOffset:]), le.Uint32(d[OffJDescQualsOffset:])
	if f := le.Uint32(d[OffJDescFlags:]); f != 0 {
		return nil, nil, protoErr("xpu join: descriptor flags %#x, must be 0", f)
	}
	if !fused && qualsOff == 0 {
		// A plain GpuJoin reads inner values only for its residual quals.
		for _, f := range []struct {
			name string
			v    uint32
		}{{"ncols", ncols}, {"cols_offset", colsOff}} {
			if f.v != 0 {
				return nil, nil, protoErr("xpu join: descriptor %s is %d in a GpuJoin session without residual quals, must be 0", f.name, f.v)
			}
		}
	}
	switch {
	case ndepths < 1 || ndepths > uint32(JoinMaxDepths):
		return nil, nil, protoErr("xpu join: %d depths, want 1..%d (XPU_JOIN_MAX_DEPTHS)", ndepths, JoinMaxDepths)
	case nkeys < ndepths || nkeys > uint32(JoinMaxDepths*JoinMaxKeys):
		return nil, nil, protoErr("xpu join: %d keys for %d depths, want %d..%d", nkeys, ndepths, ndepths, JoinMaxDepths*JoinMaxKeys)
	case ncols > uint32(JoinMaxCols):
		return nil, nil, protoErr("xpu join: %d payload columns, at most %d (XPU_JOIN_MAX_COLS)", ncols, JoinMaxCols)
	}
	depths := region{"join depth array", le.Uint32(d[OffJDescDepthsOffset:]), ndepths, JoinDepthSize, alignJoinDepth}
	keys := region{"join key array", le.Uint32(d[OffJDescKeysOffset:]), nkeys, JoinKeySize, alignJoinKey}
	cols := region{"join column array", colsOff, ncols, JoinColSize, alignJoinCol}
	quals := region{"join qual array", qualsOff, 0, 4, alignJoinQual}
	if qualsOff != 0 {
		quals.count = ndepths
	}
	used := []region{desc, depths, keys, cols, quals}
	if err := checkRegions(len(msg), SessionEnd, append(others, used...)...); err != nil {
		return nil, nil, err
	}
	j := &Join{Depths: make([]JoinDepth, ndepths), InnerKey: le.Uint64(d[OffJDescInnerKey:])}
	slots := make([][]slot, ndepths) // each depth's key and column slots
	next := uint32(0)                // the key range of depth d starts where d-1's ends
	for i := range j.Depths {
		b := msg[uint64(depths.off)+uint64(i*JoinDepthSize):]
		jd, first, n, err := decodeDepth(b)
		if err == nil && first != next {
			err = fmt.Errorf("keys start at %d, must start at %d where the previous depth's end", first, next)
		}
		if err == nil && (uint64(first)+uint64(n) > uint64(nkeys) || i == len(j.Depths)-1 && first+n != nkeys) {
			err = fmt.Errorf("keys [%d, %d) do not end inside the descriptor's %d keys (the last depth's at its end)", first, uint64(first)+uint64(n), nkeys)
		}
		if err != nil {
			return nil, nil, protoErr("xpu join: depth %d: %v", i, err)
		}
		next = first + n
		for k := uint32(0); k < n; k++ {
			key, err := decodeJoinKey(msg[uint64(keys.off)+uint64((first+k)*uint32(JoinKeySize)):], p)
			if err != nil {
				return nil, nil, protoErr("xpu join: depth %d key %d: %v", i, first+k, err)
			}
			jd.Keys = append(jd.Keys, key)
			slots[i] = append(slots[i], slot{fmt.Sprintf("key %d", first+k), key.Offset, key.Width})
		}
		j.Depths[i] = jd
	}
	for c := uint32(0); c < ncols; c++ {
		col, err := decodeJoinCol(msg[uint64(cols.off)+uint64(c*uint32(JoinColSize)):], j)
		if err != nil {
			return nil, nil, protoErr("xpu join: payload column %d: %v", c, err)
		}
		j.Cols = append(j.Cols, col)
		slots[col.Depth] = append(slots[col.Depth], slot{fmt.Sprintf("payload column %d", c), col.Offset, col.Width})
	}
	for i := range j.Depths {
		if err := checkRowSlots(slots[i], j.Depths[i].RowSize); err != nil {
			return nil, nil, protoErr("xpu join: depth %d: %v", i, err)
		}
	}
	if qualsOff != 0 {
		j.Quals = make([]int32, ndepths)
		for i := range j.Quals {
			j.Quals[i] = int32(le.Uint32(msg[uint64(qualsOff)+uint64(4*i):]))
		}
	}
	return j, used, nil
}

// decodeDepth decodes and checks one XpuJoinDepth, returning its key range.
func decodeDepth(b []byte) (JoinDepth, uint32, uint32, error) {
	jd := JoinDepth{Type: JoinType(int16(le.Uint16(b[OffJDepthJoinType:]))), RowSize: le.Uint32(b[OffJDepthRowSize:])}
	first, n := le.Uint32(b[OffJDepthKeyFirst:]), le.Uint32(b[OffJDepthNKeys:])
	switch r := le.Uint16(b[OffJDepthReserved:]); {
	case r != 0:
		return jd, 0, 0, fmt.Errorf("depth reserved field is %d, must be 0", r)
	case !jd.Type.Valid():
		return jd, 0, 0, fmt.Errorf("unknown join type %d (INNER, LEFT, SEMI and ANTI are offered)", jd.Type)
	case jd.RowSize%joinSlotAlign != 0 || jd.RowSize < joinSlotAlign || jd.RowSize > uint32(JoinMaxRow):
		return jd, 0, 0, fmt.Errorf("row_size %d, want a multiple of %d in [%d, %d]", jd.RowSize, joinSlotAlign, joinSlotAlign, JoinMaxRow)
	case n < 1 || n > uint32(JoinMaxKeys):
		return jd, 0, 0, fmt.Errorf("%d keys, want 1..%d (XPU_JOIN_MAX_KEYS)", n, JoinMaxKeys)
	}
	return jd, first, n, nil
}

func decodeJoinKey(b []byte, p *Program) (JoinKey, error) {
	k := JoinKey{
		Node:       int32(le.Uint32(b[OffJKeyNode:])),
		OuterXType: Type(int16(le.Uint16(b[OffJKeyOuterXType:]))),
		InnerXType: Type(int16(le.Uint16(b[OffJKeyInnerXType:]))),
		Offset:     le.Uint32(b[OffJKeyOffset:]),
		Width:      le.Uint32(b[OffJKeyWidth:]),
	}
	if !JoinTypesJoinable(k.OuterXType, k.InnerXType) {
		return k, fmt.Errorf("outer %s and inner %s cannot be joined on the device", k.OuterXType, k.InnerXType)
	}
	nd, err := descNode(p, "the outer key", k.Node)
	if err != nil {
		return k, err
	}
	if k.OuterXType != nd.Restype {
		return k, fmt.Errorf("outer_xtype %s but node %d returns %s", k.OuterXType, k.Node, nd.Restype)
	}
	if !joinKeyWidthOK(k.InnerXType, k.Width) {
		return k, fmt.Errorf("width %d is not a valid %s key slot (16; NUMERIC 32; text 16..%d in steps of 16)",
			k.Width, k.InnerXType, 8+JoinMaxTextKey)
	}
	return k, nil
}

// decodeJoinCol decodes and checks one XpuJoinCol against the depths (as
// xpu_join_validate_col; its slot is checked with the depth's key slots).
func decodeJoinCol(b []byte, j *Join) (JoinCol, error) {
	c := JoinCol{
		Depth:      int(int16(le.Uint16(b[OffJColDepth:]))),
		InnerXType: Type(int16(le.Uint16(b[OffJColInnerXType:]))),
		Offset:     le.Uint32(b[OffJColOffset:]),
		Width:      le.Uint32(b[OffJColWidth:]),
	}
	switch r := le.Uint32(b[OffJColReserved:]); {
	case r != 0:
		return c, fmt.Errorf("reserved field is %d, must be 0", r)
	case c.Depth < 0 || c.Depth >= len(j.Depths):
		return c, fmt.Errorf("depth %d of a join of %d depths", c.Depth, len(j.Depths))
	case j.Depths[c.Depth].Type != JoinInner && j.Depths[c.Depth].Type != JoinLeft:
		return c, fmt.Errorf("depth %d is a %s join, which has no matched row to read (INNER and LEFT depths only)", c.Depth, j.Depths[c.Depth].Type)
	case !c.InnerXType.Valid():
		return c, fmt.Errorf("unknown inner_xtype %d", c.InnerXType)
	case !joinKeyWidthOK(c.InnerXType, c.Width):
		return c, fmt.Errorf("width %d is not a valid %s slot (16; NUMERIC 32; text 16..%d in steps of 16)",
			c.Width, c.InnerXType, 8+JoinMaxTextKey)
	}
	return c, nil
}

// joinKeyWidthOK: the inner slot widths of xpu_join_validate_depth, which
// are GpuPreAgg's key widths with GpuJoin's text limit.
func joinKeyWidthOK(t Type, width uint32) bool {
	if t.isText() {
		return width >= joinSlotAlign && width%joinSlotAlign == 0 && width <= uint32(8+JoinMaxTextKey)
	}
	return KeyWidthOK(t, width)
}

// checkRowSlots: each key slot 16-aligned, inside the row, and no two
// share a byte.
func checkRowSlots(slots []slot, rowSize uint32) error {
	for _, s := range slots {
		switch {
		case s.off%joinSlotAlign != 0:
			return fmt.Errorf("%s at offset %d, not a multiple of %d", s.name, s.off, joinSlotAlign)
		case s.end() > uint64(rowSize):
			return fmt.Errorf("%s [%d, %d) runs past the %d-byte inner row", s.name, s.off, s.end(), rowSize)
		}
	}
	return checkOverlaps(slots)
}
