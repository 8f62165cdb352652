package main

import (
	"cmp"
	"database/sql/driver"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
)

// Kind is the comparison class of a result value.
type Kind int

// Value kinds. Floats compare within a relative tolerance, everything else
// exactly (numerics by their decimal text).
const (
	KindNull Kind = iota
	KindInt
	KindFloat
	KindText
)

// Value is one normalized result value.
type Value struct {
	Kind Kind
	I    int64
	F    float64
	S    string
}

// Row is one normalized result row.
type Row []Value

// FloatTolerance is the relative tolerance for float values.
const FloatTolerance = 1e-9

func (v Value) String() string {
	switch v.Kind {
	case KindNull:
		return "NULL"
	case KindInt:
		return strconv.FormatInt(v.I, 10)
	case KindFloat:
		return strconv.FormatFloat(v.F, 'g', -1, 64)
	default:
		return strconv.Quote(v.S)
	}
}

// Normalize maps a value decoded by pgx to a Value.
func Normalize(v any) Value {
	switch x := v.(type) {
	case nil:
		return Value{Kind: KindNull}
	case int64:
		return Value{Kind: KindInt, I: x}
	case int32:
		return Value{Kind: KindInt, I: int64(x)}
	case int16:
		return Value{Kind: KindInt, I: int64(x)}
	case int:
		return Value{Kind: KindInt, I: int64(x)}
	case bool:
		if x {
			return Value{Kind: KindInt, I: 1}
		}
		return Value{Kind: KindInt}
	case float64:
		return Value{Kind: KindFloat, F: x}
	case float32:
		return Value{Kind: KindFloat, F: float64(x)}
	case string:
		return Value{Kind: KindText, S: x}
	case []byte:
		return Value{Kind: KindText, S: string(x)}
	case time.Time:
		return Value{Kind: KindText, S: x.Format(time.RFC3339Nano)}
	case driver.Valuer: // pgtype.Numeric and friends: exact text form
		dv, err := x.Value()
		if err != nil {
			return Value{Kind: KindText, S: fmt.Sprintf("%v", x)}
		}
		if dv == nil {
			return Value{Kind: KindNull}
		}
		return Normalize(dv)
	default:
		return Value{Kind: KindText, S: fmt.Sprintf("%v", x)}
	}
}

// compareValues orders values for sorting: by kind, then by value; NaN after
// every other float.
func compareValues(a, b Value) int {
	if a.Kind != b.Kind {
		return cmp.Compare(a.Kind, b.Kind)
	}
	switch a.Kind {
	case KindInt:
		return cmp.Compare(a.I, b.I)
	case KindFloat:
		return cmp.Compare(a.F, b.F) // cmp.Compare puts NaN first; consistent either way
	case KindText:
		return cmp.Compare(a.S, b.S)
	}
	return 0
}

func compareRows(a, b Row) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i].Kind == KindInt && b[i].Kind == KindInt { // the common case, inlined
			if a[i].I != b[i].I {
				return cmp.Compare(a[i].I, b[i].I)
			}
			continue
		}
		if c := compareValues(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// SortedCopy returns the rows sorted, leaving the input alone. Rows that
// compare equal are identical, so an unstable sort is enough.
func SortedCopy(rows []Row) []Row {
	out := slices.Clone(rows)
	slices.SortFunc(out, compareRows)
	return out
}

// ValuesEqual says whether two values agree: NULL only with NULL, NaN with
// NaN, infinities with the same infinity, other floats within the relative
// tolerance tol, everything else exactly.
func ValuesEqual(a, b Value, tol float64) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case KindNull:
		return true
	case KindInt:
		return a.I == b.I
	case KindText:
		return a.S == b.S
	}
	x, y := a.F, b.F
	switch {
	case math.IsNaN(x) || math.IsNaN(y):
		return math.IsNaN(x) && math.IsNaN(y)
	case x == y:
		return true
	case math.IsInf(x, 0) || math.IsInf(y, 0):
		return false
	}
	return math.Abs(x-y) <= tol*math.Max(math.Abs(x), math.Abs(y))
}

// CompareResults checks that got agrees with want after sorting both; the
// error names the first difference.
func CompareResults(want, got []Row, tol float64) error {
	return compareSorted(SortedCopy(want), got, tol)
}

// compareSorted is CompareResults for a want that is already sorted.
func compareSorted(w, got []Row, tol float64) error {
	if len(w) != len(got) {
		return fmt.Errorf("%d rows, reference has %d", len(got), len(w))
	}
	g := SortedCopy(got)
	for i := range w {
		if len(w[i]) != len(g[i]) {
			return fmt.Errorf("row %d has %d columns, reference has %d", i, len(g[i]), len(w[i]))
		}
		for j := range w[i] {
			if !ValuesEqual(w[i][j], g[i][j], tol) {
				return fmt.Errorf("sorted row %d column %d: %s, reference %s", i+1, j+1, g[i][j], w[i][j])
			}
		}
	}
	return nil
}
