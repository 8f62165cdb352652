// Package jpatest builds fused GpuJoin + GpuPreAgg inputs for the tests
// of the executors: a star join of an outer table (a, k0..k3) with 1 to 4
// inner depths of (key, payload) rows, its program, its heap pages and
// inner rows, and the groups and RECHECK rows that a nested loop followed
// by an independent aggregation over the same values gives.
package jpatest

import (
	"fmt"
	"math"
	"math/rand"

	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// RowSize is the bytes of an inner row: the int8 key slot at 0, the int8
// payload slot at 16.
const RowSize = 32

// QualValue is the constant of the residual quals: depth d's is
// p_d <> QualValue.
const QualValue = 3

// FilterMin is the FILTER of the COUNT aggregate: p_last > FilterMin.
const FilterMin = 5

// Overflow is a payload whose p_0 + p_0 overflows int8: its combinations
// cannot be evaluated on the device (RECHECK).
const Overflow = int64(math.MaxInt64 - 1)

// Outer is one outer row; K[d] nil is a NULL key.
type Outer struct {
	A    int32
	K    []*int32
	Item uint32 // set by Pages
}

// Inner is one inner row; nil is NULL.
type Inner struct {
	Key, Pay *int64
}

// Star is a fused star join: each depth's join type and whether it has a
// residual qual (INNER and LEFT depths only), the outer rows (a > QualMin
// is the outer qual) and the inner rows of every depth.
type Star struct {
	Types   []xpu.JoinType
	Quals   []bool
	QualMin int32
	Outer   []Outer
	Inners  [][]Inner
}

func i32(v int32) *int32 { return &v }
func i64(v int64) *int64 { return &v }

// Random is a star of the given depths over small key domains (so keys
// repeat on both sides and some match nothing), about one key and
// payload in 10 NULL, and with overflow, one payload of depth 0 in 40 is
// Overflow.
func Random(rng *rand.Rand, types []xpu.JoinType, quals []bool, nouter, ninner int, overflow bool) *Star {
	s := &Star{Types: types, Quals: quals, QualMin: -3}
	for i := 0; i < nouter; i++ {
		o := Outer{A: int32(rng.Intn(max(12, nouter/20)) - 4)}
		for range types {
			var k *int32
			if rng.Intn(10) != 0 {
				k = i32(int32(rng.Intn(16)))
			}
			o.K = append(o.K, k)
		}
		s.Outer = append(s.Outer, o)
	}
	for d := range types {
		var rows []Inner
		for i := 0; i < ninner; i++ {
			var r Inner
			if rng.Intn(10) != 0 {
				r.Key = i64(int64(rng.Intn(14)))
			}
			switch {
			case overflow && d == 0 && rng.Intn(40) == 0:
				r.Pay = i64(Overflow)
			case rng.Intn(10) != 0:
				r.Pay = i64(int64(rng.Intn(9)))
			}
			rows = append(rows, r)
		}
		s.Inners = append(s.Inners, rows)
	}
	return s
}

// hasCol: depth d has a payload column (an INNER or LEFT depth).
func (s *Star) hasCol(d int) bool { return s.Types[d] == xpu.JoinInner || s.Types[d] == xpu.JoinLeft }

// last is the deepest depth with a payload column, or -1.
func (s *Star) last() int {
	for d := len(s.Types) - 1; d >= 0; d-- {
		if s.hasCol(d) {
			return d
		}
	}
	return -1
}

// Program is the star's fused session: outer VARs, the outer qual at the
// root, then per depth its INNER_VAR p_d and residual qual, 2 * p_0 right
// after p_0 (so it is evaluated with depth 0's choice when any depth has
// a qual), and the FILTER.  GROUP BY a, p_last; COUNT(*), SUM(a),
// SUM(p_0 + p_0), COUNT(p_last) FILTER (p_last > FilterMin), MIN(p_0),
// MAX(p_last), the depth-0 aggregates only when depth 0 has a column.
func (s *Star) Program(planID uint64) *xputest.Builder {
	b := xputest.New()
	b.PlanID = planID
	b.Attr(4, 4, true, xpu.TypeInt4)
	for range s.Types {
		b.Attr(4, 4, true, xpu.TypeInt4)
	}
	a := b.Var(0, xpu.TypeInt4)
	keys := make([]int, len(s.Types))
	for d := range s.Types {
		keys[d] = b.Var(d+1, xpu.TypeInt4)
	}
	b.Root = b.Op(xpu.OpGt, xpu.TypeBool, a, b.ConstInt4(s.QualMin))
	for d, t := range s.Types {
		b.JoinDepth(t, RowSize)
		b.JoinKey(keys[d], xpu.TypeInt8, 0, 16)
	}
	pay := make([]int, len(s.Types))
	dbl := -1
	for d := range s.Types {
		pay[d] = -1
		if !s.hasCol(d) {
			continue
		}
		pay[d] = b.InnerVar(b.JoinCol(d, xpu.TypeInt8, 16, 16))
		if s.Quals != nil && s.Quals[d] {
			b.JoinQual(d, b.Op(xpu.OpNe, xpu.TypeBool, pay[d], b.ConstInt8(QualValue)))
		}
		if d == 0 {
			dbl = b.Op(xpu.OpAdd, xpu.TypeInt8, pay[0], pay[0])
		}
	}
	b.GroupBy(a, 0)
	last := s.last()
	if last >= 0 {
		b.GroupBy(pay[last], 0)
	}
	b.Aggregate(xpu.AggCount, -1, -1)
	b.Aggregate(xpu.AggSumInt, a, -1)
	if dbl >= 0 {
		b.Aggregate(xpu.AggSumInt, dbl, -1)
		b.Aggregate(xpu.AggMinInt, pay[0], -1)
	}
	if last >= 0 {
		f := b.Op(xpu.OpGt, xpu.TypeBool, pay[last], b.ConstInt8(FilterMin))
		b.Aggregate(xpu.AggCount, pay[last], f)
		b.Aggregate(xpu.AggMaxInt, pay[last], -1)
	}
	if b.Kind != xpu.KindGpuJoinPreAgg {
		panic(fmt.Sprintf("jpatest: the program's kind is %d", b.Kind))
	}
	return b
}

// Pages forms the outer rows into heap pages (up to perPage a page) and
// sets their items; it returns the pages and their count.
func (s *Star) Pages(perPage int) ([]byte, uint32) {
	cols := make([]xputest.Column, 1+len(s.Types))
	for i := range cols {
		cols[i] = xputest.ColInt4
	}
	var out []byte
	var nblocks uint32
	for base := 0; base < len(s.Outer); base += perPage {
		p := xputest.NewPage()
		for i := base; i < min(base+perPage, len(s.Outer)); i++ {
			o := &s.Outer[i]
			vals := []any{o.A}
			for _, k := range o.K {
				if k == nil {
					vals = append(vals, nil)
				} else {
					vals = append(vals, *k)
				}
			}
			o.Item = nblocks<<xpu.ItemBlockShift | uint32(p.AddTuple(cols, vals))
		}
		out = append(out, p.Bytes()...)
		nblocks++
	}
	return out, nblocks
}

// Rows is depth d's inner rows in the slot encoding.
func (s *Star) Rows(d int) []byte {
	rows := make([]byte, RowSize*len(s.Inners[d]))
	for i, r := range s.Inners[d] {
		row := rows[RowSize*i:]
		xputest.IntSlot(row, 0, deref(r.Key), r.Key == nil)
		xputest.IntSlot(row, 16, deref(r.Pay), r.Pay == nil)
	}
	return rows
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
