package xpu

import "fmt"

// constSize is the encoded size of a non-NULL constant of type t in the
// pool, excluding text bytes.
func constSize(t Type) int {
	switch {
	case t == TypeNumeric:
		return NumericConstSize
	case t.isText():
		return TextConstSize
	}
	return t.FixedLen()
}

// checkConst checks a CONST node's value against the constant pool.
func checkConst(p *Program, nd *Node) error {
	if nd.Flags&FlagConstNull != 0 {
		if nd.Aux != 0 {
			return fmt.Errorf("NULL constant with aux %d, must be 0", nd.Aux)
		}
		return nil
	}
	size := constSize(nd.Restype)
	off := int64(nd.Aux)
	switch {
	case size <= 0:
		return fmt.Errorf("no constant encoding for %s", nd.Restype)
	case off < 0 || off%ConstAlign != 0:
		return fmt.Errorf("constant offset %d is not a non-negative multiple of %d", off, ConstAlign)
	case off+int64(size) > int64(len(p.Consts)):
		return fmt.Errorf("%s constant [%d, %d) runs past the %d-byte constant pool", nd.Restype, off, off+int64(size), len(p.Consts))
	}
	v := p.Consts[off:]
	switch {
	case nd.Restype == TypeBool:
		if v[0] > 1 {
			return fmt.Errorf("BOOL constant byte %d, must be 0 or 1", v[0])
		}
	case nd.Restype == TypeNumeric:
		if scale := int32(le.Uint32(v[OffNumScale:])); scale < 0 {
			return fmt.Errorf("NUMERIC constant with scale %d, must be >= 0", scale)
		}
	case nd.Restype.isText():
		n := int64(int32(le.Uint32(v[OffTextLen:])))
		if n < 0 || off+int64(size)+n > int64(len(p.Consts)) {
			return fmt.Errorf("%s constant of %d bytes at %d runs past the %d-byte constant pool", nd.Restype, n, off, len(p.Consts))
		}
	}
	return nil
}
