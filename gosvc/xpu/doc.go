// Package xpu validates the xPU programs (OpenSession) and chunks
// (TaskExec) of include/pg_strom_xpu.h before anything reaches the GPU, and
// encodes the replies' payloads (ChunkReply, GroupsPayload).
//
// ParseProgram checks the part of an OpenSession message that every node
// kind shares, ParsePreAgg a GpuPreAgg session's descriptor; which kind
// needs what is the nodekind registry's.  They check the whole message: every offset and length against
// the message (overflow-safe), every count against the header's and the
// kernel's limits, the post-order structure of the node array, and the type
// rules of every opcode.  A program it accepts cannot make the kernel read
// outside the session, pages or items buffers.  Every error wraps
// protocol.ErrProtocol and names the node or attribute at fault.
package xpu
