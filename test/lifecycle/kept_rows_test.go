//go:build lifecycle

package lifecycle

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// GpuPreAgg keeps its rows on the device until the plan's end.  When the
// service is lost before they come back (a device error, kill -9 of the
// service), every participant evaluates the blocks of its answered chunks
// again on the CPU: the groups must equal PostgreSQL's, with no row lost
// or counted twice, serially and with parallel workers.

const keptGroupsQuery = `SELECT g, count(*) AS n, sum(v) AS s, min(v) AS lo, max(v) AS hi
	FROM t_k WHERE v <> 13 GROUP BY g`

// parallelGPU makes the planner take a parallel GpuPreAgg over the small
// table (the GPU costs zeroed, parallelism free).
const parallelGPU = `SET pg_strom.gpu_setup_cost = 0; SET pg_strom.gpu_page_cost = 0;
SET pg_strom.gpu_tuple_cost = 0; SET pg_strom.gpu_operator_cost = 0;
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 4`

func makeKeptTable(ctx context.Context, t *testing.T, conn *pgx.Conn) {
	t.Helper()
	mustExec(ctx, t, conn, `CREATE TABLE t_k AS SELECT i AS id, (i::int8 * 7919) % 50 AS g,
		(i::int8 * 104729) % 1000 AS v FROM generate_series(1, 400000) i`)
	mustExec(ctx, t, conn, "VACUUM ANALYZE t_k")
	mustExec(ctx, t, conn, "SET pg_strom.regression_test_mode = on")
}

// groupsDiffer compares q with pg_strom on (as the session is set) and off,
// as multisets: (rows, missing, extra).
func groupsDiffer(ctx context.Context, t *testing.T, conn *pgx.Conn, q string) (n, missing, extra int64) {
	t.Helper()
	mustExec(ctx, t, conn, "DROP TABLE IF EXISTS gpu_g, cpu_g")
	mustExec(ctx, t, conn, "CREATE TEMP TABLE gpu_g AS "+q)
	mustExec(ctx, t, conn, "SET pg_strom.enabled = off; CREATE TEMP TABLE cpu_g AS "+q+"; RESET pg_strom.enabled")
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM gpu_g),
		(SELECT count(*) FROM (SELECT * FROM cpu_g EXCEPT ALL SELECT * FROM gpu_g) a),
		(SELECT count(*) FROM (SELECT * FROM gpu_g EXCEPT ALL SELECT * FROM cpu_g) b)`).Scan(&n, &missing, &extra); err != nil {
		t.Fatal(err)
	}
	return
}

func redoPages(plan string) int {
	n, _ := strconv.Atoi(regexpFind(`CPU Redo Pages: (\d+)`, plan))
	return n
}

// Without faults the participants agree on one collector: the device's
// groups come back once, nothing is redone, the answer is PostgreSQL's.
func TestKeptRowsCollectedOnceInParallel(t *testing.T) {
	ctx := context.Background()
	_, conn := hostExecCluster(ctx, t, "")
	makeKeptTable(ctx, t, conn)
	mustExec(ctx, t, conn, parallelGPU)
	plan := explain(ctx, t, conn, keptGroupsQuery)
	if !strings.Contains(plan, "GpuPreAgg") || !strings.Contains(plan, "Workers Launched: 4") ||
		regexpFind(`GPU Groups: (\d+)`, plan) == "0" || strings.Contains(plan, "CPU Path") || redoPages(plan) != 0 {
		t.Fatalf("plan is not a parallel GpuPreAgg whose groups came from the device, without redo:\n%s", plan)
	}
	for i := 0; i < 3; i++ {
		if n, missing, extra := groupsDiffer(ctx, t, conn, keptGroupsQuery); n != 50 || missing != 0 || extra != 0 {
			t.Fatalf("run %d: %d groups, %d missing, %d extra; want PostgreSQL's 50", i, n, missing, extra)
		}
	}
}

// A sticky device error after some chunks were answered: the service
// exits, the participants redo their answered blocks on the CPU.
func TestKeptRowsRedoneAfterDeviceError(t *testing.T) {
	ctx := context.Background()
	_, conn := hostExecCluster(ctx, t, "sticky_after=6")
	makeKeptTable(ctx, t, conn)
	for _, mode := range []struct{ name, set string }{
		{"serial", gpuSettings},
		{"parallel", parallelGPU},
	} {
		mustExec(ctx, t, conn, mode.set)
		waitFor(ctx, t, conn, 30*time.Second, func(s []serviceStatus) bool { return s[0].State == "ready" })
		plan := explain(ctx, t, conn, keptGroupsQuery)
		if !strings.Contains(plan, "GpuPreAgg") || redoPages(plan) == 0 {
			t.Fatalf("%s: the plan shows no CPU redo after the device error:\n%s", mode.name, plan)
		}
		t.Logf("%s: %s", mode.name, regexpFind(`(CPU Redo Pages: \d+)`, plan))
		waitFor(ctx, t, conn, 30*time.Second, func(s []serviceStatus) bool { return s[0].State == "ready" })
		if n, missing, extra := groupsDiffer(ctx, t, conn, keptGroupsQuery); n != 50 || missing != 0 || extra != 0 {
			t.Fatalf("%s: %d groups, %d missing, %d extra; want PostgreSQL's 50", mode.name, n, missing, extra)
		}
	}
}

// kill -9 of the service while a GpuPreAgg waits for it (the service hangs
// after some answered chunks): the query finishes with PostgreSQL's answer.
func TestKeptRowsRedoneAfterKill9(t *testing.T) {
	ctx := context.Background()
	_, conn := hostExecCluster(ctx, t, "hang_after=5")
	makeKeptTable(ctx, t, conn)
	for _, mode := range []struct{ name, set string }{
		{"serial", gpuSettings},
		{"parallel", parallelGPU},
	} {
		mustExec(ctx, t, conn, mode.set)
		var n, missing, extra int64
		pid, took := killedDuring(ctx, t, conn, mode.name, func() {
			n, missing, extra = groupsDiffer(ctx, t, conn, keptGroupsQuery)
		})
		if n != 50 || missing != 0 || extra != 0 {
			t.Fatalf("%s: after kill -9 mid-query: %d groups, %d missing, %d extra; want PostgreSQL's 50", mode.name, n, missing, extra)
		}
		if took > 20*time.Second {
			t.Fatalf("%s: query took %v after the kill", mode.name, took)
		}
		st := waitForRestart(ctx, t, conn, pid)
		t.Logf("%s: right answer after kill -9 of pid %d; service back as %s", mode.name, pid, fmt.Sprint(describe(st)))
	}
}

// killAfter kills the service (pid) after d, reporting on the channel.
func killAfter(pid int, d time.Duration) chan error {
	killed := make(chan error, 1)
	go func() {
		time.Sleep(d)
		killed <- syscall.Kill(pid, syscall.SIGKILL)
	}()
	return killed
}

// killedDuring runs run while the service, once ready, is killed with
// SIGKILL 1.5 s in (by then a query waits on the service the test's fault
// hung); it fails the test if the kill fails.  It returns the pid killed
// and how long run took from the moment the kill was armed.
func killedDuring(ctx context.Context, t *testing.T, conn *pgx.Conn, what string, run func()) (int, time.Duration) {
	st := waitFor(ctx, t, conn, 30*time.Second, func(s []serviceStatus) bool { return s[0].State == "ready" && s[0].PID != nil })
	pid := int(*st[0].PID)
	killed := killAfter(pid, 1500*time.Millisecond)
	t0 := time.Now()
	run()
	took := time.Since(t0)
	if err := <-killed; err != nil {
		t.Fatalf("%s: kill -9 %d: %v", what, pid, err)
	}
	return pid, took
}

// waitForRestart waits until the service is ready as a process other than
// pid, the one killed.
func waitForRestart(ctx context.Context, t *testing.T, conn *pgx.Conn, pid int) []serviceStatus {
	return waitFor(ctx, t, conn, 30*time.Second, func(s []serviceStatus) bool {
		return s[0].State == "ready" && s[0].PID != nil && int(*s[0].PID) != pid
	})
}

// Long text keys make a third of the rows RECHECK rows, whose groups the
// CPU keeps apart and, with a tiny work_mem, spills to a tuplestore; when
// the service is killed mid-query they are dropped with the rest of what
// the answered chunks gave, and the blocks are evaluated again.
func TestKeptRowsSpilledRecheckGroupsRedone(t *testing.T) {
	ctx := context.Background()
	_, conn := hostExecCluster(ctx, t, "hang_after=40")
	mustExec(ctx, t, conn, `CREATE TABLE t_k AS SELECT i AS id,
		CASE WHEN i % 3 = 0 THEN repeat('x', 300) ELSE 'k' END || (i % 20000)::text AS g,
		i % 100 AS v FROM generate_series(1, 300000) i`)
	mustExec(ctx, t, conn, "VACUUM ANALYZE t_k")
	mustExec(ctx, t, conn, gpuSettings+"; SET pg_strom.regression_test_mode = on; SET work_mem = '64kB'")
	const q = "SELECT g, count(*) AS n, sum(v) AS s FROM t_k GROUP BY g"

	var plan string
	killedDuring(ctx, t, conn, "EXPLAIN", func() { plan = explain(ctx, t, conn, q) })
	if !strings.Contains(plan, "GpuPreAgg") || regexpFind(`CPU Spills: (\d+)`, plan) == "" || redoPages(plan) == 0 {
		t.Fatalf("plan does not show spilled CPU groups and a redo after the kill:\n%s", plan)
	}
	t.Logf("%s, %s", regexpFind(`(CPU Spills: \d+)`, plan), regexpFind(`(CPU Redo Pages: \d+)`, plan))

	var n, missing, extra int64
	killedDuring(ctx, t, conn, "query", func() { n, missing, extra = groupsDiffer(ctx, t, conn, q) })
	if n != 40000 || missing != 0 || extra != 0 {
		t.Fatalf("%d groups, %d missing, %d extra; want PostgreSQL's 40000", n, missing, extra)
	}
}
