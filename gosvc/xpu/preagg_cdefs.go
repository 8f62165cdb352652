package xpu

// The GpuPreAgg part of include/pg_strom_xpu.h, through cgo like cdefs.go:
// the session descriptor, the group entry and device table layouts, the
// kernels' names and the groups reply.  XPU_AGG_LIST is expanded into a
// static table so accumulator names and sizes are the header's own.

// #cgo CFLAGS: -I${SRCDIR}/../../include
// #include <stddef.h>
// #include "pg_strom_proto.h"
// #include "pg_strom_xpu.h"
//
// typedef struct { const char *name; int bytes; } xpu_agg_desc;
// static const xpu_agg_desc xpu_agg_descs[XPU_AGG__COUNT] = {
// 	[XPU_AGG_INVALID] = { "INVALID", 0 },
// #define XPU_AGG_DESC(name, bytes) [XPU_AGG_##name] = { #name, bytes },
// 	XPU_AGG_LIST(XPU_AGG_DESC)
// #undef XPU_AGG_DESC
// };
// static const xpu_agg_desc *xpu_agg_desc_at(int i) { return &xpu_agg_descs[i]; }
import "C"

import "unsafe"

// Session kinds and limits of GpuPreAgg.
const (
	KindGpuPreAgg      = uint32(C.XPU_KIND_GPUPREAGG)
	PreAggMaxKeys      = int(C.XPU_PREAGG_MAX_KEYS)
	PreAggMaxAggs      = int(C.XPU_PREAGG_MAX_AGGS)
	PreAggMaxEntry     = int(C.XPU_PREAGG_MAX_ENTRY)
	PreAggMaxTextKey   = int(C.XPU_PREAGG_MAX_TEXT_KEY)
	PreAggEntryHeader  = int(C.XPU_PREAGG_ENTRY_HEADER)
	PreAggEntryValid   = uint32(C.XPU_PREAGG_ENTRY_VALID)
	PreAggGroupsBytes  = int(C.XPU_PREAGG_GROUPS_BYTES)
	PreAggDescSize     = int(C.sizeof_XpuPreAggDesc)
	GroupKeySize       = int(C.sizeof_XpuGroupKey)
	AggDescSize        = int(C.sizeof_XpuAggDesc)
	PreAggTableSize    = int(C.sizeof_XpuPreAggTable)
	PreAggGroupsSize   = int(C.sizeof_XpuPreAggGroups)
	ItemRetry          = uint32(C.XPU_ITEM_RETRY)
	KernelGpuPreAgg    = C.XPU_KERNEL_GPUPREAGG
	KernelPreAggRehash = C.XPU_KERNEL_GPUPREAGG_REHASH
	// PreAggBatchPages is how many pages a block of the GpuPreAgg kernel
	// takes at a time over a chunk's pages.
	PreAggBatchPages = int(C.XPU_PREAGG_BATCH_PAGES)
	// PreAggEntryAlign is the alignment of entry_size and of every key
	// slot and accumulator offset.
	PreAggEntryAlign = 16

	alignPreAggDesc = int(unsafe.Alignof(C.XpuPreAggDesc{}))
	alignGroupKey   = int(unsafe.Alignof(C.XpuGroupKey{}))
	alignAggDesc    = int(unsafe.Alignof(C.XpuAggDesc{}))
	groupsOffset    = int(C.sizeof_PgStromMsgHeader) // XpuPreAggGroups follows the message header
	// PreAggGroupsEnd is where the entries of a groups message start.
	PreAggGroupsEnd = groupsOffset + PreAggGroupsSize
)

// Accumulator kinds, from enum XpuAggKind.
const (
	AggInvalid = AggKind(C.XPU_AGG_INVALID)
	AggCount   = AggKind(C.XPU_AGG_COUNT)
	AggSumInt  = AggKind(C.XPU_AGG_SUM_INT)
	AggSumFP   = AggKind(C.XPU_AGG_SUM_FP)
	AggMinInt  = AggKind(C.XPU_AGG_MIN_INT)
	AggMaxInt  = AggKind(C.XPU_AGG_MAX_INT)
	AggMinFP   = AggKind(C.XPU_AGG_MIN_FP)
	AggMaxFP   = AggKind(C.XPU_AGG_MAX_FP)
	AggVarFP   = AggKind(C.XPU_AGG_VAR_FP)
	AggVarInt  = AggKind(C.XPU_AGG_VAR_INT)
	AggVarInt8 = AggKind(C.XPU_AGG_VAR_INT8)
	AggSumNumV = AggKind(C.XPU_AGG_SUM_NUMV)
)

// Field offsets of XpuSession's descriptor offsets (GpuPreAgg's, GpuJoin's),
// from the message start.
const (
	OffSessPreAggOffset = sessionOffset + int(unsafe.Offsetof(C.XpuSession{}.preagg_offset))
	OffSessJoinOffset   = sessionOffset + int(unsafe.Offsetof(C.XpuSession{}.join_offset))
)

// Field offsets of XpuPreAggDesc, XpuGroupKey and XpuAggDesc, from the
// struct start.
const (
	OffDescNKeys      = int(unsafe.Offsetof(C.XpuPreAggDesc{}.nkeys))
	OffDescKeysOffset = int(unsafe.Offsetof(C.XpuPreAggDesc{}.keys_offset))
	OffDescNAggs      = int(unsafe.Offsetof(C.XpuPreAggDesc{}.naggs))
	OffDescAggsOffset = int(unsafe.Offsetof(C.XpuPreAggDesc{}.aggs_offset))
	OffDescEntrySize  = int(unsafe.Offsetof(C.XpuPreAggDesc{}.entry_size))
	OffDescReserved   = int(unsafe.Offsetof(C.XpuPreAggDesc{}.reserved))

	OffKeyNode     = int(unsafe.Offsetof(C.XpuGroupKey{}.node))
	OffKeyXType    = int(unsafe.Offsetof(C.XpuGroupKey{}.xtype))
	OffKeyReserved = int(unsafe.Offsetof(C.XpuGroupKey{}.reserved))
	OffKeyOffset   = int(unsafe.Offsetof(C.XpuGroupKey{}.offset))
	OffKeyWidth    = int(unsafe.Offsetof(C.XpuGroupKey{}.width))

	OffAggKind    = int(unsafe.Offsetof(C.XpuAggDesc{}.kind))
	OffAggArgType = int(unsafe.Offsetof(C.XpuAggDesc{}.argtype))
	OffAggArg     = int(unsafe.Offsetof(C.XpuAggDesc{}.arg))
	OffAggFilter  = int(unsafe.Offsetof(C.XpuAggDesc{}.filter))
	OffAggOffset  = int(unsafe.Offsetof(C.XpuAggDesc{}.offset))
	OffAggParam   = int(unsafe.Offsetof(C.XpuAggDesc{}.param))

	PreAggMaxNumericScale = int32(C.XPU_PREAGG_MAX_NUMERIC_SCALE)
	PreAggMaxNumVScale    = int32(C.XPU_PREAGG_MAX_NUMV_SCALE)
)

// Field offsets of XpuPreAggEntryHeader and XpuPreAggTable, from the struct
// start, for the service that builds and reads device tables.
const (
	OffEntryHash  = int(unsafe.Offsetof(C.XpuPreAggEntryHeader{}.hash))
	OffEntryFlags = int(unsafe.Offsetof(C.XpuPreAggEntryHeader{}.flags))

	OffTableNSlots        = int(unsafe.Offsetof(C.XpuPreAggTable{}.nslots))
	OffTableCapacity      = int(unsafe.Offsetof(C.XpuPreAggTable{}.capacity))
	OffTableNEntries      = int(unsafe.Offsetof(C.XpuPreAggTable{}.nentries))
	OffTableEntrySize     = int(unsafe.Offsetof(C.XpuPreAggTable{}.entry_size))
	OffTableSlotsOffset   = int(unsafe.Offsetof(C.XpuPreAggTable{}.slots_offset))
	OffTableEntriesOffset = int(unsafe.Offsetof(C.XpuPreAggTable{}.entries_offset))
)

// Field offsets of XpuPreAggGroups, from the message start.
const (
	offGrpNEntries   = groupsOffset + int(unsafe.Offsetof(C.XpuPreAggGroups{}.nentries))
	offGrpEntrySize  = groupsOffset + int(unsafe.Offsetof(C.XpuPreAggGroups{}.entry_size))
	offGrpTotal      = groupsOffset + int(unsafe.Offsetof(C.XpuPreAggGroups{}.ngroups_total))
	offGrpGrowths    = groupsOffset + int(unsafe.Offsetof(C.XpuPreAggGroups{}.ngrowths))
	offGrpTableBytes = groupsOffset + int(unsafe.Offsetof(C.XpuPreAggGroups{}.table_bytes))
	numAggKinds      = int(C.XPU_AGG__COUNT)
	preaggTableAlign = 256 // "both offsets from the table start, 256-byte aligned"
	preaggSlotSize   = int(unsafe.Sizeof(C.uint32_t(0)))
)

// Field widths the decoders rely on.
var (
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuSession{}.preagg_offset)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuSession{}.join_offset)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuPreAggDesc{}.nkeys)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuPreAggDesc{}.entry_size)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuGroupKey{}.node)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuGroupKey{}.xtype)-2]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuGroupKey{}.reserved)-2]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuGroupKey{}.width)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuAggDesc{}.kind)-2]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuAggDesc{}.argtype)-2]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuAggDesc{}.arg)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuAggDesc{}.filter)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuAggDesc{}.offset)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuPreAggTable{}.nslots)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuPreAggTable{}.slots_offset)-8]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuPreAggEntryHeader{}.flags)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuPreAggGroups{}.nentries)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuPreAggGroups{}.table_bytes)-8]
)

// aggDesc reads one row of the expanded XPU_AGG_LIST table.
func aggDesc(i int) (name string, bytes int) {
	d := C.xpu_agg_desc_at(C.int(i))
	return C.GoString(d.name), int(d.bytes)
}
