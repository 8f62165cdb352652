package direct

import (
	"encoding/binary"

	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// PageHeaderData offsets and flags (src/include/storage/bufpage.h) and
// ItemIdData's bit layout (itemid.h).
const (
	offFlags        = 10
	offLower        = 12
	offUpper        = 14
	offSpecial      = 16
	pageHeaderSize  = 24
	pdValidFlagBits = 0x0007
	pdAllVisible    = 0x0004
	lpNormal        = 1
	heapHeaderMin   = 23 // SizeofHeapTupleHeader
)

// Verdict is what a page read from a file is for the kernels.
type Verdict uint32

const (
	// PageUsable: all-visible and sound, the kernels read it as it is.
	PageUsable Verdict = 0
	// PageNew: all zeros, no tuples (PostgreSQL skips it too).
	PageNew Verdict = 1 << 31
	// The bounce reasons are the read report's (XPU_BOUNCE_*).
	BounceNotAllVisible = Verdict(xpu.BounceNotAllVisible)
	BounceChecksum      = Verdict(xpu.BounceChecksum)
	BounceBadHeader     = Verdict(xpu.BounceBadHeader)
	// PageNotCached: a cache-only chunk's block the cache did not hold;
	// not read (the server's read report, not CheckPage's).
	PageNotCached = Verdict(xpu.BounceNotCached)
)

// Bounced reports whether the backend must read the page through the
// buffer manager.
func (v Verdict) Bounced() bool { return v != PageUsable && v != PageNew }

// CheckPage decides what an 8 kB page read from block blkno is, in the
// order PostgreSQL's PageIsVerified checks (checksum, header, all zeros),
// then the line pointers the kernels will follow, then PD_ALL_VISIBLE.
func CheckPage(page []byte, blkno uint32, checksums bool) Verdict {
	le := binary.LittleEndian
	upper := le.Uint16(page[offUpper:])
	if upper == 0 { // PageIsNew
		for _, b := range page {
			if b != 0 {
				return BounceBadHeader
			}
		}
		return PageNew
	}
	if checksums && PageChecksum(page, blkno) != le.Uint16(page[offChecksum:]) {
		return BounceChecksum
	}
	flags := le.Uint16(page[offFlags:])
	lower := le.Uint16(page[offLower:])
	special := le.Uint16(page[offSpecial:])
	if flags&^pdValidFlagBits != 0 || lower < pageHeaderSize || lower > upper ||
		upper > special || int(special) > xpu.BlockSize || special%8 != 0 {
		return BounceBadHeader
	}
	nlines := (int(lower) - pageHeaderSize) / 4
	if nlines > xpu.MaxTuplesPerPage {
		return BounceBadHeader
	}
	for i := 0; i < nlines; i++ {
		lp := le.Uint32(page[pageHeaderSize+4*i:])
		off, state, length := lp&0x7fff, (lp>>15)&3, lp>>17
		if state == lpNormal && (off < pageHeaderSize || length < heapHeaderMin || int(off+length) > xpu.BlockSize) {
			return BounceBadHeader
		}
	}
	if flags&pdAllVisible == 0 {
		return BounceNotAllVisible
	}
	return PageUsable
}

// hideTuples zeroes the page's header, so that the kernels take it for a
// new page without tuples.
func hideTuples(page []byte) { clear(page[:pageHeaderSize]) }

// HidePage is hideTuples for a page the service bounces without reading it
// (XPU_BOUNCE_NOT_CACHED): its bytes are whatever the buffer held.
func HidePage(page []byte) { hideTuples(page) }
