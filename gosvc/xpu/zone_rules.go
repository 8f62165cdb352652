package xpu

import "fmt"

// CheckZoneRules validates the XpuZoneRules at offset off of the constant
// pool of a TZ_LOCAL or TZ_UTC node with XPU_NODE_TZ_RULES: inside the
// pool, 16-byte aligned, lo < hi, at most XPU_ZONE_MAX_TRANSITIONS
// transitions in strictly ascending order inside [lo, hi), and every
// offset less than a day.
func CheckZoneRules(pool []byte, off int32) error {
	if off < 0 || off%16 != 0 || int(off)+ZoneRulesSize > len(pool) {
		return fmt.Errorf("zone rules at pool offset %d: want a 16-byte aligned offset with %d bytes inside the %d-byte pool", off, ZoneRulesSize, len(pool))
	}
	z := pool[off:]
	lo, hi := int64(le.Uint64(z)), int64(le.Uint64(z[8:]))
	n, first := int32(le.Uint32(z[16:])), int32(le.Uint32(z[20:]))
	if n < 0 || int(n) > ZoneMaxTransitions {
		return fmt.Errorf("zone rules with %d transitions, want 0..%d", n, ZoneMaxTransitions)
	}
	if end := int(off) + ZoneRulesSize + int(n)*ZoneTransitionSize; end > len(pool) {
		return fmt.Errorf("zone rules' %d transitions end at byte %d of the %d-byte pool", n, end, len(pool))
	}
	if lo >= hi {
		return fmt.Errorf("zone rules span [%d, %d) is empty", lo, hi)
	}
	if err := checkGmtoff(first); err != nil {
		return fmt.Errorf("zone rules before the first transition: %w", err)
	}
	prev := lo
	for i := 0; i < int(n); i++ {
		t := z[ZoneRulesSize+i*ZoneTransitionSize:]
		at, gmtoff := int64(le.Uint64(t)), int32(le.Uint32(t[8:]))
		if at < prev || (i > 0 && at == prev) || at >= hi {
			return fmt.Errorf("zone transition %d at %d is not after the previous one (%d) and before %d", i, at, prev, hi)
		}
		if err := checkGmtoff(gmtoff); err != nil {
			return fmt.Errorf("zone transition %d: %w", i, err)
		}
		prev = at
	}
	return nil
}

func checkGmtoff(s int32) error {
	if s <= -86400 || s >= 86400 {
		return fmt.Errorf("offset %d s is a day or more", s)
	}
	return nil
}
