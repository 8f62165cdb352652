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
	config := configMaker(t, tpchTestDB, "-tables", "tpch", "-tpch-sf", fmt.Sprint(tpchTestSF), "-workers", "2")
	var out bytes.Buffer
	t.Logf("load at SF %g: %.1f s", tpchTestSF, timedLoad(t, ctx, config(&out), &out))
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
	got := answersOnOff(t, ctx, config(&out), nil, TPCHQueries)
	for _, q := range TPCHQueries {
		if o, ok := got[q.Name]; ok {
			if err := checkTPCHAnswer(q.Name, o.off, want); err != nil {
				t.Errorf("%s: implausible answer (%d rows): %v", q.Name, len(o.off), err)
			}
		}
	}
	logGPUPlans(t, currentSetting(ctx, conn, "pg_strom.regression_test_mode"), TPCHQueries, got)

	// the benchmark's own run over the group: three of the queries in every
	// mode, checked against each other as `make bench` does
	dir := t.TempDir()
	out.Reset()
	rep, err := Run(ctx, config(&out, "-queries", "Q1,Q3,Q6", "-runs", "1", "-warm-ups", "0", "-link-gbps", "50",
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
