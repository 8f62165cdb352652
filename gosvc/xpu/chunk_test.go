package xpu_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

func TestParseChunkValid(t *testing.T) {
	pages := make([]byte, 3*xpu.BlockSize)
	pages[xpu.BlockSize] = 0xab
	msg := xputest.ChunkMessage(5, 77, pages)
	c, err := xpu.ParseChunk(msg)
	if err != nil {
		t.Fatalf("ParseChunk: %v", err)
	}
	if c.NBlocks != 3 || c.ChunkID != 77 || c.PagesOffset%16 != 0 || c.PagesLen() != len(pages) ||
		c.ItemsCapacity() != 3*xpu.MaxTuplesPerPage {
		t.Fatalf("chunk %+v", c)
	}
	if got := c.Pages(msg); len(got) != len(pages) || got[xpu.BlockSize] != 0xab {
		t.Fatalf("Pages returned %d bytes, second page starts %#x", len(got), got[xpu.BlockSize])
	}
}

func TestParseChunkRejects(t *testing.T) {
	one := xputest.ChunkMessage(1, 9, make([]byte, xpu.BlockSize))
	off := xputest.ChunkPagesOffset
	put := xputest.PutU32
	tooMany := xputest.ChunkMessage(1, 9, nil)
	cases := []struct {
		name, substr string
		msg          []byte
	}{
		{"no blocks", "0 blocks", tooMany},
		{"too many blocks", "8193 blocks", put(one, xpu.OffChunkNBlocks, uint32(xpu.MaxBlocksPerChunk+1))},
		{"blocks beyond message", "2 pages at offset", put(one, xpu.OffChunkNBlocks, 2)},
		{"huge block count", "blocks, want 1..", put(one, xpu.OffChunkNBlocks, 0xffffffff)},
		{"misaligned pages", "not a multiple of 16", put(one, xpu.OffChunkPagesOffset, uint32(off+8))},
		{"pages over header", "overlaps the chunk header", put(one, xpu.OffChunkPagesOffset, 0)},
		{"pages offset wraps", "end at byte", put(one, xpu.OffChunkPagesOffset, 0xfffffff0)},
		{"trailing bytes", "but the message has", protocol.EncodeRequest(protocol.TagTaskExec, 1, append(append([]byte(nil), one[protocol.HeaderSize:]...), 0))},
		{"short", "shorter than its fixed part", protocol.EncodeRequest(protocol.TagTaskExec, 1, []byte{1, 0, 0})},
		{"wrong tag", "where TaskExec was expected", protocol.EncodeRequest(protocol.TagOpenSession, 1, one[protocol.HeaderSize:])},
		{"bad header", "header needs", one[:4]},
	}
	for _, c := range cases {
		_, err := xpu.ParseChunk(c.msg)
		if !errors.Is(err, protocol.ErrProtocol) || !strings.Contains(err.Error(), c.substr) {
			t.Errorf("%s: err = %v, want a protocol error containing %q", c.name, err, c.substr)
		}
	}
}

// TestParseChunkRetiredBuffer: a buffer_id other than 0,
// XPU_BUFFER_SHARED and XPU_BUFFER_DIRECT named a shared chunk buffer (ATTACH_BUFFER), which is
// gone; every such chunk is a protocol error that says so, whatever else
// the message holds.
func TestParseChunkRetiredBuffer(t *testing.T) {
	inline := xputest.ChunkMessage(1, 9, make([]byte, xpu.BlockSize))
	if c, err := xpu.ParseChunk(inline); err != nil || !c.Inline() || c.Shared() {
		t.Fatalf("inline chunk %+v, %v", c, err)
	}
	bare := protocol.NewMessage(protocol.TagTaskExec, 4, xpu.ChunkEnd-protocol.HeaderSize)
	put := xputest.PutU32
	bare = put(bare, xpu.OffChunkNBlocks, 7)
	for _, id := range []uint32{1, 3, 16, 17, xpu.BufferDirect - 1} { // BufferDirect is BufferShared - 1
		for name, msg := range map[string][]byte{
			"inline pages":      put(inline, xpu.OffChunkBufferID, id),
			"no pages (memfd)":  put(put(bare, xpu.OffChunkBufferID, id), xpu.OffChunkPagesOffset, 8192*5),
			"no blocks":         put(put(inline, xpu.OffChunkBufferID, id), xpu.OffChunkNBlocks, 0),
			"misaligned offset": put(put(bare, xpu.OffChunkBufferID, id), xpu.OffChunkPagesOffset, 8),
		} {
			_, err := xpu.ParseChunk(msg)
			want := fmt.Sprintf("buffer_id %d is not supported: shared chunk buffers (ATTACH_BUFFER) were removed", id)
			if !errors.Is(err, protocol.ErrProtocol) || !strings.Contains(err.Error(), want) {
				t.Errorf("buffer_id %d, %s: err = %v, want a protocol error containing %q", id, name, err, want)
			}
		}
	}
}

func TestChunkResultRoundTrip(t *testing.T) {
	items := []uint32{xputest.Item(0, 2, false), xputest.Item(1, 291, true), 7}
	r := xpu.ChunkResult{ChunkID: 42, NItems: 999, NTuples: 500, NRecheck: 1, GpuTimeNs: 1 << 40}
	msg := xpu.EncodeChunkResult(17, r, items)
	h, err := protocol.DecodeHeader(msg)
	if err != nil || h.Tag != protocol.TagSuccess || h.RequestID != 17 || int(h.Length) != xpu.ResultEnd+12 {
		t.Fatalf("header %+v, %v", h, err)
	}
	got, gotItems, err := xpu.DecodeChunkResult(msg)
	if err != nil {
		t.Fatal(err)
	}
	r.NItems = 3 // taken from the items
	if got != r || len(gotItems) != 3 || gotItems[1] != 1<<10|291|xpu.ItemRecheck || gotItems[2] != 7 {
		t.Fatalf("got %+v %v, want %+v %v", got, gotItems, r, items)
	}
	if _, _, err := xpu.DecodeChunkResult(msg[:len(msg)-4]); !errors.Is(err, protocol.ErrProtocol) {
		t.Fatalf("truncated result: %v", err)
	}
	bad := xputest.PutU32(msg, xpu.ResultEnd-xpu.ChunkResultSize+4, 4) // nitems 4, 3 present
	if _, _, err := xpu.DecodeChunkResult(bad); !errors.Is(err, protocol.ErrProtocol) {
		t.Fatalf("nitems beyond the message: %v", err)
	}
	if _, _, err := xpu.DecodeChunkResult(protocol.EncodeError(1, protocol.ErrorReply{})); !errors.Is(err, protocol.ErrProtocol) {
		t.Fatalf("error reply decoded as a result: %v", err)
	}
}

func TestStatusError(t *testing.T) {
	if xpu.StatusError(xpu.StatusOK) != nil {
		t.Fatal("OK is an error")
	}
	if err := xpu.StatusError(xpu.StatusBadPage); !errors.Is(err, xpu.ErrBadPage) || !errors.Is(err, protocol.ErrProtocol) {
		t.Fatalf("BAD_PAGE: %v", err)
	}
	if err := xpu.StatusError(xpu.StatusBadProg); !errors.Is(err, xpu.ErrBadProgram) || errors.Is(err, protocol.ErrProtocol) {
		t.Fatalf("BAD_PROGRAM: %v", err)
	}
	if err := xpu.StatusError(99); err == nil || !strings.Contains(err.Error(), "99") {
		t.Fatalf("unknown status: %v", err)
	}
}

func TestLayoutFromHeader(t *testing.T) {
	// Sizes are the C compiler's; pin them to the documented layout.
	cases := []struct {
		name      string
		got, want int
	}{
		{"SessionSize", xpu.SessionSize, 64},
		{"PreAggDescSize", xpu.PreAggDescSize, 24},
		{"GroupKeySize", xpu.GroupKeySize, 16},
		{"AggDescSize", xpu.AggDescSize, 20},
		{"PreAggTableSize", xpu.PreAggTableSize, 32},
		{"PreAggGroupsSize", xpu.PreAggGroupsSize, 24},
		{"OffSessPreAggOffset", xpu.OffSessPreAggOffset, 16 + 56},
		{"OffTableEntriesOffset", xpu.OffTableEntriesOffset, 24},
		{"NodeSize", xpu.NodeSize, 16},
		{"AttrSize", xpu.AttrSize, 8},
		{"NumericConstSize", xpu.NumericConstSize, 24},
		{"TextConstSize", xpu.TextConstSize, 8},
		{"ChunkSize", xpu.ChunkSize, 16},
		{"ChunkResultSize", xpu.ChunkResultSize, 24},
		{"OffSessPlanID", xpu.OffSessPlanID, 16 + 8},
		{"OffNodeAux", xpu.OffNodeAux, 12},
		{"MaxTuplesPerPage", xpu.MaxTuplesPerPage, 291},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	if xpu.KernelGpuScan != "kern_gpuscan_block" || xpu.GpuScanThreads != 256 || xpu.NumCounters != 4 {
		t.Errorf("kernel contract: %q %d %d", xpu.KernelGpuScan, xpu.GpuScanThreads, xpu.NumCounters)
	}
}
