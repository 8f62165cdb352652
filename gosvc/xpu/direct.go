package xpu

import (
	"fmt"
	"path/filepath"
	"strconv"
)

// DirectFile is a validated XpuDirectFile: which relation file a
// direct-read chunk's blocks come from.
type DirectFile struct {
	Spc, DB, RelNode uint32
	Checksums        bool   // verify each page's checksum
	SegBlocks        uint32 // blocks per segment file (RELSEG_SIZE)
	RelNBlocks       uint32 // every block number is below
	PgMajor          uint32
	Catversion       uint32
	// Stamps: the chunk carries one visibility-map stamp per block
	// (XPU_DIRECT_STAMPS), which ParseDirect returns.
	Stamps bool
	// CacheOnly: read no file; bounce what the cache does not hold
	// (XPU_DIRECT_CACHE_ONLY, only with Stamps).
	CacheOnly bool
}

// DirectStampsOffset is XPU_DIRECT_STAMPS_OFFSET(n): where the stamps of a
// direct-read chunk of n blocks start, from the message start.
func DirectStampsOffset(n uint32) uint64 {
	return uint64(DirectBlknosOffset) + (uint64(n)*4+7)&^7
}

// ParseDirect validates the XpuDirectFile and the block numbers of a
// direct-read chunk c whose message msg ParseChunk accepted, and returns
// them with the blocks' stamps (nil without XPU_DIRECT_STAMPS).  Every
// error is a protocol error.
func ParseDirect(c Chunk, msg []byte) (DirectFile, []uint32, []uint64, error) {
	f, blknos, err := parseDirectFile(c, msg)
	if err != nil || !f.Stamps {
		return f, blknos, nil, err
	}
	stamps := make([]uint64, c.NBlocks)
	off := DirectStampsOffset(c.NBlocks)
	for i := range stamps {
		stamps[i] = le.Uint64(msg[off+8*uint64(i):])
	}
	return f, blknos, stamps, nil
}

func parseDirectFile(c Chunk, msg []byte) (DirectFile, []uint32, error) {
	if !c.Direct() {
		return DirectFile{}, nil, protoErr("xpu chunk %d is not a direct-read chunk", c.ChunkID)
	}
	flags := le.Uint32(msg[offDirFlags:])
	f := DirectFile{
		Spc:        le.Uint32(msg[offDirSpc:]),
		DB:         le.Uint32(msg[offDirDb:]),
		RelNode:    le.Uint32(msg[offDirRelNode:]),
		Checksums:  flags&DirectChecksums != 0,
		SegBlocks:  le.Uint32(msg[offDirSegBlocks:]),
		RelNBlocks: le.Uint32(msg[offDirRelNBlocks:]),
		PgMajor:    le.Uint32(msg[offDirPgMajor:]),
		Catversion: le.Uint32(msg[offDirCatversion:]),
		Stamps:     flags&DirectStamps != 0,
		CacheOnly:  flags&DirectCacheOnly != 0,
	}
	switch {
	case flags&^DirectFlagsMask != 0:
		return DirectFile{}, nil, protoErr("xpu chunk %d: direct-read flags %#x, only %#x are defined", c.ChunkID, flags, DirectFlagsMask)
	case f.CacheOnly && !f.Stamps:
		return DirectFile{}, nil, protoErr("xpu chunk %d: direct-read flags %#x: XPU_DIRECT_CACHE_ONLY without XPU_DIRECT_STAMPS", c.ChunkID, flags)
	case f.Spc == 0 || f.DB == 0 || f.RelNode == 0:
		return DirectFile{}, nil, protoErr("xpu chunk %d: direct-read file %d/%d/%d names OID 0", c.ChunkID, f.Spc, f.DB, f.RelNode)
	case f.Spc == GlobalTablespace:
		return DirectFile{}, nil, protoErr("xpu chunk %d: direct read of a shared catalog (tablespace %d) is refused", c.ChunkID, f.Spc)
	case f.SegBlocks == 0 || f.SegBlocks > DirectMaxSegBlocks:
		return DirectFile{}, nil, protoErr("xpu chunk %d: %d blocks per segment, want 1..%d", c.ChunkID, f.SegBlocks, DirectMaxSegBlocks)
	case f.Spc != DefaultTablespace && (f.PgMajor == 0 || f.Catversion == 0):
		return DirectFile{}, nil, protoErr("xpu chunk %d: tablespace %d without its version directory (PG_%d_%d)", c.ChunkID, f.Spc, f.PgMajor, f.Catversion)
	}
	blknos := make([]uint32, c.NBlocks)
	for i := range blknos {
		b := le.Uint32(msg[int(c.PagesOffset)+4*i:])
		if b >= f.RelNBlocks {
			return DirectFile{}, nil, protoErr("xpu chunk %d: block %d (index %d) is not below the relation's %d blocks at scan start", c.ChunkID, b, i, f.RelNBlocks)
		}
		blknos[i] = b
	}
	return f, blknos, nil
}

// Name names the relation file in errors: base/<db>/<relfilenode>, or
// pg_tblspc/<spc>/PG_<major>_<catversion>/<db>/<relfilenode>.
func (f DirectFile) Name() string { return f.SegmentPath(0) }

// SegmentPath is segment seg of the main fork, relative to PGDATA, built
// from numbers only, so it cannot leave PGDATA/base or PGDATA/pg_tblspc.
func (f DirectFile) SegmentPath(seg uint32) string {
	var dir string
	if f.Spc == DefaultTablespace {
		dir = filepath.Join("base", u32(f.DB))
	} else {
		dir = filepath.Join("pg_tblspc", u32(f.Spc), fmt.Sprintf("PG_%d_%d", f.PgMajor, f.Catversion), u32(f.DB))
	}
	name := u32(f.RelNode)
	if seg > 0 {
		name += "." + u32(seg)
	}
	return filepath.Join(dir, name)
}

// Locate is the segment of block blkno and the byte offset of the block
// in it.
func (f DirectFile) Locate(blkno uint32) (seg uint32, off int64) {
	return blkno / f.SegBlocks, int64(blkno%f.SegBlocks) * int64(BlockSize)
}

func u32(v uint32) string { return strconv.FormatUint(uint64(v), 10) }
