package protocol

// Every size, offset and constant of the wire format comes from
// include/pg_strom_proto.h through cgo, so the C backend and this service
// cannot drift apart. Test files cannot use cgo; they see the exported
// constants below.

// #cgo CFLAGS: -I${SRCDIR}/../../include
// #include "pg_strom_proto.h"
// #include "pg_strom_xpu.h"
import "C"

import "unsafe"

const (
	// HeaderSize is sizeof(PgStromMsgHeader).
	HeaderSize = int(C.sizeof_PgStromMsgHeader)
	// MaxLength is PGSTROM_MSG_MAX_LENGTH, the largest message accepted.
	MaxLength = uint32(C.PGSTROM_MSG_MAX_LENGTH)
	// Magic is PGSTROM_MSG_MAGIC, the first four bytes of every message.
	Magic = uint32(C.PGSTROM_MSG_MAGIC)

	// StatusReplySize is sizeof(PgStromMsgStatusReply).
	StatusReplySize = int(C.sizeof_PgStromMsgStatusReply)
	// ErrorPayloadSize is sizeof(PgStromMsgError).
	ErrorPayloadSize = int(C.sizeof_PgStromMsgError)
	// ErrorFileSize, ErrorFuncSize and ErrorMessageSize are the C char
	// arrays of PgStromMsgError, NUL terminator included.
	ErrorFileSize    = int(unsafe.Sizeof(C.PgStromMsgError{}.filename))
	ErrorFuncSize    = int(unsafe.Sizeof(C.PgStromMsgError{}.funcname))
	ErrorMessageSize = int(unsafe.Sizeof(C.PgStromMsgError{}.message))

	// LinkProbeSize is sizeof(PgStromMsgLinkProbe), the whole payload of a
	// LINK_PROBE request.
	LinkProbeSize = int(C.sizeof_PgStromMsgLinkProbe)
	// LinkProbeReplySize is sizeof(PgStromMsgLinkProbeReply).
	LinkProbeReplySize = int(C.sizeof_PgStromMsgLinkProbeReply)

	// JoinInnerSize is sizeof(PgStromMsgJoinInner), the fixed part of a
	// JOIN_INNER request (the rows follow at rows_offset).
	JoinInnerSize = int(C.sizeof_PgStromMsgJoinInner)
	// JoinInnerReplySize is sizeof(PgStromMsgJoinInnerReply).
	JoinInnerReplySize = int(C.sizeof_PgStromMsgJoinInnerReply)
	// JoinInnerMaxPiece is PGSTROM_JOIN_INNER_MAX_PIECE, the most bytes of
	// rows one JOIN_INNER piece may carry.
	JoinInnerMaxPiece = uint32(C.PGSTROM_JOIN_INNER_MAX_PIECE)
)

// JOIN_INNER reply states, PGSTROM_JOIN_INNER_*.
const (
	JoinInnerMore   = uint32(C.PGSTROM_JOIN_INNER_MORE)
	JoinInnerLoaded = uint32(C.PGSTROM_JOIN_INNER_LOADED)
	JoinInnerBusy   = uint32(C.PGSTROM_JOIN_INNER_BUSY)
)

// Tags, from enum PgStromMsgTag.
const (
	TagOpenSession    = Tag(C.PGSTROM_MSG_OPEN_SESSION)
	TagTaskExec       = Tag(C.PGSTROM_MSG_TASK_EXEC)
	TagTaskFinal      = Tag(C.PGSTROM_MSG_TASK_FINAL)
	TagStatus         = Tag(C.PGSTROM_MSG_STATUS)
	TagLinkProbe      = Tag(C.PGSTROM_MSG_LINK_PROBE)
	TagJoinInner      = Tag(C.PGSTROM_MSG_JOIN_INNER)
	TagSuccess        = Tag(C.PGSTROM_MSG_SUCCESS)
	TagSuccessHalfway = Tag(C.PGSTROM_MSG_SUCCESS_HALFWAY)
	TagError          = Tag(C.PGSTROM_MSG_ERROR)
)

// Error codes carried in PgStromMsgError.code.
const (
	ErrCodeProtocol    = int32(C.PGSTROM_ERR_PROTOCOL)
	ErrCodeUnsupported = int32(C.PGSTROM_ERR_UNSUPPORTED)
	ErrCodeNoMemory    = int32(C.PGSTROM_ERR_NO_MEMORY)
	ErrCodeDevice      = int32(C.PGSTROM_ERR_DEVICE)
	ErrCodeInternal    = int32(C.PGSTROM_ERR_INTERNAL)
)

// Field offsets, relative to the start of their struct.
const (
	offHdrMagic     = int(unsafe.Offsetof(C.PgStromMsgHeader{}.magic))
	offHdrTag       = int(unsafe.Offsetof(C.PgStromMsgHeader{}.tag))
	offHdrFlags     = int(unsafe.Offsetof(C.PgStromMsgHeader{}.flags))
	offHdrLength    = int(unsafe.Offsetof(C.PgStromMsgHeader{}.length))
	offHdrRequestID = int(unsafe.Offsetof(C.PgStromMsgHeader{}.request_id))

	offErrCode    = int(unsafe.Offsetof(C.PgStromMsgError{}.code))
	offErrLine    = int(unsafe.Offsetof(C.PgStromMsgError{}.lineno))
	offErrFile    = int(unsafe.Offsetof(C.PgStromMsgError{}.filename))
	offErrFunc    = int(unsafe.Offsetof(C.PgStromMsgError{}.funcname))
	offErrMessage = int(unsafe.Offsetof(C.PgStromMsgError{}.message))

	offProbeBytes    = HeaderSize + int(unsafe.Offsetof(C.PgStromMsgLinkProbe{}.bytes))
	offProbeCopies   = HeaderSize + int(unsafe.Offsetof(C.PgStromMsgLinkProbe{}.copies))
	offProbeReserved = HeaderSize + int(unsafe.Offsetof(C.PgStromMsgLinkProbe{}.reserved))

	offLpDeviceIndex = int(unsafe.Offsetof(C.PgStromMsgLinkProbeReply{}.device_index))
	offLpCopies      = int(unsafe.Offsetof(C.PgStromMsgLinkProbeReply{}.copies))
	offLpBytes       = int(unsafe.Offsetof(C.PgStromMsgLinkProbeReply{}.bytes))
	offLpH2DNs       = int(unsafe.Offsetof(C.PgStromMsgLinkProbeReply{}.h2d_ns))
	offLpD2HNs       = int(unsafe.Offsetof(C.PgStromMsgLinkProbeReply{}.d2h_ns))

	offJiPlanID     = HeaderSize + int(unsafe.Offsetof(C.PgStromMsgJoinInner{}.plan_id))
	offJiDepth      = HeaderSize + int(unsafe.Offsetof(C.PgStromMsgJoinInner{}.depth))
	offJiRowSize    = HeaderSize + int(unsafe.Offsetof(C.PgStromMsgJoinInner{}.row_size))
	offJiNRows      = HeaderSize + int(unsafe.Offsetof(C.PgStromMsgJoinInner{}.nrows))
	offJiFirstRow   = HeaderSize + int(unsafe.Offsetof(C.PgStromMsgJoinInner{}.first_row))
	offJiPieceRows  = HeaderSize + int(unsafe.Offsetof(C.PgStromMsgJoinInner{}.piece_rows))
	offJiRowsOffset = HeaderSize + int(unsafe.Offsetof(C.PgStromMsgJoinInner{}.rows_offset))
	offJiFlags      = HeaderSize + int(unsafe.Offsetof(C.PgStromMsgJoinInner{}.flags))
	offJiReserved   = HeaderSize + int(unsafe.Offsetof(C.PgStromMsgJoinInner{}.reserved))

	offJirState    = int(unsafe.Offsetof(C.PgStromMsgJoinInnerReply{}.state))
	offJirReserved = int(unsafe.Offsetof(C.PgStromMsgJoinInnerReply{}.reserved))
	offJirBuildNs  = int(unsafe.Offsetof(C.PgStromMsgJoinInnerReply{}.build_ns))
	offJirBytes    = int(unsafe.Offsetof(C.PgStromMsgJoinInnerReply{}.bytes))

	offStDeviceIndex    = int(unsafe.Offsetof(C.PgStromMsgStatusReply{}.device_index))
	offStWorkers        = int(unsafe.Offsetof(C.PgStromMsgStatusReply{}.workers))
	offStConnections    = int(unsafe.Offsetof(C.PgStromMsgStatusReply{}.connections))
	offStQueued         = int(unsafe.Offsetof(C.PgStromMsgStatusReply{}.queued))
	offStPoolUsed       = int(unsafe.Offsetof(C.PgStromMsgStatusReply{}.pool_used))
	offStPoolTotal      = int(unsafe.Offsetof(C.PgStromMsgStatusReply{}.pool_total))
	offStPoolLimit      = int(unsafe.Offsetof(C.PgStromMsgStatusReply{}.pool_limit))
	offStRequestsServed = int(unsafe.Offsetof(C.PgStromMsgStatusReply{}.requests_served))
)

// The encoders write fixed-width integers; these fail to compile if the
// header ever changes a field's width, instead of silently misencoding.
var (
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgHeader{}.magic)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgHeader{}.tag)-2]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgHeader{}.flags)-2]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgHeader{}.length)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgHeader{}.request_id)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgError{}.code)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgError{}.lineno)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgStatusReply{}.device_index)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgStatusReply{}.workers)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgStatusReply{}.connections)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgStatusReply{}.queued)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgStatusReply{}.pool_used)-8]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgStatusReply{}.pool_total)-8]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgStatusReply{}.pool_limit)-8]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgStatusReply{}.requests_served)-8]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgLinkProbe{}.bytes)-8]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgLinkProbe{}.copies)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgLinkProbe{}.reserved)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgLinkProbeReply{}.device_index)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgLinkProbeReply{}.copies)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgLinkProbeReply{}.bytes)-8]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgLinkProbeReply{}.h2d_ns)-8]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgLinkProbeReply{}.d2h_ns)-8]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgJoinInner{}.plan_id)-8]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgJoinInner{}.depth)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgJoinInner{}.row_size)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgJoinInner{}.nrows)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgJoinInner{}.first_row)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgJoinInner{}.piece_rows)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgJoinInner{}.rows_offset)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgJoinInner{}.flags)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgJoinInner{}.reserved)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgJoinInnerReply{}.state)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgJoinInnerReply{}.reserved)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgJoinInnerReply{}.build_ns)-8]
	_ = [1]struct{}{}[unsafe.Sizeof(C.PgStromMsgJoinInnerReply{}.bytes)-8]
)

// FinalCollect is TaskFinal's PGSTROM_FINAL_COLLECT flag: collect what the
// plan kept on the device now, although other sessions of the plan still
// hold it.
const FinalCollect = uint16(C.PGSTROM_FINAL_COLLECT)
