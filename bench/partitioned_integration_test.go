//go:build benchdb

// TestIntegrationPartitioned loads SSB and TPC-H at the scale factors of
// their integration tests, each with its partitioned twin (ssb_partitioned,
// tpch_partitioned), into its own database (pgstrom_bench_part_itest,
// dropped and created afresh) of the PostgreSQL named by the PG*
// environment. It checks that the partitioned load resumes, that each
// partitioned table holds exactly its twin's rows in 84 vacuumed monthly
// partitions, that every query over it answers with pg_strom as without,
// that every SSB query's plan over it has a pg_strom node, and that one run
// prints the partitioned and plain figures side by side. bench/itest.sh
// runs it in `make test` on a throwaway cluster:
//
//	PGHOST=/tmp PGPORT=55480 PGUSER=pgstrom_test go test -tags benchdb -run IntegrationPartitioned -v ./bench
package main

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

const partTestDB = "pgstrom_bench_part_itest"

func TestIntegrationPartitioned(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	freshDatabase(t, ctx, partTestDB)
	config := configMaker(t, partTestDB, "-tables", strings.Join([]string{ssbGroup, ssbPartGroup, tpchGroup, tpchPartGroup}, ","),
		"-sf", fmt.Sprint(ssbTestSF), "-tpch-sf", fmt.Sprint(tpchTestSF), "-workers", "2")
	var out bytes.Buffer
	t.Logf("load of SSB at SF %g and TPC-H at SF %g, each with its partitioned twin: %.1f s", ssbTestSF, tpchTestSF,
		timedLoad(t, ctx, config(&out), &out))
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.Contains(line, "VACUUM FREEZE ANALYZE") && strings.Contains(line, "partitions)") {
			t.Log(strings.TrimSpace(line))
		}
	}
	conn, err := connect(ctx, config(&out))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	count := func(sql string, args ...any) int64 {
		t.Helper()
		var n int64
		if err := conn.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return n
	}

	resumePartitionedLoad(t, ctx, conn, func() string {
		out.Reset()
		if err := Load(ctx, config(&out)); err != nil {
			t.Fatalf("resumed load: %v\n%s", err, out.String())
		}
		return out.String()
	})

	for _, twin := range []Dataset{ssbLineorderPart, tpchLineitemPart} {
		plain := strings.TrimSuffix(twin.Name, "_part")
		rows, twinRows := count("SELECT count(*) FROM "+plain), count("SELECT count(*) FROM "+twin.Name)
		if rows == 0 || twinRows != rows {
			t.Errorf("%s: %d rows, %s %d", twin.Name, twinRows, plain, rows)
		}
		for _, pair := range [][2]string{{plain, twin.Name}, {twin.Name, plain}} {
			if n := count(fmt.Sprintf("SELECT count(*) FROM (TABLE %s EXCEPT ALL TABLE %s) AS x", pair[0], pair[1])); n != 0 {
				t.Errorf("%d rows of %s are not in %s", n, pair[0], pair[1])
			}
		}
		if n := count("SELECT count(*) FROM pg_inherits WHERE inhparent = $1::regclass", twin.Name); n != 84 {
			t.Errorf("%s: %d partitions, want 84", twin.Name, n)
		}
		if n := count("SELECT count(*) FROM pg_partitioned_table WHERE partrelid = $1::regclass AND partdefid = 0", twin.Name); n != 1 {
			t.Errorf("%s: not partitioned, or with a DEFAULT partition", twin.Name)
		}
		// finalized as a plain table: every page all-visible, parallel_workers
		if n := count(`SELECT count(*) FROM pg_inherits JOIN pg_class ON oid = inhrelid WHERE inhparent = $1::regclass
			AND (relallvisible < relpages OR NOT coalesce('parallel_workers=16' = ANY (reloptions), false))`, twin.Name); n != 0 {
			t.Errorf("%s: %d partitions not all-visible or without parallel_workers", twin.Name, n)
		}
	}

	// every query over the partitioned table, with the bench's parallel
	// settings: pg_strom's answer is PostgreSQL's
	var parallel []string
	for _, s := range parallelSettings {
		parallel = append(parallel, fmt.Sprintf("SET %s = %s", s[0], s[1]))
	}
	testMode := currentSetting(ctx, conn, "pg_strom.regression_test_mode")
	for _, group := range []string{ssbPartGroup, tpchPartGroup} {
		queries := slices.DeleteFunc(slices.Clone(PartitionedQueries), func(q Query) bool { return q.Group != group })
		got := answersOnOff(t, ctx, config(&out), parallel, queries)
		logGPUPlans(t, testMode, queries, got)
		// pg_strom plans GpuPreAgg, also over GpuJoin, per partition; with
		// regression_test_mode on it does so without a GPU (bench/itest.sh)
		for _, q := range queries {
			if o, ok := got[q.Name]; ok && o.plan != "" && group == ssbPartGroup && testMode == "on" && !strings.Contains(o.plan, "Custom Scan (Gpu") {
				t.Errorf("%s over ssb_lineorder_part: no pg_strom node in the plan:\n%s", q.Name, o.plan)
			}
		}
	}

	// one run over both SSB groups: the side-by-side section
	out.Reset()
	rep, err := Run(ctx, config(&out, "-tables", ssbGroup+","+ssbPartGroup, "-queries", "Q1.1,Q2.1,Q4.1", "-runs", "1", "-warm-ups", "0", "-link-gbps", "50"))
	t.Logf("run output:\n%s", out.String())
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if len(rep.Results) != 6 || rep.Failures != 0 {
		t.Errorf("%d results, %d failures", len(rep.Results), rep.Failures)
	}
	for _, want := range []string{"partitioned ssb_partitioned against ssb: ", "ssb_partitioned: Σ GPU s partitioned / Σ GPU s plain = ",
		"over the 3 of 3 queries with both figures"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("run output lacks %q", want)
		}
	}
	heap := map[string]int64{}
	for _, tb := range rep.Tables {
		heap[tb.Name] = tb.HeapBytes
	}
	if p, q := heap["ssb_lineorder"], heap["ssb_lineorder_part"]; p == 0 || q < p*9/10 || q > p*11/10 {
		t.Errorf("heap: ssb_lineorder %d bytes, ssb_lineorder_part %d", p, q)
	}
}

// resumePartitionedLoad forgets one load part of ssb_lineorder_part, its
// rows (spread over every partition, found by the order and line numbers
// the generator gives its row numbers) and its bookkeeping, and checks
// that load inserts only that part again.
func resumePartitionedLoad(t *testing.T, ctx context.Context, conn *pgx.Conn, load func() string) {
	t.Helper()
	d := ssbLineorderPart.At(ssbTestSF)
	expr := map[string]string{}
	for _, c := range d.Columns {
		expr[c.Name] = c.Expr
	}
	lo, hi := d.PartRange(d.Rows(ssbTestSF), 5)
	tag, err := conn.Exec(ctx, fmt.Sprintf(`DELETE FROM %s WHERE (lo_orderkey, lo_linenumber) IN
		(SELECT %s, %s FROM generate_series($1::int8, $2::int8) AS g(i))`, d.ident(), expr["lo_orderkey"], expr["lo_linenumber"]), lo, hi)
	if err != nil || tag.RowsAffected() != hi-lo+1 {
		t.Fatalf("forget rows %d..%d: %v, %d rows", lo, hi, err, tag.RowsAffected())
	}
	for _, s := range []string{
		"DELETE FROM bench_meta_parts WHERE dataset = $1 AND part = 5",
		"UPDATE bench_meta SET finalized_at = NULL WHERE dataset = $1",
	} {
		if _, err := conn.Exec(ctx, s, d.Name); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	out := load()
	if !strings.Contains(out, "ssb_lineorder_part: 750000 rows in 64 parts: resuming: 63 of 64 parts loaded") ||
		!strings.Contains(out, "inserted 1 parts") || strings.Count(out, "complete, nothing to load") != 14 {
		t.Errorf("load did not resume:\n%s", out)
	}
}
