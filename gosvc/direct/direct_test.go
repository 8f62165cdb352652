package direct

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// The pages in testdata are blocks 0 and 3 of a table of an initdb -k
// cluster (PostgreSQL 15), vacuumed: all-visible, with their checksums.
func readTestPage(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil || len(b) != xpu.BlockSize {
		t.Fatalf("%s: %d bytes, %v", name, len(b), err)
	}
	return b
}

func TestPageChecksumMatchesPostgreSQL(t *testing.T) {
	for blkno, name := range map[uint32]string{0: "checksummed_block0.page", 3: "checksummed_block3.page"} {
		page := readTestPage(t, name)
		want := binary.LittleEndian.Uint16(page[offChecksum:])
		if got := PageChecksum(page, blkno); got != want {
			t.Errorf("%s: checksum %#x, PostgreSQL wrote %#x", name, got, want)
		}
		if got := PageChecksum(page, blkno+1); got == want {
			t.Errorf("%s: the checksum does not depend on the block number", name)
		}
		if v := CheckPage(page, blkno, true); v != PageUsable {
			t.Errorf("%s: verdict %d, want usable", name, v)
		}
	}
}

func TestCheckPageVerdicts(t *testing.T) {
	good := readTestPage(t, "checksummed_block3.page")
	mutate := func(f func(p []byte)) []byte {
		p := append([]byte(nil), good...)
		f(p)
		return p
	}
	le := binary.LittleEndian
	cases := []struct {
		name      string
		page      []byte
		checksums bool
		want      Verdict
	}{
		{"new page", make([]byte, xpu.BlockSize), true, PageNew},
		{"new header, data", mutate(func(p []byte) { clear(p[:pageHeaderSize]) }), false, BounceBadHeader},
		{"corrupt byte", mutate(func(p []byte) { p[5000] ^= 0xff }), true, BounceChecksum},
		{"corrupt byte, no checksums", mutate(func(p []byte) { p[5000] ^= 0xff }), false, PageUsable},
		{"not all-visible", mutate(func(p []byte) { le.PutUint16(p[offFlags:], 0) }), false, BounceNotAllVisible},
		{"unknown flag", mutate(func(p []byte) { le.PutUint16(p[offFlags:], 0x0104) }), false, BounceBadHeader},
		{"lower above upper", mutate(func(p []byte) { le.PutUint16(p[offLower:], 8000) }), false, BounceBadHeader},
		{"line pointer past the page", mutate(func(p []byte) { le.PutUint32(p[pageHeaderSize:], 8100|lpNormal<<15|200<<17) }), false, BounceBadHeader},
	}
	for _, c := range cases {
		if got := CheckPage(c.page, 3, c.checksums); got != c.want {
			t.Errorf("%s: verdict %d, want %d", c.name, got, c.want)
		}
	}
}

func TestRunsSplitAtGapsSegmentsAndLength(t *testing.T) {
	f := xpu.DirectFile{SegBlocks: 4}
	blknos := []uint32{0, 1, 2, 3, 4, 5, 9}
	for i := 0; i < maxRunBlocks+2; i++ {
		blknos = append(blknos, 1000+uint32(i))
	}
	f.SegBlocks = 1 << 20
	got := runs(f, blknos, nil)
	f.SegBlocks = 4
	got4 := runs(f, blknos[:7], nil)
	if len(got) != 4 || got[0] != (run{0, 6}) || got[1] != (run{6, 1}) || got[2] != (run{7, maxRunBlocks}) || got[3] != (run{7 + maxRunBlocks, 2}) {
		t.Errorf("runs: %v", got)
	}
	if len(got4) != 3 || got4[0] != (run{0, 4}) || got4[1] != (run{4, 2}) || got4[2] != (run{6, 1}) {
		t.Errorf("runs with 4-block segments: %v", got4)
	}
	// skipped blocks (page cache hits) split runs and are not read
	f.SegBlocks = 1 << 20
	skip := make([]bool, 7)
	skip[0], skip[2], skip[6] = true, true, true
	gotSkip := runs(f, blknos[:7], skip)
	if len(gotSkip) != 2 || gotSkip[0] != (run{1, 1}) || gotSkip[1] != (run{3, 3}) {
		t.Errorf("runs skipping 0, 2 and 6: %v", gotSkip)
	}
}

// a fake PGDATA holding a relation of nblocks pages in segments of segBlocks
func writeRelation(t *testing.T, f xpu.DirectFile, pages [][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for i, p := range pages {
		seg, off := f.Locate(uint32(i))
		path := filepath.Join(dir, f.SegmentPath(seg))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		fd, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fd.WriteAt(p, off); err != nil {
			t.Fatal(err)
		}
		fd.Close()
	}
	return dir
}

func TestReadChunkAcrossSegmentsAndTablespaces(t *testing.T) {
	good := readTestPage(t, "checksummed_block3.page")
	stale := append([]byte(nil), good...)
	binary.LittleEndian.PutUint16(stale[offFlags:], 0)
	for _, spc := range []uint32{xpu.DefaultTablespace, 16500} {
		f := xpu.DirectFile{Spc: spc, DB: 5, RelNode: 16389, SegBlocks: 3, RelNBlocks: 8, PgMajor: 15, Catversion: 202209061}
		pages := make([][]byte, 8)
		for i := range pages {
			p := append([]byte(nil), good...)
			binary.LittleEndian.PutUint32(p[100:], uint32(i)) // mark each page (no checksums here)
			pages[i] = p
		}
		pages[4] = stale
		pages[6] = make([]byte, xpu.BlockSize)
		dir := writeRelation(t, f, pages)
		fs := NewFiles(dir)
		blknos := []uint32{7, 0, 1, 2, 3, 4, 5, 6}
		dst := make([]byte, len(blknos)*xpu.BlockSize)
		rep, err := fs.ReadChunk(f, blknos, dst)
		if err != nil {
			t.Fatalf("tablespace %d: %v", spc, err)
		}
		for i, b := range blknos {
			p := dst[i*xpu.BlockSize:]
			if b == 4 || b == 6 {
				if binary.LittleEndian.Uint16(p[offUpper:]) != 0 {
					t.Errorf("tablespace %d: block %d should reach the kernels without tuples", spc, b)
				}
				continue
			}
			if got := binary.LittleEndian.Uint32(p[100:]); got != b {
				t.Errorf("tablespace %d: index %d holds block %d, want %d", spc, i, got, b)
			}
		}
		want := uint32(5) | uint32(BounceNotAllVisible)<<xpu.BounceShift // block 4 is index 5
		if len(rep.Bounced) != 1 || rep.Bounced[0] != want || rep.NNew != 1 {
			t.Errorf("tablespace %d: report %+v, want bounced [%#x] and one new page", spc, rep, want)
		}
		if err := fs.Close(); err != nil {
			t.Error(err)
		}
		if _, err := fs.ReadChunk(f, blknos[:1], dst[:xpu.BlockSize]); err == nil {
			t.Errorf("tablespace %d: a read after Close succeeded", spc)
		}
	}
}

func TestReadChunkShortFileIsAnError(t *testing.T) {
	f := xpu.DirectFile{Spc: xpu.DefaultTablespace, DB: 5, RelNode: 42, SegBlocks: 4, RelNBlocks: 6}
	good := readTestPage(t, "checksummed_block3.page")
	dir := writeRelation(t, f, [][]byte{good, good, good, good, good}) // 5 of 6 blocks
	fs := NewFiles(dir)
	defer fs.Close()
	dst := make([]byte, 2*xpu.BlockSize)
	_, err := fs.ReadChunk(f, []uint32{4, 5}, dst)
	if err == nil || !strings.Contains(err.Error(), "block 5 of relation file base/5/42") || !strings.Contains(err.Error(), "shorter") {
		t.Fatalf("short read: %v", err)
	}
	_, err = fs.ReadChunk(xpu.DirectFile{Spc: xpu.DefaultTablespace, DB: 5, RelNode: 43, SegBlocks: 4, RelNBlocks: 6}, []uint32{0}, dst[:xpu.BlockSize])
	if err == nil || !strings.Contains(err.Error(), "base/5/43") {
		t.Fatalf("missing file: %v", err)
	}
}
