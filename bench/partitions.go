package main

import (
	"fmt"

	"github.com/jackc/pgx/v5"
)

// monthlyPartitions partitions a table by range of a date-like column, one
// partition per calendar month of the years first..last. It has no
// DEFAULT partition: the generators keep the partitioned columns inside
// those years (partitioned.go says why for each), and without one a value
// outside them fails the load instead of landing unseen in a catch-all.
type monthlyPartitions struct {
	column      string
	first, last int                          // years
	bound       func(year, month int) string // the SQL literal of the month's first day, in the column's type
}

// month is one partition's month.
type month struct{ year, month int }

func (m month) next() month {
	if m.month == 12 {
		return month{m.year + 1, 1}
	}
	return month{m.year, m.month + 1}
}

// months lists the partitions' months in order.
func (p monthlyPartitions) months() []month {
	var out []month
	for m := (month{p.first, 1}); m.year <= p.last; m = m.next() {
		out = append(out, m)
	}
	return out
}

// yyyymmddBound is a month's first day as an int4 yyyymmdd key (SSB's).
func yyyymmddBound(year, month int) string { return fmt.Sprintf("%04d%02d01", year, month) }

// dateBound is a month's first day as a date literal.
func dateBound(year, month int) string { return fmt.Sprintf("date '%04d-%02d-01'", year, month) }

// partitionName is the name of d's partition of month m, d_yyyymm.
func (d Dataset) partitionName(m month) string {
	return pgx.Identifier{fmt.Sprintf("%s_%04d%02d", d.Name, m.year, m.month)}.Sanitize()
}

// leaves are the tables that hold d's rows: d itself, or its partitions;
// pg_relation_size, pg_prewarm and the parallel_workers storage parameter
// apply to them, not to a partitioned parent.
func (d Dataset) leaves() []string {
	if d.Partitions == nil {
		return []string{d.ident()}
	}
	var out []string
	for _, m := range d.Partitions.months() {
		out = append(out, d.partitionName(m))
	}
	return out
}

// CreateStatements create the table and, for a partitioned one, its
// partitions.
func (d Dataset) CreateStatements() []string {
	out := []string{d.CreateSQL()}
	if d.Partitions == nil {
		return out
	}
	p := d.Partitions
	for _, m := range p.months() {
		n := m.next()
		out = append(out, fmt.Sprintf("CREATE TABLE %s PARTITION OF %s FOR VALUES FROM (%s) TO (%s)",
			d.partitionName(m), d.ident(), p.bound(m.year, m.month), p.bound(n.year, n.month)))
	}
	return out
}

// partitionClause ends a partitioned table's CREATE TABLE.
func (d Dataset) partitionClause() string {
	if d.Partitions == nil {
		return ""
	}
	return " PARTITION BY RANGE (" + pgx.Identifier{d.Partitions.column}.Sanitize() + ")"
}

// partitionsNote says, in a log line, over how many partitions d's rows
// lie; "" for a plain table.
func partitionsNote(d Dataset) string {
	if d.Partitions == nil {
		return ""
	}
	return fmt.Sprintf(" (%d partitions)", len(d.leaves()))
}
