package xpu

import "fmt"

// decodeNodes decodes the node array and checks its structure: known
// opcodes and types, argument ranges inside the argument array, and
// post-order (every argument of node i is a node j < i).  innerStage: the
// program of a fused GpuJoin + GpuPreAgg session, whose nodes after root
// may be INNER_VARs (their columns are the join's to check).
func decodeNodes(b []byte, n int, argArr []int32, innerStage bool, root int) ([]Node, error) {
	out := make([]Node, n)
	for i := range out {
		d := b[i*NodeSize:]
		nd := Node{
			Opcode:  Opcode(int16(le.Uint16(d[OffNodeOpcode:]))),
			Restype: Type(int16(le.Uint16(d[OffNodeRestype:]))),
			Flags:   le.Uint16(d[OffNodeFlags:]),
			ArgBase: int32(le.Uint32(d[OffNodeArgs:])),
			Aux:     int32(le.Uint32(d[OffNodeAux:])),
		}
		nargs := int16(le.Uint16(d[OffNodeNArgs:]))
		if nd.Opcode == OpInnerVar && innerStage {
			if err := checkInnerVar(nd, nargs, i, root); err != nil {
				return nil, nodeErr(i, nd.Opcode, "%v", err)
			}
			out[i] = nd
			continue
		}
		if !nd.Opcode.Valid() {
			return nil, nodeErr(i, nd.Opcode, "unknown opcode %d", nd.Opcode)
		}
		if nd.Opcode.Signature() == SigUnknown {
			return nil, nodeErr(i, nd.Opcode, "the header gives this opcode a signature this service does not know")
		}
		if !nd.Restype.Valid() {
			return nil, nodeErr(i, nd.Opcode, "unknown result type %d", nd.Restype)
		}
		if err := checkNArgs(nd.Opcode, int(nargs)); err != nil {
			return nil, nodeErr(i, nd.Opcode, "%v", err)
		}
		if nargs == 0 {
			if nd.ArgBase != 0 {
				return nil, nodeErr(i, nd.Opcode, "args is %d but the node has no arguments (must be 0)", nd.ArgBase)
			}
			out[i] = nd
			continue
		}
		if nd.ArgBase < 0 || int64(nd.ArgBase)+int64(nargs) > int64(len(argArr)) {
			return nil, nodeErr(i, nd.Opcode, "arguments [%d, %d) outside the argument array of %d entries",
				nd.ArgBase, int64(nd.ArgBase)+int64(nargs), len(argArr))
		}
		nd.Args = argArr[nd.ArgBase : int(nd.ArgBase)+int(nargs)]
		for k, a := range nd.Args {
			if a < 0 || int(a) >= i {
				return nil, nodeErr(i, nd.Opcode, "argument %d is node %d; arguments must be earlier nodes (0..%d)", k, a, i-1)
			}
		}
		out[i] = nd
	}
	return out, nil
}

// checkInnerVar: the rules of xpu_validate_node for an INNER_VAR; its aux
// (the payload column) is checked against the join (ParseJoinPreAgg).
func checkInnerVar(nd Node, nargs int16, i, root int) error {
	switch {
	case i <= root:
		return fmt.Errorf("an inner column at or before the root (node %d): only nodes after it are evaluated per join combination", root)
	case nargs != 0 || nd.ArgBase != 0:
		return fmt.Errorf("has %d arguments at %d, must have none", nargs, nd.ArgBase)
	case nd.Flags != 0:
		return fmt.Errorf("flags %#x, must be 0", nd.Flags)
	case !nd.Restype.Valid():
		return fmt.Errorf("unknown result type %d", nd.Restype)
	}
	return nil
}

type nargsError struct {
	got  int
	want string
}

func (e nargsError) Error() string { return fmt.Sprintf("has %d arguments, want %s", e.got, e.want) }

// checkNArgs checks the argument count against the header's nargs column,
// with the per-opcode rules for the variadic ones.
func checkNArgs(op Opcode, n int) error {
	switch want := op.NArgs(); {
	case want >= 0:
		if n != want {
			return nargsError{n, fmt.Sprint(want)}
		}
	case op == OpAnd || op == OpOr:
		if n < 2 {
			return nargsError{n, "2 or more"}
		}
	case op == OpCase:
		if n < 3 || n%2 != 1 {
			return nargsError{n, "2k+1 with k >= 1 (cond, val pairs and an else)"}
		}
	case op == OpCoalesce:
		if n < 1 {
			return nargsError{n, "1 or more"}
		}
	case op == OpSubstr:
		if n != 2 && n != 3 {
			return nargsError{n, "2 or 3"}
		}
	default:
		return nargsError{n, "a count this service does not know for a variadic opcode"}
	}
	return nil
}
