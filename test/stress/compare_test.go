package main

import (
	"strings"
	"testing"
)

func res(float []bool, rows ...[]string) *result {
	r := &result{float: float}
	for i := range float {
		r.cols = append(r.cols, string(rune('a'+i)))
	}
	for _, row := range rows {
		r.rows = append(r.rows, append([]string(nil), row...))
	}
	r.sort()
	return r
}

func TestDiff(t *testing.T) {
	ff := []bool{false, true}
	base := res(ff, []string{"1", "1.5"}, []string{"2", nullText}, []string{"3", "1e+300"})
	for _, tc := range []struct {
		name string
		got  *result
		want string // "" or a part of the difference
	}{
		{"same rows in another order", res(ff, []string{"3", "1e+300"}, []string{"1", "1.5"}, []string{"2", nullText}), ""},
		{"float within 1e-9", res(ff, []string{"1", "1.5000000000001"}, []string{"2", nullText}, []string{"3", "1.0000000001e+300"}), ""},
		{"float beyond 1e-9", res(ff, []string{"1", "1.500000002"}, []string{"2", nullText}, []string{"3", "1e+300"}), "got 1.500000002, want 1.5"},
		{"NULL against a value", res(ff, []string{"1", "1.5"}, []string{"2", "0"}, []string{"3", "1e+300"}), "got 0, want NULL"},
		{"a missing row", res(ff, []string{"1", "1.5"}, []string{"3", "1e+300"}), "2 rows, want 3; missing e.g. (2, NULL)"},
		{"an extra row", res(ff, []string{"1", "1.5"}, []string{"1", "1.5"}, []string{"2", nullText}, []string{"3", "1e+300"}), "4 rows, want 3; extra e.g. (1, 1.5)"},
	} {
		d := diff(base, tc.got)
		if (tc.want == "") != (d == "") || !strings.Contains(d, tc.want) {
			t.Errorf("%s: diff %q, want %q", tc.name, d, tc.want)
		}
	}
	// numerics are compared as PostgreSQL prints them: the scale counts
	n := res([]bool{false}, []string{"0.00"})
	if d := diff(n, res([]bool{false}, []string{"0"})); d == "" {
		t.Error("numeric 0 and 0.00 compared equal")
	}
	if d := diff(n, res([]bool{false, false}, []string{"0.00", "1"})); !strings.Contains(d, "columns") {
		t.Errorf("column count: %q", d)
	}
}

func TestElideDigits(t *testing.T) {
	if got := elideDigits(`service (pid 1234) failed after 12 ms`); got != `service (pid N) failed after N ms` {
		t.Error(got)
	}
}
