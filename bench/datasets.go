package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strings"

	"github.com/jackc/pgx/v5"
)

// This file is the one place where the benchmark's tables are defined: their
// columns, the SQL that generates each column from the row number i (an int8
// from generate_series), the row counts at scale 1.0 and the number of load
// parts. Values are pure functions of i (no random()), so every load, every
// rerun and every mode sees the same data. Floats are multiples of 1/4 or 1/8,
// so sums over them are exact in float8 whatever the summation order.
//
// SSB's five tables (ssb.go) are more entries, of the group "ssb": their row
// counts and lineorder's foreign keys depend on the SSB scale factor (-sf),
// so they give functions of it (RowsAt, ColumnsAt) instead of BaseRows and
// Columns; the loader and the bench_meta bookkeeping treat them like W1's.
// TPC-H's eight tables (tpch_tables.go, tpch_orders.go) are the group
// "tpch", made the same way at their own scale factor (-tpch-sf).
// ssb_lineorder_part and tpch_lineitem_part (partitioned.go) are the fact
// tables' rows again, in monthly partitions (partitions.go).

// Column is one column of a generated table.
type Column struct {
	Name string
	Type string
	Expr string // SQL over the int8 row number i
}

// Dataset is one generated table.
type Dataset struct {
	Name        string
	Description string
	BaseRows    int64 // rows at scale 1.0
	Parts       int   // load parts (transactions), fixed so that resumes line up
	Columns     []Column

	Group     string                       // "" for W1 (per-table queries); else the group it is loaded for, whose scale factor it takes (groups.go)
	RowsAt    func(scale float64) int64    // row count at a scale; nil: BaseRows × scale
	ColumnsAt func(scale float64) []Column // columns at a scale; nil: Columns

	Partitions *monthlyPartitions // nil: a plain table (partitions.go)
}

// w1Core are the columns every W1 query reads; both W1 tables have them.
var w1Core = []Column{
	{"id", "int8 NOT NULL", "i"},
	{"x", "float8 NOT NULL", "((i * 104729) % 100000)::float8 * 0.25"},          // 0 .. 24999.75, uniform
	{"y", "float8 NOT NULL", "((i * 15485863) % 40000)::float8 * 0.125 - 2500"}, // -2500 .. 2499.875
	{"a", "int4 NOT NULL", "((i * 7919) % 1000003)::int4"},                      // 0 .. 1000002, uniform
	{"b", "int4 NOT NULL", "((i * 48271) % 1000000)::int4"},                     // exactly 1M distinct values per 1M rows
	{"d", "date NOT NULL", "date '1995-01-01' + ((i * 31) % 7305)::int4"},       // 20 years
	{"c", "int2 NOT NULL", "(i % 8)::int2"},                                     // 8 groups
	{"e", "int2 NOT NULL", "((i * 7) % 10000)::int2"},                           // 0 .. 9999
}

// w1WideExtra pads the wide table to about 400 bytes a row (tuple header and
// line pointer included): more floats, ints, dates and two fixed-length texts.
func w1WideExtra() []Column {
	var cols []Column
	for k, m := range []int{1001, 1003, 1007, 1009, 1013, 1019, 1021, 1031, 1033, 1039, 1049, 1051} {
		cols = append(cols, Column{fmt.Sprintf("x%d", k+1), "float8 NOT NULL", fmt.Sprintf("(i %% %d)::float8 * 0.5", m)})
	}
	for k, m := range []int{101, 103, 107, 109, 113, 127, 131, 137, 139, 149} {
		cols = append(cols, Column{fmt.Sprintf("a%d", k+1), "int4 NOT NULL", fmt.Sprintf("(i %% %d)::int4", m)})
	}
	return append(cols,
		Column{"d1", "date NOT NULL", "date '2000-01-01' + (i % 3653)::int4"},
		Column{"d2", "date NOT NULL", "date '2010-01-01' + (i % 3000)::int4"},
		Column{"s1", "char(60) NOT NULL", "'customer#' || lpad((i % 1000000)::text, 9, '0')"},
		Column{"s2", "char(120) NOT NULL", "md5(i::text) || md5((i + 1)::text)"},
	)
}

// Datasets lists every dataset the loader knows, in load order.
var Datasets = append(append(append(append([]Dataset{}, W1Datasets...), ssbDatasets...), tpchDatasets...),
	ssbLineorderPart, tpchLineitemPart)

// W1Datasets are the single-table datasets every W1 query runs on.
var W1Datasets = []Dataset{
	{
		Name:        "w1_narrow",
		Description: "W1 narrow: 8 int/float/date columns, 68 bytes a row (about 13.7 GB of heap at scale 1)",
		BaseRows:    200_000_000,
		Parts:       64,
		Columns:     w1Core,
	},
	{
		Name:        "w1_wide",
		Description: "W1 wide: 34 columns incl. char(60) and char(120), about 410 bytes a row (about 10.2 GB at scale 1)",
		BaseRows:    25_000_000,
		Parts:       64,
		Columns:     append(append([]Column{}, w1Core...), w1WideExtra()...),
	},
}

// FindDataset returns the dataset called name.
func FindDataset(name string) (Dataset, error) {
	for _, d := range Datasets {
		if d.Name == name {
			return d, nil
		}
	}
	return Dataset{}, fmt.Errorf("unknown dataset %q (known: %s)", name, strings.Join(DatasetNames(), ", "))
}

// DatasetNames lists the known dataset names and the groups' (groups.go).
func DatasetNames() []string {
	names := make([]string, len(Datasets))
	for i, d := range Datasets {
		names[i] = d.Name
	}
	for _, g := range datasetGroups {
		names = append(names, g.name)
	}
	return names
}

// FindDatasets resolves a -tables entry: a dataset name or a group's
// ("ssb" for the five SSB tables, "tpch" for the eight TPC-H tables, ...).
func FindDatasets(name string) ([]Dataset, error) {
	if g, ok := findGroup(name); ok {
		return g.tables, nil
	}
	d, err := FindDataset(name)
	return []Dataset{d}, err
}

// At returns d with its columns for the given scale.
func (d Dataset) At(scale float64) Dataset {
	if d.ColumnsAt != nil {
		d.Columns = d.ColumnsAt(scale)
	}
	return d
}

// Rows is the row count at the given scale (at least 1).
func (d Dataset) Rows(scale float64) int64 {
	if d.RowsAt != nil {
		return d.RowsAt(scale)
	}
	n := int64(math.Round(float64(d.BaseRows) * scale))
	if n < 1 {
		n = 1
	}
	return n
}

// PartCount is the number of load parts for n rows.
func (d Dataset) PartCount(rows int64) int {
	if int64(d.Parts) > rows {
		return int(rows)
	}
	return d.Parts
}

// PartRange is the inclusive range of row numbers of part p (0-based).
func (d Dataset) PartRange(rows int64, p int) (lo, hi int64) {
	n := int64(d.PartCount(rows))
	lo = rows*int64(p)/n + 1
	hi = rows * int64(p+1) / n
	return lo, hi
}

func (d Dataset) ident() string { return pgx.Identifier{d.Name}.Sanitize() }

// CreateSQL creates the table.
func (d Dataset) CreateSQL() string {
	defs := make([]string, len(d.Columns))
	for i, c := range d.Columns {
		defs[i] = pgx.Identifier{c.Name}.Sanitize() + " " + c.Type
	}
	return fmt.Sprintf("CREATE TABLE %s (\n  %s\n)%s", d.ident(), strings.Join(defs, ",\n  "), d.partitionClause())
}

// InsertSQL generates rows lo..hi (inclusive, 1-based).
func (d Dataset) InsertSQL(lo, hi int64) string {
	exprs := make([]string, len(d.Columns))
	for i, c := range d.Columns {
		exprs[i] = c.Expr
	}
	return fmt.Sprintf("INSERT INTO %s SELECT %s FROM generate_series(%d::int8, %d::int8) AS g(i)",
		d.ident(), strings.Join(exprs, ", "), lo, hi)
}

// Fingerprint identifies the table definition (partitions included), the
// generator and the row count; a stored dataset with another fingerprint is
// dropped and reloaded.
func (d Dataset) Fingerprint(rows int64) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\nrows=%d parts=%d", strings.Join(d.CreateStatements(), ";\n"), d.InsertSQL(0, 0), rows, d.PartCount(rows))
	return hex.EncodeToString(h.Sum(nil))[:16]
}
