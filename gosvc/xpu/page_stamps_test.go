package xpu_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

var stampFile = xpu.DirectFile{Spc: xpu.DefaultTablespace, DB: 5, RelNode: 16384}

func parseStamps(t *testing.T, refs []xputest.PageRef) (*xpu.PageStamps, error) {
	t.Helper()
	msg := xputest.SharedChunkMessage(1, 7, refs)
	c, err := xpu.ParseChunk(msg)
	if err != nil {
		t.Fatalf("ParseChunk: %v", err)
	}
	if err := xpu.CheckPageRefs(c, msg, 16); err != nil {
		return nil, err
	}
	return xpu.ParsePageStamps(c, msg)
}

func TestParsePageStamps(t *testing.T) {
	ps, err := parseStamps(t, []xputest.PageRef{
		xputest.AllVisibleRef(0, 10),
		xputest.StampedRef(3, 20, stampFile, 41, 0x1_0000_0002),
		xputest.VisibleRef(1, 5, 2),
		xputest.StampedRef(9, 1, stampFile, 7, 3),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := &xpu.PageStamps{Spc: stampFile.Spc, DB: 5, RelNode: 16384,
		Blknos: []uint32{0, 41, 0, 7}, Stamps: []uint64{0, 0x1_0000_0002, 0, 3}, Indexes: []int{1, 3}}
	if !reflect.DeepEqual(ps, want) {
		t.Errorf("got %+v, want %+v", ps, want)
	}
	if ps, err := parseStamps(t, []xputest.PageRef{xputest.AllVisibleRef(0, 10)}); ps != nil || err != nil {
		t.Errorf("no stamped ref: got %+v, %v; want nil, nil", ps, err)
	}
}

func TestParsePageStampsRefuses(t *testing.T) {
	notAllVisible := xputest.StampedRef(0, 3, stampFile, 1, 9)
	notAllVisible.Flags &^= xpu.PageAllVisible
	other := stampFile
	other.RelNode++
	global := stampFile
	global.Spc = xpu.GlobalTablespace
	noDB := stampFile
	noDB.DB = 0
	cases := []struct {
		name, substr string
		refs         []xputest.PageRef
	}{
		{"stamped, not all-visible", "stamped but not all-visible", []xputest.PageRef{notAllVisible}},
		{"stamp 0", "stamped with 0", []xputest.PageRef{xputest.StampedRef(0, 3, stampFile, 1, 0)}},
		{"OID 0", "names OID 0", []xputest.PageRef{xputest.StampedRef(0, 3, noDB, 1, 9)}},
		{"shared catalog", "shared catalog", []xputest.PageRef{xputest.StampedRef(0, 3, global, 1, 9)}},
		{"two files", "an earlier one", []xputest.PageRef{xputest.StampedRef(0, 3, stampFile, 1, 9), xputest.StampedRef(1, 3, other, 2, 9)}},
	}
	for _, c := range cases {
		_, err := parseStamps(t, c.refs)
		if !errors.Is(err, protocol.ErrProtocol) || !strings.Contains(err.Error(), c.substr) {
			t.Errorf("%s: err = %v, want a protocol error containing %q", c.name, err, c.substr)
		}
	}
}
