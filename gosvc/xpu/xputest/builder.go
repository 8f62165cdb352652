package xputest

import (
	"encoding/binary"
	"math"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

var le = binary.LittleEndian

// RawNode is an XpuNode as it goes on the wire; tests of invalid programs
// set any field.
type RawNode struct {
	Opcode  xpu.Opcode
	Restype xpu.Type
	NArgs   int16
	Flags   uint16
	Args    int32
	Aux     int32
}

// RawAttr is an XpuAttr as it goes on the wire.
type RawAttr struct {
	Len   int16
	Align int8
	ByVal int8
	XType xpu.Type
}

// Builder assembles an xPU program.  The helpers append nodes in post-order
// and return the new node's index; every field stays exported so tests can
// break the program afterwards.
type Builder struct {
	Magic, Kind uint32
	PlanID      uint64
	Encoding    uint32
	Attrs       []RawAttr
	Nodes       []RawNode
	Args        []int32
	Consts      []byte
	Root        int        // -1: the last node
	PreAgg      *RawPreAgg // GpuPreAgg: set by GroupBy and Aggregate
	Join        *RawJoin   // GpuJoin: set by JoinDepth and JoinKey
}

// New returns an empty GpuScan program builder.
func New() *Builder {
	return &Builder{Magic: xpu.ProgramMagic, Kind: xpu.KindGpuScan, Root: -1, Encoding: 6}
}

// Attr appends an attribute descriptor and returns its index.
func (b *Builder) Attr(attlen int16, align int8, byval bool, xtype xpu.Type) int {
	bv := int8(0)
	if byval {
		bv = 1
	}
	b.Attrs = append(b.Attrs, RawAttr{Len: attlen, Align: align, ByVal: bv, XType: xtype})
	return len(b.Attrs) - 1
}

// Raw appends a node as given.
func (b *Builder) Raw(n RawNode) int {
	b.Nodes = append(b.Nodes, n)
	return len(b.Nodes) - 1
}

// Var reads attribute attr (0-based).
func (b *Builder) Var(attr int, t xpu.Type) int {
	return b.Raw(RawNode{Opcode: xpu.OpVar, Restype: t, Aux: int32(attr)})
}

// Op appends an operator node over args.
func (b *Builder) Op(op xpu.Opcode, restype xpu.Type, args ...int) int {
	return b.OpX(op, restype, 0, 0, args...)
}

// OpX is Op with flags and aux.
func (b *Builder) OpX(op xpu.Opcode, restype xpu.Type, flags uint16, aux int32, args ...int) int {
	n := RawNode{Opcode: op, Restype: restype, NArgs: int16(len(args)), Flags: flags, Aux: aux}
	if len(args) > 0 {
		n.Args = int32(len(b.Args))
		for _, a := range args {
			b.Args = append(b.Args, int32(a))
		}
	}
	return b.Raw(n)
}

// Const appends value to the pool (16-aligned) and a CONST node for it.
func (b *Builder) Const(t xpu.Type, value []byte) int {
	for len(b.Consts)%xpu.ConstAlign != 0 {
		b.Consts = append(b.Consts, 0)
	}
	off := len(b.Consts)
	b.Consts = append(b.Consts, value...)
	return b.Raw(RawNode{Opcode: xpu.OpConst, Restype: t, Aux: int32(off)})
}

// ConstNull appends a NULL constant of type t.
func (b *Builder) ConstNull(t xpu.Type) int {
	return b.Raw(RawNode{Opcode: xpu.OpConst, Restype: t, Flags: xpu.FlagConstNull})
}

// ConstBool, ConstInt2, ConstInt4, ConstInt8, ConstFloat4 and ConstFloat8
// append typed constants.
func (b *Builder) ConstBool(v bool) int {
	if v {
		return b.Const(xpu.TypeBool, []byte{1})
	}
	return b.Const(xpu.TypeBool, []byte{0})
}

func (b *Builder) ConstInt2(v int16) int {
	return b.Const(xpu.TypeInt2, le.AppendUint16(nil, uint16(v)))
}

func (b *Builder) ConstInt4(v int32) int {
	return b.Const(xpu.TypeInt4, le.AppendUint32(nil, uint32(v)))
}

func (b *Builder) ConstInt8(v int64) int {
	return b.Const(xpu.TypeInt8, le.AppendUint64(nil, uint64(v)))
}

func (b *Builder) ConstFloat4(v float32) int {
	return b.Const(xpu.TypeFloat4, le.AppendUint32(nil, math.Float32bits(v)))
}

func (b *Builder) ConstFloat8(v float64) int {
	return b.Const(xpu.TypeFloat8, le.AppendUint64(nil, math.Float64bits(v)))
}

// ConstDate is days since 2000-01-01, as PostgreSQL's DateADT.
func (b *Builder) ConstDate(days int32) int {
	return b.Const(xpu.TypeDate, le.AppendUint32(nil, uint32(days)))
}

// ConstNumeric is (hi:lo) * 10^-scale.
func (b *Builder) ConstNumeric(lo, hi int64, scale int32) int {
	v := make([]byte, xpu.NumericConstSize)
	le.PutUint64(v[xpu.OffNumLo:], uint64(lo))
	le.PutUint64(v[xpu.OffNumHi:], uint64(hi))
	le.PutUint32(v[xpu.OffNumScale:], uint32(scale))
	return b.Const(xpu.TypeNumeric, v)
}

// ConstText appends a TEXT/VARCHAR/BPCHAR constant.
func (b *Builder) ConstText(t xpu.Type, s string) int {
	v := make([]byte, xpu.TextConstSize, xpu.TextConstSize+len(s))
	le.PutUint32(v[xpu.OffTextLen:], uint32(len(s)))
	return b.Const(t, append(v, s...))
}

// Layout is where Message put each array, from the message start.
type Layout struct {
	AttrsOffset, NodesOffset, ArgsOffset, ConstsOffset int
	// GpuPreAgg only: the descriptor and its arrays, after the pool.
	PreAggOffset, KeysOffset, AggsOffset int
	// GpuJoin only: the descriptor and its arrays, after the pool.
	JoinOffset, JoinDepthsOffset, JoinKeysOffset int
	// fused GpuJoin + GpuPreAgg: the payload columns and residual quals
	JoinColsOffset, JoinQualsOffset int
}

// Message encodes the OpenSession message.
func (b *Builder) Message(requestID uint32) []byte {
	msg, _ := b.MessageLayout(requestID)
	return msg
}

func alignUp(n, a int) int { return (n + a - 1) / a * a }

// MessageLayout encodes the OpenSession message and says where the arrays
// went.
func (b *Builder) MessageLayout(requestID uint32) ([]byte, Layout) {
	var l Layout
	l.AttrsOffset = alignUp(xpu.SessionEnd, 8)
	l.NodesOffset = alignUp(l.AttrsOffset+len(b.Attrs)*xpu.AttrSize, 8)
	l.ArgsOffset = alignUp(l.NodesOffset+len(b.Nodes)*xpu.NodeSize, 8)
	l.ConstsOffset = alignUp(l.ArgsOffset+4*len(b.Args), xpu.ConstAlign)
	total := l.ConstsOffset + len(b.Consts)
	if pa := b.PreAgg; pa != nil {
		l.PreAggOffset = alignUp(total, 16)
		l.KeysOffset = alignUp(l.PreAggOffset+xpu.PreAggDescSize, 16)
		l.AggsOffset = alignUp(l.KeysOffset+len(pa.Keys)*xpu.GroupKeySize, 16)
		total = l.AggsOffset + len(pa.Aggs)*xpu.AggDescSize
	}
	if j := b.Join; j != nil {
		l.JoinOffset = alignUp(total, 16)
		l.JoinDepthsOffset = alignUp(l.JoinOffset+xpu.JoinDescSize, 16)
		l.JoinKeysOffset = alignUp(l.JoinDepthsOffset+len(j.Depths)*xpu.JoinDepthSize, 16)
		total = l.JoinKeysOffset + len(j.Keys)*xpu.JoinKeySize
		l.JoinColsOffset = alignUp(total, 16)
		total = l.JoinColsOffset + len(j.Cols)*xpu.JoinColSize
		l.JoinQualsOffset = alignUp(total, 16)
		total = l.JoinQualsOffset + 4*len(j.Quals)
	}
	msg := protocol.NewMessage(protocol.TagOpenSession, requestID, total-protocol.HeaderSize)

	root := b.Root
	if root < 0 {
		root = len(b.Nodes) - 1
	}
	le.PutUint32(msg[xpu.OffSessMagic:], b.Magic)
	le.PutUint32(msg[xpu.OffSessKind:], b.Kind)
	le.PutUint64(msg[xpu.OffSessPlanID:], b.PlanID)
	le.PutUint32(msg[xpu.OffSessNAttrs:], uint32(len(b.Attrs)))
	le.PutUint32(msg[xpu.OffSessAttrsOffset:], uint32(l.AttrsOffset))
	le.PutUint32(msg[xpu.OffSessNNodes:], uint32(len(b.Nodes)))
	le.PutUint32(msg[xpu.OffSessNodesOffset:], uint32(l.NodesOffset))
	le.PutUint32(msg[xpu.OffSessNArgs:], uint32(len(b.Args)))
	le.PutUint32(msg[xpu.OffSessArgsOffset:], uint32(l.ArgsOffset))
	le.PutUint32(msg[xpu.OffSessConstsLen:], uint32(len(b.Consts)))
	le.PutUint32(msg[xpu.OffSessConstsOffset:], uint32(l.ConstsOffset))
	le.PutUint32(msg[xpu.OffSessRoot:], uint32(root))
	le.PutUint32(msg[xpu.OffSessEncoding:], b.Encoding)
	for i, a := range b.Attrs {
		d := msg[l.AttrsOffset+i*xpu.AttrSize:]
		le.PutUint16(d[xpu.OffAttrLen:], uint16(a.Len))
		d[xpu.OffAttrAlign] = byte(a.Align)
		d[xpu.OffAttrByVal] = byte(a.ByVal)
		le.PutUint16(d[xpu.OffAttrXType:], uint16(a.XType))
	}
	for i, n := range b.Nodes {
		d := msg[l.NodesOffset+i*xpu.NodeSize:]
		le.PutUint16(d[xpu.OffNodeOpcode:], uint16(n.Opcode))
		le.PutUint16(d[xpu.OffNodeRestype:], uint16(n.Restype))
		le.PutUint16(d[xpu.OffNodeNArgs:], uint16(n.NArgs))
		le.PutUint16(d[xpu.OffNodeFlags:], n.Flags)
		le.PutUint32(d[xpu.OffNodeArgs:], uint32(n.Args))
		le.PutUint32(d[xpu.OffNodeAux:], uint32(n.Aux))
	}
	for i, a := range b.Args {
		le.PutUint32(msg[l.ArgsOffset+4*i:], uint32(a))
	}
	copy(msg[l.ConstsOffset:], b.Consts)
	if b.PreAgg != nil {
		b.putPreAgg(msg, l)
	}
	if b.Join != nil {
		b.putJoin(msg, l)
	}
	return msg, l
}

// PutU32 returns a copy of msg with the uint32 at off replaced.
func PutU32(msg []byte, off int, v uint32) []byte {
	out := append([]byte(nil), msg...)
	le.PutUint32(out[off:], v)
	return out
}
