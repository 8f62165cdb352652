package xpu

// Program is a validated OpenSession payload.  Slices are copies: the
// Program stays valid whatever happens to the message afterwards.
type Program struct {
	Kind     uint32 // XpuSession.kind, not judged: see nodekind
	PlanID   uint64
	Encoding uint32
	Attrs    []Attr
	Nodes    []Node
	Consts   []byte // the constant pool
	Root     int    // = len(Nodes)-1, but in a fused GpuJoin + GpuPreAgg session (then <= len(Nodes)-1)
	// PreAggOffset is XpuSession.preagg_offset as sent: ParsePreAgg's
	// start, and 0 in the sessions of other kinds (theirs to check).
	PreAggOffset uint32
	// JoinOffset is XpuSession.join_offset as sent: the XpuJoinDesc of a
	// GpuJoin session, and 0 in the sessions of other kinds (theirs to
	// check).
	JoinOffset uint32

	// regions are the arrays ParseProgram validated; a kind's own arrays
	// may not overlap them.
	regions []region
}

// Attr is XpuAttr.
type Attr struct {
	Len   int16 // > 0 fixed, -1 varlena, -2 cstring
	Align int8  // 1, 2, 4 or 8
	ByVal bool
	XType Type // TypeInvalid if not referenced
}

// Node is XpuNode with its argument list resolved.
type Node struct {
	Opcode  Opcode
	Restype Type
	Flags   uint16
	Aux     int32
	ArgBase int32   // XpuNode.args: first index in the argument array
	Args    []int32 // node indexes, each < this node's index
}
