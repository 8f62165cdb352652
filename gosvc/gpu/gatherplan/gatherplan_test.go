package gatherplan

import (
	"encoding/binary"
	"reflect"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// refsBytes is refs as a chunk's message carries them.
func refsBytes(t *testing.T, refs []xputest.PageRef) []byte {
	t.Helper()
	msg := xputest.SharedChunkMessage(1, 1, refs)
	c, err := xpu.ParseChunk(msg)
	if err != nil {
		t.Fatal(err)
	}
	return c.Refs(msg)
}

func TestMake(t *testing.T) {
	const nbuffers = 100
	all := func(buffers ...uint32) []xputest.PageRef {
		refs := make([]xputest.PageRef, len(buffers))
		for i, b := range buffers {
			refs[i] = xputest.AllVisibleRef(b, 10)
		}
		return refs
	}
	seq := func(from, n uint32) []uint32 {
		s := make([]uint32, n)
		for i := range s {
			s[i] = from + uint32(i)
		}
		return s
	}
	badFlags := xputest.AllVisibleRef(13, 10)
	badFlags.Flags = 0x8000
	tooManyLines := xputest.AllVisibleRef(14, xpu.MaxTuplesPerPage+1)
	cases := []struct {
		name     string
		refs     []xputest.PageRef
		minPages int
		want     Plan
	}{
		{"dma off", all(seq(0, 20)...), 0, Plan{KernelPages: 20}},
		{"one long run", all(seq(40, 20)...), 8, Plan{Runs: []Run{{0, 20, 40}}, DMAPages: 20}},
		{"threshold 1 copies singles", all(7, 3, 9), 1,
			Plan{Runs: []Run{{0, 1, 7}, {1, 1, 3}, {2, 1, 9}}, DMAPages: 3}},
		{"short runs stay with the kernel", all(append(append(seq(0, 3), seq(50, 8)...), seq(10, 7)...)...), 8,
			Plan{Runs: []Run{{3, 8, 50}}, DMAPages: 8, KernelPages: 10}},
		{"descending buffers are no run", all(9, 8, 7, 6), 2, Plan{KernelPages: 4}},
		{"a repeated buffer breaks a run", all(5, 6, 6, 7), 2,
			Plan{Runs: []Run{{0, 2, 5}, {2, 2, 6}}, DMAPages: 4}},
		{"invalid refs split runs and are never copied",
			append(append(all(seq(20, 4)...), xputest.AllVisibleRef(nbuffers, 1), badFlags, tooManyLines), all(seq(24, 3)...)...), 2,
			Plan{Runs: []Run{{0, 4, 20}, {7, 3, 24}}, DMAPages: 7}},
		{"a run up to the last buffer", all(seq(nbuffers-5, 5)...), 5,
			Plan{Runs: []Run{{0, 5, nbuffers - 5}}, DMAPages: 5}},
		{"not-all-visible pages run too", []xputest.PageRef{xputest.VisibleRef(1, 5, 2), xputest.VisibleRef(2, 5), xputest.AllVisibleRef(3, 5)}, 3,
			Plan{Runs: []Run{{0, 3, 1}}, DMAPages: 3}},
	}
	for _, tc := range cases {
		got := Make(refsBytes(t, tc.refs), len(tc.refs), nbuffers, tc.minPages)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: plan %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestMarkInPlace(t *testing.T) {
	b := make([]byte, InPlaceLen(70))
	if len(b) != 12 {
		t.Fatalf("InPlaceLen(70) = %d, want 12", len(b))
	}
	for i := range b {
		b[i] = 0xff // a reused staging buffer
	}
	MarkInPlace(b, []Run{{First: 0, N: 2}, {First: 30, N: 4}, {First: 69, N: 1}})
	want := []uint32{1<<0 | 1<<1 | 1<<30 | 1<<31, 1<<0 | 1<<1, 1 << 5}
	for w, v := range want {
		if got := binary.LittleEndian.Uint32(b[4*w:]); got != v {
			t.Errorf("word %d = %#x, want %#x", w, got, v)
		}
	}
}

func TestMinPagesFromEnv(t *testing.T) {
	for _, tc := range []struct {
		value   string
		want    int
		problem bool
	}{
		{"", DefaultMinPages, false},
		{"0", 0, false},
		{"32", 32, false},
		{"-1", DefaultMinPages, true},
		{"eight", DefaultMinPages, true},
	} {
		t.Setenv(MinPagesEnv, tc.value)
		got, problem := MinPagesFromEnv()
		if got != tc.want || (problem != "") != tc.problem {
			t.Errorf("%s=%q: %d, problem %q; want %d, a problem %v", MinPagesEnv, tc.value, got, problem, tc.want, tc.problem)
		}
	}
}
