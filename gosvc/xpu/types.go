package xpu

// #cgo CFLAGS: -I${SRCDIR}/../../include
// #include "pg_strom_xpu.h"
import "C"

import "strconv"

// Type is XpuType.
type Type int16

// Device types, from enum XpuType.
const (
	TypeInvalid     = Type(C.XPU_TYPE_INVALID)
	TypeBool        = Type(C.XPU_TYPE_BOOL)
	TypeInt2        = Type(C.XPU_TYPE_INT2)
	TypeInt4        = Type(C.XPU_TYPE_INT4)
	TypeInt8        = Type(C.XPU_TYPE_INT8)
	TypeFloat4      = Type(C.XPU_TYPE_FLOAT4)
	TypeFloat8      = Type(C.XPU_TYPE_FLOAT8)
	TypeNumeric     = Type(C.XPU_TYPE_NUMERIC)
	TypeDate        = Type(C.XPU_TYPE_DATE)
	TypeTimestamp   = Type(C.XPU_TYPE_TIMESTAMP)
	TypeTimestampTz = Type(C.XPU_TYPE_TIMESTAMPTZ)
	TypeText        = Type(C.XPU_TYPE_TEXT)
	TypeVarchar     = Type(C.XPU_TYPE_VARCHAR)
	TypeBpchar      = Type(C.XPU_TYPE_BPCHAR)
)

// typeInfo is one row of XPU_TYPE_LIST.
type typeInfo struct {
	name   string
	oid    int
	length int // fixed_len: > 0, or -1 for varlena
}

var typeTable = func() []typeInfo {
	t := make([]typeInfo, numTypes)
	for i := range t {
		t[i].name, t[i].oid, t[i].length = typeDesc(i)
	}
	return t
}()

// Valid reports whether t is a device type of the header's list.
func (t Type) Valid() bool { return t > TypeInvalid && int(t) < numTypes }

// String is the header's name, e.g. "INT4".
func (t Type) String() string {
	if t.Valid() {
		return typeTable[t].name
	}
	return "Type(" + strconv.Itoa(int(t)) + ")"
}

// OID is the PostgreSQL type oid of a valid type.
func (t Type) OID() int { return typeTable[t].oid }

// FixedLen is the header's fixed_len: the byte length, or -1 for varlena.
func (t Type) FixedLen() int { return typeTable[t].length }

func (t Type) isInteger() bool { return t == TypeInt2 || t == TypeInt4 || t == TypeInt8 }
func (t Type) isFloat() bool   { return t == TypeFloat4 || t == TypeFloat8 }
func (t Type) isText() bool    { return t == TypeText || t == TypeVarchar || t == TypeBpchar }

// isVarlenaText: the text functions' argument types (bpchar reaches them
// through a cast).
func (t Type) isVarlenaText() bool { return t == TypeText || t == TypeVarchar }

// Opcode is XpuOpcode.
type Opcode int16

// Opcodes, from enum XpuOpcode.
const (
	OpInvalid      = Opcode(C.XPU_OP_INVALID)
	OpVar          = Opcode(C.XPU_OP_VAR)
	OpConst        = Opcode(C.XPU_OP_CONST)
	OpEq           = Opcode(C.XPU_OP_EQ)
	OpNe           = Opcode(C.XPU_OP_NE)
	OpLt           = Opcode(C.XPU_OP_LT)
	OpLe           = Opcode(C.XPU_OP_LE)
	OpGt           = Opcode(C.XPU_OP_GT)
	OpGe           = Opcode(C.XPU_OP_GE)
	OpAdd          = Opcode(C.XPU_OP_ADD)
	OpSub          = Opcode(C.XPU_OP_SUB)
	OpMul          = Opcode(C.XPU_OP_MUL)
	OpDiv          = Opcode(C.XPU_OP_DIV)
	OpMod          = Opcode(C.XPU_OP_MOD)
	OpNeg          = Opcode(C.XPU_OP_NEG)
	OpAbs          = Opcode(C.XPU_OP_ABS)
	OpFloor        = Opcode(C.XPU_OP_FLOOR)
	OpCeil         = Opcode(C.XPU_OP_CEIL)
	OpRint         = Opcode(C.XPU_OP_RINT)
	OpTrunc        = Opcode(C.XPU_OP_TRUNC)
	OpSign         = Opcode(C.XPU_OP_SIGN)
	OpCast         = Opcode(C.XPU_OP_CAST)
	OpAnd          = Opcode(C.XPU_OP_AND)
	OpOr           = Opcode(C.XPU_OP_OR)
	OpNot          = Opcode(C.XPU_OP_NOT)
	OpIsNull       = Opcode(C.XPU_OP_IS_NULL)
	OpIsNotNull    = Opcode(C.XPU_OP_IS_NOT_NULL)
	OpIsTrue       = Opcode(C.XPU_OP_IS_TRUE)
	OpIsNotTrue    = Opcode(C.XPU_OP_IS_NOT_TRUE)
	OpIsFalse      = Opcode(C.XPU_OP_IS_FALSE)
	OpIsNotFalse   = Opcode(C.XPU_OP_IS_NOT_FALSE)
	OpIsUnknown    = Opcode(C.XPU_OP_IS_UNKNOWN)
	OpIsNotUnknown = Opcode(C.XPU_OP_IS_NOT_UNKNOWN)
	OpCase         = Opcode(C.XPU_OP_CASE)
	OpCoalesce     = Opcode(C.XPU_OP_COALESCE)
	OpDatePli      = Opcode(C.XPU_OP_DATE_PLI)
	OpDateMii      = Opcode(C.XPU_OP_DATE_MII)
	OpDateMi       = Opcode(C.XPU_OP_DATE_MI)
	OpExtract      = Opcode(C.XPU_OP_EXTRACT)
	OpDatePart     = Opcode(C.XPU_OP_DATE_PART)
	OpLike         = Opcode(C.XPU_OP_LIKE)
	OpNotLike      = Opcode(C.XPU_OP_NOT_LIKE)
	OpDateTrunc    = Opcode(C.XPU_OP_DATE_TRUNC)
	OpTzLocal      = Opcode(C.XPU_OP_TZ_LOCAL)
	OpTzUtc        = Opcode(C.XPU_OP_TZ_UTC)
	OpNumRound     = Opcode(C.XPU_OP_NUM_ROUND)
	OpNumTrunc     = Opcode(C.XPU_OP_NUM_TRUNC)
	OpSubstr       = Opcode(C.XPU_OP_SUBSTR)
	OpCharLength   = Opcode(C.XPU_OP_CHAR_LENGTH)
	OpOctetLength  = Opcode(C.XPU_OP_OCTET_LENGTH)
	OpStrpos       = Opcode(C.XPU_OP_STRPOS)
	OpStartsWith   = Opcode(C.XPU_OP_STARTS_WITH)
	OpLeft         = Opcode(C.XPU_OP_LEFT)
	OpRight        = Opcode(C.XPU_OP_RIGHT)
	OpTrimSpaces   = Opcode(C.XPU_OP_TRIM_SPACES)
	OpLower        = Opcode(C.XPU_OP_LOWER)
	OpUpper        = Opcode(C.XPU_OP_UPPER)
	OpTextcat      = Opcode(C.XPU_OP_TEXTCAT)
	OpToText       = Opcode(C.XPU_OP_TO_TEXT)
	OpSplitPart    = Opcode(C.XPU_OP_SPLIT_PART)
	OpToChar       = Opcode(C.XPU_OP_TO_CHAR)
	OpTsPlInterval = Opcode(C.XPU_OP_TS_PL_INTERVAL)
	OpReverse      = Opcode(C.XPU_OP_REVERSE)
	OpReplace      = Opcode(C.XPU_OP_REPLACE)
)

// Signature is the signature column of XPU_OPCODE_LIST.
type Signature int

// Signatures; SigUnknown is one this service does not know, and the
// validator refuses such an opcode.
const (
	SigUnknown Signature = iota
	SigLeaf
	SigCmp
	SigArith
	SigCast
	SigBoolOp
	SigTest
	SigSpecial
)

var sigNames = map[string]Signature{
	"LEAF": SigLeaf, "CMP": SigCmp, "ARITH": SigArith, "CAST": SigCast,
	"BOOLOP": SigBoolOp, "TEST": SigTest, "SPECIAL": SigSpecial,
}

// opInfo is one row of XPU_OPCODE_LIST.
type opInfo struct {
	name  string
	nargs int // exact count, or -1 for "checked per opcode"
	sig   Signature
}

var opTable = func() []opInfo {
	t := make([]opInfo, numOpcodes)
	for i := range t {
		var sig string
		t[i].name, t[i].nargs, sig = opDesc(i)
		t[i].sig = sigNames[sig] // SigUnknown if absent
	}
	return t
}()

// Valid reports whether op is an opcode of the header's list.
func (op Opcode) Valid() bool { return op > OpInvalid && int(op) < numOpcodes }

// String is the header's name, e.g. "GT".
func (op Opcode) String() string {
	if op.Valid() {
		return opTable[op].name
	}
	if op == OpInnerVar {
		return "INNER_VAR"
	}
	return "Opcode(" + strconv.Itoa(int(op)) + ")"
}

// floatOnly: the ARITH opcodes the header defines on FLOAT4/FLOAT8 only.
func (op Opcode) floatOnly() bool {
	switch op {
	case OpFloor, OpCeil, OpRint, OpTrunc, OpSign:
		return true
	}
	return false
}

// NArgs is the header's nargs column: an exact count, or -1.
func (op Opcode) NArgs() int { return opTable[op].nargs }

// Signature is the header's signature column.
func (op Opcode) Signature() Signature { return opTable[op].sig }
