//go:build lifecycle

package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// GpuPreAgg over a partitioned table, alone and fused over a join with a
// dimension table: one node per leaf under an Append (a Parallel Append
// under a Gather), with parallel workers, with the service killed under
// it, and with partitions detached and attached while it runs.  Every
// answer is compared with PostgreSQL's.

// partConf leaves room for a Gather of 16 workers beside the service's
// own background workers.
var partConf = []string{"max_worker_processes = 24", "max_parallel_workers = 20", "autovacuum = off"}

const (
	partRows = 300000
	// the leaf created apart, its columns in another order after a
	// dropped one, and the UNLOGGED leaf
	partReordered = "pf_202405"
	partUnlogged  = "pf_202307"
)

// partPreAgg has a qual and a FILTER on columns that lie elsewhere in the
// reordered leaf; partFused joins the fact with the dimension, whose keys
// 90..96 of pf.dk match nothing.
const (
	partPreAgg = `SELECT g, count(*) AS n, sum(v) AS s, min(d) AS dmin, max(price) AS p, avg(v) AS a,
		sum(price) FILTER (WHERE v > 500) AS fp FROM pf WHERE v % 7 <> 3 GROUP BY g`
	partFused = `SELECT j.cat, count(*) AS n, sum(f.v) AS s, max(f.price) AS p, min(f.d) AS dmin
		FROM pf f JOIN pdim j ON f.dk = j.dk GROUP BY j.cat`
)

// partBounds is the FOR VALUES clause of the monthly leaf pf_YYYYMM.
func partBounds(name string) string {
	from, _ := time.Parse("200601", strings.TrimPrefix(name, "pf_"))
	return fmt.Sprintf("FOR VALUES FROM ('%s') TO ('%s')", from.Format("2006-01-02"), from.AddDate(0, 1, 0).Format("2006-01-02"))
}

// partCluster starts a cluster whose service is the host executor with
// faults, and makes pf, RANGE-partitioned by month from 2023-01 to 2024-12
// plus a default leaf (the dates run into 2025), and pdim; the session
// takes the GPU nodes and parallel plans for the small leaves, serially
// until it sets its workers.
func partCluster(ctx context.Context, t *testing.T, faults string) (*cluster, *pgx.Conn) {
	t.Helper()
	c, conn := hostExecCluster(ctx, t, faults, partConf...)
	mustExec(ctx, t, conn, `CREATE TABLE pf (id int, d date, dk int, g int, v int, price numeric(12,2)) PARTITION BY RANGE (d)`)
	for m := 0; m < 24; m++ {
		name := "pf_" + time.Date(2023, time.Month(1+m), 1, 0, 0, 0, 0, time.UTC).Format("200601")
		switch name {
		case partReordered:
			mustExec(ctx, t, conn, "CREATE TABLE "+name+" (junk text, price numeric(12,2), v int, g int, dk int, d date, id int)")
			mustExec(ctx, t, conn, "ALTER TABLE "+name+" DROP COLUMN junk")
			mustExec(ctx, t, conn, "ALTER TABLE pf ATTACH PARTITION "+name+" "+partBounds(name))
		case partUnlogged:
			mustExec(ctx, t, conn, "CREATE UNLOGGED TABLE "+name+" PARTITION OF pf "+partBounds(name))
		default:
			mustExec(ctx, t, conn, "CREATE TABLE "+name+" PARTITION OF pf "+partBounds(name))
		}
	}
	mustExec(ctx, t, conn, "CREATE TABLE pf_default PARTITION OF pf DEFAULT")
	mustExec(ctx, t, conn, fmt.Sprintf(`INSERT INTO pf SELECT i, date '2023-01-01' + (i %% 800), i %% 97, i %% 13,
		CASE WHEN i %% 211 <> 0 THEN (i::int8 * 7919) %% 1000 END, ((i * 31) %% 10000) / 100.0
		FROM generate_series(1, %d) i`, partRows))
	mustExec(ctx, t, conn, "CREATE TABLE pdim AS SELECT i AS dk, 'dim ' || i AS name, i % 7 AS cat FROM generate_series(0, 89) i")
	mustExec(ctx, t, conn, "VACUUM ANALYZE pf, pdim")
	mustExec(ctx, t, conn, parallelGPU+"; SET max_parallel_workers_per_gather = 0")
	return c, conn
}

// partLeaves is how many leaves the plan has a GpuPreAgg on, and the sum
// of their Rows In (every participant's, as the docs promise).
func partLeaves(plan string) (nodes, rowsIn int) {
	for _, l := range strings.Split(plan, "\n") {
		if strings.Contains(l, "Custom Scan (GpuPreAgg) on pf_") {
			nodes++
		}
		if r := regexpFind(`Rows In: (\d+)`, l); r != "" {
			n, _ := strconv.Atoi(r)
			rowsIn += n
		}
	}
	return
}

// checkPartPlan checks an EXPLAIN ANALYZE of partPreAgg or partFused under
// max_parallel_workers_per_gather = workers against the 25 leaves.
func checkPartPlan(t *testing.T, what string, plan string, workers int) {
	t.Helper()
	nodes, rowsIn := partLeaves(plan)
	fused := strings.Contains(what, "fused")
	launched := regexpFind(`Workers Launched: (\d+)`, plan)
	switch {
	case nodes != 25:
		t.Fatalf("%s: %d GpuPreAgg leaves, want 25:\n%s", what, nodes, plan)
	case strings.Contains(plan, "CPU Path"):
		t.Fatalf("%s: a leaf went to the CPU:\n%s", what, plan)
	case fused && (strings.Contains(plan, "GpuJoin") || strings.Count(plan, "Depth 1: Inner Join") != 25):
		t.Fatalf("%s: not one fused GpuPreAgg per leaf:\n%s", what, plan)
	case workers == 0 && (strings.Contains(plan, "Gather") || !strings.Contains(plan, "->  Append")):
		t.Fatalf("%s: not a serial Append:\n%s", what, plan)
	case workers > 0 && (!strings.Contains(plan, "Parallel Append") || !strings.Contains(plan, fmt.Sprintf("Workers Planned: %d", workers)) ||
		launched == "" || launched == "0"):
		t.Fatalf("%s: not a Parallel Append with %d workers:\n%s", what, workers, plan)
	}
	// Counters summed over every participant are what shows that each
	// leaf's rows went through its node, and where a participant's
	// counters are missing, so is its CPU Path.
	if rowsIn != partRows {
		t.Errorf("%s: the leaves' Rows In add up to %d, want the table's %d:\n%s", what, rowsIn, partRows, plan)
	}
}

// GpuPreAgg over the partitioned table and fused over the join, serial
// and with 2, 4 and 16 workers: one node per leaf, and PostgreSQL's answer.
func TestPartitionedPreAggPlansAndAnswers(t *testing.T) {
	ctx := context.Background()
	_, conn := partCluster(ctx, t, "")
	for _, workers := range []int{0, 2, 4, 16} {
		mustExec(ctx, t, conn, fmt.Sprintf("SET max_parallel_workers_per_gather = %d", workers))
		for _, q := range []struct{ name, sql string }{{"preagg", partPreAgg}, {"fused", partFused}} {
			what := fmt.Sprintf("%s, %d workers", q.name, workers)
			checkPartPlan(t, what, explain(ctx, t, conn, q.sql), workers)
			if err := inTx(ctx, conn, pgx.ReadCommitted, func(tx pgx.Tx) error { return sameAsPostgreSQL(ctx, t, tx, q.sql) }); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		}
	}
}

// partSession is a session that runs the partitioned queries in a loop.
type partSession struct {
	conn    *pgx.Conn
	workers int
	pid     int
	runs    []partRun
	err     error
}

// partRun is one comparison with PostgreSQL's answer, when it ran.
type partRun struct{ start, end time.Time }

// kill -9 of the service, again and again, while sessions run the
// partitioned queries serially and with 4 workers: no session loses its
// connection, every answer is PostgreSQL's (the leaves of a query that
// was waiting on the killed service continue on the CPU), the cluster
// does not restart, and the service comes back after each kill.  The
// service hangs after 400 tasks, so that a kill finds queries waiting on
// it whenever it did not find them running.
func TestPartitionedPreAggServiceKilled(t *testing.T) {
	ctx := context.Background()
	c, conn := partCluster(ctx, t, "hang_after=400")
	postmaster := c.postmasterPID()
	before := readStatus(ctx, t, conn)[0]

	var sessions []*partSession
	for _, workers := range []int{0, 0, 4, 4} {
		s := &partSession{conn: c.connect(ctx), workers: workers}
		mustExec(ctx, t, s.conn, fmt.Sprintf(parallelGPU+"; SET max_parallel_workers_per_gather = %d", workers))
		if err := s.conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&s.pid); err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, s)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Add(1)
		go func(i int, s *partSession) {
			defer wg.Done()
			for n := i; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				q := partPreAgg
				if n%2 == 1 {
					q = partFused
				}
				r := partRun{start: time.Now()}
				err := inTx(ctx, s.conn, pgx.ReadCommitted, func(tx pgx.Tx) error { return sameAsPostgreSQL(ctx, t, tx, q) })
				r.end = time.Now()
				if err != nil {
					s.err = fmt.Errorf("run %d: %w", len(s.runs), err)
					return
				}
				s.runs = append(s.runs, r)
			}
		}(i, s)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	ended := func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	}

	// Kill until every session has ended: after the stop, a session's
	// last query may be waiting on a service that hangs.
	var kills []time.Time
	pid := -1
	deadline := time.Now().Add(15 * time.Second)
	for stopped := false; !ended(); {
		if !stopped && time.Now().After(deadline) {
			close(stop)
			stopped = true
		}
		st := waitForRestart(ctx, t, conn, pid)
		pid = int(*st[0].PID)
		time.Sleep(time.Duration(500+300*(len(kills)%4)) * time.Millisecond)
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatalf("kill -9 %d: %v", pid, err)
		}
		kills = append(kills, time.Now())
	}
	st := waitForRestart(ctx, t, conn, pid)

	spanning := map[int]int{}
	for _, s := range sessions {
		if s.err != nil {
			t.Errorf("%d workers: %v", s.workers, s.err)
			continue
		}
		var again int
		if err := s.conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&again); err != nil || again != s.pid {
			t.Errorf("%d workers: the session's backend %d is now %d (%v)", s.workers, s.pid, again, err)
		}
		for _, r := range s.runs {
			for _, k := range kills {
				if r.start.Before(k) && r.end.After(k) {
					spanning[s.workers]++
					break
				}
			}
		}
		t.Logf("%d workers: %d answers equal to PostgreSQL's", s.workers, len(s.runs))
	}
	if t.Failed() {
		return
	}
	if spanning[0] == 0 || spanning[4] == 0 {
		t.Fatalf("runs that a kill fell in: %v by workers; want some serial and some parallel", spanning)
	}
	if st[0].Restarts < before.Restarts+int32(len(kills)) {
		t.Errorf("%d restarts after %d kills (%d before)", st[0].Restarts, len(kills), before.Restarts)
	}
	if c.postmasterPID() != postmaster || strings.Contains(c.serverLog(), "terminating any other active server processes") {
		t.Fatal("the cluster restarted")
	}
	t.Logf("%d kills; runs a kill fell in, by workers: %v; service back as %v", len(kills), spanning, describe(st))
}

// partGeneric is partPreAgg with a run-time pruned bound: its generic plan
// keeps every leaf and prunes when it runs.
const partGeneric = `SELECT g, count(*) AS n, sum(v) AS s, max(price) AS p FROM pf WHERE d >= $1 GROUP BY g`

// partsMoved are the leaves detached and attached again while the queries run.
var partsMoved = []string{partReordered, partUnlogged}

// partComparisons compares, in one REPEATABLE READ transaction, partGeneric
// run literally, partGeneric's generic plan (the prepared statement
// pf_from) and partFused with PostgreSQL's answers in the same snapshot.
//
// PostgreSQL's answer for a generic plan is its own generic plan (pf_cpu,
// planned and run with pg_strom off), not the literal query's: a generic
// plan made in a snapshot that saw a leaf attached keeps that leaf, and
// scans it, until its detach is finalized, also in later transactions
// whose snapshot omits the leaf, pending detach, from a new plan.
func partComparisons(ctx context.Context, t *testing.T, conn *pgx.Conn, from string) error {
	literal := strings.Replace(partGeneric, "$1", "'"+from+"'", 1)
	return inTx(ctx, conn, pgx.RepeatableRead, func(tx pgx.Tx) error {
		// A partition ATTACHed while a transaction runs is in its next
		// query, whatever its snapshot: the leaves moved are locked, so
		// that the partitions stay the same for all the queries compared.
		// (DETACH CONCURRENTLY's first step and its wait for this
		// transaction still happen meanwhile.)
		if _, err := tx.Exec(ctx, "LOCK TABLE "+strings.Join(partsMoved, ", ")+" IN ACCESS SHARE MODE"); err != nil {
			return err
		}
		if err := sameAsPostgreSQL(ctx, t, tx, literal); err != nil {
			return err
		}
		for _, s := range []string{"DROP TABLE IF EXISTS pg_temp.generic_gpu, pg_temp.generic_cpu",
			"CREATE TEMP TABLE generic_gpu AS EXECUTE pf_from('" + from + "')",
			"SET LOCAL pg_strom.enabled = off",
			"CREATE TEMP TABLE generic_cpu AS EXECUTE pf_cpu('" + from + "')",
			"SET LOCAL pg_strom.enabled = on"} {
			if _, err := tx.Exec(ctx, s); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		var n, missing, extra int64
		if err := tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM generic_gpu),
			(SELECT count(*) FROM (TABLE generic_cpu EXCEPT ALL TABLE generic_gpu) a),
			(SELECT count(*) FROM (TABLE generic_gpu EXCEPT ALL TABLE generic_cpu) b)`).Scan(&n, &missing, &extra); err != nil {
			return err
		}
		if n == 0 || missing != 0 || extra != 0 {
			return fmt.Errorf("EXECUTE pf_from('%s'): %d rows, %d missing, %d extra against PostgreSQL's generic plan", from, n, missing, extra)
		}
		return sameAsPostgreSQL(ctx, t, tx, partFused)
	})
}

// partMover detaches the leaves of partsMoved CONCURRENTLY and attaches
// them again until stop is closed.  Every other DETACH has a short
// lock_timeout: it then fails in its wait for the queries' transactions,
// the leaf is left pending detach while queries run, and DETACH ...
// FINALIZE completes it.  Those timeouts are the only errors expected.
type partMover struct {
	cycles, timeouts, finalized int
	err                         error
}

func (m *partMover) run(ctx context.Context, conn *pgx.Conn, stop chan struct{}) {
	exec := func(sql string) error {
		_, err := conn.Exec(ctx, sql)
		if err != nil {
			return fmt.Errorf("%s: %w", sql, err)
		}
		return nil
	}
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		part := partsMoved[i%len(partsMoved)]
		timeout := "0"
		if i%2 == 0 {
			timeout = "'100ms'"
		}
		if m.err = exec("SET lock_timeout = " + timeout); m.err != nil {
			return
		}
		err := exec("ALTER TABLE pf DETACH PARTITION " + part + " CONCURRENTLY")
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "55P03" {
			m.timeouts++
			var pending bool
			if m.err = conn.QueryRow(ctx, "SELECT inhdetachpending FROM pg_inherits WHERE inhrelid = $1::regclass", part).Scan(&pending); m.err != nil {
				return
			}
			if !pending {
				continue // timed out before it marked the leaf
			}
			if m.err = exec("RESET lock_timeout"); m.err != nil {
				return
			}
			err = exec("ALTER TABLE pf DETACH PARTITION " + part + " FINALIZE")
			m.finalized++
		}
		if err != nil {
			m.err = err
			return
		}
		time.Sleep(50 * time.Millisecond)
		if m.err = exec("RESET lock_timeout"); m.err != nil {
			return
		}
		if m.err = exec("ALTER TABLE pf ATTACH PARTITION " + part + " " + partBounds(part)); m.err != nil {
			return
		}
		m.cycles++
	}
}

// DETACH PARTITION ... CONCURRENTLY and ATTACH PARTITION in another
// session while GpuPreAgg runs over the partitioned table, in REPEATABLE
// READ transactions, literally, from a generic plan of a prepared
// statement (rebuilt when the partitions change) and fused over the join:
// every answer is PostgreSQL's in the same snapshot.
func TestPartitionedPreAggDetachAttach(t *testing.T) {
	ctx := context.Background()
	c, conn := partCluster(ctx, t, "")
	// DETACH CONCURRENTLY is refused while the table has a default partition
	mustExec(ctx, t, conn, "DROP TABLE pf_default")
	mustExec(ctx, t, conn, "SET plan_cache_mode = force_generic_plan")
	mustExec(ctx, t, conn, "PREPARE pf_from(date) AS "+partGeneric+"; PREPARE pf_cpu(date) AS "+partGeneric)

	// the generic plan: a GpuPreAgg on every leaf, the 5 before the bound
	// removed when it runs; detaching a leaf rebuilds it without that leaf
	genericPlan := func(leaves int) {
		t.Helper()
		plan := explain(ctx, t, conn, "EXECUTE pf_from('2023-06-01')")
		if nodes, _ := partLeaves(plan); nodes != leaves-5 || regexpFind(`Subplans Removed: (\d+)`, plan) != "5" || strings.Contains(plan, "CPU Path") {
			t.Fatalf("generic plan: %d GpuPreAgg leaves run, want %d of %d, 5 removed when it runs:\n%s", nodes, leaves-5, leaves, plan)
		}
	}
	genericPlan(24)
	mustExec(ctx, t, conn, "ALTER TABLE pf DETACH PARTITION "+partReordered+" CONCURRENTLY")
	genericPlan(23)
	if err := partComparisons(ctx, t, conn, "2023-06-01"); err != nil {
		t.Fatal(err)
	}
	mustExec(ctx, t, conn, "ALTER TABLE pf ATTACH PARTITION "+partReordered+" "+partBounds(partReordered))
	genericPlan(24)

	mover := &partMover{}
	moverConn := c.connect(ctx)
	stop := make(chan struct{})
	moved := make(chan struct{})
	go func() { defer close(moved); mover.run(ctx, moverConn, stop) }()
	runs := 0
	var err error
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline) && err == nil; runs++ {
		workers := 4 * (runs % 2)
		if _, err = conn.Exec(ctx, fmt.Sprintf("SET max_parallel_workers_per_gather = %d", workers)); err != nil {
			break
		}
		from := time.Date(2023, time.Month(1+runs%12), 1, 0, 0, 0, 0, time.UTC).Format("2006-01-02")
		if err = partComparisons(ctx, t, conn, from); err != nil {
			err = fmt.Errorf("run %d (%d workers, from %s): %w", runs, workers, from, err)
		}
	}
	close(stop)
	<-moved
	if err != nil {
		t.Fatal(err)
	}
	if mover.err != nil {
		t.Fatalf("after %d detach and attach cycles: %v", mover.cycles, mover.err)
	}
	t.Logf("%d runs equal to PostgreSQL's; %d detach and attach cycles, %d DETACH CONCURRENTLY lock timeouts, %d finalized",
		runs, mover.cycles, mover.timeouts, mover.finalized)
	if mover.cycles < 3 {
		t.Fatalf("only %d detach and attach cycles while the queries ran", mover.cycles)
	}
	// every leaf is attached again: the plan rebuilt after all the moves
	genericPlan(24)
}
