package xpu

// Every size, offset, enum value and list of this package comes from
// include/pg_strom_xpu.h through cgo: the C code generator, the CUDA kernels
// and this validator read one definition.  The X-macro lists are expanded
// into static tables below, so opcode names, argument counts, signatures and
// type lengths are the header's own.  Test files cannot use cgo; they see the
// exported constants.

// #cgo CFLAGS: -I${SRCDIR}/../../include
// #include <stddef.h>
// #include "pg_strom_proto.h"
// #include "pg_strom_xpu.h"
//
// typedef struct { const char *name; int nargs; const char *sig; } xpu_op_desc;
// static const xpu_op_desc xpu_op_descs[XPU_OP__COUNT] = {
// 	[XPU_OP_INVALID] = { "INVALID", 0, "" },
// #define XPU_OP_DESC(name, nargs, sig) [XPU_OP_##name] = { #name, nargs, #sig },
// 	XPU_OPCODE_LIST(XPU_OP_DESC)
// #undef XPU_OP_DESC
// };
// static const xpu_op_desc *xpu_op_desc_at(int i) { return &xpu_op_descs[i]; }
//
// typedef struct { const char *name; int oid; int len; } xpu_type_desc;
// static const xpu_type_desc xpu_type_descs[XPU_TYPE__COUNT] = {
// 	[XPU_TYPE_INVALID] = { "INVALID", 0, 0 },
// #define XPU_TYPE_DESC(name, oid, len) [XPU_TYPE_##name] = { #name, oid, len },
// 	XPU_TYPE_LIST(XPU_TYPE_DESC)
// #undef XPU_TYPE_DESC
// };
// static const xpu_type_desc *xpu_type_desc_at(int i) { return &xpu_type_descs[i]; }
import "C"

import "unsafe"

// Limits and sizes.
const (
	ProgramMagic      = uint32(C.XPU_PROGRAM_MAGIC)
	KindGpuScan       = uint32(C.XPU_KIND_GPUSCAN)
	MaxNodes          = int(C.XPU_MAX_NODES)
	MaxAttrs          = int(C.XPU_MAX_ATTRS)
	BlockSize         = int(C.XPU_BLCKSZ)
	MaxBlocksPerChunk = int(C.XPU_MAX_BLOCKS_PER_CHUNK)
	MaxTuplesPerPage  = int(C.XPU_MAX_TUPLES_PER_PAGE)
	ItemBlockShift    = uint(C.XPU_ITEM_BLOCK_SHIFT)
	ItemOffsetMask    = uint32(C.XPU_ITEM_OFFSET_MASK)
	ItemRecheck       = uint32(C.XPU_ITEM_RECHECK)
	KernelGpuScan     = C.XPU_KERNEL_GPUSCAN
	GpuScanThreads    = int(C.XPU_GPUSCAN_THREADS)
	ConstAlign        = 16 // "Each value starts at a multiple of 16 in the pool"
	PagesAlign        = 16 // XpuChunk.pages_offset alignment
	SessionSize       = int(C.sizeof_XpuSession)
	NodeSize          = int(C.sizeof_XpuNode)
	AttrSize          = int(C.sizeof_XpuAttr)
	NumericConstSize  = int(C.sizeof_XpuNumericConst)
	TextConstSize     = int(C.sizeof_XpuTextConst)
	ChunkSize         = int(C.sizeof_XpuChunk)
	ChunkResultSize   = int(C.sizeof_XpuChunkResult)
	sessionOffset     = int(C.sizeof_PgStromMsgHeader) // XpuSession follows the message header
	chunkOffset       = int(C.sizeof_PgStromMsgHeader) // so does XpuChunk
	resultOffset      = int(C.sizeof_PgStromMsgHeader) // and XpuChunkResult
	alignAttr         = int(unsafe.Alignof(C.XpuAttr{}))
	alignNode         = int(unsafe.Alignof(C.XpuNode{}))
	alignArg          = int(unsafe.Alignof(C.int32_t(0)))
	argSize           = 4 // int32_t node index
)

// MaxSlots is the kernel's per-thread evaluation slot limit
// (XPU_GPUSCAN_MAX_NODES): the kernel evaluates node i into slot i, so a
// program may have at most this many nodes.
const MaxSlots = int(C.XPU_GPUSCAN_MAX_NODES)

// ScratchBytes is XPU_SCRATCH_BYTES: the bytes of a thread's slots past a
// program of nnodes nodes, where LOWER, UPPER and TEXTCAT write results.
func ScratchBytes(nnodes int) int {
	return (MaxSlots - nnodes) * int(C.XPU_EVAL_SLOT_BYTES)
}

// Kernel counters (XPU_COUNTER_*) and status codes (XPU_STATUS_*).
const (
	CounterNItems   = int(C.XPU_COUNTER_NITEMS)
	CounterNTuples  = int(C.XPU_COUNTER_NTUPLES)
	CounterNRecheck = int(C.XPU_COUNTER_NRECHECK)
	CounterStatus   = int(C.XPU_COUNTER_STATUS)
	NumCounters     = int(C.XPU_COUNTER__COUNT)
	StatusOK        = uint32(C.XPU_STATUS_OK)
	StatusBadProg   = uint32(C.XPU_STATUS_BAD_PROGRAM)
	StatusBadPage   = uint32(C.XPU_STATUS_BAD_PAGE)
)

// Node flags (XPU_NODE_*).
const (
	FlagConstNull    = uint16(C.XPU_NODE_CONST_NULL)
	FlagTextBytewise = uint16(C.XPU_NODE_TEXT_BYTEWISE)
	FlagLikeUTF8     = uint16(C.XPU_NODE_LIKE_UTF8)
	FlagLikeICase    = uint16(C.XPU_NODE_LIKE_ICASE)
	FlagTzRules      = uint16(C.XPU_NODE_TZ_RULES)
)

// Zone rules (XpuZoneRules, XpuZoneTransition) in the constant pool.
const (
	ZoneRulesSize      = int(C.sizeof_XpuZoneRules)
	ZoneTransitionSize = int(C.sizeof_XpuZoneTransition)
	ZoneMaxTransitions = int(C.XPU_ZONE_MAX_TRANSITIONS)
)

// Date fields (XpuDateField).
const (
	FieldYear       = int32(C.XPU_FIELD_YEAR)
	FieldMonth      = int32(C.XPU_FIELD_MONTH)
	FieldDay        = int32(C.XPU_FIELD_DAY)
	FieldDow        = int32(C.XPU_FIELD_DOW)
	FieldIsoDow     = int32(C.XPU_FIELD_ISODOW)
	FieldDoy        = int32(C.XPU_FIELD_DOY)
	FieldQuarter    = int32(C.XPU_FIELD_QUARTER)
	FieldHour       = int32(C.XPU_FIELD_HOUR)
	FieldMinute     = int32(C.XPU_FIELD_MINUTE)
	FieldWeek       = int32(C.XPU_FIELD_WEEK)
	FieldSecond     = int32(C.XPU_FIELD_SECOND)
	FieldDecade     = int32(C.XPU_FIELD_DECADE)
	FieldCentury    = int32(C.XPU_FIELD_CENTURY)
	FieldMillennium = int32(C.XPU_FIELD_MILLENNIUM)
	FieldIsoYear    = int32(C.XPU_FIELD_ISOYEAR)
	FieldJulian     = int32(C.XPU_FIELD_JULIAN)
	FieldEpoch      = int32(C.XPU_FIELD_EPOCH)
	FieldMillisec   = int32(C.XPU_FIELD_MILLISEC)
	FieldMicrosec   = int32(C.XPU_FIELD_MICROSEC)
)

// Field offsets of XpuSession, from the message start.
const (
	OffSessMagic        = sessionOffset + int(unsafe.Offsetof(C.XpuSession{}.magic))
	OffSessKind         = sessionOffset + int(unsafe.Offsetof(C.XpuSession{}.kind))
	OffSessPlanID       = sessionOffset + int(unsafe.Offsetof(C.XpuSession{}.plan_id))
	OffSessNAttrs       = sessionOffset + int(unsafe.Offsetof(C.XpuSession{}.nattrs))
	OffSessAttrsOffset  = sessionOffset + int(unsafe.Offsetof(C.XpuSession{}.attrs_offset))
	OffSessNNodes       = sessionOffset + int(unsafe.Offsetof(C.XpuSession{}.nnodes))
	OffSessNodesOffset  = sessionOffset + int(unsafe.Offsetof(C.XpuSession{}.nodes_offset))
	OffSessNArgs        = sessionOffset + int(unsafe.Offsetof(C.XpuSession{}.nargs))
	OffSessArgsOffset   = sessionOffset + int(unsafe.Offsetof(C.XpuSession{}.args_offset))
	OffSessConstsLen    = sessionOffset + int(unsafe.Offsetof(C.XpuSession{}.consts_len))
	OffSessConstsOffset = sessionOffset + int(unsafe.Offsetof(C.XpuSession{}.consts_offset))
	OffSessRoot         = sessionOffset + int(unsafe.Offsetof(C.XpuSession{}.root))
	OffSessEncoding     = sessionOffset + int(unsafe.Offsetof(C.XpuSession{}.encoding))
	// SessionEnd is where the fixed part of an OpenSession message ends.
	SessionEnd = sessionOffset + SessionSize
)

// Field offsets of XpuNode and XpuAttr, from the struct start.
const (
	OffNodeOpcode  = int(unsafe.Offsetof(C.XpuNode{}.opcode))
	OffNodeRestype = int(unsafe.Offsetof(C.XpuNode{}.restype))
	OffNodeNArgs   = int(unsafe.Offsetof(C.XpuNode{}.nargs))
	OffNodeFlags   = int(unsafe.Offsetof(C.XpuNode{}.flags))
	OffNodeArgs    = int(unsafe.Offsetof(C.XpuNode{}.args))
	OffNodeAux     = int(unsafe.Offsetof(C.XpuNode{}.aux))

	OffAttrLen      = int(unsafe.Offsetof(C.XpuAttr{}.attlen))
	OffAttrAlign    = int(unsafe.Offsetof(C.XpuAttr{}.attalign))
	OffAttrByVal    = int(unsafe.Offsetof(C.XpuAttr{}.attbyval))
	OffAttrXType    = int(unsafe.Offsetof(C.XpuAttr{}.xtype))
	OffAttrReserved = int(unsafe.Offsetof(C.XpuAttr{}.reserved))

	OffNumLo    = int(unsafe.Offsetof(C.XpuNumericConst{}.lo))
	OffNumHi    = int(unsafe.Offsetof(C.XpuNumericConst{}.hi))
	OffNumScale = int(unsafe.Offsetof(C.XpuNumericConst{}.scale))
	OffTextLen  = int(unsafe.Offsetof(C.XpuTextConst{}.len))
)

// Field offsets of XpuChunk and XpuChunkResult, from the message start.
const (
	OffChunkNBlocks     = chunkOffset + int(unsafe.Offsetof(C.XpuChunk{}.nblocks))
	OffChunkPagesOffset = chunkOffset + int(unsafe.Offsetof(C.XpuChunk{}.pages_offset))
	OffChunkID          = chunkOffset + int(unsafe.Offsetof(C.XpuChunk{}.chunk_id))
	OffChunkBufferID    = chunkOffset + int(unsafe.Offsetof(C.XpuChunk{}.buffer_id))
	// ChunkEnd is where the fixed part of a TaskExec message ends.
	ChunkEnd = chunkOffset + ChunkSize

	offResChunkID  = resultOffset + int(unsafe.Offsetof(C.XpuChunkResult{}.chunk_id))
	offResNItems   = resultOffset + int(unsafe.Offsetof(C.XpuChunkResult{}.nitems))
	offResNTuples  = resultOffset + int(unsafe.Offsetof(C.XpuChunkResult{}.ntuples))
	offResNRecheck = resultOffset + int(unsafe.Offsetof(C.XpuChunkResult{}.nrecheck))
	offResGpuTime  = resultOffset + int(unsafe.Offsetof(C.XpuChunkResult{}.gpu_time_ns))
	// ResultEnd is where the fixed part of a TaskExec reply ends.
	ResultEnd = resultOffset + ChunkResultSize
)

// Zero-copy chunks (XPU_BUFFER_SHARED) and their XpuPageRef, whose field
// offsets are from the start of one ref.
const (
	BufferShared     = uint32(C.XPU_BUFFER_SHARED)
	PageRefSize      = int(C.sizeof_XpuPageRef)
	PageVisibleWords = int(C.XPU_PAGE_VISIBLE_WORDS)
	PageAllVisible   = uint16(C.XPU_PAGE_ALL_VISIBLE)
	PageStamped      = uint16(C.XPU_PAGE_STAMPED)
	PageFlagsMask    = uint16(C.XPU_PAGE_FLAGS_MASK)
	OffRefBuffer     = int(unsafe.Offsetof(C.XpuPageRef{}.buffer))
	OffRefNLines     = int(unsafe.Offsetof(C.XpuPageRef{}.nlines))
	OffRefFlags      = int(unsafe.Offsetof(C.XpuPageRef{}.flags))
	OffRefVisible    = int(unsafe.Offsetof(C.XpuPageRef{}.visible))
	// the words of a stamped ref's visible[] (XPU_PAGE_STAMP_*)
	PageStampLo    = int(C.XPU_PAGE_STAMP_LO)
	PageStampHi    = int(C.XPU_PAGE_STAMP_HI)
	PageStampBlkno = int(C.XPU_PAGE_STAMP_BLKNO)
	PageStampSpc   = int(C.XPU_PAGE_STAMP_SPCOID)
	PageStampDB    = int(C.XPU_PAGE_STAMP_DBOID)
	PageStampRel   = int(C.XPU_PAGE_STAMP_RELFILENODE)
)

// Direct-read chunks (XPU_BUFFER_DIRECT): XpuDirectFile, its field
// offsets from the message start, and the read report's bounce reasons.
const (
	BufferDirect          = uint32(C.XPU_BUFFER_DIRECT)
	DefaultTablespace     = uint32(C.XPU_DEFAULT_TABLESPACE)
	GlobalTablespace      = uint32(C.XPU_GLOBAL_TABLESPACE)
	DirectMaxSegBlocks    = uint32(C.XPU_DIRECT_MAX_SEG_BLOCKS)
	DirectChecksums       = uint32(C.XPU_DIRECT_CHECKSUMS)
	DirectStamps          = uint32(C.XPU_DIRECT_STAMPS)
	DirectCacheOnly       = uint32(C.XPU_DIRECT_CACHE_ONLY)
	DirectFlagsMask       = uint32(C.XPU_DIRECT_FLAGS_MASK)
	DirectFileSize        = int(C.sizeof_XpuDirectFile)
	DirectFileOffset      = int(C.XPU_DIRECT_FILE_OFFSET)
	DirectBlknosOffset    = int(C.XPU_DIRECT_BLKNOS_OFFSET)
	offDirSpc             = DirectFileOffset + int(unsafe.Offsetof(C.XpuDirectFile{}.spcoid))
	offDirDb              = DirectFileOffset + int(unsafe.Offsetof(C.XpuDirectFile{}.dboid))
	offDirRelNode         = DirectFileOffset + int(unsafe.Offsetof(C.XpuDirectFile{}.relfilenode))
	offDirFlags           = DirectFileOffset + int(unsafe.Offsetof(C.XpuDirectFile{}.flags))
	offDirSegBlocks       = DirectFileOffset + int(unsafe.Offsetof(C.XpuDirectFile{}.seg_blocks))
	offDirRelNBlocks      = DirectFileOffset + int(unsafe.Offsetof(C.XpuDirectFile{}.rel_nblocks))
	offDirPgMajor         = DirectFileOffset + int(unsafe.Offsetof(C.XpuDirectFile{}.pg_major))
	offDirCatversion      = DirectFileOffset + int(unsafe.Offsetof(C.XpuDirectFile{}.catversion))
	BounceShift           = uint(C.XPU_BOUNCE_SHIFT)
	BounceIndexMask       = uint32(C.XPU_BOUNCE_INDEX_MASK)
	BounceNotAllVisible   = uint32(C.XPU_BOUNCE_NOT_ALL_VISIBLE)
	BounceChecksum        = uint32(C.XPU_BOUNCE_CHECKSUM)
	BounceBadHeader       = uint32(C.XPU_BOUNCE_BAD_HEADER)
	BounceNotCached       = uint32(C.XPU_BOUNCE_NOT_CACHED)
	directFileOffsetCheck = uint(DirectFileOffset - ChunkEnd) // fails to compile if the XpuDirectFile overlaps XpuChunk
	directBlknosCheck     = uint(DirectBlknosOffset - DirectFileOffset - DirectFileSize)
)

// The decoders read fixed-width integers; these fail to compile if the
// header ever changes a field's width, instead of silently misdecoding.
var (
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuSession{}.magic)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuSession{}.plan_id)-8]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuSession{}.nattrs)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuSession{}.encoding)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuNode{}.opcode)-2]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuNode{}.restype)-2]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuNode{}.nargs)-2]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuNode{}.flags)-2]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuNode{}.args)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuNode{}.aux)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuAttr{}.attlen)-2]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuAttr{}.attalign)-1]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuAttr{}.attbyval)-1]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuAttr{}.xtype)-2]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuNumericConst{}.scale)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuTextConst{}.len)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuChunk{}.nblocks)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuChunk{}.pages_offset)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuChunk{}.buffer_id)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuChunkResult{}.nitems)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuChunkResult{}.gpu_time_ns)-8]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuPageRef{}.buffer)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuPageRef{}.nlines)-2]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuPageRef{}.flags)-2]
	_ = [1]struct{}{}[unsafe.Sizeof(C.XpuPageRef{}.visible[0])-4]
)

// opDesc and typeDesc read one row of the expanded X-macro tables.
func opDesc(i int) (name string, nargs int, sig string) {
	d := C.xpu_op_desc_at(C.int(i))
	return C.GoString(d.name), int(d.nargs), C.GoString(d.sig)
}

func typeDesc(i int) (name string, oid, length int) {
	d := C.xpu_type_desc_at(C.int(i))
	return C.GoString(d.name), int(d.oid), int(d.len)
}

const (
	numOpcodes = int(C.XPU_OP__COUNT)
	numTypes   = int(C.XPU_TYPE__COUNT)
)
