//go:build benchdb

// TestIntegrationSSB loads SSB at a small scale factor into its own
// database (pgstrom_bench_ssb_itest, dropped and created afresh) of the
// PostgreSQL named by the PG* environment, and checks that a load resumes,
// the row counts, the foreign keys, the queries' selectivities against the SSB spec and that
// every query's answer with pg_strom equals PostgreSQL's. bench/itest.sh
// runs it in `make test` on a throwaway cluster:
//
//	PGHOST=/tmp PGPORT=55480 PGUSER=pgstrom_test go test -tags benchdb -run IntegrationSSB -v ./bench
package main

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

const ssbTestDB = "pgstrom_bench_ssb_itest"

// ssbTestSF: 750,000 lineorder rows, 3,750 customers, 250 suppliers (every
// city once), 25,000 parts (every brand 25 times): a few seconds to load.
const ssbTestSF = 0.125

func TestIntegrationSSB(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	freshDatabase(t, ctx, ssbTestDB)
	config := configMaker(t, ssbTestDB, "-tables", "ssb", "-sf", "0.125", "-workers", "2")
	var out bytes.Buffer
	t.Logf("load at SF %g: %.1f s", ssbTestSF, timedLoad(t, ctx, config(&out), &out))

	conn, err := pgx.Connect(ctx, "dbname="+ssbTestDB)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)

	// resumable as W1's: forget one supplier part (rows and bookkeeping),
	// load again: only that part is inserted
	supp, _ := FindDataset("ssb_supplier")
	lo, hi := supp.PartRange(supp.Rows(ssbTestSF), 2)
	for _, s := range []string{
		"DELETE FROM ssb_supplier WHERE s_suppkey BETWEEN $1 AND $2",
		"DELETE FROM bench_meta_parts WHERE dataset = 'ssb_supplier' AND part = 2 AND $1::int8 <= $2::int8",
		"UPDATE bench_meta SET finalized_at = NULL WHERE dataset = 'ssb_supplier' AND $1::int8 <= $2::int8",
	} {
		if _, err := conn.Exec(ctx, s, lo, hi); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	out.Reset()
	if err := Load(ctx, config(&out)); err != nil {
		t.Fatalf("resumed load: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "ssb_supplier: 250 rows in 4 parts: resuming: 3 of 4 parts loaded") ||
		!strings.Contains(out.String(), "inserted 1 parts") || strings.Count(out.String(), "complete, nothing to load") != 4 {
		t.Errorf("load did not resume:\n%s", out.String())
	}
	count := func(sql string) int64 {
		t.Helper()
		var n int64
		if err := conn.QueryRow(ctx, sql).Scan(&n); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return n
	}

	// row counts: SSB section 2's formulas, written out here
	want := map[string]int64{
		"ssb_lineorder": int64(6_000_000 * ssbTestSF), "ssb_customer": int64(30_000 * ssbTestSF),
		"ssb_supplier": int64(2_000 * ssbTestSF), "ssb_part": int64(200_000 * ssbTestSF), "ssb_date": 2557,
	}
	keys := map[string]string{"ssb_customer": "c_custkey", "ssb_supplier": "s_suppkey", "ssb_part": "p_partkey", "ssb_date": "d_datekey"}
	for table, n := range want {
		if got := count("SELECT count(*) FROM " + table); got != n {
			t.Errorf("%s: %d rows, want %d", table, got, n)
		}
		if k := keys[table]; k != "" {
			if got := count("SELECT count(DISTINCT " + k + ") FROM " + table); got != n {
				t.Errorf("%s: %d distinct %s, want %d", table, got, k, n)
			}
		}
	}
	if got := count("SELECT count(*) FROM (SELECT lo_orderkey FROM ssb_lineorder GROUP BY 1 HAVING count(*) <> max(lo_linenumber) OR max(lo_linenumber) > 7) o"); got != 0 {
		t.Errorf("%d orders whose lines are not 1..n, n <= 7", got)
	}
	if got := count("SELECT count(DISTINCT lo_orderkey) FROM ssb_lineorder"); got != int64(1_500_000*ssbTestSF) {
		t.Errorf("%d orders, want %d", got, int64(1_500_000*ssbTestSF))
	}
	// every foreign key references a row
	for col, dim := range map[string]string{"lo_custkey": "ssb_customer", "lo_partkey": "ssb_part", "lo_suppkey": "ssb_supplier",
		"lo_orderdate": "ssb_date", "lo_commitdate": "ssb_date"} {
		if got := count("SELECT count(*) FROM ssb_lineorder WHERE " + col + " NOT IN (SELECT " + keys[dim] + " FROM " + dim + ")"); got != 0 {
			t.Errorf("%d lineorder rows whose %s is not in %s", got, col, dim)
		}
	}
	// value domains
	for _, c := range []struct {
		sql  string
		want int64
	}{
		{"SELECT count(DISTINCT p_brand1) FROM ssb_part WHERE p_brand1 ~ '^MFGR#[1-5][1-5](0[1-9]|[1-3][0-9]|40)$'", 1000},
		{"SELECT count(DISTINCT c_city) FROM ssb_customer", 250},
		{"SELECT count(DISTINCT s_nation) FROM ssb_supplier", 25},
		{"SELECT count(DISTINCT (lo_quantity, lo_discount, lo_tax)) FROM ssb_lineorder WHERE lo_quantity BETWEEN 1 AND 50 AND lo_discount BETWEEN 0 AND 10 AND lo_tax BETWEEN 0 AND 8", 50 * 11 * 9},
		{"SELECT count(DISTINCT d_year) FROM ssb_date", 7},
		{"SELECT count(*) FROM ssb_date WHERE d_yearmonth = 'Dec1997' AND d_yearmonthnum = 199712", 31},
	} {
		if got := count(c.sql); got != c.want {
			t.Errorf("%s: %d, want %d", c.sql, got, c.want)
		}
	}

	// selectivities: matching lineorder rows / lineorder rows against the
	// spec's filter factor. The dimensions hold their shares exactly at this
	// SF, and lineorder's keys are independent uniform hashes, so the count
	// is binomial about N × FF: allowed are 4 standard deviations plus 6% of
	// it for the spec's rounding (a year 1/7 of 2557 days, lo_quantity < 25
	// taken as 1/2 where it is 24/50) plus one row.
	n := float64(want["ssb_lineorder"])
	for _, q := range ssbQueries {
		got := float64(count(q.countSQL()))
		exp := n * q.ff
		tol := 4*math.Sqrt(exp*(1-q.ff)) + 0.06*exp + 1
		t.Logf("%s: %6.0f rows of %.0f pass, selectivity %.3g, spec %s = %.3g (expected %.1f ± %.1f rows)",
			q.name, got, n, got/n, q.ffText, q.ff, exp, tol)
		if math.Abs(got-exp) > tol {
			t.Errorf("%s: %.0f rows pass, want %.1f ± %.1f (spec filter factor %.3g)", q.name, got, exp, tol, q.ff)
		}
	}

	// run: every query in every mode; the answers with pg_strom must equal
	// PostgreSQL's (sorted, floats within FloatTolerance)
	dir := t.TempDir()
	out.Reset()
	rep, err := Run(ctx, config(&out, "-runs", "1", "-warm-ups", "0", "-link-gbps", "50", "-json", filepath.Join(dir, "ssb.json"),
		"-png", filepath.Join(dir, "ssb.png"), "-plans", filepath.Join(dir, "plans.txt")))
	t.Logf("run output:\n%s", out.String())
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if len(rep.Results) != len(SSBQueries) || rep.Failures != 0 {
		t.Fatalf("%d results, %d failures", len(rep.Results), rep.Failures)
	}
	for _, r := range rep.Results {
		if r.Table != "ssb" || r.Rows == 0 && r.Query != "Q3.4" {
			t.Errorf("%s on %s: %d rows", r.Query, r.Table, r.Rows)
		}
	}
	if len(rep.Summaries) != 1 || rep.Summaries[0].Table != "ssb" || rep.Summaries[0].Queries != 13 || !rep.Summaries[0].Complete ||
		rep.Summaries[0].Ratio == nil || rep.Summaries[0].GeoMean == nil {
		t.Errorf("summaries: %+v", rep.Summaries)
	}
	for _, want := range []string{"summary ssb:", "ssb: Σ PG / Σ GPU = ", "geometric mean of the speedups", "join depth"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	// with pg_strom.regression_test_mode = on (bench/itest.sh) the GPU mode
	// plans pg_strom nodes without a GPU, so the comparison above covered them
	if rep.Server.Settings["pg_strom.regression_test_mode"] == "on" {
		for _, r := range rep.Results {
			if !r.GPUUsed() {
				t.Errorf("%s: no pg_strom node in the GPU mode's plan", r.Query)
			}
		}
	}
	for _, f := range []string{"ssb.json", "ssb.png", "plans.txt"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
}
