package main

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// A result in text form: NULL is nullText. float marks float4/float8
// columns, compared within a relative tolerance; everything else (integers,
// numerics, dates, text) must be equal byte for byte.
type result struct {
	cols  []string
	float []bool
	rows  [][]string
}

const nullText = "\x00NULL"

const (
	oidFloat4 = 700
	oidFloat8 = 701
)

// readResult reads every row of rs (text format: the simple protocol) and
// sorts them, so that comparison does not depend on row order.
func readResult(rs pgx.Rows) (*result, error) {
	defer rs.Close()
	r := &result{}
	for _, fd := range rs.FieldDescriptions() {
		r.cols = append(r.cols, fd.Name)
		r.float = append(r.float, fd.DataTypeOID == oidFloat4 || fd.DataTypeOID == oidFloat8)
	}
	for rs.Next() {
		raw := rs.RawValues()
		row := make([]string, len(raw))
		for i, v := range raw {
			if v == nil {
				row[i] = nullText
			} else {
				row[i] = string(v)
			}
		}
		r.rows = append(r.rows, row)
	}
	if err := rs.Err(); err != nil {
		return nil, err
	}
	r.sort()
	return r, nil
}

// sort orders rows by their exact columns, then by their float columns'
// values (a float that differs in its last bits cannot reorder two rows
// whose exact columns differ).
func (r *result) sort() {
	sort.Slice(r.rows, func(i, j int) bool {
		a, b := r.rows[i], r.rows[j]
		for c := range a {
			if !r.float[c] && a[c] != b[c] {
				return a[c] < b[c]
			}
		}
		for c := range a {
			if r.float[c] && a[c] != b[c] {
				fa, fb := floatOf(a[c]), floatOf(b[c])
				if fa != fb {
					return fa < fb
				}
				return a[c] < b[c]
			}
		}
		return false
	})
}

func floatOf(s string) float64 {
	if s == nullText {
		return math.Inf(-1)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return f
}

// floatTolerance is the relative difference allowed between two floats.
const floatTolerance = 1e-9

func floatsMatch(a, b string) bool {
	if a == b {
		return true
	}
	if a == nullText || b == nullText {
		return false
	}
	fa, ea := strconv.ParseFloat(a, 64)
	fb, eb := strconv.ParseFloat(b, 64)
	if ea != nil || eb != nil || math.IsNaN(fa) || math.IsNaN(fb) || math.IsInf(fa, 0) || math.IsInf(fb, 0) {
		return false
	}
	return math.Abs(fa-fb) <= floatTolerance*math.Max(math.Abs(fa), math.Abs(fb))
}

// diff describes the first difference of got from want, or "" if none.
func diff(want, got *result) string {
	if len(want.cols) != len(got.cols) {
		return fmt.Sprintf("%d columns, want %d", len(got.cols), len(want.cols))
	}
	if len(want.rows) != len(got.rows) {
		return fmt.Sprintf("%d rows, want %d%s", len(got.rows), len(want.rows), firstMissing(want, got))
	}
	for i := range want.rows {
		w, g := want.rows[i], got.rows[i]
		for c := range w {
			ok := w[c] == g[c]
			if !ok && want.float[c] {
				ok = floatsMatch(w[c], g[c])
			}
			if !ok {
				return fmt.Sprintf("row %d column %d (%s): got %s, want %s (row starts %s)",
					i, c+1, want.cols[c], show(g[c]), show(w[c]), showRow(w[:min(len(w), 3)]))
			}
		}
	}
	return ""
}

// firstMissing names a row of want absent from got, or of got absent from
// want, comparing exact columns only.
func firstMissing(want, got *result) string {
	key := func(r *result, row []string) string {
		var b strings.Builder
		for c, v := range row {
			if !r.float[c] {
				b.WriteString(v)
				b.WriteByte(0x1f)
			}
		}
		return b.String()
	}
	count := map[string]int{}
	for _, row := range got.rows {
		count[key(got, row)]++
	}
	for _, row := range want.rows {
		k := key(want, row)
		if count[k] == 0 {
			return "; missing e.g. " + showRow(row)
		}
		count[k]--
	}
	for _, row := range got.rows {
		if count[key(got, row)] > 0 {
			return "; extra e.g. " + showRow(row)
		}
	}
	return ""
}

func show(v string) string {
	if v == nullText {
		return "NULL"
	}
	if len(v) > 40 {
		return strconv.Quote(v[:40] + "...")
	}
	return v
}

func showRow(row []string) string {
	parts := make([]string, len(row))
	for i, v := range row {
		parts[i] = show(v)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
