package xputest

import "github.com/pgstrom-go/pg_strom/gosvc/xpu"

// JoinProgram is a GpuJoin session over an outer table of (int4 a, text t)
// with the qual a > qualMin: depth 0 joins a with an int8 inner slot (rows
// of 16 bytes); with twoDepths, depth 1 (LEFT) joins t with a varchar slot
// of 40 bytes of text (rows of 64 bytes).
func JoinProgram(planID uint64, qualMin int32, t0 xpu.JoinType, twoDepths bool) *Builder {
	b := New()
	b.PlanID = planID
	b.Attr(4, 4, true, xpu.TypeInt4)
	b.Attr(-1, 4, false, xpu.TypeText)
	a := b.Var(0, xpu.TypeInt4)
	t := b.Var(1, xpu.TypeText)
	b.Op(xpu.OpGt, xpu.TypeBool, a, b.ConstInt4(qualMin))
	b.JoinDepth(t0, 16)
	b.JoinKey(a, xpu.TypeInt8, 0, 16)
	if twoDepths {
		b.JoinDepth(xpu.JoinLeft, 64)
		b.JoinKey(t, xpu.TypeVarchar, 16, 48)
	}
	return b
}

// JoinTextWidth is the text slot width of JoinProgram's depth 1.
const JoinTextWidth = 48
