package xpu

import "strconv"

// PreAgg is a validated XpuPreAggDesc with its key and aggregate arrays:
// where a GpuPreAgg session's group entries keep their keys and
// accumulators.  Every node index in it is < Program.Root.
type PreAgg struct {
	EntrySize uint32 // bytes of one group entry
	Keys      []GroupKey
	Aggs      []AggDesc
}

// GroupKey is XpuGroupKey.
type GroupKey struct {
	Node   int32
	XType  Type
	Offset uint32 // slot offset in the entry
	Width  uint32 // slot bytes
}

// AggDesc is XpuAggDesc.
type AggDesc struct {
	Kind    AggKind
	ArgType Type  // TypeInvalid when Arg is -1
	Arg     int32 // node index, or -1 (count(*))
	Filter  int32 // BOOL node index, or -1
	Offset  uint32
	Param   int32 // NUMERIC argument of SUM_INT/MIN_INT/MAX_INT/SUM_NUMV: its scale; else 0
}

// AggKind is XpuAggKind.
type AggKind int16

// aggInfo is one row of XPU_AGG_LIST.
type aggInfo struct {
	name  string
	bytes int
}

var aggTable = func() []aggInfo {
	t := make([]aggInfo, numAggKinds)
	for i := range t {
		t[i].name, t[i].bytes = aggDesc(i)
	}
	return t
}()

// Valid reports whether k is an accumulator kind of the header's list.
func (k AggKind) Valid() bool { return k > AggInvalid && int(k) < numAggKinds }

// String is the header's name, e.g. "SUM_INT".
func (k AggKind) String() string {
	if k.Valid() {
		return aggTable[k].name
	}
	return "AggKind(" + strconv.Itoa(int(k)) + ")"
}

// Bytes is the accumulator's size in the entry (the header's bytes column).
func (k AggKind) Bytes() int { return aggTable[k].bytes }

// AcceptsArg reports whether the header allows an argument of type t for
// this kind.  COUNT counts non-NULL values of any type.
func (k AggKind) AcceptsArg(t Type) bool {
	switch k {
	case AggCount:
		return t.Valid()
	case AggSumInt:
		return t.isInteger() || t == TypeNumeric
	case AggSumFP, AggMinFP, AggMaxFP, AggVarFP:
		return t.isFloat()
	case AggMinInt, AggMaxInt:
		return t.isInteger() || t == TypeDate || t == TypeTimestamp || t == TypeTimestampTz || t == TypeNumeric
	case AggVarInt:
		return t == TypeInt2 || t == TypeInt4
	case AggVarInt8:
		return t == TypeInt8
	case AggSumNumV:
		return t == TypeNumeric
	}
	return false
}

// KeyWidthOK reports whether width is a valid key slot width for type t,
// per the header's key slot encoding.
func KeyWidthOK(t Type, width uint32) bool {
	switch {
	case t == TypeNumeric:
		return width == 32
	case t.isText():
		return width >= PreAggEntryAlign && width%PreAggEntryAlign == 0 && width <= uint32(8+PreAggMaxTextKey)
	case t.Valid():
		return width == 16
	}
	return false
}
