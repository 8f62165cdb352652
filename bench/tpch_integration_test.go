//go:build benchdb

// TestIntegrationTPCH loads TPC-H at a small scale factor into its own
// database (pgstrom_bench_tpch_itest, dropped and created afresh) of the
// PostgreSQL named by the PG* environment and checks the row counts
// against the spec's formulas, the keys and value domains against clause
// 4.2.3, that each of the 22 queries gives a plausible answer, and that
// each answer with pg_strom equals the answer with pg_strom.enabled = off.
// bench/itest.sh runs it in `make test` on a throwaway cluster:
//
//	PGHOST=/tmp PGPORT=55480 PGUSER=pgstrom_test go test -tags benchdb -run IntegrationTPCH -v ./bench
package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

const tpchTestDB = "pgstrom_bench_tpch_itest"

// tpchTestSF: 300,000 lineitems, 75,000 orders, 500 suppliers (20 of each
// nation): a few seconds to load, every query's answer non-empty, and the
// 22 queries twice in well under a minute on 2 cores.
const tpchTestSF = 0.05

func TestIntegrationTPCH(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	freshDatabase(t, ctx, tpchTestDB)
	config := func(out *bytes.Buffer, args ...string) *Config {
		t.Helper()
		cfg, err := parseConfig("run", append([]string{"-dsn", "dbname=" + tpchTestDB, "-tables", "tpch",
			"-tpch-sf", fmt.Sprint(tpchTestSF), "-workers", "2"}, args...), out, out)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	var out bytes.Buffer
	t0 := time.Now()
	if err := Load(ctx, config(&out)); err != nil {
		t.Fatalf("load: %v\n%s", err, out.String())
	}
	t.Logf("load at SF %g: %.1f s", tpchTestSF, time.Since(t0).Seconds())
	out.Reset()
	if err := Load(ctx, config(&out)); err != nil {
		t.Fatalf("second load: %v\n%s", err, out.String())
	}
	if strings.Count(out.String(), "complete, nothing to load") != 8 || !strings.Contains(out.String(), "nothing to insert") {
		t.Errorf("second load was not a no-op:\n%s", out.String())
	}

	conn, err := connect(ctx, config(&out))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	count := func(sql string) int64 {
		t.Helper()
		var n int64
		if err := conn.QueryRow(ctx, sql).Scan(&n); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return n
	}

	// row counts: clause 4.2.5's formulas, written out here; lineitem is the
	// lines of the orders, 28 in each 7 orders, 4, 1, 7, 3, 6, 2, 5 each
	orders := int64(1_500_000 * tpchTestSF)
	want := map[string]int64{
		"tpch_region": 5, "tpch_nation": 25, "tpch_supplier": int64(10_000 * tpchTestSF),
		"tpch_customer": int64(150_000 * tpchTestSF), "tpch_part": int64(200_000 * tpchTestSF),
		"tpch_partsupp": int64(800_000 * tpchTestSF), "tpch_orders": orders,
		"tpch_lineitem": orders/7*28 + []int64{0, 4, 5, 12, 15, 21, 23}[orders%7],
	}
	for table, n := range want {
		if got := count("SELECT count(*) FROM " + table); got != n {
			t.Errorf("%s: %d rows, want %d", table, got, n)
		}
	}
	t.Logf("rows: %v", want)
	checkTPCHDomains(t, count, want)

	// every query with pg_strom off, then on: the same rows (compare.go's
	// CompareResults: sorted, numerics exactly, floats within
	// FloatTolerance), and a plausible answer
	type outcome struct {
		rows      int
		offS, onS float64
		plan      string
	}
	got := map[string]outcome{}
	for _, q := range TPCHQueries {
		var o outcome
		if _, err := conn.Exec(ctx, "SET pg_strom.enabled = off"); err != nil {
			t.Fatal(err)
		}
		off, secs, err := fetch(ctx, conn, q.SQL)
		if err != nil {
			t.Errorf("%s with pg_strom off: %v", q.Name, err)
			continue
		}
		o.rows, o.offS = len(off), secs
		if _, err := conn.Exec(ctx, "SET pg_strom.enabled = on"); err != nil {
			t.Fatal(err)
		}
		if o.plan, err = explain(ctx, conn, q.SQL); err != nil {
			t.Errorf("%s: %v", q.Name, err)
		}
		on, secs, err := fetch(ctx, conn, q.SQL)
		if err != nil {
			t.Errorf("%s with pg_strom on: %v", q.Name, err)
			continue
		}
		o.onS = secs
		got[q.Name] = o
		if err := CompareResults(off, on, FloatTolerance); err != nil {
			t.Errorf("%s: pg_strom on differs from off: %v", q.Name, err)
		}
		if err := checkTPCHAnswer(q.Name, off, want); err != nil {
			t.Errorf("%s: implausible answer (%d rows): %v", q.Name, len(off), err)
		}
	}

	// which plans have a pg_strom node: reported, not required
	var b strings.Builder
	fmt.Fprintf(&b, "%-5s %5s %8s %8s  %-3s %-34s %s\n", "query", "rows", "off s", "on s", "GPU", "nodes", "GPU join depth")
	gpu := 0
	for _, q := range TPCHQueries {
		o, ok := got[q.Name]
		if !ok {
			fmt.Fprintf(&b, "%-5s  (failed)\n", q.Name)
			continue
		}
		var nodes []string
		for _, n := range []string{"GpuScan", "GpuPreAgg", "GpuJoin"} {
			if k := strings.Count(o.plan, "("+n+")"); k > 0 {
				nodes = append(nodes, fmt.Sprintf("%s×%d", n, k))
			}
		}
		if planUsesGPU(o.plan) {
			gpu++
		}
		fmt.Fprintf(&b, "%-5s %5d %8.3f %8.3f  %-3s %-34s %d\n", q.Name, o.rows, o.offS, o.onS,
			yesNo(planUsesGPU(o.plan)), strings.Join(nodes, " "), planJoinDepth(o.plan))
	}
	t.Logf("pg_strom plans (pg_strom.regression_test_mode = %s): %d of %d with a GPU node\n%s",
		currentSetting(ctx, conn, "pg_strom.regression_test_mode"), gpu, len(TPCHQueries), b.String())

	// the benchmark's own run over the group: three of the queries in every
	// mode, checked against each other as `make bench` does
	dir := t.TempDir()
	out.Reset()
	rep, err := Run(ctx, config(&out, "-queries", "Q1,Q3,Q6", "-runs", "1", "-link-gbps", "50",
		"-json", filepath.Join(dir, "tpch.json"), "-plans", filepath.Join(dir, "plans.txt")))
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	if len(rep.Results) != 3 || rep.Failures != 0 || len(rep.Summaries) != 1 || rep.Summaries[0].Table != tpchGroup {
		t.Errorf("run: %d results, %d failures, summaries %+v\n%s", len(rep.Results), rep.Failures, rep.Summaries, out.String())
	}
	for _, r := range rep.Results {
		if r.Table != tpchGroup || r.Rows == 0 {
			t.Errorf("%s on %s: %d rows", r.Query, r.Table, r.Rows)
		}
	}
}

func currentSetting(ctx context.Context, conn *pgx.Conn, name string) string {
	var v string
	if err := conn.QueryRow(ctx, "SELECT coalesce(current_setting($1, true), 'unset')", name).Scan(&v); err != nil {
		return err.Error()
	}
	return v
}
