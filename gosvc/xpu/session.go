package xpu

import (
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
)

// ParseProgram validates the part of an OpenSession message (header
// included, as protocol.ReadMessage returns it) that every node kind shares,
// and decodes its program: header, regions, nodes, root qual.  The kind is
// decoded, not judged: which kinds exist and what else their sessions carry
// (GpuPreAgg: ParsePreAgg) is the node kinds' registry's business
// (nodekind.Registry.ParseSession), which nothing may bypass on the way to
// the GPU.  One exception, as in the kernels' xpu_validate_node: the
// program of a fused GpuJoin + GpuPreAgg session (KindGpuJoinPreAgg) may
// go on after its root, and INNER_VAR nodes are allowed there (and
// nowhere else); ParseJoinPreAgg checks their columns and stages.
func ParseProgram(msg []byte) (*Program, error) {
	if err := checkMessage(msg, protocol.TagOpenSession, SessionEnd); err != nil {
		return nil, err
	}
	magic, kind := le.Uint32(msg[OffSessMagic:]), le.Uint32(msg[OffSessKind:])
	if magic != ProgramMagic {
		return nil, protoErr("xpu program: magic %#08x, want %#08x", magic, ProgramMagic)
	}
	attrs := region{"attribute array", le.Uint32(msg[OffSessAttrsOffset:]), le.Uint32(msg[OffSessNAttrs:]), AttrSize, alignAttr}
	nodes := region{"node array", le.Uint32(msg[OffSessNodesOffset:]), le.Uint32(msg[OffSessNNodes:]), NodeSize, alignNode}
	args := region{"argument array", le.Uint32(msg[OffSessArgsOffset:]), le.Uint32(msg[OffSessNArgs:]), argSize, alignArg}
	consts := region{"constant pool", le.Uint32(msg[OffSessConstsOffset:]), le.Uint32(msg[OffSessConstsLen:]), 1, ConstAlign}
	root := le.Uint32(msg[OffSessRoot:])
	// a fused GpuJoin + GpuPreAgg program goes on after its root (the
	// outer quals): the nodes evaluated per join combination; so does a
	// GpuJoin program with residual join quals
	fused := kind == KindGpuJoinPreAgg || kind == KindGpuJoin && joinDeclaresQuals(msg)

	switch {
	case attrs.count > uint32(MaxAttrs):
		return nil, protoErr("xpu program: %d attributes, at most %d (XPU_MAX_ATTRS)", attrs.count, MaxAttrs)
	case nodes.count == 0:
		return nil, protoErr("xpu program: no nodes")
	case nodes.count > uint32(MaxNodes):
		return nil, protoErr("xpu program: %d nodes, at most %d (XPU_MAX_NODES)", nodes.count, MaxNodes)
	case nodes.count > uint32(MaxSlots):
		return nil, protoErr("xpu program: %d nodes, but the kernel evaluates at most %d (its per-thread slots)", nodes.count, MaxSlots)
	case !fused && root != nodes.count-1:
		return nil, protoErr("xpu program: root is node %d, must be the last node %d", root, nodes.count-1)
	case fused && root >= nodes.count:
		return nil, protoErr("xpu program: root is node %d of %d", root, nodes.count)
	}
	if err := checkRegions(len(msg), SessionEnd, attrs, nodes, args, consts); err != nil {
		return nil, err
	}

	p := &Program{
		Kind:         kind,
		PreAggOffset: le.Uint32(msg[OffSessPreAggOffset:]),
		JoinOffset:   le.Uint32(msg[OffSessJoinOffset:]),
		regions:      []region{attrs, nodes, args, consts},
		PlanID:       le.Uint64(msg[OffSessPlanID:]),
		Encoding:     le.Uint32(msg[OffSessEncoding:]),
		Consts:       append([]byte(nil), msg[consts.off:consts.end()]...),
		Root:         int(root),
	}
	var err error
	if p.Attrs, err = decodeAttrs(msg[attrs.off:attrs.end()], int(attrs.count)); err != nil {
		return nil, err
	}
	argArr := decodeArgs(msg[args.off:args.end()], int(args.count))
	if p.Nodes, err = decodeNodes(msg[nodes.off:nodes.end()], int(nodes.count), argArr, fused, int(root)); err != nil {
		return nil, err
	}
	for i := range p.Nodes {
		if p.Nodes[i].Opcode == OpInnerVar {
			continue // decodeNodes checked what the node alone can tell
		}
		if err := checkNode(p, i); err != nil {
			return nil, err
		}
	}
	if t := p.Nodes[root].Restype; t != TypeBool {
		return nil, nodeErr(int(root), p.Nodes[root].Opcode, "the root qual returns %s, must return BOOL", t)
	}
	return p, nil
}

// checkMessage validates the protocol header of a request of the given tag
// and that the fixed part of its payload is present.
func checkMessage(msg []byte, tag protocol.Tag, fixedEnd int) error {
	h, err := protocol.DecodeHeader(msg)
	if err != nil {
		return err
	}
	switch {
	case h.Tag != tag:
		return protoErr("%s message where %s was expected", h.Tag, tag)
	case uint64(h.Length) != uint64(len(msg)):
		return protoErr("header length %d but the message has %d bytes", h.Length, len(msg))
	case len(msg) < fixedEnd:
		return protoErr("%s message of %d bytes is shorter than its fixed part (%d bytes)", tag, len(msg), fixedEnd)
	}
	return nil
}

func decodeArgs(b []byte, n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(le.Uint32(b[i*argSize:]))
	}
	return out
}

// joinDeclaresQuals reports whether the session's join descriptor, where
// one lies inside msg, has residual quals (quals_offset not 0); ParseJoin
// checks the descriptor itself.
func joinDeclaresQuals(msg []byte) bool {
	off := uint64(le.Uint32(msg[OffSessJoinOffset:]))
	if off == 0 || off+uint64(JoinDescSize) > uint64(len(msg)) {
		return false
	}
	return le.Uint32(msg[off+uint64(OffJDescQualsOffset):]) != 0
}
