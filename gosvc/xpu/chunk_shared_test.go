package xpu_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

func TestParseChunkShared(t *testing.T) {
	refs := []xputest.PageRef{xputest.AllVisibleRef(7, 3), xputest.VisibleRef(0, 40, 1, 33, 40)}
	msg := xputest.SharedChunkMessage(2, 31, refs)
	c, err := xpu.ParseChunk(msg)
	if err != nil {
		t.Fatalf("ParseChunk: %v", err)
	}
	if !c.Shared() || c.Inline() || c.NBlocks != 2 || c.ChunkID != 31 || c.RefsLen() != 2*xpu.PageRefSize {
		t.Fatalf("chunk %+v", c)
	}
	if err := xpu.CheckPageRefs(c, msg, 8); err != nil {
		t.Fatalf("CheckPageRefs: %v", err)
	}
	r := c.Refs(msg)[xpu.PageRefSize:]
	if r[xpu.OffRefBuffer] != 0 || r[xpu.OffRefNLines] != 40 || r[xpu.OffRefVisible] != 1 ||
		r[xpu.OffRefVisible+4] != 0x81 { // offsets 33 and 40: bits 0 and 7 of word 1
		t.Fatalf("second ref bytes % x", r[:xpu.PageRefSize])
	}
}

func TestSharedChunkRejects(t *testing.T) {
	one := xputest.SharedChunkMessage(1, 9, []xputest.PageRef{xputest.AllVisibleRef(3, 10)})
	off := xputest.ChunkPagesOffset
	put := xputest.PutU32
	cases := []struct {
		name, substr string
		msg          []byte
	}{
		{"refs beyond message", "2 page refs at offset", put(one, xpu.OffChunkNBlocks, 2)},
		{"misaligned refs", "not a multiple of 16", put(one, xpu.OffChunkPagesOffset, uint32(off+8))},
		{"refs over header", "overlap the chunk header", put(one, xpu.OffChunkPagesOffset, 0)},
		{"refs offset wraps", "end at byte", put(one, xpu.OffChunkPagesOffset, 0xfffffff0)},
		{"trailing bytes", "but the message has", protocol.EncodeRequest(protocol.TagTaskExec, 1, append(append([]byte(nil), one[protocol.HeaderSize:]...), 0))},
		{"pages instead of refs", "but the message has", put(xputest.ChunkMessage(1, 9, make([]byte, xpu.BlockSize)), xpu.OffChunkBufferID, xpu.BufferShared)},
	}
	for _, c := range cases {
		_, err := xpu.ParseChunk(c.msg)
		if !errors.Is(err, protocol.ErrProtocol) || !strings.Contains(err.Error(), c.substr) {
			t.Errorf("%s: err = %v, want a protocol error containing %q", c.name, err, c.substr)
		}
	}
}

func TestCheckPageRefs(t *testing.T) {
	tooMany := xputest.AllVisibleRef(0, xpu.MaxTuplesPerPage+1)
	badFlag := xputest.AllVisibleRef(0, 1)
	badFlag.Flags |= 0x8000
	cases := []struct {
		name, substr string
		refs         []xputest.PageRef
	}{
		{"buffer at the limit", "names shared buffer 4, but there are 4", []xputest.PageRef{xputest.AllVisibleRef(0, 1), xputest.AllVisibleRef(4, 1)}},
		{"buffer huge", "names shared buffer 4294967295", []xputest.PageRef{xputest.AllVisibleRef(0xffffffff, 1)}},
		{"too many lines", "292 line pointers, at most 291", []xputest.PageRef{tooMany}},
		{"unknown flag", "flags 0x8001", []xputest.PageRef{badFlag}},
	}
	for _, c := range cases {
		msg := xputest.SharedChunkMessage(1, 2, c.refs)
		chunk, err := xpu.ParseChunk(msg)
		if err != nil {
			t.Fatalf("%s: ParseChunk: %v", c.name, err)
		}
		err = xpu.CheckPageRefs(chunk, msg, 4)
		if !errors.Is(err, protocol.ErrProtocol) || !strings.Contains(err.Error(), c.substr) {
			t.Errorf("%s: err = %v, want a protocol error containing %q", c.name, err, c.substr)
		}
	}
	// The limits themselves are accepted.
	edge := xputest.SharedChunkMessage(1, 2, []xputest.PageRef{xputest.VisibleRef(3, xpu.MaxTuplesPerPage, xpu.MaxTuplesPerPage), xputest.AllVisibleRef(0, 0)})
	chunk, _ := xpu.ParseChunk(edge)
	if err := xpu.CheckPageRefs(chunk, edge, 4); err != nil {
		t.Errorf("edge refs: %v", err)
	}
}
