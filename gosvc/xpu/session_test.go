package xpu_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// scanProgram is `a > 10 AND b < 2.5` over (a int4, b float8, c text).
func scanProgram() *xputest.Builder {
	b := xputest.New()
	b.Attr(4, 4, true, xpu.TypeInt4)
	b.Attr(8, 8, true, xpu.TypeFloat8)
	b.Attr(-1, 4, false, xpu.TypeText)
	gt := b.Op(xpu.OpGt, xpu.TypeBool, b.Var(0, xpu.TypeInt4), b.ConstInt4(10))
	lt := b.Op(xpu.OpLt, xpu.TypeBool, b.Var(1, xpu.TypeFloat8), b.ConstFloat8(2.5))
	b.Op(xpu.OpAnd, xpu.TypeBool, gt, lt)
	return b
}

func TestParseSessionValid(t *testing.T) {
	b := scanProgram()
	b.PlanID = 0x1122334455667788
	p, err := parseSession(b.Message(1))
	if err != nil {
		t.Fatalf("ParseSession: %v", err)
	}
	if p.PlanID != b.PlanID || p.Root != 6 || len(p.Nodes) != 7 || len(p.Attrs) != 3 || p.Encoding != 6 {
		t.Fatalf("program %+v", p)
	}
	and := p.Nodes[6]
	if and.Opcode != xpu.OpAnd || len(and.Args) != 2 || and.Args[0] != 2 || and.Args[1] != 5 {
		t.Fatalf("root node %+v", and)
	}
	if p.Attrs[2] != (xpu.Attr{Len: -1, Align: 4, XType: xpu.TypeText}) {
		t.Fatalf("attr 2 %+v", p.Attrs[2])
	}
	if xpu.OpGt.String() != "GT" || xpu.TypeTimestampTz.String() != "TIMESTAMPTZ" || xpu.TypeText.OID() != 25 {
		t.Fatalf("names from the header: %s %s %d", xpu.OpGt, xpu.TypeTimestampTz, xpu.TypeText.OID())
	}
}

// everyOpcode builds one valid program using every opcode of the header.
func everyOpcode() *xputest.Builder {
	b := xputest.New()
	b.Attr(4, 4, true, xpu.TypeInt4)      // 0
	b.Attr(-1, 4, false, xpu.TypeVarchar) // 1
	b.Attr(4, 4, true, xpu.TypeDate)      // 2
	b.Attr(8, 8, true, xpu.TypeTimestamp) // 3
	b.Attr(-1, 4, false, xpu.TypeBpchar)  // 4
	b.Attr(-1, 4, false, xpu.TypeNumeric) // 5
	b.Attr(1, 1, true, xpu.TypeBool)      // 6

	a := b.Var(0, xpu.TypeInt4)
	var conds []int
	add := func(n int) { conds = append(conds, n) }
	sum := b.Op(xpu.OpAdd, xpu.TypeInt4, a, b.ConstInt4(1))
	diff := b.Op(xpu.OpSub, xpu.TypeInt4, sum, a)
	prod := b.Op(xpu.OpMul, xpu.TypeInt4, diff, a)
	quot := b.Op(xpu.OpDiv, xpu.TypeInt4, prod, b.ConstInt4(3))
	mod := b.Op(xpu.OpMod, xpu.TypeInt4, quot, b.ConstInt4(7))
	neg := b.Op(xpu.OpNeg, xpu.TypeInt4, mod)
	abs := b.Op(xpu.OpAbs, xpu.TypeInt4, neg)
	// the other comparisons appear below
	add(b.Op(xpu.OpGe, xpu.TypeBool, abs, a))
	f8 := b.Op(xpu.OpCast, xpu.TypeFloat8, a)
	for _, op := range []xpu.Opcode{xpu.OpFloor, xpu.OpCeil, xpu.OpRint, xpu.OpTrunc, xpu.OpSign} {
		f8 = b.Op(op, xpu.TypeFloat8, f8)
	}
	add(b.Op(xpu.OpGt, xpu.TypeBool, f8, b.ConstFloat8(0.5)))
	num := b.Op(xpu.OpCast, xpu.TypeNumeric, a)
	add(b.Op(xpu.OpLt, xpu.TypeBool, b.Op(xpu.OpAdd, xpu.TypeNumeric, num, b.ConstNumeric(15, 0, 1)), b.Var(5, xpu.TypeNumeric)))
	rounded := b.OpX(xpu.OpNumRound, xpu.TypeNumeric, 0, 2, b.Op(xpu.OpDiv, xpu.TypeNumeric, num, b.ConstNumeric(7, 0, 0)))
	add(b.Op(xpu.OpGt, xpu.TypeBool, b.OpX(xpu.OpNumTrunc, xpu.TypeNumeric, 0, -1, rounded), b.ConstNumeric(1, 0, 0)))
	vc := b.Var(1, xpu.TypeVarchar)
	txt := b.Op(xpu.OpCast, xpu.TypeText, vc)
	add(b.OpX(xpu.OpLt, xpu.TypeBool, xpu.FlagTextBytewise, 0, txt, b.ConstText(xpu.TypeText, "m")))
	add(b.OpX(xpu.OpLike, xpu.TypeBool, xpu.FlagLikeUTF8, 0, vc, b.ConstText(xpu.TypeText, "a%")))
	add(b.Op(xpu.OpNotLike, xpu.TypeBool, txt, b.ConstText(xpu.TypeText, "_b")))
	add(b.Op(xpu.OpEq, xpu.TypeBool, b.Var(4, xpu.TypeBpchar), b.ConstText(xpu.TypeBpchar, "x ")))
	trimmed := b.OpX(xpu.OpTrimSpaces, xpu.TypeText, 0, 3, b.Op(xpu.OpCast, xpu.TypeText, b.Var(4, xpu.TypeBpchar)))
	sub := b.OpX(xpu.OpSubstr, xpu.TypeText, xpu.FlagLikeUTF8, 0, trimmed, b.ConstInt4(2), b.ConstInt4(3))
	lr := b.OpX(xpu.OpRight, xpu.TypeText, xpu.FlagLikeUTF8, 0, b.OpX(xpu.OpLeft, xpu.TypeText, xpu.FlagLikeUTF8, 0, sub, b.ConstInt4(2)), b.ConstInt4(-1))
	add(b.Op(xpu.OpGt, xpu.TypeBool, b.OpX(xpu.OpCharLength, xpu.TypeInt4, xpu.FlagLikeUTF8, 0, lr), b.Op(xpu.OpOctetLength, xpu.TypeInt4, vc)))
	add(b.Op(xpu.OpEq, xpu.TypeBool, b.OpX(xpu.OpStrpos, xpu.TypeInt4, xpu.FlagLikeUTF8, 0, vc, b.ConstText(xpu.TypeText, "b")), b.ConstInt4(2)))
	add(b.Op(xpu.OpStartsWith, xpu.TypeBool, txt, b.ConstText(xpu.TypeText, "a")))
	// the text makers' scratch regions: 8 bytes each, as few nodes leave
	replaced := b.OpX(xpu.OpReplace, xpu.TypeText, 0, 48|int32(8)<<16, vc, vc, vc)
	reversed := b.OpX(xpu.OpReverse, xpu.TypeText, xpu.FlagLikeUTF8, 40|int32(8)<<16, replaced)
	lowered := b.OpX(xpu.OpLower, xpu.TypeText, 0, int32(8)<<16, reversed)
	cat := b.OpX(xpu.OpTextcat, xpu.TypeText, 0, 8|int32(8)<<16, lowered, b.ConstText(xpu.TypeText, "!"))
	add(b.Op(xpu.OpEq, xpu.TypeBool, b.OpX(xpu.OpUpper, xpu.TypeText, 0, 16|int32(8)<<16, cat), b.ConstText(xpu.TypeText, "BA!")))
	printed := b.OpX(xpu.OpToText, xpu.TypeText, 0, 24|int32(8)<<16, a)
	add(b.Op(xpu.OpEq, xpu.TypeBool, b.Op(xpu.OpSplitPart, xpu.TypeText, printed, b.ConstText(xpu.TypeText, "0"), b.ConstInt4(-1)), b.ConstText(xpu.TypeText, "")))
	d := b.Var(2, xpu.TypeDate)
	d2 := b.Op(xpu.OpDatePli, xpu.TypeDate, d, b.ConstInt4(3))
	d3 := b.Op(xpu.OpDateMii, xpu.TypeDate, d2, b.ConstInt4(1))
	add(b.Op(xpu.OpGt, xpu.TypeBool, b.Op(xpu.OpDateMi, xpu.TypeInt4, d3, d), b.ConstInt4(1)))
	ts := b.Var(3, xpu.TypeTimestamp)
	add(b.Op(xpu.OpLt, xpu.TypeBool, b.Op(xpu.OpTsPlInterval, xpu.TypeTimestamp, ts, b.ConstInt4(1), b.ConstInt4(-2), b.ConstInt8(3)), ts))
	add(b.Op(xpu.OpEq, xpu.TypeBool, b.OpX(xpu.OpToChar, xpu.TypeText, 0, 32|int32(8)<<16, ts, b.ConstText(xpu.TypeText, "\x01\x00")), b.ConstText(xpu.TypeText, "2024")))
	add(b.Op(xpu.OpLe, xpu.TypeBool, b.Op(xpu.OpCast, xpu.TypeTimestamp, d), ts))
	add(b.Op(xpu.OpEq, xpu.TypeBool, b.OpX(xpu.OpExtract, xpu.TypeNumeric, 0, xpu.FieldYear, d), b.ConstNumeric(2024, 0, 0)))
	add(b.Op(xpu.OpEq, xpu.TypeBool, b.OpX(xpu.OpDatePart, xpu.TypeFloat8, 0, xpu.FieldMinute, ts), b.ConstFloat8(5)))
	tstz := b.OpX(xpu.OpTzUtc, xpu.TypeTimestampTz, 0, 3600, b.OpX(xpu.OpDateTrunc, xpu.TypeTimestamp, 0, xpu.FieldWeek, ts))
	add(b.Op(xpu.OpLe, xpu.TypeBool, b.OpX(xpu.OpTzLocal, xpu.TypeTimestamp, 0, 3600, tstz), ts))
	bv := b.Var(6, xpu.TypeBool)
	add(b.Op(xpu.OpNe, xpu.TypeBool, bv, b.ConstBool(true)))
	add(b.Op(xpu.OpNot, xpu.TypeBool, b.Op(xpu.OpIsNull, xpu.TypeBool, vc)))
	add(b.Op(xpu.OpIsNotNull, xpu.TypeBool, a))
	for _, op := range []xpu.Opcode{xpu.OpIsTrue, xpu.OpIsNotTrue, xpu.OpIsFalse, xpu.OpIsNotFalse, xpu.OpIsUnknown, xpu.OpIsNotUnknown} {
		add(b.Op(op, xpu.TypeBool, bv))
	}
	cs := b.Op(xpu.OpCase, xpu.TypeInt4, bv, a, b.ConstNull(xpu.TypeInt4))
	add(b.Op(xpu.OpGt, xpu.TypeBool, b.Op(xpu.OpCoalesce, xpu.TypeInt4, cs, b.ConstInt4(0)), b.ConstInt4(-1)))
	or := b.Op(xpu.OpOr, xpu.TypeBool, conds[0], conds[1], conds[2])
	b.Op(xpu.OpAnd, xpu.TypeBool, append([]int{or}, conds[3:]...)...)
	return b
}

func TestParseSessionEveryOpcode(t *testing.T) {
	b := everyOpcode()
	p, err := parseSession(b.Message(1))
	if err != nil {
		t.Fatalf("ParseSession: %v", err)
	}
	seen := map[xpu.Opcode]bool{}
	for _, n := range p.Nodes {
		seen[n.Opcode] = true
	}
	for op := xpu.OpVar; op.Valid(); op++ {
		if !seen[op] {
			t.Errorf("the program does not use %s", op)
		}
	}
	if len(p.Nodes) > xpu.MaxSlots {
		t.Fatalf("%d nodes exceed MaxSlots", len(p.Nodes))
	}
}

func TestHeaderTables(t *testing.T) {
	if xpu.OpVar.NArgs() != 0 || xpu.OpLike.NArgs() != 2 || xpu.OpAnd.NArgs() != -1 || xpu.OpNeg.NArgs() != 1 {
		t.Fatal("nargs column not taken from XPU_OPCODE_LIST")
	}
	if xpu.OpLt.Signature() != xpu.SigCmp || xpu.OpCast.Signature() != xpu.SigCast || xpu.OpCase.Signature() != xpu.SigSpecial {
		t.Fatal("signature column not taken from XPU_OPCODE_LIST")
	}
	for op := xpu.OpVar; op.Valid(); op++ {
		if op.Signature() == xpu.SigUnknown || strings.HasPrefix(op.String(), "Opcode(") {
			t.Errorf("opcode %d: name %q, signature unknown", op, op)
		}
	}
	if xpu.TypeInt8.FixedLen() != 8 || xpu.TypeNumeric.FixedLen() != -1 || xpu.TypeBool.FixedLen() != 1 {
		t.Fatal("fixed_len column not taken from XPU_TYPE_LIST")
	}
	if xpu.Opcode(999).String() != "Opcode(999)" || xpu.Type(-3).Valid() {
		t.Fatal("out-of-range values")
	}
}

func expectProtocolError(t *testing.T, name string, msg []byte, substr string) {
	t.Helper()
	_, err := parseSession(msg)
	if !errors.Is(err, protocol.ErrProtocol) {
		t.Errorf("%s: err = %v, want ErrProtocol", name, err)
		return
	}
	if !strings.Contains(err.Error(), substr) {
		t.Errorf("%s: error %q lacks %q", name, err, substr)
	}
}
