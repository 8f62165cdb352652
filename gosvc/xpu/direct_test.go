package xpu_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

func goodDirectFile() xpu.DirectFile {
	return xpu.DirectFile{Spc: xpu.DefaultTablespace, DB: 5, RelNode: 16384, SegBlocks: 131072,
		RelNBlocks: 300000, PgMajor: 15, Catversion: 202209061}
}

func TestParseDirectAcceptsAndRoundTrips(t *testing.T) {
	f := goodDirectFile()
	f.Checksums = true
	msg := xputest.DirectChunkMessage(3, 7, f, []uint32{0, 1, 131071, 131072, 299999})
	c, err := xpu.ParseChunk(msg)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Direct() || c.Shared() || c.Inline() {
		t.Fatalf("chunk kind: direct %v shared %v inline %v", c.Direct(), c.Shared(), c.Inline())
	}
	got, blknos, _, err := xpu.ParseDirect(c, msg)
	if err != nil {
		t.Fatal(err)
	}
	if got != f || len(blknos) != 5 || blknos[4] != 299999 {
		t.Fatalf("got %+v %v", got, blknos)
	}
}

func TestParseDirectStamps(t *testing.T) {
	f := goodDirectFile()
	f.Stamps = true
	for _, blknos := range [][]uint32{{7}, {7, 8}, {1, 2, 3}} {
		stamps := make([]uint64, len(blknos))
		for i := range stamps {
			stamps[i] = 0x1_0000_0000*uint64(i+1) + 0x28
		}
		msg := xputest.StampedDirectChunkMessage(3, 7, f, blknos, stamps)
		c, err := xpu.ParseChunk(msg)
		if err != nil {
			t.Fatalf("%d blocks: %v", len(blknos), err)
		}
		got, gotBlknos, gotStamps, err := xpu.ParseDirect(c, msg)
		if err != nil {
			t.Fatal(err)
		}
		if got != f || len(gotBlknos) != len(blknos) || len(gotStamps) != len(stamps) {
			t.Fatalf("got %+v %v %v", got, gotBlknos, gotStamps)
		}
		for i := range stamps {
			if gotStamps[i] != stamps[i] || gotBlknos[i] != blknos[i] {
				t.Fatalf("block %d: got %d stamp %#x, want %d %#x", i, gotBlknos[i], gotStamps[i], blknos[i], stamps[i])
			}
		}
		// the flag without the stamps, and the stamps without the flag
		noStamps := xputest.DirectChunkMessage(3, 7, f, blknos)
		if _, err := xpu.ParseChunk(noStamps); !errors.Is(err, protocol.ErrProtocol) {
			t.Errorf("flag without stamps: %v", err)
		}
		plain := f
		plain.Stamps = false
		extra := xputest.StampedDirectChunkMessage(3, 7, plain, blknos, stamps)
		extra[xpu.DirectFileOffset+12] &^= byte(xpu.DirectStamps)
		if _, err := xpu.ParseChunk(extra); !errors.Is(err, protocol.ErrProtocol) {
			t.Errorf("stamps without the flag: %v", err)
		}
	}
}

func TestParseDirectRefusesBadFields(t *testing.T) {
	cases := map[string]func(f *xpu.DirectFile, b *[]uint32){
		"OID 0":                 func(f *xpu.DirectFile, b *[]uint32) { f.RelNode = 0 },
		"shared catalog":        func(f *xpu.DirectFile, b *[]uint32) { f.Spc = xpu.GlobalTablespace },
		"blocks per segment":    func(f *xpu.DirectFile, b *[]uint32) { f.SegBlocks = 0 },
		"not below":             func(f *xpu.DirectFile, b *[]uint32) { (*b)[1] = f.RelNBlocks },
		"version directory":     func(f *xpu.DirectFile, b *[]uint32) { f.Spc = 16500; f.Catversion = 0 },
		"huge segment":          func(f *xpu.DirectFile, b *[]uint32) { f.SegBlocks = xpu.DirectMaxSegBlocks + 1 },
		"block 0xffffffff":      func(f *xpu.DirectFile, b *[]uint32) { f.RelNBlocks = ^uint32(0); (*b)[0] = ^uint32(0) },
		"database OID 0 again":  func(f *xpu.DirectFile, b *[]uint32) { f.DB = 0 },
		"cache-only, no stamps": func(f *xpu.DirectFile, b *[]uint32) { f.CacheOnly = true },
	}
	for name, mutate := range cases {
		f := goodDirectFile()
		blknos := []uint32{1, 2}
		mutate(&f, &blknos)
		msg := xputest.DirectChunkMessage(3, 7, f, blknos)
		c, err := xpu.ParseChunk(msg)
		if err == nil {
			_, _, _, err = xpu.ParseDirect(c, msg)
		}
		if !errors.Is(err, protocol.ErrProtocol) {
			t.Errorf("%s: got %v, want a protocol error", name, err)
		}
	}
	// unknown flags, and a message that does not end after the numbers
	msg := xputest.DirectChunkMessage(3, 7, goodDirectFile(), []uint32{1})
	msg[xpu.DirectFileOffset+12] = 0x80
	c, err := xpu.ParseChunk(msg)
	if err == nil {
		_, _, _, err = xpu.ParseDirect(c, msg)
	}
	if err == nil || !strings.Contains(err.Error(), "flags") {
		t.Errorf("unknown flag: %v", err)
	}
	msg = xputest.DirectChunkMessage(3, 7, goodDirectFile(), []uint32{1, 2})
	msg[xpu.OffChunkNBlocks] = 3
	if _, err := xpu.ParseChunk(msg); !errors.Is(err, protocol.ErrProtocol) {
		t.Errorf("block count beyond the message: %v", err)
	}
}

func TestDirectFileSegmentPaths(t *testing.T) {
	f := goodDirectFile()
	for _, c := range []struct {
		blkno uint32
		seg   uint32
		off   int64
		path  string
	}{
		{0, 0, 0, "base/5/16384"},
		{131071, 0, 131071 * 8192, "base/5/16384"},
		{131072, 1, 0, "base/5/16384.1"},
		{3*131072 + 5, 3, 5 * 8192, "base/5/16384.3"},
	} {
		seg, off := f.Locate(c.blkno)
		if seg != c.seg || off != c.off || f.SegmentPath(seg) != c.path {
			t.Errorf("block %d: segment %d offset %d path %s, want %d %d %s", c.blkno, seg, off, f.SegmentPath(seg), c.seg, c.off, c.path)
		}
	}
	f.Spc = 16500
	if got, want := f.SegmentPath(2), "pg_tblspc/16500/PG_15_202209061/5/16384.2"; got != want {
		t.Errorf("tablespace path %s, want %s", got, want)
	}
}
