package xpu_test

import (
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// preaggProgram is
//
//	SELECT a, c, n, count(*), sum(b) FILTER (WHERE b > 0), sum(d), min(b),
//	       max(d), var_samp(d), var_samp(a), count(c)
//	GROUP BY a, c, n
//
// over (a int4, b int8, c text, d float8, n numeric); the root is a CONST
// true (no quals).  Node indexes: a 0, c 1, n 2, b 3, d 4, const 5,
// b > 0 6, root 7.
func preaggProgram() *xputest.Builder {
	b := xputest.New()
	b.Attr(4, 4, true, xpu.TypeInt4)
	b.Attr(8, 8, true, xpu.TypeInt8)
	b.Attr(-1, 4, false, xpu.TypeText)
	b.Attr(8, 8, true, xpu.TypeFloat8)
	b.Attr(-1, 4, false, xpu.TypeNumeric)
	a := b.Var(0, xpu.TypeInt4)
	c := b.Var(2, xpu.TypeText)
	n := b.Var(4, xpu.TypeNumeric)
	vb := b.Var(1, xpu.TypeInt8)
	vd := b.Var(3, xpu.TypeFloat8)
	pos := b.Op(xpu.OpGt, xpu.TypeBool, vb, b.ConstInt8(0))
	b.ConstBool(true)
	b.GroupBy(a, 0)
	b.GroupBy(c, 48)
	b.GroupBy(n, 0)
	b.Aggregate(xpu.AggCount, -1, -1)
	b.Aggregate(xpu.AggSumInt, vb, pos)
	b.Aggregate(xpu.AggSumFP, vd, -1)
	b.Aggregate(xpu.AggMinInt, vb, -1)
	b.Aggregate(xpu.AggMaxFP, vd, -1)
	b.Aggregate(xpu.AggVarFP, vd, -1)
	b.Aggregate(xpu.AggVarInt, a, -1)
	b.Aggregate(xpu.AggCount, c, -1)
	return b
}

func TestParseSessionPreAgg(t *testing.T) {
	b := preaggProgram()
	b.PlanID = 77
	p, err := parseSession(b.Message(1))
	if err != nil {
		t.Fatalf("ParseSession: %v", err)
	}
	pa := p.PreAgg
	if p.Kind != xpu.KindGpuPreAgg || pa == nil || len(pa.Keys) != 3 || len(pa.Aggs) != 8 || p.PlanID != 77 {
		t.Fatalf("program kind %d preagg %+v", p.Kind, pa)
	}
	// Slots: header 16, a 16, c 48, n 32, then the accumulators.
	wantKeys := []xpu.GroupKey{
		{Node: 0, XType: xpu.TypeInt4, Offset: 16, Width: 16},
		{Node: 1, XType: xpu.TypeText, Offset: 32, Width: 48},
		{Node: 2, XType: xpu.TypeNumeric, Offset: 80, Width: 32},
	}
	for i, k := range wantKeys {
		if pa.Keys[i] != k {
			t.Errorf("key %d = %+v, want %+v", i, pa.Keys[i], k)
		}
	}
	if a := pa.Aggs[0]; a != (xpu.AggDesc{Kind: xpu.AggCount, Arg: -1, Filter: -1, Offset: 112}) {
		t.Errorf("count(*) = %+v", a)
	}
	if a := pa.Aggs[1]; a != (xpu.AggDesc{Kind: xpu.AggSumInt, ArgType: xpu.TypeInt8, Arg: 3, Filter: 6, Offset: 128}) {
		t.Errorf("sum(b) filter = %+v", a)
	}
	last := pa.Aggs[7]
	if pa.EntrySize != last.Offset+16 || pa.EntrySize%16 != 0 {
		t.Errorf("entry size %d, last accumulator at %d", pa.EntrySize, last.Offset)
	}
	if xpu.AggSumInt.String() != "SUM_INT" || xpu.AggVarInt.Bytes() != 48 || xpu.AggKind(42).String() != "AggKind(42)" {
		t.Errorf("XPU_AGG_LIST not taken from the header: %s %d", xpu.AggSumInt, xpu.AggVarInt.Bytes())
	}
	scan, err := parseSession(scanProgram().Message(1))
	if err != nil || scan.PreAgg != nil || scan.Kind != xpu.KindGpuScan {
		t.Fatalf("GpuScan program: kind %d preagg %v, %v", scan.Kind, scan.PreAgg, err)
	}
}

// TestParseSessionPreAggNoKeysNoAggs: count-free DISTINCT and a single
// group are both valid descriptors.
func TestParseSessionPreAggNoKeysNoAggs(t *testing.T) {
	one := xputest.New()
	one.Attr(4, 4, true, xpu.TypeInt4)
	v := one.Var(0, xpu.TypeInt4)
	one.ConstBool(true)
	one.Aggregate(xpu.AggSumInt, v, -1) // SELECT sum(a): no keys
	distinct := xputest.New()
	distinct.Attr(4, 4, true, xpu.TypeInt4)
	v = distinct.Var(0, xpu.TypeInt4)
	distinct.ConstBool(true)
	distinct.GroupBy(v, 0) // SELECT DISTINCT a: no aggregates
	for name, b := range map[string]*xputest.Builder{"no keys": one, "no aggs": distinct} {
		p, err := parseSession(b.Message(1))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if n := len(p.PreAgg.Keys) + len(p.PreAgg.Aggs); n != 1 || p.PreAgg.EntrySize != 32 && p.PreAgg.EntrySize != 48 {
			t.Errorf("%s: %+v", name, p.PreAgg)
		}
	}
}

func TestParseSessionRejectsBadPreAggLayout(t *testing.T) {
	good, l := preaggProgram().MessageLayout(1)
	n := uint32(len(good))
	put := xputest.PutU32
	desc := func(field int, v uint32) []byte { return put(good, l.PreAggOffset+field, v) }
	scan := scanProgram().Message(1)
	cases := []struct {
		name, substr string
		msg          []byte
	}{
		{"kind 9", "kind 9", put(good, xpu.OffSessKind, 9)},
		{"preagg with join", "join_offset is 1 in a GpuPreAgg session", put(good, xpu.OffSessJoinOffset, 1)},
		{"gpuscan with join", "GpuScan session: xpu program: join_offset is 9, must be 0", put(scan, xpu.OffSessJoinOffset, 9)},
		{"gpuscan with preagg", "GpuScan session: xpu program: preagg_offset is 64, must be 0", put(scan, xpu.OffSessPreAggOffset, 64)},
		{"preagg without desc", "preagg_offset is 0", put(good, xpu.OffSessPreAggOffset, 0)},
		{"desc past end", "preagg descriptor", put(good, xpu.OffSessPreAggOffset, n-8)},
		{"desc offset huge", "preagg descriptor", put(good, xpu.OffSessPreAggOffset, 0xfffffff0)},
		{"desc misaligned", "not a multiple of 4", put(good, xpu.OffSessPreAggOffset, uint32(l.PreAggOffset+2))},
		{"desc over header", "overlaps the message header", put(good, xpu.OffSessPreAggOffset, 16)},
		{"desc over consts", "overlaps preagg descriptor", put(good, xpu.OffSessPreAggOffset, uint32(l.ConstsOffset))},
		{"too many keys", "XPU_PREAGG_MAX_KEYS", desc(xpu.OffDescNKeys, uint32(xpu.PreAggMaxKeys+1))},
		{"too many aggs", "XPU_PREAGG_MAX_AGGS", desc(xpu.OffDescNAggs, uint32(xpu.PreAggMaxAggs+1))},
		{"keys past end", "group key array", desc(xpu.OffDescKeysOffset, n-16)},
		{"aggs past end", "aggregate array", desc(xpu.OffDescAggsOffset, n-8)},
		{"keys misaligned", "group key array offset", desc(xpu.OffDescKeysOffset, uint32(l.KeysOffset+1))},
		{"aggs over keys", "overlaps aggregate array", desc(xpu.OffDescAggsOffset, uint32(l.KeysOffset))},
		{"keys over desc", "overlaps group key array", desc(xpu.OffDescKeysOffset, uint32(l.PreAggOffset))},
		{"aggs over nodes", "overlaps aggregate array", desc(xpu.OffDescAggsOffset, uint32(l.NodesOffset))},
		{"entry size 8", "entry_size 8", desc(xpu.OffDescEntrySize, 8)},
		{"entry size odd", "entry_size 264", desc(xpu.OffDescEntrySize, 264)},
		{"entry size huge", "entry_size 4112", desc(xpu.OffDescEntrySize, uint32(xpu.PreAggMaxEntry+16))},
		{"entry size small", "runs past the 240-byte entry", desc(xpu.OffDescEntrySize, 240)},
		{"desc reserved", "descriptor reserved field is 5", desc(xpu.OffDescReserved, 5)},
	}
	for _, c := range cases {
		expectProtocolError(t, c.name, c.msg, c.substr)
	}
}

// preaggBreaker changes a valid preaggProgram into an invalid one.
type preaggBreaker struct {
	name, substr string
	edit         func(b *xputest.Builder, pa *xputest.RawPreAgg)
}

func TestParseSessionRejectsBadPreAggEntries(t *testing.T) {
	cases := []preaggBreaker{
		{"key node root", "group key 0: the key is node 7, must be a node before the root (0..6)", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Keys[0].Node = 7 }},
		{"key node negative", "group key 1: the key is node -1", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Keys[1].Node = -1 }},
		{"key xtype", "group key 0: xtype INT8 but node 0 returns INT4", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Keys[0].XType = xpu.TypeInt8 }},
		{"key unknown xtype", "xtype Type(99)", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Keys[0].XType = 99 }},
		{"key reserved", "group key 2: reserved field is 3", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Keys[2].Reserved = 3 }},
		{"int key width 8", "width 8 is not a valid INT4 key slot", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Keys[0].Width = 8 }},
		{"int key width 32", "width 32 is not a valid INT4", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Keys[0].Width = 32 }},
		{"numeric key width 16", "width 16 is not a valid NUMERIC", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Keys[2].Width = 16 }},
		{"text key width 40", "width 40 is not a valid TEXT", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Keys[1].Width = 40 }},
		{"text key width 272", "width 272 is not a valid TEXT", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Keys[1].Width = 272 }},
		{"text key width 0", "width 0 is not a valid TEXT", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Keys[1].Width = 0 }},
		{"agg kind 0", "aggregate 0: unknown kind 0", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Aggs[0].Kind = 0 }},
		{"agg kind 99", "aggregate 0: unknown kind 99", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Aggs[0].Kind = 99 }},
		{"sum without arg", "aggregate 1: SUM_INT without an argument", func(b *xputest.Builder, pa *xputest.RawPreAgg) {
			pa.Aggs[1].Arg, pa.Aggs[1].ArgType = -1, 0
		}},
		{"count star argtype", "argtype INT4 with arg -1", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Aggs[0].ArgType = xpu.TypeInt4 }},
		{"arg -2", "aggregate 1: the argument is node -2", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Aggs[1].Arg = -2 }},
		{"arg root", "the argument is node 7", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Aggs[1].Arg = 7 }},
		{"argtype mismatch", "aggregate 1: argtype INT4 but node 3 returns INT8", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Aggs[1].ArgType = xpu.TypeInt4 }},
		{"sum_int of float", "SUM_INT does not accept an argument of type FLOAT8", func(b *xputest.Builder, pa *xputest.RawPreAgg) {
			pa.Aggs[1].Arg, pa.Aggs[1].ArgType = 4, xpu.TypeFloat8
		}},
		{"sum_fp of int", "SUM_FP does not accept an argument of type INT8", func(b *xputest.Builder, pa *xputest.RawPreAgg) {
			pa.Aggs[2].Arg, pa.Aggs[2].ArgType = 3, xpu.TypeInt8
		}},
		{"var_int of int8", "VAR_INT does not accept an argument of type INT8", func(b *xputest.Builder, pa *xputest.RawPreAgg) {
			pa.Aggs[6].Arg, pa.Aggs[6].ArgType = 3, xpu.TypeInt8
		}},
		{"min_int of text", "MIN_INT does not accept an argument of type TEXT", func(b *xputest.Builder, pa *xputest.RawPreAgg) {
			pa.Aggs[3].Arg, pa.Aggs[3].ArgType = 1, xpu.TypeText
		}},
		{"max_fp of numeric", "MAX_FP does not accept an argument of type NUMERIC", func(b *xputest.Builder, pa *xputest.RawPreAgg) {
			pa.Aggs[4].Arg, pa.Aggs[4].ArgType = 2, xpu.TypeNumeric
		}},
		{"filter not bool", "the filter node 3 returns INT8, must return BOOL", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Aggs[1].Filter = 3 }},
		{"filter root", "the filter is node 7", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Aggs[1].Filter = 7 }},
		{"filter -2", "the filter is node -2", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Aggs[1].Filter = -2 }},
		{"key misaligned", "group key 0 at offset 24, not a multiple of 16", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Keys[0].Offset = 24 }},
		{"agg misaligned", "aggregate 0 (COUNT) at offset 120", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Aggs[0].Offset = 120 }},
		{"key in header", "group key 0 at offset 0 overlaps the 16-byte entry header", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Keys[0].Offset = 0 }},
		{"agg in header", "aggregate 2 (SUM_FP) at offset 0 overlaps", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Aggs[2].Offset = 0 }},
		{"agg past entry", "aggregate 7 (COUNT) [352, 360) runs past the 352-byte entry", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Aggs[7].Offset = 352 }},
		{"key offset huge", "runs past", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Keys[1].Offset = 0xfffffff0 }},
		{"keys overlap", "group key 1 [32, 80) overlaps group key 2 [48, 80)", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Keys[2].Offset = 48 }},
		{"agg over key", "overlaps aggregate 1 (SUM_INT)", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Aggs[1].Offset = 96 }},
		{"aggs overlap", "aggregate 1 (SUM_INT) [128, 160) overlaps aggregate 2 (SUM_FP) [144, 168)", func(b *xputest.Builder, pa *xputest.RawPreAgg) { pa.Aggs[2].Offset = 144 }},
	}
	for _, c := range cases {
		b := preaggProgram()
		c.edit(b, b.PreAgg)
		expectProtocolError(t, c.name, b.Message(1), c.substr)
	}
}

func TestParseSessionNumericAggregateScale(t *testing.T) {
	for _, c := range []struct {
		name  string
		kind  xpu.AggKind
		param int32
		ok    bool
	}{
		{"sum at scale 2", xpu.AggSumInt, 2, true},
		{"max at scale 18", xpu.AggMaxInt, 18, true},
		{"min at scale 19", xpu.AggMinInt, 19, false},
		{"sum at scale -1", xpu.AggSumInt, -1, false},
		{"count with a scale", xpu.AggCount, 2, false},
		{"float sum of numeric", xpu.AggSumFP, 2, false},
		{"varying-scale sum at its bound 32", xpu.AggSumNumV, 32, true},
		{"varying-scale sum past its bound", xpu.AggSumNumV, 33, false},
		{"varying-scale sum at scale -1", xpu.AggSumNumV, -1, false},
	} {
		b := preaggProgram()
		n := 2 // the numeric VAR node of preaggProgram
		b.Aggregate(c.kind, n, -1)
		pa := b.PreAgg
		pa.Aggs[len(pa.Aggs)-1].Param = c.param
		_, err := parseSession(b.Message(1))
		if (err == nil) != c.ok {
			t.Errorf("%s: err = %v", c.name, err)
		}
	}
}
