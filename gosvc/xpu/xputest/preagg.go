package xputest

import "github.com/pgstrom-go/pg_strom/gosvc/xpu"

// RawKey is an XpuGroupKey as it goes on the wire.
type RawKey struct {
	Node     int32
	XType    xpu.Type
	Reserved int16
	Offset   uint32
	Width    uint32
}

// RawAgg is an XpuAggDesc as it goes on the wire.
type RawAgg struct {
	Kind    xpu.AggKind
	ArgType xpu.Type
	Arg     int32
	Filter  int32
	Offset  uint32
	Param   int32
}

// RawPreAgg is an XpuPreAggDesc with its arrays.  EntrySize 0 is
// computed by Message: the end of the last slot, rounded up to 16.
type RawPreAgg struct {
	EntrySize uint32
	Reserved  uint32
	Keys      []RawKey
	Aggs      []RawAgg
	next      uint32 // where GroupBy/Aggregate put the next slot
}

// keyWidth is the slot width of a non-text key of type t.
func keyWidth(t xpu.Type) uint32 {
	if t == xpu.TypeNumeric {
		return 32
	}
	return 16
}

// preagg turns the builder into a GpuPreAgg one.
func (b *Builder) preagg() *RawPreAgg {
	if b.PreAgg == nil {
		b.Kind = xpu.KindGpuPreAgg
		if b.Join != nil {
			b.Kind = xpu.KindGpuJoinPreAgg
		}
		b.PreAgg = &RawPreAgg{next: uint32(xpu.PreAggEntryHeader)}
	}
	return b.PreAgg
}

// GroupBy adds a group key over node (of the node's result type); textWidth
// is the slot width of a text key, ignored for other types.
func (b *Builder) GroupBy(node int, textWidth uint32) int {
	pa := b.preagg()
	t := b.Nodes[node].Restype
	w := keyWidth(t)
	if t == xpu.TypeText || t == xpu.TypeVarchar || t == xpu.TypeBpchar {
		w = textWidth
	}
	pa.Keys = append(pa.Keys, RawKey{Node: int32(node), XType: t, Offset: pa.next, Width: w})
	pa.next += (w + 15) / 16 * 16
	return len(pa.Keys) - 1
}

// Aggregate adds an accumulator of kind over node arg (-1: none) with an
// optional FILTER node (-1: none), and returns its index.
func (b *Builder) Aggregate(kind xpu.AggKind, arg, filter int) int {
	pa := b.preagg()
	a := RawAgg{Kind: kind, Arg: int32(arg), Filter: int32(filter), Offset: pa.next}
	if arg >= 0 {
		a.ArgType = b.Nodes[arg].Restype
	}
	pa.Aggs = append(pa.Aggs, a)
	pa.next += (uint32(kind.Bytes()) + 15) / 16 * 16
	return len(pa.Aggs) - 1
}

// entrySize is the entry size Message writes.
func (pa *RawPreAgg) entrySize() uint32 {
	if pa.EntrySize != 0 {
		return pa.EntrySize
	}
	return (max(pa.next, uint32(xpu.PreAggEntryHeader)) + 15) / 16 * 16
}

// putPreAgg writes the descriptor and its arrays at l's offsets.
func (b *Builder) putPreAgg(msg []byte, l Layout) {
	pa := b.PreAgg
	le.PutUint32(msg[xpu.OffSessPreAggOffset:], uint32(l.PreAggOffset))
	d := msg[l.PreAggOffset:]
	le.PutUint32(d[xpu.OffDescNKeys:], uint32(len(pa.Keys)))
	le.PutUint32(d[xpu.OffDescKeysOffset:], uint32(l.KeysOffset))
	le.PutUint32(d[xpu.OffDescNAggs:], uint32(len(pa.Aggs)))
	le.PutUint32(d[xpu.OffDescAggsOffset:], uint32(l.AggsOffset))
	le.PutUint32(d[xpu.OffDescEntrySize:], pa.entrySize())
	le.PutUint32(d[xpu.OffDescReserved:], pa.Reserved)
	for i, k := range pa.Keys {
		e := msg[l.KeysOffset+i*xpu.GroupKeySize:]
		le.PutUint32(e[xpu.OffKeyNode:], uint32(k.Node))
		le.PutUint16(e[xpu.OffKeyXType:], uint16(k.XType))
		le.PutUint16(e[xpu.OffKeyReserved:], uint16(k.Reserved))
		le.PutUint32(e[xpu.OffKeyOffset:], k.Offset)
		le.PutUint32(e[xpu.OffKeyWidth:], k.Width)
	}
	for i, a := range pa.Aggs {
		e := msg[l.AggsOffset+i*xpu.AggDescSize:]
		le.PutUint16(e[xpu.OffAggKind:], uint16(a.Kind))
		le.PutUint16(e[xpu.OffAggArgType:], uint16(a.ArgType))
		le.PutUint32(e[xpu.OffAggArg:], uint32(a.Arg))
		le.PutUint32(e[xpu.OffAggFilter:], uint32(a.Filter))
		le.PutUint32(e[xpu.OffAggOffset:], a.Offset)
		le.PutUint32(e[xpu.OffAggParam:], uint32(a.Param))
	}
}
