package xpu_test

import (
	"math"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

func TestParseSessionRejectsBadLayout(t *testing.T) {
	good, l := scanProgram().MessageLayout(1)
	n := uint32(len(good))
	put := xputest.PutU32
	cases := []struct {
		name, substr string
		msg          []byte
	}{
		{"empty", "header needs", nil},
		{"truncated header", "header needs", good[:10]},
		{"truncated session", "shorter than its fixed part", protocol.EncodeRequest(protocol.TagOpenSession, 1, good[protocol.HeaderSize:xpu.SessionEnd-1])},
		{"length mismatch", "header length", good[:len(good)-1]},
		{"wrong tag", "where OpenSession was expected", protocol.EncodeRequest(protocol.TagTaskExec, 1, good[protocol.HeaderSize:])},
		{"magic", "magic", put(good, xpu.OffSessMagic, 0x12345678)},
		{"kind", "kind 9", put(good, xpu.OffSessKind, 9)},
		{"kind 0", "kind 0", put(good, xpu.OffSessKind, 0)},
		{"too many attrs", "XPU_MAX_ATTRS", put(good, xpu.OffSessNAttrs, uint32(xpu.MaxAttrs+1))},
		{"no nodes", "no nodes", put(good, xpu.OffSessNNodes, 0)},
		{"too many nodes", "XPU_MAX_NODES", put(good, xpu.OffSessNNodes, uint32(xpu.MaxNodes+1))},
		{"beyond slots", "per-thread slots", put(good, xpu.OffSessNNodes, uint32(xpu.MaxSlots+1))},
		{"root not last", "root is node 5", put(good, xpu.OffSessRoot, 5)},
		{"nodes past end", "node array", put(good, xpu.OffSessNodesOffset, n-8)},
		{"nodes offset huge", "node array", put(good, xpu.OffSessNodesOffset, math.MaxUint32-7)},
		{"nargs huge", "argument array", put(good, xpu.OffSessNArgs, math.MaxUint32)},
		{"attrs count overflow", "attribute array", put(good, xpu.OffSessNAttrs, 1000)},
		{"consts len huge", "constant pool", put(good, xpu.OffSessConstsLen, math.MaxUint32)},
		{"consts misaligned", "not a multiple of 16", put(good, xpu.OffSessConstsOffset, uint32(l.ConstsOffset+4))},
		{"nodes misaligned", "not a multiple of 4", put(good, xpu.OffSessNodesOffset, uint32(l.NodesOffset+2))},
		{"nodes over header", "overlaps the message header", put(good, xpu.OffSessNodesOffset, 16)},
		{"nodes over args", "overlaps", put(good, xpu.OffSessArgsOffset, uint32(l.NodesOffset))},
	}
	for _, c := range cases {
		expectProtocolError(t, c.name, c.msg, c.substr)
	}
}

// breaker changes a valid program into an invalid one.
type breaker struct {
	name, substr string
	edit         func(b *xputest.Builder)
}

func TestParseSessionRejectsBadNodes(t *testing.T) {
	cases := []breaker{
		{"unknown opcode", "node 6 (Opcode(99)): unknown opcode", func(b *xputest.Builder) { b.Nodes[6].Opcode = 99 }},
		{"opcode zero", "node 0 (Opcode(0))", func(b *xputest.Builder) { b.Nodes[0].Opcode = 0 }},
		{"unknown type", "node 1 (CONST): unknown result type", func(b *xputest.Builder) { b.Nodes[1].Restype = 77 }},
		{"forward arg", "node 2 (GT): argument 1 is node 2", func(b *xputest.Builder) { b.Args[1] = 2 }},
		{"negative arg", "node 2 (GT): argument 0 is node -1", func(b *xputest.Builder) { b.Args[0] = -1 }},
		{"args out of array", "outside the argument array", func(b *xputest.Builder) { b.Nodes[6].Args = 5 }},
		{"args negative", "outside the argument array", func(b *xputest.Builder) { b.Nodes[6].Args = -1 }},
		{"nargs exact", "node 2 (GT): has 1 arguments, want 2", func(b *xputest.Builder) { b.Nodes[2].NArgs = 1 }},
		{"and one arg", "node 6 (AND): has 1 arguments, want 2 or more", func(b *xputest.Builder) { b.Nodes[6].NArgs = 1 }},
		{"and negative nargs", "node 6 (AND): has -3 arguments", func(b *xputest.Builder) { b.Nodes[6].NArgs = -3 }},
		{"leaf with args field", "node 0 (VAR): args is 3", func(b *xputest.Builder) { b.Nodes[0].Args = 3 }},
		{"root not bool", "node 6 (ADD)", func(b *xputest.Builder) {
			b.Nodes[6] = xputest.RawNode{Opcode: xpu.OpAdd, Restype: xpu.TypeInt4, NArgs: 2, Args: 0}
		}},
		{"root not bool coalesce", "root qual returns INT4", func(b *xputest.Builder) {
			b.Op(xpu.OpCoalesce, xpu.TypeInt4, 0)
		}},
		{"var aux out of range", "node 0 (VAR): attribute index 3", func(b *xputest.Builder) { b.Nodes[0].Aux = 3 }},
		{"var aux negative", "node 0 (VAR): attribute index -1", func(b *xputest.Builder) { b.Nodes[0].Aux = -1 }},
		{"var type mismatch", "node 0 (VAR): result type INT8 but attribute 0 has xtype INT4", func(b *xputest.Builder) { b.Nodes[0].Restype = xpu.TypeInt8 }},
		{"var flags", "node 0 (VAR): flags 0x1", func(b *xputest.Builder) { b.Nodes[0].Flags = 1 }},
		{"cmp aux", "node 2 (GT): aux is 4", func(b *xputest.Builder) { b.Nodes[2].Aux = 4 }},
		{"cmp mixed types", "node 5 (LT): argument 1 (node 1) is INT4, want FLOAT8", func(b *xputest.Builder) { b.Args[3] = 1 }},
		{"cmp restype", "node 2 (GT): result type INT4", func(b *xputest.Builder) { b.Nodes[2].Restype = xpu.TypeInt4 }},
		{"and non-bool arg", "node 6 (AND): argument 0 (node 0) is INT4", func(b *xputest.Builder) { b.Args[4] = 0 }},
		{"attlen zero", "attribute 1 (attnum 2): attlen must be", func(b *xputest.Builder) { b.Attrs[1].Len = 0 }},
		{"attlen -3", "attlen must be", func(b *xputest.Builder) { b.Attrs[2].Len = -3 }},
		{"attalign 3", "attribute 0 (attnum 1): attalign must be 1, 2, 4 or 8, got 3", func(b *xputest.Builder) { b.Attrs[0].Align = 3 }},
		{"attbyval 2", "attbyval must be 0 or 1", func(b *xputest.Builder) { b.Attrs[0].ByVal = 2 }},
		{"byval varlena", "attbyval with attlen -1", func(b *xputest.Builder) { b.Attrs[2].ByVal = 1 }},
		{"attlen vs type", "attlen 8 does not match xtype INT4", func(b *xputest.Builder) { b.Attrs[0].Len = 8 }},
		{"attr unknown xtype", "unknown xtype 40", func(b *xputest.Builder) { b.Attrs[2].XType = 40 }},
		{"const misaligned", "node 1 (CONST): constant offset 4", func(b *xputest.Builder) { b.Nodes[1].Aux = 4 }},
		{"const negative", "node 1 (CONST): constant offset -16", func(b *xputest.Builder) { b.Nodes[1].Aux = -16 }},
		{"const past pool", "node 4 (CONST): FLOAT8 constant [32, 40)", func(b *xputest.Builder) { b.Nodes[4].Aux = 32 }},
		{"const pool cut", "FLOAT8 constant [16, 24) runs past the 20-byte", func(b *xputest.Builder) { b.Consts = b.Consts[:20] }},
		{"null const aux", "NULL constant with aux 16", func(b *xputest.Builder) { b.Nodes[4].Flags = xpu.FlagConstNull }},
		{"const bad flag", "node 1 (CONST): flags 0x2", func(b *xputest.Builder) { b.Nodes[1].Flags = xpu.FlagTextBytewise }},
	}
	for _, c := range cases {
		b := scanProgram()
		c.edit(b)
		expectProtocolError(t, c.name, b.Message(1), c.substr)
	}
}

// typed builds `root(op(...))` programs over one attribute of each type.
func typed(build func(b *xputest.Builder, v func(xpu.Type) int) int) *xputest.Builder {
	b := xputest.New()
	types := []xpu.Type{xpu.TypeBool, xpu.TypeInt2, xpu.TypeInt4, xpu.TypeInt8, xpu.TypeFloat4, xpu.TypeFloat8,
		xpu.TypeNumeric, xpu.TypeDate, xpu.TypeTimestamp, xpu.TypeTimestampTz, xpu.TypeText, xpu.TypeVarchar, xpu.TypeBpchar}
	idx := map[xpu.Type]int{}
	for _, t := range types {
		l := int16(t.FixedLen())
		align := int8(4)
		if l > 0 {
			align = int8(l)
		}
		idx[t] = b.Attr(l, align, l > 0, t)
	}
	n := build(b, func(t xpu.Type) int { return b.Var(idx[t], t) })
	if b.Nodes[n].Restype != xpu.TypeBool {
		b.Op(xpu.OpIsNotNull, xpu.TypeBool, n)
	}
	return b
}

func TestParseSessionTypeRules(t *testing.T) {
	type rule struct {
		name, substr string // substr "" means valid
		build        func(b *xputest.Builder, v func(xpu.Type) int) int
	}
	B, I2, I4, I8 := xpu.TypeBool, xpu.TypeInt2, xpu.TypeInt4, xpu.TypeInt8
	F4, F8, N, D := xpu.TypeFloat4, xpu.TypeFloat8, xpu.TypeNumeric, xpu.TypeDate
	TS, TZ, T, VC, BP := xpu.TypeTimestamp, xpu.TypeTimestampTz, xpu.TypeText, xpu.TypeVarchar, xpu.TypeBpchar
	op2 := func(op xpu.Opcode, rt, a1, a2 xpu.Type) func(*xputest.Builder, func(xpu.Type) int) int {
		return func(b *xputest.Builder, v func(xpu.Type) int) int { return b.Op(op, rt, v(a1), v(a2)) }
	}
	op1 := func(op xpu.Opcode, rt, a xpu.Type) func(*xputest.Builder, func(xpu.Type) int) int {
		return func(b *xputest.Builder, v func(xpu.Type) int) int { return b.Op(op, rt, v(a)) }
	}
	opx := func(op xpu.Opcode, rt xpu.Type, flags uint16, aux int32, args ...xpu.Type) func(*xputest.Builder, func(xpu.Type) int) int {
		return func(b *xputest.Builder, v func(xpu.Type) int) int {
			var ns []int
			for _, a := range args {
				ns = append(ns, v(a))
			}
			return b.OpX(op, rt, flags, aux, ns...)
		}
	}
	rules := []rule{
		{"bool eq", "", op2(xpu.OpEq, B, B, B)},
		{"bool lt", "BOOL supports EQ and NE only", op2(xpu.OpLt, B, B, B)},
		{"text eq", "", op2(xpu.OpEq, B, T, T)},
		{"text lt needs bytewise", "needs XPU_NODE_TEXT_BYTEWISE", op2(xpu.OpLt, B, T, T)},
		{"bpchar ge bytewise", "", opx(xpu.OpGe, B, xpu.FlagTextBytewise, 0, BP, BP)},
		{"bytewise on int", "flags 0x2 not allowed", opx(xpu.OpGe, B, xpu.FlagTextBytewise, 0, I4, I4)},
		{"text vs varchar", "argument 1 (node 1) is VARCHAR, want TEXT", op2(xpu.OpEq, B, T, VC)},
		{"numeric lt", "", op2(xpu.OpLt, B, N, N)},
		{"tstz ge", "", op2(xpu.OpGe, B, TZ, TZ)},
		{"add int2", "", op2(xpu.OpAdd, I2, I2, I2)},
		{"add mixed", "argument 1 (node 1) is INT8, want INT4", op2(xpu.OpAdd, I4, I4, I8)},
		{"div float4", "", op2(xpu.OpDiv, F4, F4, F4)},
		{"mod float8", "MOD is for integer types only", op2(xpu.OpMod, F8, F8, F8)},
		{"mod int8", "", op2(xpu.OpMod, I8, I8, I8)},
		{"numeric mul", "", op2(xpu.OpMul, N, N, N)},
		{"numeric mod", "NUMERIC supports ADD, SUB, MUL, DIV, NEG and ABS only", op2(xpu.OpMod, N, N, N)},
		{"numeric mod", "NUMERIC supports", op2(xpu.OpMod, N, N, N)},
		{"numeric abs", "", op1(xpu.OpAbs, N, N)},
		{"floor float8", "", op1(xpu.OpFloor, F8, F8)},
		{"sign float4", "", op1(xpu.OpSign, F4, F4)},
		{"ceil int4", "CEIL is for FLOAT4 and FLOAT8 only, not INT4", op1(xpu.OpCeil, I4, I4)},
		{"rint numeric", "RINT is for FLOAT4 and FLOAT8 only, not NUMERIC", op1(xpu.OpRint, N, N)},
		{"trunc float8 of float4", "argument 0 (node 0) is FLOAT4, want FLOAT8", op1(xpu.OpTrunc, F8, F4)},
		{"date add", "no arithmetic on DATE", op2(xpu.OpAdd, D, D, D)},
		{"text neg", "no arithmetic on TEXT", op1(xpu.OpNeg, T, T)},
		{"cast int2 numeric", "", op1(xpu.OpCast, N, I2)},
		{"cast int8 int2", "", op1(xpu.OpCast, I2, I8)},
		{"cast f4 f8", "", op1(xpu.OpCast, F8, F4)},
		{"cast f8 f8", "cast FLOAT8 -> FLOAT8 is not supported", op1(xpu.OpCast, F8, F8)},
		{"cast f8 numeric", "", op1(xpu.OpCast, N, F8)},
		{"cast f4 numeric", "", op1(xpu.OpCast, N, F4)},
		{"cast date numeric", "cast DATE -> NUMERIC", op1(xpu.OpCast, N, D)},
		{"cast numeric int8", "", op1(xpu.OpCast, I8, N)},
		{"cast numeric date", "cast NUMERIC -> DATE", op1(xpu.OpCast, D, N)},
		{"cast date ts", "", op1(xpu.OpCast, TS, D)},
		{"cast date tstz", "cast DATE -> TIMESTAMPTZ", op1(xpu.OpCast, TZ, D)},
		{"cast ts date", "", op1(xpu.OpCast, D, TS)},
		{"cast ts time zone", "cast TIMESTAMP -> TIMESTAMPTZ", op1(xpu.OpCast, TZ, TS)},
		{"cast tstz date", "cast TIMESTAMPTZ -> DATE", op1(xpu.OpCast, D, TZ)},
		{"cast text varchar", "", op1(xpu.OpCast, VC, T)},
		{"cast bool int4", "cast BOOL -> INT4", op1(xpu.OpCast, I4, B)},
		{"not int", "argument 0 (node 0) is INT4, want BOOL", op1(xpu.OpNot, B, I4)},
		{"or restype", "result type INT4, want BOOL", op2(xpu.OpOr, I4, B, B)},
		{"is null text", "", op1(xpu.OpIsNull, B, T)},
		{"is true int", "is INT4, want BOOL", op1(xpu.OpIsTrue, B, I4)},
		{"is null restype", "result type INT4", op1(xpu.OpIsNull, I4, T)},
		{"case ok", "", opx(xpu.OpCase, I4, 0, 0, B, I4, B, I4, I4)},
		{"case even", "has 4 arguments, want 2k+1", opx(xpu.OpCase, I4, 0, 0, B, I4, B, I4)},
		{"case one", "has 1 arguments", opx(xpu.OpCase, I4, 0, 0, I4)},
		{"case cond not bool", "argument 2 (node 2) is INT4, want BOOL", opx(xpu.OpCase, I4, 0, 0, B, I4, I4, I4, I4)},
		{"case else type", "argument 2 (node 2) is INT8, want INT4", opx(xpu.OpCase, I4, 0, 0, B, I4, I8)},
		{"coalesce one", "", opx(xpu.OpCoalesce, T, 0, 0, T)},
		{"coalesce zero", "has 0 arguments, want 1 or more", opx(xpu.OpCoalesce, T, 0, 0)},
		{"coalesce mixed", "is VARCHAR, want TEXT", opx(xpu.OpCoalesce, T, 0, 0, T, VC)},
		{"date_pli", "", op2(xpu.OpDatePli, D, D, I4)},
		{"date_pli int8", "argument 1 (node 1) is INT8, want INT4", op2(xpu.OpDatePli, D, D, I8)},
		{"date_mii restype", "result type TIMESTAMP, want DATE", op2(xpu.OpDateMii, TS, D, I4)},
		{"date_mi", "", op2(xpu.OpDateMi, I4, D, D)},
		{"date_mi restype", "result type DATE, want INT4", op2(xpu.OpDateMi, D, D, D)},
		{"extract date year", "", opx(xpu.OpExtract, N, 0, xpu.FieldYear, D)},
		{"extract restype", "result type FLOAT8, want NUMERIC", opx(xpu.OpExtract, F8, 0, xpu.FieldYear, D)},
		{"extract hour of date", "HOUR/MINUTE/SECOND) needs a TIMESTAMP", opx(xpu.OpExtract, N, 0, xpu.FieldHour, D)},
		{"date_part minute ts", "", opx(xpu.OpDatePart, F8, 0, xpu.FieldMinute, TS)},
		{"date_part tstz", "is TIMESTAMPTZ, want DATE or TIMESTAMP", opx(xpu.OpDatePart, F8, 0, xpu.FieldDay, TZ)},
		{"date_part field 0", "unknown date field 0", opx(xpu.OpDatePart, F8, 0, 0, D)},
		{"date_part week", "", opx(xpu.OpDatePart, F8, 0, xpu.FieldWeek, TS)},
		{"extract second", "", opx(xpu.OpExtract, N, 0, xpu.FieldSecond, TS)},
		{"extract milliseconds of a date", "HOUR/MINUTE/SECOND) needs a TIMESTAMP", opx(xpu.OpExtract, N, 0, xpu.FieldMillisec, D)},
		{"date_part microseconds", "", opx(xpu.OpDatePart, F8, 0, xpu.FieldMicrosec, TS)},
		{"extract isoyear ts", "", opx(xpu.OpExtract, N, 0, xpu.FieldIsoYear, TS)},
		{"extract epoch date", "", opx(xpu.OpExtract, N, 0, xpu.FieldEpoch, D)},
		{"extract epoch ts", "", opx(xpu.OpExtract, N, 0, xpu.FieldEpoch, TS)},
		{"date_part julian ts", "JULIAN) needs a DATE", opx(xpu.OpDatePart, F8, 0, xpu.FieldJulian, TS)},
		{"date_part past the last field", "unknown date field", opx(xpu.OpDatePart, F8, 0, xpu.FieldMicrosec+1, TS)},
		{"date_trunc decade", "", opx(xpu.OpDateTrunc, TS, 0, xpu.FieldDecade, TS)},
		{"date_trunc isoyear", "cannot be truncated to", opx(xpu.OpDateTrunc, TS, 0, xpu.FieldIsoYear, TS)},
		{"date_trunc week", "", opx(xpu.OpDateTrunc, TS, 0, xpu.FieldWeek, TS)},
		{"date_trunc dow", "cannot be truncated to", opx(xpu.OpDateTrunc, TS, 0, xpu.FieldDow, TS)},
		{"date_trunc of a date", "is DATE, want TIMESTAMP", opx(xpu.OpDateTrunc, TS, 0, xpu.FieldDay, D)},
		{"tz_local", "", opx(xpu.OpTzLocal, TS, 0, -18000, TZ)},
		{"tz_local rules outside the pool", "zone rules at pool offset 4096", opx(xpu.OpTzLocal, TS, xpu.FlagTzRules, 4096, TZ)},
		{"tz_utc unknown flag", "flags 0x20 not allowed", opx(xpu.OpTzUtc, TZ, 0x20, 0, TS)},
		{"tz_local of a timestamp", "is TIMESTAMP, want TIMESTAMPTZ", opx(xpu.OpTzLocal, TS, 0, 0, TS)},
		{"tz_utc a day east", "a day or more", opx(xpu.OpTzUtc, TZ, 0, 86400, TS)},
		{"tz_utc restype", "result type TIMESTAMP, want TIMESTAMPTZ", opx(xpu.OpTzUtc, TS, 0, 0, TS)},
		{"round of a float", "argument is FLOAT8, want NUMERIC", opx(xpu.OpNumRound, N, 0, 2, F8)},
		{"round restype", "result type FLOAT8, want NUMERIC", opx(xpu.OpNumRound, F8, 0, 2, N)},
		{"trunc past the scale bound", "outside [-2000, 2000]", opx(xpu.OpNumTrunc, N, 0, 2001, N)},
		{"substr", "", func(b *xputest.Builder, v func(xpu.Type) int) int {
			return b.OpX(xpu.OpSubstr, T, xpu.FlagLikeUTF8, 0, v(T), b.ConstInt4(1), b.ConstInt4(2))
		}},
		{"substr of one argument", "has 1 arguments, want 2 or 3", func(b *xputest.Builder, v func(xpu.Type) int) int {
			return b.Op(xpu.OpSubstr, T, v(T))
		}},
		{"substr of bpchar", "argument 0 is BPCHAR, want TEXT or VARCHAR", func(b *xputest.Builder, v func(xpu.Type) int) int {
			return b.Op(xpu.OpSubstr, T, v(xpu.TypeBpchar), b.ConstInt4(1))
		}},
		{"substr start int8", "argument 1 is INT8, want INT4", func(b *xputest.Builder, v func(xpu.Type) int) int {
			return b.Op(xpu.OpSubstr, T, v(T), v(I8))
		}},
		{"char_length restype", "result type INT8, want INT4", op1(xpu.OpCharLength, I8, T)},
		{"octet_length flags", "flags 0x2 not allowed", opx(xpu.OpOctetLength, I4, xpu.FlagTextBytewise, 0, T)},
		{"strpos of varchar", "", op2(xpu.OpStrpos, I4, T, xpu.TypeVarchar)},
		{"starts_with restype", "result type INT4, want BOOL", op2(xpu.OpStartsWith, I4, T, T)},
		{"left of int8", "argument 1 is INT8, want INT4", op2(xpu.OpLeft, T, T, I8)},
		{"trim ends 0", "trim ends 0", op1(xpu.OpTrimSpaces, T, T)},
		{"trim ends 3", "", opx(xpu.OpTrimSpaces, T, 0, 3, T)},
		{"lower", "", opx(xpu.OpLower, T, 0, int32(512)<<16, T)},
		{"upper of varchar", "", opx(xpu.OpUpper, T, 0, 64|int32(64)<<16, xpu.TypeVarchar)},
		{"textcat", "", opx(xpu.OpTextcat, T, 0, int32(100)<<16, T, T)},
		{"lower of bpchar", "argument 0 is BPCHAR, want TEXT or VARCHAR", op1(xpu.OpLower, T, xpu.TypeBpchar)},
		{"upper restype", "result type VARCHAR, want TEXT", op1(xpu.OpUpper, xpu.TypeVarchar, T)},
		{"textcat of an int4", "argument 1 is INT4, want TEXT or VARCHAR", op2(xpu.OpTextcat, T, T, I4)},
		{"lower flags", "flags 0x4 not allowed", opx(xpu.OpLower, T, xpu.FlagLikeUTF8, 0, T)},
		{"to_text of an int8", "", opx(xpu.OpToText, T, 0, int32(32)<<16, I8)},
		{"to_text of a timestamp", "", opx(xpu.OpToText, T, 0, int32(32)<<16, TS)},
		{"to_text of a float", "argument 0 is FLOAT8, want INT2", opx(xpu.OpToText, T, 0, int32(32)<<16, F8)},
		{"to_text of a timestamptz", "argument 0 is TIMESTAMPTZ, want INT2", opx(xpu.OpToText, T, 0, int32(32)<<16, TZ)},
		{"to_text restype", "result type VARCHAR, want TEXT", opx(xpu.OpToText, xpu.TypeVarchar, 0, int32(32)<<16, I4)},
		{"to_text region past the slots", "not 8-aligned inside", opx(xpu.OpToText, T, 0, int32(xpu.ScratchBytes(1))<<16, I4)},
		{"ts_pl_interval", "", func(b *xputest.Builder, v func(xpu.Type) int) int {
			return b.Op(xpu.OpTsPlInterval, TS, v(TS), b.ConstInt4(1), b.ConstInt4(2), v(I8))
		}},
		{"ts_pl_interval of a date", "argument 0 (node 0) is DATE, want TIMESTAMP", func(b *xputest.Builder, v func(xpu.Type) int) int {
			return b.Op(xpu.OpTsPlInterval, TS, v(D), b.ConstInt4(1), b.ConstInt4(2), v(I8))
		}},
		{"ts_pl_interval int4 usecs", "is INT4, want INT8", func(b *xputest.Builder, v func(xpu.Type) int) int {
			return b.Op(xpu.OpTsPlInterval, TS, v(TS), b.ConstInt4(1), b.ConstInt4(2), b.ConstInt4(3))
		}},
		{"to_char", "", func(b *xputest.Builder, v func(xpu.Type) int) int {
			return b.OpX(xpu.OpToChar, T, 0, int32(32)<<16, v(TS), b.ConstText(T, "\x01\x00"))
		}},
		{"to_char of a date", "argument 0 is DATE, want TIMESTAMP", func(b *xputest.Builder, v func(xpu.Type) int) int {
			return b.OpX(xpu.OpToChar, T, 0, int32(32)<<16, v(D), b.ConstText(T, "\x01\x00"))
		}},
		{"to_char of a column format", "is not a CONST TEXT format", opx(xpu.OpToChar, T, 0, int32(32)<<16, TS, T)},
		{"split_part", "", func(b *xputest.Builder, v func(xpu.Type) int) int {
			return b.Op(xpu.OpSplitPart, T, v(VC), b.ConstText(T, ","), b.ConstInt4(2))
		}},
		{"split_part field int8", "argument 2 (node 2) is INT8, want INT4", func(b *xputest.Builder, v func(xpu.Type) int) int {
			return b.Op(xpu.OpSplitPart, T, v(T), b.ConstText(T, ","), v(I8))
		}},
		{"split_part of bpchar", "is BPCHAR, want TEXT", func(b *xputest.Builder, v func(xpu.Type) int) int {
			return b.Op(xpu.OpSplitPart, T, v(BP), b.ConstText(T, ","), b.ConstInt4(1))
		}},
		{"split_part flags", "flags 0x4 not allowed", func(b *xputest.Builder, v func(xpu.Type) int) int {
			return b.OpX(xpu.OpSplitPart, T, xpu.FlagLikeUTF8, 0, v(T), b.ConstText(T, ","), b.ConstInt4(1))
		}},
		{"lower region unaligned", "not 8-aligned inside", opx(xpu.OpLower, T, 0, 4|int32(8)<<16, T)},
		{"lower region past the slots", "not 8-aligned inside", opx(xpu.OpLower, T, 0, int32(xpu.ScratchBytes(1))<<16, T)},
		{"cast bpchar text", "", op1(xpu.OpCast, T, xpu.TypeBpchar)},
		{"cast bpchar varchar", "cast BPCHAR -> VARCHAR", op1(xpu.OpCast, xpu.TypeVarchar, xpu.TypeBpchar)},
		{"like", "", func(b *xputest.Builder, v func(xpu.Type) int) int {
			return b.OpX(xpu.OpLike, B, xpu.FlagLikeUTF8, 0, v(T), b.ConstText(T, "a%"))
		}},
		{"like var pattern", "want a CONST TEXT", op2(xpu.OpLike, B, T, T)},
		{"like bpchar", "", func(b *xputest.Builder, v func(xpu.Type) int) int {
			return b.Op(xpu.OpLike, B, v(BP), b.ConstText(T, "a%"))
		}},
		{"like numeric", "argument 0 is NUMERIC", func(b *xputest.Builder, v func(xpu.Type) int) int {
			return b.Op(xpu.OpLike, B, v(xpu.TypeNumeric), b.ConstText(T, "a%"))
		}},
		{"like varchar pattern", "CONST VARCHAR, want a CONST TEXT", func(b *xputest.Builder, v func(xpu.Type) int) int {
			return b.Op(xpu.OpNotLike, B, v(VC), b.ConstText(VC, "a%"))
		}},
		{"like null pattern", "", func(b *xputest.Builder, v func(xpu.Type) int) int {
			return b.Op(xpu.OpLike, B, v(T), b.ConstNull(T))
		}},
		{"like bytewise flag", "flags 0x2 not allowed", func(b *xputest.Builder, v func(xpu.Type) int) int {
			return b.OpX(xpu.OpLike, B, xpu.FlagTextBytewise, 0, v(T), b.ConstText(T, "a%"))
		}},
		{"text const too long", "runs past", func(b *xputest.Builder, v func(xpu.Type) int) int {
			c := b.ConstText(T, "abc")
			b.Consts = b.Consts[:len(b.Consts)-1]
			return b.Op(xpu.OpEq, B, v(T), c)
		}},
		{"text const negative", "constant of -1 bytes", func(b *xputest.Builder, v func(xpu.Type) int) int {
			c := b.ConstText(T, "abc")
			b.Consts[xpu.OffTextLen], b.Consts[xpu.OffTextLen+1], b.Consts[xpu.OffTextLen+2], b.Consts[xpu.OffTextLen+3] = 0xff, 0xff, 0xff, 0xff
			return b.Op(xpu.OpEq, B, v(T), c)
		}},
		{"numeric const scale", "scale -1", func(b *xputest.Builder, v func(xpu.Type) int) int {
			return b.Op(xpu.OpEq, B, v(N), b.ConstNumeric(1, 0, -1))
		}},
		{"bool const 2", "BOOL constant byte 2", func(b *xputest.Builder, v func(xpu.Type) int) int {
			return b.Op(xpu.OpEq, B, v(B), b.Const(B, []byte{2}))
		}},
		{"numeric const short", "runs past", func(b *xputest.Builder, v func(xpu.Type) int) int {
			c := b.ConstNumeric(1, 0, 0)
			b.Consts = b.Consts[:len(b.Consts)-1]
			return b.Op(xpu.OpEq, B, v(N), c)
		}},
	}
	for _, r := range rules {
		b := typed(r.build)
		_, err := parseSession(b.Message(1))
		if r.substr == "" {
			if err != nil {
				t.Errorf("%s: valid program rejected: %v", r.name, err)
			}
			continue
		}
		expectProtocolError(t, r.name, b.Message(1), r.substr)
	}
}
