//go:build lifecycle

package lifecycle

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// GpuJoin when the service fails: a service killed mid-query (chunks sent
// and not answered are joined on the CPU, nothing twice), a hung service
// (the timeout sends the join to the CPU), and cpu_fallback off (a clear
// error instead).

func makeJoinTables(ctx context.Context, t *testing.T, conn *pgx.Conn) {
	t.Helper()
	mustExec(ctx, t, conn, `CREATE TABLE t_jf AS SELECT i AS id, (i::int8 * 7919) % 1000 AS k,
		'k' || (i % 50) AS tk FROM generate_series(1, 300000) i`)
	mustExec(ctx, t, conn, `CREATE TABLE t_jd AS SELECT i::int8 AS id, 'd' || i AS name FROM generate_series(0, 999) i`)
	mustExec(ctx, t, conn, `INSERT INTO t_jd SELECT i, 'dup' || i FROM generate_series(0, 999, 10) i`)
	mustExec(ctx, t, conn, `CREATE TABLE t_jt AS SELECT 'k' || i AS t, i AS w FROM generate_series(0, 40) i`)
	mustExec(ctx, t, conn, "ALTER TABLE t_jd SET (parallel_workers = 0); ALTER TABLE t_jt SET (parallel_workers = 0)")
	mustExec(ctx, t, conn, "VACUUM ANALYZE t_jf, t_jd, t_jt")
	mustExec(ctx, t, conn, "SET pg_strom.regression_test_mode = on")
	// the plan without running it (the service hangs in these tests)
	mustExec(ctx, t, conn, `CREATE FUNCTION pgstrom_explain_join() RETURNS SETOF text
		LANGUAGE plpgsql AS $$ BEGIN RETURN QUERY EXECUTE 'EXPLAIN (COSTS OFF) `+joinQuery+`'; END $$`)
}

const joinQuery = `SELECT f.id, d.name, t.w FROM t_jf f JOIN t_jd d ON f.k = d.id LEFT JOIN t_jt t ON f.tk = t.t`

// kill -9 of the service while a GpuJoin waits for it (it hangs after some
// answered chunks), serial and parallel: PostgreSQL's rows, each once.
func TestGpuJoinServiceKilledMidQuery(t *testing.T) {
	ctx := context.Background()
	_, conn := hostExecCluster(ctx, t, "hang_after=5")
	makeJoinTables(ctx, t, conn)
	for _, mode := range []struct{ name, set string }{
		{"serial", gpuSettings},
		{"parallel", parallelGPU},
	} {
		mustExec(ctx, t, conn, mode.set)
		var plan string
		if err := conn.QueryRow(ctx, "SELECT string_agg(p, E'\\n') FROM (SELECT * FROM pgstrom_explain_join()) x(p)").Scan(&plan); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan, "GpuJoin") || (mode.name == "parallel") != strings.Contains(plan, "Parallel Custom Scan (GpuJoin)") {
			t.Fatalf("%s: not the GpuJoin plan wanted:\n%s", mode.name, plan)
		}
		var n, missing, extra int64
		pid, took := killedDuring(ctx, t, conn, mode.name, func() {
			n, missing, extra = groupsDiffer(ctx, t, conn, joinQuery)
		})
		if took < time.Second {
			t.Fatalf("%s: the query took %v, so it did not wait for the hung service", mode.name, took)
		}
		if n == 0 || missing != 0 || extra != 0 {
			t.Fatalf("%s: after kill -9 mid-query: %d rows, %d missing, %d extra", mode.name, n, missing, extra)
		}
		waitForRestart(ctx, t, conn, pid)
		t.Logf("%s: %d rows equal to PostgreSQL's after kill -9 of pid %d", mode.name, n, pid)
	}
}

// A hung service: after pg_strom.gpu_task_timeout the join finishes on the
// CPU with PostgreSQL's rows; with cpu_fallback off it fails saying why.
func TestGpuJoinHungServiceTimesOut(t *testing.T) {
	ctx := context.Background()
	_, conn := hostExecCluster(ctx, t, "hang_after=2")
	makeJoinTables(ctx, t, conn)
	mustExec(ctx, t, conn, gpuSettings)
	mustExec(ctx, t, conn, "SET pg_strom.gpu_task_timeout = '2s'")

	plan := explain(ctx, t, conn, joinQuery)
	if !strings.Contains(plan, "GpuJoin") || !strings.Contains(plan, "CPU Path: GPU service did not reply within pg_strom.gpu_task_timeout (2s)") {
		t.Fatalf("plan does not show the GpuJoin finishing on the CPU after the timeout:\n%s", plan)
	}
	n, missing, extra := groupsDiffer(ctx, t, conn, joinQuery)
	if n == 0 || missing != 0 || extra != 0 {
		t.Fatalf("after the timeout: %d rows, %d missing, %d extra", n, missing, extra)
	}

	mustExec(ctx, t, conn, "SET pg_strom.cpu_fallback = off")
	_, err := conn.Exec(ctx, "SELECT count(*) FROM ("+joinQuery+") j", pgx.QueryExecModeSimpleProtocol)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || !strings.Contains(pgErr.Detail, "did not reply within pg_strom.gpu_task_timeout (2s)") {
		t.Fatalf("with cpu_fallback off: %v, want the timeout as the error's detail", err)
	}
}
