package hostexec

import (
	"encoding/binary"
	"regexp"
	"strings"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/joinpreagg/jpatest"
	"github.com/pgstrom-go/pg_strom/gosvc/kinds"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// FuzzKernelValidator cross-checks the service's validation of an
// OpenSession message (the node kind registry: xpu.ParseProgram and the
// kind's own part) against the kernels' own (kernelValidate, the set-up
// hostexec runs before any page) on the same bytes.
//
// The service must never pass on a program the kernels reject (it would
// fail every chunk), and the kernels must not accept a program the
// service rejects for a reason that matters to evaluation: the kernels'
// validator is what keeps a session that bypassed or outran the service's
// checks from reading out of bounds.  The service is deliberately stricter
// on the encoding alone (serviceOnly); any other disagreement fails.
//
// The protocol header is made that of a framed OpenSession message of the
// input's length, as protocol.ReadMessage would deliver it: framing is
// FuzzParseMessage's business, and mutations of it would only be wasted.
func FuzzKernelValidator(f *testing.F) {
	for _, m := range validatorSeeds() {
		f.Add(m)
	}
	reg := kinds.All()
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < xpu.SessionEnd || len(in) > 1<<20 {
			return
		}
		msg := append([]byte(nil), in...)
		frame(msg)
		_, _, goErr := reg.ParseSession(msg)
		st := kernelValidate(msg)
		switch {
		case goErr == nil && st != xpu.StatusOK:
			t.Fatalf("the service accepts a session the kernels reject (status %d)", st)
		case goErr != nil && st == xpu.StatusOK && !serviceOnly(goErr):
			t.Fatalf("the kernels accept a session the service rejects: %v", goErr)
		}
	})
}

// frame makes msg's header that of an OpenSession request of len(msg) bytes.
func frame(msg []byte) {
	h := protocol.EncodeRequest(protocol.TagOpenSession, binary.LittleEndian.Uint32(msg[12:]), nil)
	copy(msg, h[:protocol.HeaderSize])
	binary.LittleEndian.PutUint32(msg[8:], uint32(len(msg)))
}

// validatorSeeds: every opcode, a GpuPreAgg and a GpuJoin session, and
// near misses.
func validatorSeeds() [][]byte {
	b := xputest.New()
	b.Attr(4, 4, true, xpu.TypeInt4)
	b.Attr(-1, 4, false, xpu.TypeText)
	v := b.Var(0, xpu.TypeInt4)
	s := b.Var(1, xpu.TypeText)
	gt := b.Op(xpu.OpGt, xpu.TypeBool, v, b.ConstInt4(3))
	lk := b.Op(xpu.OpLike, xpu.TypeBool, s, b.ConstText(xpu.TypeText, "a%"))
	b.Op(xpu.OpAnd, xpu.TypeBool, gt, lk)
	scan, l := b.MessageLayout(1)

	p := xputest.New()
	p.Attr(4, 4, true, xpu.TypeInt4)
	pv := p.Var(0, xpu.TypeInt4)
	p.GroupBy(pv, 0)
	p.Aggregate(xpu.AggCount, -1, -1)
	p.Aggregate(xpu.AggSumInt, pv, -1)
	p.ConstBool(true)
	pa, pl := p.MessageLayout(2)

	// GpuJoin: two depths, and near misses of the descriptor the kernels
	// check (xpu_join_setup_serial) as much as the service does
	jm, jl := xputest.JoinProgram(3, 0, xpu.JoinInner, true).MessageLayout(3)
	jdepth := func(d, f int, v uint32) []byte {
		return xputest.PutU32(jm, jl.JoinDepthsOffset+d*xpu.JoinDepthSize+f, v)
	}
	jkey := func(k, f int, v uint32) []byte { return xputest.PutU32(jm, jl.JoinKeysOffset+k*xpu.JoinKeySize+f, v) }
	joins := [][]byte{
		jm,
		xputest.PutU32(jm, xpu.OffSessJoinOffset, 0),
		xputest.PutU32(jm, xpu.OffSessPreAggOffset, uint32(jl.JoinOffset)),
		xputest.PutU32(jm, jl.JoinOffset+xpu.OffJDescNDepths, 1),
		xputest.PutU32(jm, jl.JoinOffset+xpu.OffJDescNKeys, 3),
		xputest.PutU32(jm, jl.JoinOffset+xpu.OffJDescFlags, 1),
		jdepth(0, xpu.OffJDepthJoinType, 4),
		jdepth(1, xpu.OffJDepthRowSize, 48),
		jdepth(1, xpu.OffJDepthKeyFirst, 0),
		jkey(0, xpu.OffJKeyNode, 2),
		jkey(0, xpu.OffJKeyWidth, 32),
		jkey(1, xpu.OffJKeyOffset, 32),
		jkey(1, xpu.OffJKeyOuterXType, uint32(xpu.TypeVarchar)|uint32(xpu.TypeText)<<16),
	}
	return append(append([][]byte{
		scan, pa,
		xputest.PutU32(scan, xpu.OffSessRoot, 2),
		xputest.PutU32(scan, xpu.OffSessConstsOffset, uint32(l.ConstsOffset+8)),
		xputest.PutU32(scan, xpu.OffSessKind, xpu.KindGpuPreAgg),
		xputest.PutU32(pa, pl.PreAggOffset+xpu.OffDescEntrySize, 16),
		xputest.PutU32(pa, pl.AggsOffset+xpu.OffAggOffset, 16),
	}, joins...), fusedSeeds()...)
}

// fusedSeeds: a fused GpuJoin + GpuPreAgg session (payload columns,
// INNER_VARs, residual quals, keys and aggregates on both stages) and
// near misses of what xpu_join_preagg_setup_serial checks.
func fusedSeeds() [][]byte {
	star := &jpatest.Star{Types: []xpu.JoinType{xpu.JoinInner, xpu.JoinLeft, xpu.JoinSemi}, Quals: []bool{true, true, false}}
	b := star.Program(9)
	fm, fl := b.MessageLayout(4)
	innerVar := 0
	for i, n := range b.Nodes {
		if n.Opcode == xpu.OpInnerVar {
			innerVar = i
			break
		}
	}
	node := func(i, f int, v uint32) []byte { return xputest.PutU32(fm, fl.NodesOffset+i*xpu.NodeSize+f, v) }
	col := func(c, f int, v uint32) []byte { return xputest.PutU32(fm, fl.JoinColsOffset+c*xpu.JoinColSize+f, v) }
	qual := func(d int, v uint32) []byte { return xputest.PutU32(fm, fl.JoinQualsOffset+4*d, v) }
	return [][]byte{
		fm,
		xputest.PutU32(fm, xpu.OffSessPreAggOffset, 0),
		xputest.PutU32(fm, xpu.OffSessKind, xpu.KindGpuJoin),
		xputest.PutU32(fm, xpu.OffSessKind, xpu.KindGpuPreAgg),
		xputest.PutU32(fm, xpu.OffSessRoot, uint32(len(b.Nodes)-1)),
		xputest.PutU32(fm, fl.JoinOffset+xpu.OffJDescNCols, 3),
		xputest.PutU32(fm, fl.JoinOffset+xpu.OffJDescQualsOffset, 0),
		node(innerVar, xpu.OffNodeAux, 5),
		node(innerVar, xpu.OffNodeRestype, uint32(xpu.TypeInt4)),
		node(innerVar, xpu.OffNodeNArgs, 1<<16), // flags 1
		col(0, xpu.OffJColDepth, 2),
		col(1, xpu.OffJColOffset, 0),
		col(1, xpu.OffJColWidth, 32),
		col(0, xpu.OffJColReserved, 1),
		qual(0, uint32(b.Root)),
		qual(1, 0xffffffff),
		qual(2, uint32(len(b.Nodes)-1)),
		qual(0, uint32(len(b.Nodes)-1)),
		xputest.PutU32(fm, fl.KeysOffset+xpu.OffKeyNode, uint32(b.Root)),
		xputest.PutU32(fm, fl.AggsOffset+xpu.AggDescSize+xpu.OffAggArg, uint32(len(b.Nodes))),
	}
}

// serviceOnlyRules are the service's checks the kernels deliberately do
// not repeat, each safe for the kernels to skip: they concern the encoding
// only (the kernels read fields unaligned; ignore reserved fields, the
// flags and aux of opcodes that take none, and the aux of a NULL CONST;
// accept regions that overlap or start inside the session fields, nodes
// after the root, the offset of an empty region, and any non-zero byte as
// a true BOOL CONST), TEXT and VARCHAR taken for one another (the same
// representation and semantics) and casts of a float or text type to
// itself, attribute descriptors no VAR at or below the root
// reads (the kernels validate those up to the highest one read), attbyval
// (the kernels decode by xtype and attlen), the join_offset of a session
// of another kind (only GpuJoin's kernels read it), or cases the kernels turn into
// RECHECK at evaluation time (a NUMERIC CONST of negative scale,
// the time of day of a DATE, JULIAN of a TIMESTAMP).
var serviceOnlyRules = regexp.MustCompile(strings.Join([]string{
	`reserved field is -?\d+, must be 0`,
	`preagg_offset is \d+, must be 0`,
	`join_offset is \d+( in a GpuPreAgg session)?, must be 0`,
	`offset \d+ is not a multiple of \d+`,
	`\) overlaps .* \[\d+, \d+\)$`,
	`overlaps the message header and session fields`,
	`root is node \d+, must be the last node`,
	`: aux is -?\d+, must be 0`,
	`: args is -?\d+ but the node has no arguments`,
	`: flags 0x[0-9a-f]+ not allowed here`,
	`: attribute \d+ \(attnum \d+\): `,
	`NULL constant with aux -?\d+, must be 0`,
	`BOOL constant byte \d+, must be 0 or 1`,
	`NUMERIC constant with scale -\d+, must be >= 0`,
	`\(HOUR/MINUTE/SECOND\) needs a TIMESTAMP argument, got DATE`,
	`\(JULIAN\) needs a DATE argument, got TIMESTAMP`,
	`argument \d+ \(node \d+\) is (TEXT|VARCHAR), want (TEXT|VARCHAR)$`,
	`the pattern \(node \d+\) is CONST VARCHAR, want a CONST TEXT$`,
	`cast (FLOAT4 -> FLOAT4|FLOAT8 -> FLOAT8|TEXT -> TEXT|VARCHAR -> VARCHAR) is not supported`,
}, "|"))

// emptyRegion: an array of no elements whose offset is past the end (the
// kernels check the offset of a region only when it has elements).
var emptyRegion = regexp.MustCompile(`\[(\d+), (\d+)\) runs past the end of the`)

// serviceOnly: the service rejected msg, the kernels accepted it, and the
// service's reason is one of serviceOnlyRules or an empty region.
func serviceOnly(err error) bool {
	if m := emptyRegion.FindStringSubmatch(err.Error()); m != nil && m[1] == m[2] {
		return true
	}
	return serviceOnlyRules.MatchString(err.Error())
}
