package xpu

import "encoding/binary"

var le = binary.LittleEndian

// region is an array inside a message: count elements of size bytes at off.
type region struct {
	name       string
	off, count uint32
	size       int // element size
	align      int // required alignment of off
}

// end is one past the last byte; 64-bit arithmetic cannot overflow for
// 32-bit offsets and counts and small element sizes.
func (r region) end() uint64 { return uint64(r.off) + uint64(r.count)*uint64(r.size) }

func (r region) empty() bool { return r.count == 0 }

// check validates r against a message of msgLen bytes whose fixed part ends
// at fixedEnd: in bounds, aligned, and (when non-empty) after the fixed part.
func (r region) check(msgLen, fixedEnd int) error {
	switch {
	case r.off%uint32(r.align) != 0:
		return protoErr("xpu program: %s offset %d is not a multiple of %d", r.name, r.off, r.align)
	case r.end() > uint64(msgLen):
		return protoErr("xpu program: %s [%d, %d) runs past the end of the %d-byte message", r.name, r.off, r.end(), msgLen)
	case !r.empty() && r.off < uint32(fixedEnd):
		return protoErr("xpu program: %s offset %d overlaps the message header and session fields (which end at %d)", r.name, r.off, fixedEnd)
	}
	return nil
}

// overlaps reports whether two non-empty regions share a byte.
func (r region) overlaps(o region) bool {
	if r.empty() || o.empty() {
		return false
	}
	return uint64(r.off) < o.end() && uint64(o.off) < r.end()
}

// checkRegions validates every region and that no two overlap.
func checkRegions(msgLen, fixedEnd int, rs ...region) error {
	for _, r := range rs {
		if err := r.check(msgLen, fixedEnd); err != nil {
			return err
		}
	}
	for i := range rs {
		for j := i + 1; j < len(rs); j++ {
			if rs[i].overlaps(rs[j]) {
				return protoErr("xpu program: %s [%d, %d) overlaps %s [%d, %d)",
					rs[i].name, rs[i].off, rs[i].end(), rs[j].name, rs[j].off, rs[j].end())
			}
		}
	}
	return nil
}
