package xpu

import "fmt"

// decodeAttrs decodes and checks the attribute descriptors.
func decodeAttrs(b []byte, n int) ([]Attr, error) {
	out := make([]Attr, n)
	for i := range out {
		d := b[i*AttrSize:]
		byval := int8(d[OffAttrByVal])
		a := Attr{
			Len:   int16(le.Uint16(d[OffAttrLen:])),
			Align: int8(d[OffAttrAlign]),
			ByVal: byval != 0,
			XType: Type(int16(le.Uint16(d[OffAttrXType:]))),
		}
		if err := checkAttr(a, byval); err != nil {
			return nil, protoErr("xpu program: attribute %d (attnum %d): %v", i, i+1, err)
		}
		out[i] = a
	}
	return out, nil
}

func checkAttr(a Attr, byval int8) error {
	switch {
	case a.Len <= 0 && a.Len != -1 && a.Len != -2:
		return fmt.Errorf("attlen must be > 0, -1 (varlena) or -2 (cstring), got %d", a.Len)
	case a.Align != 1 && a.Align != 2 && a.Align != 4 && a.Align != 8:
		return fmt.Errorf("attalign must be 1, 2, 4 or 8, got %d", a.Align)
	case byval != 0 && byval != 1:
		return fmt.Errorf("attbyval must be 0 or 1, got %d", byval)
	case a.ByVal && a.Len != 1 && a.Len != 2 && a.Len != 4 && a.Len != 8:
		return fmt.Errorf("attbyval with attlen %d (by-value types are 1, 2, 4 or 8 bytes)", a.Len)
	case a.XType == TypeInvalid:
		return nil // not referenced: only its length and alignment matter
	case !a.XType.Valid():
		return fmt.Errorf("unknown xtype %d", a.XType)
	case int(a.Len) != a.XType.FixedLen():
		return fmt.Errorf("attlen %d does not match xtype %s (length %d)", a.Len, a.XType, a.XType.FixedLen())
	}
	return nil
}
