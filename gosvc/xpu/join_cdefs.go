package xpu

// The GpuJoin part of include/pg_strom_xpu.h, through cgo like cdefs.go:
// the join descriptor, the inner buffer header, the records and cursors of
// the probe kernel, and the kernels' names and counters.

// #cgo CFLAGS: -I${SRCDIR}/../../include
// #include <stddef.h>
// #include "pg_strom_proto.h"
// #include "pg_strom_xpu.h"
import "C"

import "unsafe"

// Session kind, limits and join types of GpuJoin.
const (
	KindGpuJoin         = uint32(C.XPU_KIND_GPUJOIN)
	KindGpuJoinPreAgg   = uint32(C.XPU_KIND_GPUJOIN_PREAGG)
	JoinMaxCols         = int(C.XPU_JOIN_MAX_COLS)
	JoinColSize         = int(C.sizeof_XpuJoinCol)
	KernelGpuJoinPreAgg = C.XPU_KERNEL_GPUJOIN_PREAGG
	alignJoinCol        = int(unsafe.Alignof(C.XpuJoinCol{}))
	alignJoinQual       = 4 // int32_t[ndepths]
	JoinMaxDepths       = int(C.XPU_JOIN_MAX_DEPTHS)
	JoinMaxKeys         = int(C.XPU_JOIN_MAX_KEYS)
	JoinMaxRow          = int(C.XPU_JOIN_MAX_ROW)
	JoinMaxTextKey      = int(C.XPU_JOIN_MAX_TEXT_KEY)
	JoinMaxRows         = uint32(C.XPU_JOIN_MAX_ROWS)
	JoinNoInner         = uint32(C.XPU_JOIN_NO_INNER)
	JoinDescSize        = int(C.sizeof_XpuJoinDesc)
	JoinDepthSize       = int(C.sizeof_XpuJoinDepth)
	JoinKeySize         = int(C.sizeof_XpuJoinKey)
	JoinInnerSize       = int(C.sizeof_XpuJoinInner)
	JoinCursorSize      = int(C.sizeof_XpuJoinCursor)
	KernelGpuJoin       = C.XPU_KERNEL_GPUJOIN
	KernelGpuJoinBld    = C.XPU_KERNEL_GPUJOIN_BUILD
	CounterNSuspend     = int(C.XPU_JOIN_COUNTER_NSUSPEND)
	JoinCounterCount    = int(C.XPU_JOIN_COUNTER__COUNT)
	StatusBadInner      = uint32(C.XPU_STATUS_BAD_INNER)
	joinSlotAlign       = 16 // key offsets and row sizes: multiples of 16
	alignJoinDesc       = int(unsafe.Alignof(C.XpuJoinDesc{}))
	alignJoinDepth      = int(unsafe.Alignof(C.XpuJoinDepth{}))
	alignJoinKey        = int(unsafe.Alignof(C.XpuJoinKey{}))
	joinInnerRegAlign   = 256 // xpu_join_inner_layout's region alignment
)

// OpInnerVar is XPU_OP_INNER_VAR: a payload column of a join combination,
// outside XPU_OPCODE_LIST (so Opcode.Valid is false): only the program of
// a fused GpuJoin + GpuPreAgg session may have it, after the root.
const OpInnerVar = Opcode(C.XPU_OP_INNER_VAR)

// JoinType is XpuJoinDepth.join_type.
type JoinType int16

// Join types, XPU_JOIN_*.
const (
	JoinInner = JoinType(C.XPU_JOIN_INNER)
	JoinLeft  = JoinType(C.XPU_JOIN_LEFT)
	JoinSemi  = JoinType(C.XPU_JOIN_SEMI)
	JoinAnti  = JoinType(C.XPU_JOIN_ANTI)
)

// Field offsets of XpuJoinDesc, XpuJoinDepth, XpuJoinKey and XpuJoinInner,
// from the struct start.
const (
	OffJDescNDepths      = int(unsafe.Offsetof(C.XpuJoinDesc{}.ndepths))
	OffJDescDepthsOffset = int(unsafe.Offsetof(C.XpuJoinDesc{}.depths_offset))
	OffJDescNKeys        = int(unsafe.Offsetof(C.XpuJoinDesc{}.nkeys))
	OffJDescKeysOffset   = int(unsafe.Offsetof(C.XpuJoinDesc{}.keys_offset))
	OffJDescFlags        = int(unsafe.Offsetof(C.XpuJoinDesc{}.flags))
	OffJDescNCols        = int(unsafe.Offsetof(C.XpuJoinDesc{}.ncols))
	OffJDescColsOffset   = int(unsafe.Offsetof(C.XpuJoinDesc{}.cols_offset))
	OffJDescQualsOffset  = int(unsafe.Offsetof(C.XpuJoinDesc{}.quals_offset))
	OffJDescInnerKey     = int(unsafe.Offsetof(C.XpuJoinDesc{}.inner_key))

	OffJDepthJoinType = int(unsafe.Offsetof(C.XpuJoinDepth{}.join_type))
	OffJDepthReserved = int(unsafe.Offsetof(C.XpuJoinDepth{}.reserved))
	OffJDepthNKeys    = int(unsafe.Offsetof(C.XpuJoinDepth{}.nkeys))
	OffJDepthKeyFirst = int(unsafe.Offsetof(C.XpuJoinDepth{}.key_first))
	OffJDepthRowSize  = int(unsafe.Offsetof(C.XpuJoinDepth{}.row_size))

	OffJColDepth      = int(unsafe.Offsetof(C.XpuJoinCol{}.depth))
	OffJColInnerXType = int(unsafe.Offsetof(C.XpuJoinCol{}.inner_xtype))
	OffJColOffset     = int(unsafe.Offsetof(C.XpuJoinCol{}.offset))
	OffJColWidth      = int(unsafe.Offsetof(C.XpuJoinCol{}.width))
	OffJColReserved   = int(unsafe.Offsetof(C.XpuJoinCol{}.reserved))

	OffJKeyNode       = int(unsafe.Offsetof(C.XpuJoinKey{}.node))
	OffJKeyOuterXType = int(unsafe.Offsetof(C.XpuJoinKey{}.outer_xtype))
	OffJKeyInnerXType = int(unsafe.Offsetof(C.XpuJoinKey{}.inner_xtype))
	OffJKeyOffset     = int(unsafe.Offsetof(C.XpuJoinKey{}.offset))
	OffJKeyWidth      = int(unsafe.Offsetof(C.XpuJoinKey{}.width))

	offJInnerNRows         = int(unsafe.Offsetof(C.XpuJoinInner{}.nrows))
	offJInnerRowSize       = int(unsafe.Offsetof(C.XpuJoinInner{}.row_size))
	offJInnerNBuckets      = int(unsafe.Offsetof(C.XpuJoinInner{}.nbuckets))
	offJInnerDepth         = int(unsafe.Offsetof(C.XpuJoinInner{}.depth))
	offJInnerRowsOffset    = int(unsafe.Offsetof(C.XpuJoinInner{}.rows_offset))
	offJInnerBucketsOffset = int(unsafe.Offsetof(C.XpuJoinInner{}.buckets_offset))
	offJInnerNextOffset    = int(unsafe.Offsetof(C.XpuJoinInner{}.next_offset))
	offJInnerHashesOffset  = int(unsafe.Offsetof(C.XpuJoinInner{}.hashes_offset))
)

// The decoders read fixed-width integers; these fail to compile if the
// header ever changes a field's width.
var (
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuSession{}.join_offset)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuJoinDesc{}.ndepths)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuJoinDesc{}.flags)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuJoinDesc{}.ncols)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuJoinDesc{}.cols_offset)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuJoinDesc{}.quals_offset)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuJoinDepth{}.join_type)-2]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuJoinDepth{}.reserved)-2]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuJoinDepth{}.row_size)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuJoinKey{}.node)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuJoinKey{}.outer_xtype)-2]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuJoinKey{}.inner_xtype)-2]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuJoinInner{}.nrows)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuJoinInner{}.rows_offset)-8]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuJoinCursor{})-24]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuJoinCol{}.depth)-2]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuJoinCol{}.inner_xtype)-2]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuJoinCol{}.reserved)-4]
)
