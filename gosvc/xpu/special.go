package xpu

import "fmt"

func checkSpecial(p *Program, nd *Node) error {
	switch nd.Opcode {
	case OpCase:
		return checkCase(p, nd)
	case OpCoalesce:
		if err := requireZero(nd, 0, false); err != nil {
			return err
		}
		return requireArgs(p, nd, nd.Restype)
	case OpDatePli, OpDateMii:
		return checkSignature(p, nd, TypeDate, TypeDate, TypeInt4)
	case OpDateMi:
		return checkSignature(p, nd, TypeInt4, TypeDate, TypeDate)
	case OpTsPlInterval:
		return checkSignature(p, nd, TypeTimestamp, TypeTimestamp, TypeInt4, TypeInt4, TypeInt8)
	case OpExtract:
		return checkDateField(p, nd, TypeNumeric)
	case OpDatePart:
		return checkDateField(p, nd, TypeFloat8)
	case OpLike, OpNotLike:
		return checkLike(p, nd)
	case OpDateTrunc:
		return checkDateTrunc(p, nd)
	case OpTzLocal:
		return checkZoneShift(p, nd, TypeTimestamp, TypeTimestampTz)
	case OpTzUtc:
		return checkZoneShift(p, nd, TypeTimestampTz, TypeTimestamp)
	case OpNumRound, OpNumTrunc:
		return checkNumericScale(p, nd)
	case OpSubstr, OpCharLength, OpOctetLength, OpStrpos, OpStartsWith, OpLeft, OpRight, OpTrimSpaces:
		return checkTextFunc(p, nd)
	case OpLower, OpUpper, OpTextcat, OpToText, OpToChar, OpReverse, OpReplace:
		return checkTextMake(p, nd)
	case OpSplitPart:
		return checkSignature(p, nd, TypeText, TypeText, TypeText, TypeInt4)
	}
	return fmt.Errorf("no validation rule for this opcode")
}

// checkCase: cond1, val1, ..., condk, valk, else.
func checkCase(p *Program, nd *Node) error {
	if err := requireZero(nd, 0, false); err != nil {
		return err
	}
	for k := range nd.Args {
		want := nd.Restype
		if k%2 == 0 && k != len(nd.Args)-1 {
			want = TypeBool
		}
		if at := argType(p, nd, k); at != want {
			return fmt.Errorf("argument %d (node %d) is %s, want %s", k, nd.Args[k], at, want)
		}
	}
	return nil
}

// checkSignature checks a fixed (args...) -> res signature, where an
// argument of TEXT may be a VARCHAR (the same to the device).
func checkSignature(p *Program, nd *Node, res Type, args ...Type) error {
	if err := requireZero(nd, 0, false); err != nil {
		return err
	}
	if err := requireRestype(nd, res); err != nil {
		return err
	}
	for k, want := range args {
		if at := argType(p, nd, k); at != want && !(want == TypeText && at.isVarlenaText()) {
			return fmt.Errorf("argument %d (node %d) is %s, want %s", k, nd.Args[k], at, want)
		}
	}
	return nil
}

func checkDateField(p *Program, nd *Node, res Type) error {
	if err := requireZero(nd, 0, true); err != nil {
		return err
	}
	if err := requireRestype(nd, res); err != nil {
		return err
	}
	at := argType(p, nd, 0)
	if at != TypeDate && at != TypeTimestamp {
		return fmt.Errorf("argument is %s, want DATE or TIMESTAMP", at)
	}
	switch f := nd.Aux; {
	case f < FieldYear || f > FieldMicrosec:
		return fmt.Errorf("unknown date field %d", f)
	case (f == FieldHour || f == FieldMinute || f == FieldSecond || f == FieldMillisec ||
		f == FieldMicrosec) && at != TypeTimestamp:
		return fmt.Errorf("field %d (HOUR/MINUTE/SECOND) needs a TIMESTAMP argument, got %s", f, at)
	case f == FieldJulian && at != TypeDate:
		return fmt.Errorf("field %d (JULIAN) needs a DATE argument, got %s", f, at)
	}
	return nil
}

func checkLike(p *Program, nd *Node) error {
	if err := requireZero(nd, FlagLikeUTF8|FlagLikeICase, false); err != nil {
		return err
	}
	if err := requireRestype(nd, TypeBool); err != nil {
		return err
	}
	// BPCHAR is matched as stored, with its padding, as bpcharlike does.
	if at := argType(p, nd, 0); at != TypeText && at != TypeVarchar && at != TypeBpchar {
		return fmt.Errorf("argument 0 is %s, want TEXT, VARCHAR or BPCHAR", at)
	}
	// A NULL pattern is legal: a parameter bound to NULL becomes a NULL
	// CONST, and LIKE then yields NULL.
	if pat := &p.Nodes[nd.Args[1]]; pat.Opcode != OpConst || pat.Restype != TypeText {
		return fmt.Errorf("the pattern (node %d) is %s %s, want a CONST TEXT", nd.Args[1], pat.Opcode, pat.Restype)
	}
	return nil
}

func checkDateTrunc(p *Program, nd *Node) error {
	if err := requireZero(nd, 0, true); err != nil {
		return err
	}
	if err := requireRestype(nd, TypeTimestamp); err != nil {
		return err
	}
	if at := argType(p, nd, 0); at != TypeTimestamp {
		return fmt.Errorf("argument is %s, want TIMESTAMP", at)
	}
	switch nd.Aux {
	case FieldYear, FieldQuarter, FieldMonth, FieldWeek, FieldDay, FieldHour, FieldMinute, FieldSecond,
		FieldDecade, FieldCentury, FieldMillennium:
		return nil
	}
	return fmt.Errorf("date field %d cannot be truncated to", nd.Aux)
}

// checkZoneShift: aux is a fixed zone's offset from UTC in seconds, less
// than a day either way.
func checkZoneShift(p *Program, nd *Node, res, arg Type) error {
	if err := requireZero(nd, FlagTzRules, true); err != nil {
		return err
	}
	if err := requireRestype(nd, res); err != nil {
		return err
	}
	if at := argType(p, nd, 0); at != arg {
		return fmt.Errorf("argument is %s, want %s", at, arg)
	}
	if nd.Flags&FlagTzRules != 0 {
		return CheckZoneRules(p.Consts, nd.Aux)
	}
	if nd.Aux <= -86400 || nd.Aux >= 86400 {
		return fmt.Errorf("zone offset %d s is a day or more", nd.Aux)
	}
	return nil
}

// numericMaxResultScale is numeric.c's NUMERIC_MAX_RESULT_SCALE, the
// bound round and trunc clamp their scale to.
const numericMaxResultScale = 2000

// checkNumericScale: NUM_ROUND/NUM_TRUNC (NUMERIC) -> NUMERIC, aux the
// scale.
func checkNumericScale(p *Program, nd *Node) error {
	if err := requireZero(nd, 0, true); err != nil {
		return err
	}
	if err := requireRestype(nd, TypeNumeric); err != nil {
		return err
	}
	if at := argType(p, nd, 0); at != TypeNumeric {
		return fmt.Errorf("argument is %s, want NUMERIC", at)
	}
	if nd.Aux < -numericMaxResultScale || nd.Aux > numericMaxResultScale {
		return fmt.Errorf("scale %d is outside [-%d, %d]", nd.Aux, numericMaxResultScale, numericMaxResultScale)
	}
	return nil
}

// textFuncSignatures: each text function's result and the types of its
// arguments after the first, which is TEXT or VARCHAR.
var textFuncSignatures = map[Opcode]struct {
	res  Type
	rest []Type
}{
	OpCharLength:  {TypeInt4, nil},
	OpOctetLength: {TypeInt4, nil},
	OpStrpos:      {TypeInt4, []Type{TypeText}},
	OpStartsWith:  {TypeBool, []Type{TypeText}},
	OpLeft:        {TypeText, []Type{TypeInt4}},
	OpRight:       {TypeText, []Type{TypeInt4}},
	OpTrimSpaces:  {TypeText, nil},
}

// checkTextFunc: SUBSTR (TEXT, INT4 [, INT4]), the others as
// textFuncSignatures says; XPU_NODE_LIKE_UTF8 is the only flag, aux is
// TRIM_SPACES's ends (1 to 3).
func checkTextFunc(p *Program, nd *Node) error {
	if err := requireZero(nd, FlagLikeUTF8, nd.Opcode == OpTrimSpaces); err != nil {
		return err
	}
	res, rest := TypeText, []Type{TypeInt4}
	if nd.Opcode == OpSubstr {
		if len(nd.Args) == 3 {
			rest = append(rest, TypeInt4)
		}
	} else {
		sig := textFuncSignatures[nd.Opcode]
		res, rest = sig.res, sig.rest
	}
	if len(nd.Args) != 1+len(rest) {
		return fmt.Errorf("%d arguments, want %d", len(nd.Args), 1+len(rest))
	}
	if err := requireRestype(nd, res); err != nil {
		return err
	}
	if at := argType(p, nd, 0); !at.isVarlenaText() {
		return fmt.Errorf("argument 0 is %s, want TEXT or VARCHAR", at)
	}
	for k, want := range rest {
		at := argType(p, nd, k+1)
		if at != want && !(want == TypeText && at.isVarlenaText()) {
			return fmt.Errorf("argument %d is %s, want %s", k+1, at, want)
		}
	}
	if nd.Opcode == OpTrimSpaces && (nd.Aux < 1 || nd.Aux > 3) {
		return fmt.Errorf("trim ends %d, want 1 (leading), 2 (trailing) or 3 (both)", nd.Aux)
	}
	return nil
}

// printable are the types TO_TEXT prints.
var printable = map[Type]bool{
	TypeInt2: true, TypeInt4: true, TypeInt8: true, TypeBool: true,
	TypeNumeric: true, TypeDate: true, TypeTimestamp: true,
}

// checkToCharArg: TO_CHAR's argument k, the TIMESTAMP and then its format,
// a TEXT constant.
func checkToCharArg(p *Program, nd *Node, k int, at Type) error {
	if k == 0 && at != TypeTimestamp {
		return fmt.Errorf("argument 0 is %s, want TIMESTAMP", at)
	}
	if k == 1 && (at != TypeText || p.Nodes[nd.Args[1]].Opcode != OpConst) {
		return fmt.Errorf("argument 1 (node %d) is not a CONST TEXT format", nd.Args[1])
	}
	return nil
}

// checkTextMake: LOWER/UPPER (TEXT), TEXTCAT (TEXT, TEXT), TO_TEXT (one
// of printable), TO_CHAR (TIMESTAMP, CONST TEXT), no flags, aux the node's
// scratch region past the program's slots.
func checkTextMake(p *Program, nd *Node) error {
	var flags uint16
	if nd.Opcode == OpReverse {
		flags = FlagLikeUTF8 // counts characters
	}
	if err := requireZero(nd, flags, true); err != nil {
		return err
	}
	if err := requireRestype(nd, TypeText); err != nil {
		return err
	}
	for k := range nd.Args {
		at := argType(p, nd, k)
		if nd.Opcode == OpToChar {
			if err := checkToCharArg(p, nd, k, at); err != nil {
				return err
			}
		} else if nd.Opcode == OpToText {
			if !printable[at] {
				return fmt.Errorf("argument %d is %s, want INT2, INT4, INT8, BOOL, NUMERIC, DATE or TIMESTAMP", k, at)
			}
		} else if !at.isVarlenaText() {
			return fmt.Errorf("argument %d is %s, want TEXT or VARCHAR", k, at)
		}
	}
	off, capacity := int(uint32(nd.Aux)&0xFFFF), int(uint32(nd.Aux)>>16)
	if nd.Aux < 0 || off%8 != 0 || off+capacity > ScratchBytes(len(p.Nodes)) {
		return fmt.Errorf("scratch region at %d of %d bytes is not 8-aligned inside the %d scratch bytes of %d nodes",
			off, capacity, ScratchBytes(len(p.Nodes)), len(p.Nodes))
	}
	return nil
}
