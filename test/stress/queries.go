package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// A query the clients run. node is the pg_strom node its plan must have;
// settings are SET commands it needs besides the session's (and are undone
// with RESET before a query that does not name them).
type query struct {
	name     string
	node     string
	sql      string
	settings []string
}

// queries returns the workload over stress_t of rows rows: GpuScan that
// returns rows and that feeds PostgreSQL's Agg, and GpuPreAgg with few and
// many groups, no GROUP BY, expression and text keys, DISTINCT, FILTER and
// a group count that makes the device table grow. Every column type of
// stress_t appears in a predicate and in an aggregate.
func queries(rows int64) []query {
	// enough groups to make the device table grow, few enough that 64
	// clients can sort and compare them
	growth := min(max(rows/8, 1000), 200000)
	noPreAgg := []string{"pg_strom.enable_gpupreagg = off"}
	return []query{
		{name: "scan_int", node: "GpuScan",
			sql: `SELECT id, a, b FROM stress_t WHERE a % 1000 < 7 AND b > 0`},
		{name: "scan_mixed", node: "GpuScan",
			sql: `SELECT id, n, f, d FROM stress_t WHERE f BETWEEN 100.0 AND 105.0 AND n > -500 AND d < date '2020-01-01'`},
		{name: "scan_text", node: "GpuScan",
			sql: `SELECT id, t FROM stress_t WHERE t LIKE 'k1%3' OR (a IS NULL AND k_few = 2)`},
		{name: "scan_agg", node: "GpuScan", settings: noPreAgg,
			sql: `SELECT count(*), sum(a), sum(n), min(f), max(f), avg(b) FROM stress_t WHERE a % 3 = 1 AND f > 10`},
		{name: "preagg_few", node: "GpuPreAgg",
			sql: `SELECT k_few, count(*), count(a), sum(a), sum(b), sum(n), sum(z), avg(a), avg(n), min(a), max(b),
			             min(n), max(n), sum(f), avg(f), min(f), max(f), min(d), max(d)
			        FROM stress_t GROUP BY k_few`},
		{name: "preagg_many", node: "GpuPreAgg",
			sql: `SELECT k_many, count(*), sum(b), avg(n), max(f), min(a), sum(f) FROM stress_t WHERE a > 100 GROUP BY k_many`},
		{name: "preagg_total", node: "GpuPreAgg",
			sql: `SELECT count(*), sum(a), avg(f), stddev(a), variance(b), min(d), max(d), stddev_pop(f) FROM stress_t WHERE f < 900`},
		{name: "preagg_expr", node: "GpuPreAgg",
			sql: `SELECT a % 100 AS r, count(*), sum(n), max(b) FROM stress_t WHERE b > -100000000000 GROUP BY 1`},
		{name: "preagg_text", node: "GpuPreAgg",
			sql: `SELECT t, count(*), sum(a), min(f) FROM stress_t GROUP BY t`},
		{name: "preagg_distinct", node: "GpuPreAgg",
			sql: `SELECT DISTINCT k_few, a % 10 FROM stress_t`},
		{name: "preagg_filter", node: "GpuPreAgg",
			sql: `SELECT k_few, count(*) FILTER (WHERE a > 50000), sum(n) FILTER (WHERE f < 500), max(a) FILTER (WHERE b < 0)
			        FROM stress_t GROUP BY k_few`},
		{name: "preagg_growth", node: "GpuPreAgg",
			sql: fmt.Sprintf(`SELECT id %% %d AS k, count(*), sum(a), max(f) FROM stress_t GROUP BY 1`, growth)},
	}
}

// load (re)creates stress_t with rows rows, deterministic, and records the
// row count in stress_meta. Values: a NULL every 211 rows, f NULL every 101,
// text keys of ~1000 values and a few longer than a device group slot; z
// alternates 1.25 and -1.25, so that some groups sum to exactly 0.00.
func load(ctx context.Context, conn *pgx.Conn, rows int64, parallel int) error {
	many := rows / 20
	if many < 100 {
		many = 100
	}
	pw := parallel
	if pw < 1 {
		pw = 1
	}
	stmts := []string{
		`SET pg_strom.enabled = off`,
		`DROP TABLE IF EXISTS stress_t, stress_meta`,
		fmt.Sprintf(`CREATE TABLE stress_t (id int8, k_few int4, k_many int4, a int4, b int8,
			n numeric(12,2), z numeric(12,2), f float8, d date, t text) WITH (parallel_workers = %d)`, pw),
		fmt.Sprintf(`INSERT INTO stress_t
			SELECT i, (i %% 7)::int4, ((i * 7919) %% %d)::int4,
			       CASE WHEN i %% 211 = 0 THEN NULL ELSE ((i * 7919) %% 100003)::int4 END,
			       (i * 2654435761) %% 1000000000000 - 500000000000,
			       (((i * 31) %% 200000) / 100.0 - 1000)::numeric(12,2),
			       CASE WHEN i %% 2 = 0 THEN 1.25 ELSE -1.25 END,
			       CASE WHEN i %% 101 = 0 THEN NULL ELSE ((i * 48271) %% 1000003) / 1000.003 END,
			       date '2000-01-01' + (i %% 9000)::int,
			       CASE WHEN i %% 1009 = 0 THEN repeat('long text key ', 6) || (i %% 5) ELSE 'k' || (i %% 997) END
			  FROM generate_series(1::int8, %d) i`, many, rows),
		`VACUUM ANALYZE stress_t`,
		`CREATE TABLE stress_meta (rows int8, version int)`,
		fmt.Sprintf(`INSERT INTO stress_meta VALUES (%d, %d)`, rows, tableVersion),
		`RESET pg_strom.enabled`,
	}
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", strings.Fields(s)[0], err)
		}
	}
	return nil
}

// tableVersion changes with stress_t's layout or contents, so that -load
// auto reloads a table an older harness made.
const tableVersion = 2

// loadedRows is stress_meta's row count, or -1 when the tables are absent
// or of another version.
func loadedRows(ctx context.Context, conn *pgx.Conn) int64 {
	var n int64
	if err := conn.QueryRow(ctx, `SELECT rows FROM stress_meta WHERE version = $1`, tableVersion).Scan(&n); err != nil {
		return -1
	}
	return n
}
