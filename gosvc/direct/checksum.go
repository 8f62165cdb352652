package direct

import "encoding/binary"

// PostgreSQL's page checksum (src/include/storage/checksum_impl.h),
// reimplemented: the page is read as 32 interleaved streams of 32-bit
// words, each mixed into its own FNV-1a-like sum with a shift, then two
// rounds of zeros, the sums XORed, the block number XORed in, and the
// result folded to 1..65535.  pd_checksum counts as zero.
const (
	nSums    = 32
	fnvPrime = 16777619
	// offChecksum is pd_checksum's offset in PageHeaderData.
	offChecksum = 8
)

var checksumBaseOffsets = [nSums]uint32{
	0x5B1F36E9, 0xB8525960, 0x02AB50AA, 0x1DE66D2A,
	0x79FF467A, 0x9BB9F8A3, 0x217E7CD2, 0x83E13D2C,
	0xF8D4474F, 0xE39EB970, 0x42C6AE16, 0x993216FA,
	0x7B093B5D, 0x98DAFF3C, 0xF718902A, 0x0B1C9CDB,
	0xE58F764B, 0x187636BC, 0x5D7B3BB1, 0xE73DE7DE,
	0x92BEC979, 0xCCA6C0B2, 0x304A0979, 0x85AA43D4,
	0x783125BB, 0x6CA8EAA2, 0xE407EAC6, 0x4B5CFC3E,
	0x9FBF8C76, 0x15CA20BE, 0xF2CA9FD3, 0x959BD756,
}

func mix(sum, value uint32) uint32 {
	t := sum ^ value
	return t*fnvPrime ^ t>>17
}

// PageChecksum is pg_checksum_page of an 8 kB page at block blkno (the
// block number within the whole relation, not within its segment).
func PageChecksum(page []byte, blkno uint32) uint16 {
	sums := checksumBaseOffsets
	const rowBytes = 4 * nSums
	for row := 0; row+rowBytes <= len(page); row += rowBytes {
		for j := 0; j < nSums; j++ {
			off := row + 4*j
			var v uint32
			if off != offChecksum { // the word holding pd_checksum: its low half is the checksum
				v = binary.LittleEndian.Uint32(page[off:])
			} else {
				v = binary.LittleEndian.Uint32(page[off:]) &^ 0xffff
			}
			sums[j] = mix(sums[j], v)
		}
	}
	for round := 0; round < 2; round++ {
		for j := 0; j < nSums; j++ {
			sums[j] = mix(sums[j], 0)
		}
	}
	var result uint32
	for _, s := range sums {
		result ^= s
	}
	result ^= blkno
	return uint16(result%65535 + 1)
}
