//go:build lifecycle

package lifecycle

import (
	"fmt"
	"math/rand"
	"strings"
)

// The random queries of the star-join test: 1 to 4 dimensions joined to
// sj_fact (INNER, LEFT, SEMI as EXISTS or IN, ANTI as NOT EXISTS or as a
// LEFT JOIN whose key IS NULL) on single, cross-type, expression or
// composite keys, with a residual join clause now and then (a dimension
// column against the fact's, which may read an earlier dimension),
// sj_d_int's with its own dimension now and then; with or
// without restrictions of the fact table and of the dimensions; the
// joined rows, SELECT DISTINCT, or an aggregation (GROUP BY dimension and
// fact columns: count, sum, avg, min, max, stddev, variance, FILTER,
// HAVING), also once per row of a LATERAL join (rescans); serially or
// with parallel workers, pages shared or copied. A
// query is a structure, so that a failing one can be shrunk
// (starjoin_shrink_test.go).

type sjJoinKind int

const (
	sjInner sjJoinKind = iota
	sjLeft
	sjSemiExists
	sjSemiIn
	sjAntiNotExists
	sjAntiLeftNull
)

func (k sjJoinKind) outputs() bool { return k == sjInner || k == sjLeft }

type sjDepth struct {
	kind    sjJoinKind
	dim     *sjDim
	alias   string
	dimKey  string
	factKey string
	also    string // a second key equality, "" for none
	qual    string // a restriction of the dimension, "" for none
	// residual is a join clause that is not a key: the dimension's column
	// against the fact's, now and then or'ed with an earlier dimension's
	// column being NULL ("" for none)
	residual string
	// snowflake joins sj_d_grp to this depth's sj_d_int (INNER or LEFT,
	// as the depth), "" for none; else its alias
	snowflake string
}

// sjItem is an output column: its expression, the alias of the depth it
// reads ("" for the fact table alone) and the column it is made of.
type sjItem struct {
	expr  string
	alias string
	col   sjCol
}

type sjQuery struct {
	depths  []sjDepth
	where   []string // restrictions of the fact table
	agg     bool
	keys    []sjItem // GROUP BY (agg only)
	having  string
	items   []sjItem // aggregates (agg) or plain columns
	workers int      // max_parallel_workers_per_gather
	forced  bool     // pg_strom.regression_test_mode: the GPU paths at a millionth of their cost
	copied  bool     // pg_strom.zero_copy off: the pages are copied and sent
	// distinct: SELECT DISTINCT of the keys (agg only), no aggregates
	distinct bool
	// lateral: the aggregation once per row of sj_d_small with id < 4, its
	// id a parameter of the fact's restrictions (the GPU node rescanned)
	lateral bool
}

// sjFactQuals are restrictions of the fact table: the device runs all but
// the last (GPU Quals) before the join.
var sjFactQuals = []string{
	"f.v > %d", "f.v %% 7 = %d", "f.f < %d", "f.k_date >= date '2019-01-01' + %d",
	"f.m BETWEEN %d AND %d + 2500", "f.id %% 10 < %d", "f.k_i4 IS NOT NULL AND f.v < %d",
	"f.k_txt LIKE 'key_1%%' OR f.v = %d", "f.k_num > %d / 10.0",
	// not on the device: GpuJoin's Outer Filter, and no fused GpuPreAgg
	"f.k_txt ~ 'y_%d'",
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.Intn(len(xs))] }

// genQuery draws one query.
func genQuery(r *rand.Rand) sjQuery {
	var q sjQuery
	nd := pick(r, []int{1, 1, 2, 2, 2, 3, 3, 4})
	for i := 0; i < nd; i++ {
		dim := sjDims[r.Intn(len(sjDims))]
		// the empty dimension now and then, not in every other query
		if dim.table == "sj_d_empty" && r.Intn(3) != 0 {
			dim = sjDims[r.Intn(len(sjDims)-1)]
		}
		key := pick(r, dim.keys)
		d := sjDepth{
			kind:    pick(r, []sjJoinKind{sjInner, sjInner, sjInner, sjLeft, sjLeft, sjLeft, sjSemiExists, sjSemiIn, sjAntiNotExists, sjAntiLeftNull}),
			dim:     dim,
			alias:   fmt.Sprintf("d%d", i+1),
			dimKey:  key.col,
			factKey: pick(r, key.facts),
		}
		if key.also != "" {
			d.also = fmt.Sprintf(key.also, d.alias)
		}
		if len(dim.quals) > 0 && r.Intn(4) == 0 {
			d.qual = fmt.Sprintf(pick(r, dim.quals), d.alias)
		}
		if dim.table == "sj_d_int" && d.kind.outputs() && r.Intn(3) == 0 {
			d.snowflake = fmt.Sprintf("s%d", i+1)
		}
		if r.Intn(5) == 0 {
			d.residual = residualQual(r, d, q.outputDims())
		}
		q.depths = append(q.depths, d)
	}
	for n := pick(r, []int{0, 0, 1, 1, 2}); n > 0; n-- {
		qual := pick(r, sjFactQuals)
		args := []any{r.Intn(900)}
		if strings.Count(qual, "%d") == 2 {
			args = append(args, args[0])
		}
		if strings.HasPrefix(qual, "f.id") || strings.HasPrefix(qual, "f.v %%") {
			args[0] = 1 + r.Intn(6)
		}
		q.where = append(q.where, "("+fmt.Sprintf(qual, args...)+")")
	}
	q.agg = r.Intn(2) == 0
	outs := q.outputDims()
	if q.agg {
		for n := r.Intn(3); n > 0; n-- {
			q.keys = append(q.keys, groupKey(r, outs))
		}
		q.items = append(q.items, sjItem{expr: "count(*)"})
		for n := 1 + r.Intn(4); n > 0; n-- {
			q.items = append(q.items, aggregate(r, outs))
		}
		if len(q.keys) > 0 && r.Intn(6) == 0 {
			q.having = fmt.Sprintf("count(*) > %d", r.Intn(2000))
		} else if len(q.keys) > 0 && r.Intn(8) == 0 {
			q.distinct, q.items = true, nil
		}
		q.lateral = r.Intn(8) == 0
	} else {
		q.items = append(q.items, sjItem{expr: "f.id"})
		for n := 1 + r.Intn(4); n > 0; n-- {
			q.items = append(q.items, column(r, outs))
		}
	}
	q.workers = pick(r, []int{0, 0, 2, 4})
	q.forced = r.Intn(2) == 0
	q.copied = r.Intn(5) == 0
	return q
}

// sjResidualForms compare a dimension column (the first %s.%s) of a kind
// with the fact's columns; text to numeric and md5() keep a clause on the
// CPU, so that GPU nodes get both kinds of residual clauses.
var sjResidualForms = map[string][]string{
	"int":   {"%s.%s < f.v %% 50", "%s.%s <> f.k_i2", "(%s.%s > f.f OR f.v %% 3 = 0)", "%s.%s * 2 >= f.k_i2"},
	"float": {"%s.%s < f.f * 10", "(%s.%s > f.v OR f.k_i2 < 5)"},
	"num":   {"%s.%s > f.m / 100", "%s.%s <> f.k_i2", "%s.%s > f.v::text::numeric / 100"},
	"text":  {"%s.%s <> f.k_txt", "(%s.%s > f.k_txt OR f.v < 300)", "md5(%s.%s) <> f.k_txt"},
	"date":  {"%s.%s > f.k_date - 200"},
}

// residualQual draws a residual join clause of depth d; earlier are the
// output depths before it.
func residualQual(r *rand.Rand, d sjDepth, earlier []sjDepth) string {
	var cols []sjCol
	for _, c := range d.dim.cols {
		if len(sjResidualForms[c.kind]) > 0 {
			cols = append(cols, c)
		}
	}
	if len(cols) == 0 {
		return ""
	}
	c := pick(r, cols)
	qual := fmt.Sprintf(pick(r, sjResidualForms[c.kind]), d.alias, c.name)
	if len(earlier) > 0 && r.Intn(3) == 0 {
		e := pick(r, earlier)
		qual = fmt.Sprintf("(%s.%s IS NULL OR %s)", e.alias, pick(r, e.dim.cols).name, qual)
	}
	return qual
}

// outputDims are the depths whose columns the query may read.
func (q *sjQuery) outputDims() []sjDepth {
	var out []sjDepth
	for _, d := range q.depths {
		if d.kind.outputs() {
			out = append(out, d)
		}
	}
	return out
}

// column is a plain column of the fact table or of an output dimension
// (of its snowflake dimension, if joined).
func column(r *rand.Rand, outs []sjDepth) sjItem {
	if len(outs) > 0 && r.Intn(3) != 0 {
		d := pick(r, outs)
		if d.snowflake != "" && r.Intn(2) == 0 {
			c := pick(r, sjSnowflake.cols)
			return sjItem{expr: d.snowflake + "." + c.name, alias: d.alias, col: c}
		}
		c := pick(r, d.dim.cols)
		return sjItem{expr: d.alias + "." + c.name, alias: d.alias, col: c}
	}
	c := pick(r, sjFactCols)
	return sjItem{expr: "f." + c.name, col: c}
}

// groupKey is a column of few values, or one in five integers modulo 5.
func groupKey(r *rand.Rand, outs []sjDepth) sjItem {
	for {
		it := column(r, outs)
		if !it.col.group {
			continue
		}
		if it.col.kind == "int" && r.Intn(5) == 0 {
			it.expr = "(" + it.expr + " % 5)"
		}
		return it
	}
}

// aggregate is an aggregate of a fact or dimension column that fits its
// kind, now and then with a FILTER: count of anything; min and max of
// anything but seldom of text (GpuPreAgg does not take them, and the
// fused node is what the aggregations are here for); sum, avg, stddev
// and variance of numbers.
func aggregate(r *rand.Rand, outs []sjDepth) sjItem {
	it := column(r, outs)
	if it.col.kind == "int" && r.Intn(6) == 0 {
		// an argument of the fact's and a dimension's columns
		it.expr = "(f.v * " + it.expr + ")"
	}
	fns := []string{"count", "count", "count", "min", "max"}
	switch it.col.kind {
	case "int", "float":
		fns = []string{"min", "max", "count", "sum", "sum", "avg", "avg", "stddev", "variance"}
	case "num":
		fns = []string{"min", "max", "count", "sum", "avg"}
	case "date":
		fns = []string{"min", "max", "count"}
	case "mixed-scale":
		// min and max of equal numerics of other scales (1.5, 1.50)
		// return whichever comes first: the scan order, not the join
		fns = []string{"sum", "avg", "count"}
	}
	it.expr = pick(r, fns) + "(" + it.expr + ")"
	if r.Intn(10) == 0 {
		it.expr += fmt.Sprintf(" FILTER (WHERE f.v > %d)", r.Intn(1500))
	}
	return it
}

// SQL renders the query; every output column is named c<N> (CREATE TABLE
// AS needs distinct names).
func (q *sjQuery) SQL() string {
	var sel []string
	for _, it := range append(append([]sjItem{}, q.keys...), q.items...) {
		sel = append(sel, fmt.Sprintf("%s AS c%d", it.expr, len(sel)+1))
	}
	var b strings.Builder
	if q.distinct {
		b.WriteString("SELECT DISTINCT " + strings.Join(sel, ", ") + " FROM sj_fact f")
	} else {
		b.WriteString("SELECT " + strings.Join(sel, ", ") + " FROM sj_fact f")
	}
	where := append([]string{}, q.where...)
	if q.lateral {
		where = append(where, "f.k_i2 = o.id")
	}
	for _, d := range q.depths {
		on := fmt.Sprintf("%s.%s = %s", d.alias, d.dimKey, d.factKey)
		if d.also != "" {
			on += " AND " + d.also
		}
		if d.qual != "" {
			on += " AND " + d.qual
		}
		if d.residual != "" {
			on += " AND " + d.residual
		}
		sub := fmt.Sprintf("SELECT 1 FROM %s %s WHERE %s", d.dim.table, d.alias, on)
		switch d.kind {
		case sjInner, sjLeft:
			join := map[sjJoinKind]string{sjInner: "JOIN", sjLeft: "LEFT JOIN"}[d.kind]
			fmt.Fprintf(&b, " %s %s %s ON %s", join, d.dim.table, d.alias, on)
			if d.snowflake != "" {
				fmt.Fprintf(&b, " %s %s %s ON %s.grp = %s.grp", join, sjSnowflake.table, d.snowflake, d.snowflake, d.alias)
			}
		case sjAntiLeftNull:
			fmt.Fprintf(&b, " LEFT JOIN %s %s ON %s", d.dim.table, d.alias, on)
			where = append(where, fmt.Sprintf("%s.%s IS NULL", d.alias, d.dimKey))
		case sjSemiExists:
			where = append(where, "EXISTS ("+sub+")")
		case sjSemiIn:
			if d.also != "" || d.residual != "" {
				// a composite key: (a, b) IN would be a row comparison;
				// a residual clause reads the fact's row, and a correlated
				// IN is a SubPlan run per row, not a semi join
				where = append(where, "EXISTS ("+sub+")")
				break
			}
			in := fmt.Sprintf("%s IN (SELECT %s.%s FROM %s %s", d.factKey, d.alias, d.dimKey, d.dim.table, d.alias)
			if d.qual != "" {
				in += " WHERE " + d.qual
			}
			where = append(where, in+")")
		case sjAntiNotExists:
			where = append(where, "NOT EXISTS ("+sub+")")
		}
	}
	if len(where) > 0 {
		b.WriteString(" WHERE " + strings.Join(where, " AND "))
	}
	if len(q.keys) > 0 && !q.distinct {
		var g []string
		for i := range q.keys {
			g = append(g, fmt.Sprint(i+1))
		}
		b.WriteString(" GROUP BY " + strings.Join(g, ", "))
	}
	if q.having != "" {
		b.WriteString(" HAVING " + q.having)
	}
	if q.lateral {
		return "SELECT o.id AS c0, x.* FROM sj_d_small o, LATERAL (" + b.String() + ") x WHERE o.id < 4"
	}
	return b.String()
}

// Settings are the SET commands the query runs under (besides the GPU
// costs, zero for every query).
func (q *sjQuery) Settings() []string {
	s := []string{fmt.Sprintf("SET max_parallel_workers_per_gather = %d", q.workers)}
	s = append(s, fmt.Sprintf("SET pg_strom.regression_test_mode = %v", q.forced))
	return append(s, fmt.Sprintf("SET pg_strom.zero_copy = %v", !q.copied))
}

func (q *sjQuery) String() string {
	return fmt.Sprintf("[workers %d, forced %v, pages copied %v] %s", q.workers, q.forced, q.copied, q.SQL())
}
