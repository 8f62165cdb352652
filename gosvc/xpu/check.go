package xpu

import "fmt"

// checkNode applies the header's per-opcode rules to node i, whose
// structure decodeNodes has checked.
func checkNode(p *Program, i int) error {
	nd := &p.Nodes[i]
	var err error
	switch nd.Opcode.Signature() {
	case SigLeaf:
		err = checkLeaf(p, nd)
	case SigCmp:
		err = checkCmp(p, nd)
	case SigArith:
		err = checkArith(p, nd)
	case SigCast:
		err = checkCast(p, nd)
	case SigBoolOp:
		err = checkBoolOp(p, nd)
	case SigTest:
		err = checkTest(p, nd)
	case SigSpecial:
		err = checkSpecial(p, nd)
	default:
		err = fmt.Errorf("unknown signature")
	}
	if err != nil {
		return nodeErr(i, nd.Opcode, "%v", err)
	}
	return nil
}

// argType is the result type of argument k of nd.
func argType(p *Program, nd *Node, k int) Type { return p.Nodes[nd.Args[k]].Restype }

// requireArgs checks that every argument of nd has type t.
func requireArgs(p *Program, nd *Node, t Type) error {
	for k := range nd.Args {
		if at := argType(p, nd, k); at != t {
			return fmt.Errorf("argument %d (node %d) is %s, want %s", k, nd.Args[k], at, t)
		}
	}
	return nil
}

// requireZero checks the fields the header says must be 0 for this opcode.
func requireZero(nd *Node, flagsAllowed uint16, auxUsed bool) error {
	if nd.Flags&^flagsAllowed != 0 {
		return fmt.Errorf("flags %#x not allowed here (allowed: %#x)", nd.Flags, flagsAllowed)
	}
	if !auxUsed && nd.Aux != 0 {
		return fmt.Errorf("aux is %d, must be 0", nd.Aux)
	}
	return nil
}

func requireRestype(nd *Node, t Type) error {
	if nd.Restype != t {
		return fmt.Errorf("result type %s, want %s", nd.Restype, t)
	}
	return nil
}

func checkLeaf(p *Program, nd *Node) error {
	switch nd.Opcode {
	case OpVar:
		if err := requireZero(nd, 0, true); err != nil {
			return err
		}
		if nd.Aux < 0 || int(nd.Aux) >= len(p.Attrs) {
			return fmt.Errorf("attribute index %d outside the %d attribute descriptors", nd.Aux, len(p.Attrs))
		}
		if a := p.Attrs[nd.Aux]; a.XType != nd.Restype {
			return fmt.Errorf("result type %s but attribute %d has xtype %s", nd.Restype, nd.Aux, a.XType)
		}
		return nil
	case OpConst:
		if err := requireZero(nd, FlagConstNull, true); err != nil {
			return err
		}
		return checkConst(p, nd)
	}
	return fmt.Errorf("unknown leaf opcode")
}

func checkCmp(p *Program, nd *Node) error {
	if err := requireRestype(nd, TypeBool); err != nil {
		return err
	}
	t := argType(p, nd, 0)
	if err := requireArgs(p, nd, t); err != nil {
		return err
	}
	ordering := nd.Opcode != OpEq && nd.Opcode != OpNe
	switch {
	case t == TypeBool && ordering:
		return fmt.Errorf("BOOL supports EQ and NE only")
	case t.isText():
		if ordering && nd.Flags&FlagTextBytewise == 0 {
			return fmt.Errorf("%s ordering needs XPU_NODE_TEXT_BYTEWISE (a byte-ordered collation)", t)
		}
		return requireZero(nd, FlagTextBytewise, false)
	}
	return requireZero(nd, 0, false)
}

func checkArith(p *Program, nd *Node) error {
	if err := requireZero(nd, 0, false); err != nil {
		return err
	}
	t := nd.Restype
	switch {
	case nd.Opcode.floatOnly():
		if !t.isFloat() {
			return fmt.Errorf("%s is for FLOAT4 and FLOAT8 only, not %s", nd.Opcode, t)
		}
	case t.isInteger():
	case t.isFloat():
		if nd.Opcode == OpMod {
			return fmt.Errorf("MOD is for integer types only, not %s", t)
		}
	case t == TypeNumeric:
		switch nd.Opcode {
		case OpAdd, OpSub, OpMul, OpDiv, OpNeg, OpAbs:
		default:
			return fmt.Errorf("NUMERIC supports ADD, SUB, MUL, DIV, NEG and ABS only")
		}
	default:
		return fmt.Errorf("no arithmetic on %s", t)
	}
	return requireArgs(p, nd, t)
}

// castSupported is the header's CAST pair list.
func castSupported(from, to Type) bool {
	switch {
	case from.isInteger():
		return to.isInteger() || to.isFloat() || to == TypeNumeric
	case from.isFloat():
		return (to.isFloat() && to != from) || to.isInteger() || to == TypeNumeric
	case from == TypeNumeric:
		return to.isInteger() || to.isFloat()
	case from == TypeDate:
		return to == TypeTimestamp
	case from == TypeTimestamp:
		return to == TypeDate
	case from == TypeVarchar:
		return to == TypeText
	case from == TypeText:
		return to == TypeVarchar
	case from == TypeBpchar:
		return to == TypeText
	}
	return false
}

func checkCast(p *Program, nd *Node) error {
	if err := requireZero(nd, 0, false); err != nil {
		return err
	}
	if from := argType(p, nd, 0); !castSupported(from, nd.Restype) {
		return fmt.Errorf("cast %s -> %s is not supported", from, nd.Restype)
	}
	return nil
}

func checkBoolOp(p *Program, nd *Node) error {
	if err := requireZero(nd, 0, false); err != nil {
		return err
	}
	if err := requireRestype(nd, TypeBool); err != nil {
		return err
	}
	return requireArgs(p, nd, TypeBool)
}

// checkTest: IS [NOT] NULL takes any type; the IS [NOT] TRUE/FALSE/UNKNOWN
// family is PostgreSQL's BooleanTest, whose argument is BOOL.
func checkTest(p *Program, nd *Node) error {
	if err := requireZero(nd, 0, false); err != nil {
		return err
	}
	if err := requireRestype(nd, TypeBool); err != nil {
		return err
	}
	if nd.Opcode == OpIsNull || nd.Opcode == OpIsNotNull {
		return nil
	}
	return requireArgs(p, nd, TypeBool)
}
