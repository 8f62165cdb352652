package protocol

import (
	"encoding/binary"
	"fmt"
)

// JoinInnerRequest is a validated PGSTROM_MSG_JOIN_INNER: one piece of a
// GpuJoin depth's inner rows.  Rows is PieceRows*RowSize bytes inside the
// message (valid while the message is).  Whether the piece fits the
// session (plan, depth, row size, the rows loaded so far) is the
// session's to check.
type JoinInnerRequest struct {
	PlanID    uint64
	Depth     uint32
	RowSize   uint32
	NRows     uint32 // rows of the whole depth
	FirstRow  uint32
	PieceRows uint32
	Rows      []byte
}

// Tag implements Request.
func (JoinInnerRequest) Tag() Tag { return TagJoinInner }

// Last reports whether the piece completes its depth.
func (r JoinInnerRequest) Last() bool {
	return uint64(r.FirstRow)+uint64(r.PieceRows) == uint64(r.NRows)
}

// joinInnerMaxRowsOffset bounds where a piece's rows may start, so a
// message's length stays near its rows'.
const joinInnerMaxRowsOffset = 4096

// JoinInnerMaxLength is the longest JOIN_INNER message the service reads.
const JoinInnerMaxLength = joinInnerMaxRowsOffset + JoinInnerMaxPiece

// joinInnerMaxRows is XPU_JOIN_MAX_ROWS (pg_strom_xpu.h), the most rows
// of one depth; the protocol header cannot see it through cgo here.
const joinInnerMaxRows = 1<<31 - 1

// EncodeJoinInner builds a JOIN_INNER request whose rows follow its fixed
// part at the next multiple of 16; clients and tests use it.  The values
// are not checked, so tests can send bad ones.
func EncodeJoinInner(requestID uint32, r JoinInnerRequest) []byte {
	rowsOff := (HeaderSize + JoinInnerSize + 15) &^ 15
	msg := newMessage(TagJoinInner, requestID, rowsOff-HeaderSize+len(r.Rows))
	le := binary.LittleEndian
	le.PutUint64(msg[offJiPlanID:], r.PlanID)
	le.PutUint32(msg[offJiDepth:], r.Depth)
	le.PutUint32(msg[offJiRowSize:], r.RowSize)
	le.PutUint32(msg[offJiNRows:], r.NRows)
	le.PutUint32(msg[offJiFirstRow:], r.FirstRow)
	le.PutUint32(msg[offJiPieceRows:], r.PieceRows)
	le.PutUint32(msg[offJiRowsOffset:], uint32(rowsOff))
	copy(msg[rowsOff:], r.Rows)
	return msg
}

// OffJoinInnerRowsOffset is where rows_offset is in a JOIN_INNER message,
// for tests that corrupt it.
const OffJoinInnerRowsOffset = offJiRowsOffset

// parseJoinInner validates a JOIN_INNER message whose header h is valid:
// every length and offset against the message, the piece's size capped.
func parseJoinInner(msg []byte, h Header) (Request, error) {
	if int(h.Length) < HeaderSize+JoinInnerSize {
		return nil, fmt.Errorf("%w: JoinInner payload is %d bytes, want at least %d", ErrProtocol, int(h.Length)-HeaderSize, JoinInnerSize)
	}
	le := binary.LittleEndian
	r := JoinInnerRequest{
		PlanID:    le.Uint64(msg[offJiPlanID:]),
		Depth:     le.Uint32(msg[offJiDepth:]),
		RowSize:   le.Uint32(msg[offJiRowSize:]),
		NRows:     le.Uint32(msg[offJiNRows:]),
		FirstRow:  le.Uint32(msg[offJiFirstRow:]),
		PieceRows: le.Uint32(msg[offJiPieceRows:]),
	}
	rowsOff := le.Uint32(msg[offJiRowsOffset:])
	bytes := uint64(r.PieceRows) * uint64(r.RowSize)
	switch flags, reserved := le.Uint32(msg[offJiFlags:]), le.Uint32(msg[offJiReserved:]); {
	case flags != 0 || reserved != 0:
		return nil, fmt.Errorf("%w: JoinInner flags %#x and reserved %#x, must be 0", ErrProtocol, flags, reserved)
	case r.RowSize == 0:
		return nil, fmt.Errorf("%w: JoinInner row_size is 0", ErrProtocol)
	case r.NRows > joinInnerMaxRows:
		return nil, fmt.Errorf("%w: JoinInner of %d rows, at most %d", ErrProtocol, r.NRows, joinInnerMaxRows)
	case uint64(r.FirstRow)+uint64(r.PieceRows) > uint64(r.NRows):
		return nil, fmt.Errorf("%w: JoinInner piece rows [%d, %d) past the depth's %d rows", ErrProtocol, r.FirstRow, uint64(r.FirstRow)+uint64(r.PieceRows), r.NRows)
	case r.PieceRows == 0 && r.NRows != 0:
		return nil, fmt.Errorf("%w: JoinInner piece of no rows (only a depth of 0 rows sends one)", ErrProtocol)
	case bytes > uint64(JoinInnerMaxPiece):
		return nil, fmt.Errorf("%w: JoinInner piece of %d bytes, at most %d", ErrProtocol, bytes, JoinInnerMaxPiece)
	case rowsOff%16 != 0 || rowsOff < uint32(HeaderSize+JoinInnerSize) || rowsOff > joinInnerMaxRowsOffset:
		return nil, fmt.Errorf("%w: JoinInner rows_offset %d, want a multiple of 16 in [%d, %d]", ErrProtocol, rowsOff, HeaderSize+JoinInnerSize, joinInnerMaxRowsOffset)
	case uint64(rowsOff)+bytes > uint64(len(msg)) || uint64(len(msg))-(uint64(rowsOff)+bytes) >= 16:
		// the rows end the message, but for padding to 16 bytes
		return nil, fmt.Errorf("%w: JoinInner rows [%d, %d) but the message has %d bytes", ErrProtocol, rowsOff, uint64(rowsOff)+bytes, len(msg))
	}
	r.Rows = msg[rowsOff : uint64(rowsOff)+bytes : uint64(rowsOff)+bytes]
	return r, nil
}

// JoinInnerReply is PgStromMsgJoinInnerReply, the payload of the Success
// reply to a JOIN_INNER piece.
type JoinInnerReply struct {
	State   uint32 // JoinInnerMore, JoinInnerLoaded or JoinInnerBusy
	BuildNs uint64 // LOADED by the last piece: upload and build time
	Bytes   uint64 // the depth's inner buffer on the device
}

func (r JoinInnerReply) Len() int { return JoinInnerReplySize }
func (r JoinInnerReply) Put(dst []byte) {
	le := binary.LittleEndian
	le.PutUint32(dst[offJirState:], r.State)
	le.PutUint32(dst[offJirReserved:], 0)
	le.PutUint64(dst[offJirBuildNs:], r.BuildNs)
	le.PutUint64(dst[offJirBytes:], r.Bytes)
}

// DecodeJoinInnerReply decodes a Success reply to a JOIN_INNER piece.
func DecodeJoinInnerReply(msg []byte) (JoinInnerReply, error) {
	p, err := replyPayload(msg, TagSuccess, JoinInnerReplySize)
	if err != nil {
		return JoinInnerReply{}, fmt.Errorf("decode join inner reply: %w", err)
	}
	le := binary.LittleEndian
	return JoinInnerReply{State: le.Uint32(p[offJirState:]), BuildNs: le.Uint64(p[offJirBuildNs:]), Bytes: le.Uint64(p[offJirBytes:])}, nil
}
