package xpu_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

func TestPreAggGroupsRoundTrip(t *testing.T) {
	entries := make([]byte, 5*32)
	for i := range entries {
		entries[i] = byte(i)
	}
	g := xpu.PreAggGroups{EntrySize: 32, NGroupsTotal: 5, NGrowths: 2, TableBytes: 1 << 20}
	msgs, err := xpu.SplitPreAggGroupsMax(9, g, entries, 64+16) // two entries per message
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 3 {
		t.Fatalf("%d messages, want 3 (2+2+1 entries)", len(msgs))
	}
	var got []byte
	for i, m := range msgs {
		h, err := protocol.DecodeHeader(m)
		if err != nil || h.Tag != protocol.TagSuccessHalfway || h.RequestID != 9 {
			t.Fatalf("message %d: header %+v, %v", i, h, err)
		}
		hg, e, err := xpu.DecodePreAggGroups(m)
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		want := uint32(2)
		if i == 2 {
			want = 1
		}
		if hg.NEntries != want || hg.EntrySize != 32 || hg.NGroupsTotal != 5 || hg.NGrowths != 2 || hg.TableBytes != 1<<20 {
			t.Fatalf("message %d: %+v", i, hg)
		}
		got = append(got, e...)
	}
	if !bytes.Equal(got, entries) {
		t.Fatal("entries changed on the way")
	}
	empty, err := xpu.SplitPreAggGroupsMax(3, g, nil, xpu.PreAggGroupsBytes)
	if err != nil || len(empty) != 1 {
		t.Fatalf("no entries: %d messages, %v; want one carrying the statistics", len(empty), err)
	}
	if hg, e, err := xpu.DecodePreAggGroups(empty[0]); err != nil || hg.NEntries != 0 || len(e) != 0 || hg.NGrowths != 2 {
		t.Fatalf("empty groups message %+v %d bytes, %v", hg, len(e), err)
	}
	if _, err := xpu.EncodePreAggGroups(1, g, entries[:33]); err == nil {
		t.Fatal("a partial entry was encoded")
	}
	bad := append([]byte(nil), msgs[0]...)
	bad[xpu.PreAggGroupsEnd-24] = 3 // nentries 3 for 2 entries' bytes
	if _, _, err := xpu.DecodePreAggGroups(bad); !errors.Is(err, protocol.ErrProtocol) {
		t.Fatalf("inconsistent nentries decoded: %v", err)
	}
}

func TestPreAggTableLayout(t *testing.T) {
	tab, err := xpu.NewPreAggTable(1024, 48)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Capacity != 512 || tab.SlotsOffset != 256 || tab.EntriesOffset != 256+4096 || tab.Bytes() != 256+4096+512*48 {
		t.Fatalf("layout %+v bytes %d", tab, tab.Bytes())
	}
	tab.NEntries = 600
	back, err := xpu.DecodePreAggTable(tab.Header())
	if err != nil || back != tab || back.Used() != 512 {
		t.Fatalf("header round trip %+v used %d, %v", back, back.Used(), err)
	}
	h := tab.Header()
	h[xpu.OffTableCapacity] = 7
	if _, err := xpu.DecodePreAggTable(h); err == nil {
		t.Fatal("a header with a changed capacity was accepted")
	}
	for _, bad := range [][2]uint32{{1000, 48}, {1, 48}, {1024, 40}, {1024, 0}} {
		if _, err := xpu.NewPreAggTable(bad[0], bad[1]); err == nil {
			t.Errorf("NewPreAggTable(%d, %d) accepted", bad[0], bad[1])
		}
	}
	for _, c := range []struct{ nslots, nentries, want uint32 }{
		{1024, 512, 2048}, {1024, 3000, 8192}, {1024, 0, 2048}, {1 << 16, 1 << 16, 1 << 17},
	} {
		if got, err := xpu.PreAggSlotsFor(c.nslots, c.nentries); err != nil || got != c.want {
			t.Errorf("PreAggSlotsFor(%d, %d) = %d, %v; want %d", c.nslots, c.nentries, got, err, c.want)
		}
	}
	if _, err := xpu.PreAggSlotsFor(1<<31, 1); err == nil {
		t.Error("growth beyond 2^31 slots accepted")
	}
}
