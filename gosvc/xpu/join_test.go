package xpu_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/kinds"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

func TestParseJoinAcceptsTwoDepths(t *testing.T) {
	msg := xputest.JoinProgram(7, 0, xpu.JoinInner, true).Message(1)
	p, spec, err := kinds.All().ParseSession(msg)
	if err != nil || spec == nil {
		t.Fatalf("ParseSession: %v", err)
	}
	j, err := xpu.ParseJoin(msg, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Depths) != 2 || j.Stride() != 3 || j.Depths[0].Type != xpu.JoinInner || j.Depths[1].Type != xpu.JoinLeft ||
		j.Depths[1].RowSize != 64 || j.Depths[1].Keys[0] != (xpu.JoinKey{Node: 1, OuterXType: xpu.TypeText, InnerXType: xpu.TypeVarchar, Offset: 16, Width: 48}) {
		t.Fatalf("parsed %+v", j)
	}
}

func TestParseJoinRejects(t *testing.T) {
	good, l := xputest.JoinProgram(7, 0, xpu.JoinInner, true).MessageLayout(1)
	put := xputest.PutU32
	desc := func(f int, v uint32) []byte { return put(good, l.JoinOffset+f, v) }
	depth := func(d, f int, v uint32) []byte { return put(good, l.JoinDepthsOffset+d*xpu.JoinDepthSize+f, v) }
	key := func(k, f int, v uint32) []byte { return put(good, l.JoinKeysOffset+k*xpu.JoinKeySize+f, v) }
	types := func(k int, outer, inner xpu.Type) []byte {
		return put(good, l.JoinKeysOffset+k*xpu.JoinKeySize+xpu.OffJKeyOuterXType, uint32(uint16(outer))|uint32(uint16(inner))<<16)
	}
	cases := []struct {
		name, substr string
		msg          []byte
	}{
		{"no descriptor", "join_offset is 0", put(good, xpu.OffSessJoinOffset, 0)},
		{"fused preagg", "preagg_offset is 64 in a GpuJoin session", put(good, xpu.OffSessPreAggOffset, 64)},
		{"desc past end", "join descriptor", put(good, xpu.OffSessJoinOffset, uint32(len(good)-8))},
		{"flags", "flags 0x1", desc(xpu.OffJDescFlags, 1)},
		{"payload columns", "ncols is 5 in a GpuJoin session", desc(xpu.OffJDescNCols, 5)},
		{"cols offset", "cols_offset is 64 in a GpuJoin session", desc(xpu.OffJDescColsOffset, 64)},
		{"residual quals over the header", "join qual array offset 64 overlaps", desc(xpu.OffJDescQualsOffset, 64)},
		{"no depths", "0 depths", desc(xpu.OffJDescNDepths, 0)},
		{"five depths", "5 depths", desc(xpu.OffJDescNDepths, 5)},
		{"fewer keys than depths", "1 keys for 2 depths", desc(xpu.OffJDescNKeys, 1)},
		{"keys past end", "join key array", desc(xpu.OffJDescKeysOffset, uint32(len(good)-8))},
		{"bad join type", "unknown join type 5", depth(0, xpu.OffJDepthJoinType, 5)},
		{"depth reserved", "reserved field is 3", depth(0, xpu.OffJDepthJoinType, 1|3<<16)},
		{"row size 8", "row_size 8", depth(0, xpu.OffJDepthRowSize, 8)},
		{"row size 4112", "row_size 4112", depth(0, xpu.OffJDepthRowSize, 4112)},
		{"no keys", "0 keys, want 1..8", depth(1, xpu.OffJDepthNKeys, 0)},
		{"gap in keys", "keys start at 1, must start at 0", depth(0, xpu.OffJDepthKeyFirst, 1)},
		{"node is root", "must be a node before the root", key(0, xpu.OffJKeyNode, 3)},
		{"negative node", "must be a node before the root", key(0, xpu.OffJKeyNode, 0xffffffff)},
		{"outer type lies", "outer_xtype INT8 but node 0 returns INT4", types(0, xpu.TypeInt8, xpu.TypeInt8)},
		{"float with int", "cannot be joined", types(0, xpu.TypeInt4, xpu.TypeFloat8)},
		{"bpchar with text", "cannot be joined", types(1, xpu.TypeText, xpu.TypeBpchar)},
		{"int width", "width 32 is not a valid INT8", key(0, xpu.OffJKeyWidth, 32)},
		{"text width", "width 280 is not a valid VARCHAR", key(1, xpu.OffJKeyWidth, 280)},
		{"slot past row", "runs past the 16-byte inner row", key(0, xpu.OffJKeyOffset, 16)},
		{"slot misaligned", "not a multiple of 16", key(1, xpu.OffJKeyOffset, 8)},
	}
	for _, c := range cases {
		_, _, err := kinds.All().ParseSession(c.msg)
		if err == nil || !errors.Is(err, protocol.ErrProtocol) || !strings.Contains(err.Error(), c.substr) {
			t.Errorf("%s: err = %v, want a protocol error containing %q", c.name, err, c.substr)
		}
	}
}

func TestParseJoinRejectsKeysPastTheLastDepth(t *testing.T) {
	b := xputest.JoinProgram(7, 0, xpu.JoinInner, true)
	b.JoinKey(0, xpu.TypeInt4, 0, 16)
	b.Join.Depths[1].NKeys = 1 // the descriptor has a third key nobody owns
	if _, _, err := kinds.All().ParseSession(b.Message(1)); err == nil || !strings.Contains(err.Error(), "do not end inside") {
		t.Fatalf("err = %v, want the last depth's keys to end the descriptor's", err)
	}
}

func TestParseJoinRejectsOverlappingSlots(t *testing.T) {
	b := xputest.JoinProgram(7, 0, xpu.JoinInner, false)
	b.Join.Depths[0].RowSize = 32
	b.JoinKey(0, xpu.TypeInt4, 0, 16) // same slot as key 0
	if _, _, err := kinds.All().ParseSession(b.Message(1)); err == nil || !strings.Contains(err.Error(), "overlaps") {
		t.Fatalf("err = %v, want overlapping slots refused", err)
	}
}

func TestJoinInnerLayoutAndNBuckets(t *testing.T) {
	l := xpu.NewJoinInnerLayout(2, 3, 48, 4)
	if l.RowsOffset != 256 || l.BucketsOffset != 512 || l.NextOffset != 768 || l.HashesOffset != 1024 || l.Size != 1036 {
		t.Fatalf("layout %+v", l)
	}
	for _, c := range [][2]uint32{{0, 1}, {1, 1}, {2, 2}, {3, 4}, {1000, 1024}, {1 << 31, 1 << 31}} {
		if got := xpu.JoinNBuckets(c[0]); got != c[1] {
			t.Errorf("JoinNBuckets(%d) = %d, want %d", c[0], got, c[1])
		}
	}
}

// The descriptor's inner key reaches the Join; 0 is no key.
func TestParseJoinInnerKey(t *testing.T) {
	msg, l := xputest.JoinProgram(7, 0, xpu.JoinInner, true).MessageLayout(1)
	for _, key := range []uint64{0, 0x1234_5678_9abc_def0} {
		m := xputest.PutU32(msg, l.JoinOffset+xpu.OffJDescInnerKey, uint32(key))
		m = xputest.PutU32(m, l.JoinOffset+xpu.OffJDescInnerKey+4, uint32(key>>32))
		p, _, err := kinds.All().ParseSession(m)
		if err != nil {
			t.Fatalf("ParseSession: %v", err)
		}
		j, err := xpu.ParseJoin(m, p)
		if err != nil {
			t.Fatal(err)
		}
		if j.InnerKey != key {
			t.Fatalf("inner key %#x parsed as %#x", key, j.InnerKey)
		}
	}
}
