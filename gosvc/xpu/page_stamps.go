package xpu

// PageStamps are the stamped refs of a zero-copy chunk (XPU_PAGE_STAMPED):
// the pages the backend found all-visible under a visibility-map stamp,
// which may enter the page cache.  Blknos and Stamps have one entry per
// block of the chunk (stamp 0 for a page that is not stamped); Indexes
// lists the stamped ones.
type PageStamps struct {
	Spc, DB, RelNode uint32
	Blknos           []uint32
	Stamps           []uint64
	Indexes          []int
}

// ParsePageStamps reads the stamped refs of a shared chunk c whose refs
// CheckPageRefs accepted; nil when none is stamped.  A stamp of 0, a file
// naming OID 0 or a shared catalog, and stamped refs of one chunk naming
// different files are protocol errors.
func ParsePageStamps(c Chunk, msg []byte) (*PageStamps, error) {
	refs := c.Refs(msg)
	var ps *PageStamps
	for i := 0; i < int(c.NBlocks); i++ {
		r := refs[i*PageRefSize:]
		if le.Uint16(r[OffRefFlags:])&PageStamped == 0 {
			continue
		}
		word := func(w int) uint32 { return le.Uint32(r[OffRefVisible+4*w:]) }
		spc, db, rel := word(PageStampSpc), word(PageStampDB), word(PageStampRel)
		stamp := uint64(word(PageStampLo)) | uint64(word(PageStampHi))<<32
		switch {
		case stamp == 0:
			return nil, protoErr("xpu chunk %d: page ref %d is stamped with 0", c.ChunkID, i)
		case spc == 0 || db == 0 || rel == 0:
			return nil, protoErr("xpu chunk %d: page ref %d: file %d/%d/%d names OID 0", c.ChunkID, i, spc, db, rel)
		case spc == GlobalTablespace:
			return nil, protoErr("xpu chunk %d: page ref %d: a shared catalog's page (tablespace %d) is not cached", c.ChunkID, i, spc)
		case ps != nil && (ps.Spc != spc || ps.DB != db || ps.RelNode != rel):
			return nil, protoErr("xpu chunk %d: page ref %d names file %d/%d/%d, an earlier one %d/%d/%d",
				c.ChunkID, i, spc, db, rel, ps.Spc, ps.DB, ps.RelNode)
		}
		if ps == nil {
			ps = &PageStamps{Spc: spc, DB: db, RelNode: rel, Blknos: make([]uint32, c.NBlocks), Stamps: make([]uint64, c.NBlocks)}
		}
		ps.Blknos[i] = word(PageStampBlkno)
		ps.Stamps[i] = stamp
		ps.Indexes = append(ps.Indexes, i)
	}
	return ps, nil
}
