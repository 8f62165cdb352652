package xpu

import (
	"fmt"
	"sort"
)

// ParsePreAgg validates the XpuPreAggDesc of a GPUPREAGG session at
// preagg_offset, and its key and aggregate arrays, against msg and the
// program p that ParseProgram accepted from it: the descriptor and its
// arrays may not overlap the program's arrays, nor each other.  Every
// error wraps protocol.ErrProtocol.
func ParsePreAgg(msg []byte, p *Program) (*PreAgg, error) {
	if p.JoinOffset != 0 {
		return nil, protoErr("xpu preagg: join_offset is %d in a GpuPreAgg session, must be 0", p.JoinOffset)
	}
	pa, _, err := parsePreAgg(msg, p, false, p.regions)
	return pa, err
}

// parsePreAgg is ParsePreAgg's work, for a GpuPreAgg session or the
// grouping of a fused GpuJoin + GpuPreAgg one (whose keys, arguments and
// FILTERs may be nodes after the root: xpu_preagg_node_ok); its arrays may
// overlap none of others.  It returns the regions it used.
func parsePreAgg(msg []byte, p *Program, fused bool, others []region) (*PreAgg, []region, error) {
	others = others[:len(others):len(others)] // appends below copy
	descOff := p.PreAggOffset
	if descOff == 0 {
		return nil, nil, protoErr("xpu preagg: preagg_offset is 0 in a GpuPreAgg session")
	}
	desc := region{"preagg descriptor", descOff, 1, PreAggDescSize, alignPreAggDesc}
	if err := checkRegions(len(msg), SessionEnd, append(others, desc)...); err != nil {
		return nil, nil, err
	}
	d := msg[descOff:]
	nkeys, naggs := le.Uint32(d[OffDescNKeys:]), le.Uint32(d[OffDescNAggs:])
	entrySize := le.Uint32(d[OffDescEntrySize:])
	switch {
	case nkeys > uint32(PreAggMaxKeys):
		return nil, nil, protoErr("xpu preagg: %d group keys, at most %d (XPU_PREAGG_MAX_KEYS)", nkeys, PreAggMaxKeys)
	case naggs > uint32(PreAggMaxAggs):
		return nil, nil, protoErr("xpu preagg: %d aggregates, at most %d (XPU_PREAGG_MAX_AGGS)", naggs, PreAggMaxAggs)
	case entrySize%PreAggEntryAlign != 0 || entrySize < uint32(PreAggEntryHeader) || entrySize > uint32(PreAggMaxEntry):
		return nil, nil, protoErr("xpu preagg: entry_size %d, want a multiple of %d in [%d, %d]",
			entrySize, PreAggEntryAlign, PreAggEntryHeader, PreAggMaxEntry)
	case le.Uint32(d[OffDescReserved:]) != 0:
		return nil, nil, protoErr("xpu preagg: descriptor reserved field is %d, must be 0", le.Uint32(d[OffDescReserved:]))
	}
	keys := region{"group key array", le.Uint32(d[OffDescKeysOffset:]), nkeys, GroupKeySize, alignGroupKey}
	aggs := region{"aggregate array", le.Uint32(d[OffDescAggsOffset:]), naggs, AggDescSize, alignAggDesc}
	if err := checkRegions(len(msg), SessionEnd, append(others, desc, keys, aggs)...); err != nil {
		return nil, nil, err
	}
	pa := &PreAgg{EntrySize: entrySize, Keys: make([]GroupKey, nkeys), Aggs: make([]AggDesc, naggs)}
	var slots []slot
	for i := range pa.Keys {
		k, err := decodeKey(msg[uint64(keys.off)+uint64(i*GroupKeySize):], p, fused)
		if err != nil {
			return nil, nil, protoErr("xpu preagg: group key %d: %v", i, err)
		}
		pa.Keys[i] = k
		slots = append(slots, slot{fmt.Sprintf("group key %d", i), k.Offset, k.Width})
	}
	for i := range pa.Aggs {
		a, err := decodeAgg(msg[uint64(aggs.off)+uint64(i*AggDescSize):], p, fused)
		if err != nil {
			return nil, nil, protoErr("xpu preagg: aggregate %d: %v", i, err)
		}
		pa.Aggs[i] = a
		slots = append(slots, slot{fmt.Sprintf("aggregate %d (%s)", i, a.Kind), a.Offset, uint32(a.Kind.Bytes())})
	}
	if err := checkSlots(slots, entrySize); err != nil {
		return nil, nil, protoErr("xpu preagg: %v", err)
	}
	return pa, []region{desc, keys, aggs}, nil
}

// descNode checks a node index the descriptor uses: evaluated before the
// root qual, so the interpreter's one pass over 0..root computes it.
func descNode(p *Program, what string, n int32) (Node, error) {
	if n < 0 || int(n) >= p.Root {
		return Node{}, fmt.Errorf("%s is node %d, must be a node before the root (0..%d)", what, n, p.Root-1)
	}
	return p.Nodes[n], nil
}

// groupNode checks a node index a key, argument or FILTER uses: descNode's,
// or in a fused session any node but the root (those after it are
// evaluated per join combination).
func groupNode(p *Program, fused bool, what string, n int32) (Node, error) {
	if !fused {
		return descNode(p, what, n)
	}
	if n < 0 || int(n) >= len(p.Nodes) || int(n) == p.Root {
		return Node{}, fmt.Errorf("%s is node %d, must be a node other than the root %d (0..%d)", what, n, p.Root, len(p.Nodes)-1)
	}
	return p.Nodes[n], nil
}

func decodeKey(b []byte, p *Program, fused bool) (GroupKey, error) {
	k := GroupKey{
		Node:   int32(le.Uint32(b[OffKeyNode:])),
		XType:  Type(int16(le.Uint16(b[OffKeyXType:]))),
		Offset: le.Uint32(b[OffKeyOffset:]),
		Width:  le.Uint32(b[OffKeyWidth:]),
	}
	if r := le.Uint16(b[OffKeyReserved:]); r != 0 {
		return k, fmt.Errorf("reserved field is %d, must be 0", r)
	}
	nd, err := groupNode(p, fused, "the key", k.Node)
	if err != nil {
		return k, err
	}
	if k.XType != nd.Restype {
		return k, fmt.Errorf("xtype %s but node %d returns %s", k.XType, k.Node, nd.Restype)
	}
	if !KeyWidthOK(k.XType, k.Width) {
		return k, fmt.Errorf("width %d is not a valid %s key slot (16; NUMERIC 32; text 16..%d in steps of 16)",
			k.Width, k.XType, 8+PreAggMaxTextKey)
	}
	return k, nil
}

func decodeAgg(b []byte, p *Program, fused bool) (AggDesc, error) {
	a := AggDesc{
		Kind:    AggKind(int16(le.Uint16(b[OffAggKind:]))),
		ArgType: Type(int16(le.Uint16(b[OffAggArgType:]))),
		Arg:     int32(le.Uint32(b[OffAggArg:])),
		Filter:  int32(le.Uint32(b[OffAggFilter:])),
		Offset:  le.Uint32(b[OffAggOffset:]),
		Param:   int32(le.Uint32(b[OffAggParam:])),
	}
	if !a.Kind.Valid() {
		return a, fmt.Errorf("unknown kind %d", a.Kind)
	}
	if a.ArgType == TypeNumeric && a.Kind != AggCount {
		maxScale := PreAggMaxNumericScale
		if a.Kind == AggSumNumV {
			maxScale = PreAggMaxNumVScale
		}
		if a.Param < 0 || a.Param > maxScale {
			return a, fmt.Errorf("%s of NUMERIC at scale %d, must be 0..%d", a.Kind, a.Param, maxScale)
		}
	} else if a.Param != 0 {
		return a, fmt.Errorf("param %d for %s of %s, must be 0", a.Param, a.Kind, a.ArgType)
	}
	if a.Arg == -1 {
		if a.Kind != AggCount {
			return a, fmt.Errorf("%s without an argument (arg -1 is for COUNT only)", a.Kind)
		}
		if a.ArgType != TypeInvalid {
			return a, fmt.Errorf("argtype %s with arg -1, must be 0", a.ArgType)
		}
	} else {
		nd, err := groupNode(p, fused, "the argument", a.Arg)
		if err != nil {
			return a, err
		}
		if a.ArgType != nd.Restype {
			return a, fmt.Errorf("argtype %s but node %d returns %s", a.ArgType, a.Arg, nd.Restype)
		}
		if !a.Kind.AcceptsArg(a.ArgType) {
			return a, fmt.Errorf("%s does not accept an argument of type %s", a.Kind, a.ArgType)
		}
	}
	if a.Filter != -1 {
		nd, err := groupNode(p, fused, "the filter", a.Filter)
		if err != nil {
			return a, err
		}
		if nd.Restype != TypeBool {
			return a, fmt.Errorf("the filter node %d returns %s, must return BOOL", a.Filter, nd.Restype)
		}
	}
	return a, nil
}

// slot is a key slot or an accumulator in the entry.
type slot struct {
	name       string
	off, bytes uint32
}

func (s slot) end() uint64 { return uint64(s.off) + uint64(s.bytes) }

// checkSlots: each slot 16-aligned, after the entry header, inside the
// entry, and no two share a byte.
func checkSlots(slots []slot, entrySize uint32) error {
	for _, s := range slots {
		switch {
		case s.off%PreAggEntryAlign != 0:
			return fmt.Errorf("%s at offset %d, not a multiple of %d", s.name, s.off, PreAggEntryAlign)
		case s.off < uint32(PreAggEntryHeader):
			return fmt.Errorf("%s at offset %d overlaps the %d-byte entry header", s.name, s.off, PreAggEntryHeader)
		case s.end() > uint64(entrySize):
			return fmt.Errorf("%s [%d, %d) runs past the %d-byte entry", s.name, s.off, s.end(), entrySize)
		}
	}
	return checkOverlaps(slots)
}

// checkOverlaps: no two slots share a byte.
func checkOverlaps(slots []slot) error {
	sorted := append([]slot(nil), slots...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].off < sorted[j].off })
	for i := 1; i < len(sorted); i++ {
		if prev := sorted[i-1]; prev.end() > uint64(sorted[i].off) {
			return fmt.Errorf("%s [%d, %d) overlaps %s [%d, %d)",
				prev.name, prev.off, prev.end(), sorted[i].name, sorted[i].off, sorted[i].end())
		}
	}
	return nil
}
