package main

import (
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

func iv(i int64) Value   { return Value{Kind: KindInt, I: i} }
func fv(f float64) Value { return Value{Kind: KindFloat, F: f} }
func sv(s string) Value  { return Value{Kind: KindText, S: s} }

var null = Value{Kind: KindNull}

func TestNormalize(t *testing.T) {
	num := pgtype.Numeric{Int: big.NewInt(12345), Exp: -2, Valid: true}
	cases := []struct {
		in   any
		want Value
	}{
		{nil, null},
		{int64(7), iv(7)},
		{int32(-3), iv(-3)},
		{int16(8), iv(8)},
		{true, iv(1)},
		{1.5, fv(1.5)},
		{float32(0.25), fv(0.25)},
		{"abc", sv("abc")},
		{num, sv("123.45")},
		{pgtype.Numeric{}, null},
		{time.Date(2005, 1, 2, 0, 0, 0, 0, time.UTC), sv("2005-01-02T00:00:00Z")},
	}
	for _, c := range cases {
		if got := Normalize(c.in); got != c.want {
			t.Errorf("Normalize(%#v) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestValuesEqual(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		a, b Value
		want bool
	}{
		{null, null, true},
		{null, iv(0), false},
		{iv(0), null, false},
		{null, fv(nan), false},
		{iv(1), iv(1), true},
		{iv(1), iv(2), false},
		{iv(1), fv(1), false},
		{sv("a"), sv("a"), true},
		{sv("a"), sv("a "), false},
		{fv(1e12), fv(1e12 * (1 + 5e-10)), true},
		{fv(1e12), fv(1e12 * (1 + 2e-9)), false},
		{fv(-3), fv(-3 * (1 + 1e-10)), true},
		{fv(0), fv(0), true},
		{fv(0), fv(1e-300), false},
		{fv(nan), fv(nan), true},
		{fv(nan), fv(1), false},
		{fv(1), fv(nan), false},
		{fv(inf), fv(inf), true},
		{fv(inf), fv(-inf), false},
		{fv(inf), fv(math.MaxFloat64), false},
	}
	for _, c := range cases {
		if got := ValuesEqual(c.a, c.b, FloatTolerance); got != c.want {
			t.Errorf("ValuesEqual(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestCompareResultsSortsAndTolerates(t *testing.T) {
	want := []Row{{iv(2), fv(10.5), null}, {iv(1), fv(math.NaN()), sv("x")}, {iv(3), fv(7), sv("y")}}
	got := []Row{{iv(3), fv(7 * (1 + 1e-12)), sv("y")}, {iv(1), fv(math.NaN()), sv("x")}, {iv(2), fv(10.5), null}}
	if err := CompareResults(want, got, FloatTolerance); err != nil {
		t.Fatalf("reordered equal results: %v", err)
	}
	if want[0][0].I != 2 || got[0][0].I != 3 {
		t.Fatalf("CompareResults sorted its inputs in place")
	}
}

func TestCompareResultsFindsDifferences(t *testing.T) {
	base := []Row{{iv(1), fv(1.25)}, {iv(2), fv(2.5)}}
	cases := map[string][]Row{
		"row count":  {{iv(1), fv(1.25)}},
		"int":        {{iv(1), fv(1.25)}, {iv(3), fv(2.5)}},
		"float":      {{iv(1), fv(1.25)}, {iv(2), fv(2.5001)}},
		"null":       {{iv(1), fv(1.25)}, {iv(2), null}},
		"nan":        {{iv(1), fv(1.25)}, {iv(2), fv(math.NaN())}},
		"columns":    {{iv(1), fv(1.25)}, {iv(2)}},
		"duplicates": {{iv(1), fv(1.25)}, {iv(1), fv(1.25)}},
	}
	for name, got := range cases {
		if err := CompareResults(base, got, FloatTolerance); err == nil {
			t.Errorf("%s: difference not found", name)
		}
	}
	err := CompareResults(base, cases["int"], FloatTolerance)
	if err == nil || !strings.Contains(err.Error(), "reference") {
		t.Errorf("error does not name the reference: %v", err)
	}
}
