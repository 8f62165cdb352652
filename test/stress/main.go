// Command stress is pg_strom's reliability harness: N clients run
// randomly chosen GpuScan and GpuPreAgg queries in a loop and compare every
// result with PostgreSQL's own (pg_strom.enabled = off, computed once),
// while pgbench -S and/or a loop of read-write transactions run alongside
// and, optionally, the GPU service is killed with SIGKILL every K seconds.
// It prints a summary and exits 1 when any GPU query failed or was wrong,
// any transaction failed, or the cluster restarted; 2 when it could not run
// (e.g. a query's plan has no GpuScan/GpuPreAgg, or the service is not
// ready).
//
// It connects with libpq's environment (PGHOST, PGPORT, PGUSER, PGDATABASE)
// or -dsn, and must run on the database's machine as root or the cluster's
// owner to signal the service. See test/stress/run_ci.sh (host executor)
// and test/device/stress.sh (GPU machine).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

type config struct {
	dsn            string
	duration       time.Duration
	clients        int
	killEvery      time.Duration
	rows           int64
	load           string
	parallel       int
	regression     bool
	txnClients     int
	pgbench        string
	pgbenchClients int
	sideRate       int
	pgbenchScale   int
	serverLog      string
	seed           int64
	stmtTimeout    time.Duration
	only           string
	label          string
}

func main() {
	var c config
	flag.StringVar(&c.dsn, "dsn", "", "connection string (default: libpq environment variables)")
	flag.DurationVar(&c.duration, "duration", 60*time.Second, "how long the clients run")
	flag.IntVar(&c.clients, "clients", 8, "concurrent sessions of GPU queries")
	flag.DurationVar(&c.killEvery, "kill-interval", 10*time.Second, "kill -9 the GPU service this often (0: never)")
	flag.Int64Var(&c.rows, "rows", 100000, "rows of the test table stress_t")
	flag.StringVar(&c.load, "load", "auto", "load the tables: always, auto (when absent or of another size), never")
	flag.IntVar(&c.parallel, "parallel", 2, "max_parallel_workers_per_gather of the parallel half of the queries (0: serial only)")
	flag.BoolVar(&c.regression, "regression-mode", true, "SET pg_strom.regression_test_mode = on, so that GPU plans are chosen whatever the costs and also while the service restarts (execution still uses the service when it is ready)")
	flag.IntVar(&c.txnClients, "txn-clients", 2, "sessions of read-write transactions (pgx loop; 0: none)")
	flag.StringVar(&c.pgbench, "pgbench", "", "pgbench binary: run pgbench -S alongside (empty: none)")
	flag.IntVar(&c.pgbenchClients, "pgbench-clients", 4, "pgbench -c")
	flag.IntVar(&c.sideRate, "side-rate", 0, "transactions a second of each pgbench and read-write client (pgbench -R; 0: as fast as they go)")
	flag.IntVar(&c.pgbenchScale, "pgbench-scale", 1, "pgbench -i -s when its tables are absent (or -load always)")
	flag.StringVar(&c.serverLog, "server-log", "", "the server log: lines written during the run that show a crash are reported, and a 'reinitializing' line counts as a cluster restart")
	flag.Int64Var(&c.seed, "seed", 0, "random seed (0: from the clock)")
	flag.DurationVar(&c.stmtTimeout, "statement-timeout", 300*time.Second, "statement_timeout of every query (a query that hangs fails)")
	flag.StringVar(&c.only, "queries", "", "comma-separated query names to run (default: all)")
	flag.StringVar(&c.label, "label", "stress", "name printed on the summary lines")
	flag.Parse()
	if c.seed == 0 {
		c.seed = time.Now().UnixNano()
	}
	os.Exit(run(c))
}

func logf(format string, args ...any) {
	fmt.Printf("%s "+format+"\n", append([]any{time.Now().Format("15:04:05.000")}, args...)...)
}

// connect opens a session with the settings of GPU queries as startup
// parameters, in simple-protocol mode (every value comes back as text).
func connect(ctx context.Context, c config, gpu bool) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(c.dsn)
	if err != nil {
		return nil, err
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	rp := cfg.RuntimeParams
	rp["application_name"] = "pg_strom_stress"
	if gpu {
		rp["pg_strom.enabled"] = "on"
		rp["pg_strom.cpu_fallback"] = "on"
		if c.regression {
			rp["pg_strom.regression_test_mode"] = "on"
		}
		rp["statement_timeout"] = fmt.Sprint(c.stmtTimeout.Milliseconds())
		rp["parallel_setup_cost"] = "0"
		rp["parallel_tuple_cost"] = "0"
		rp["min_parallel_table_scan_size"] = "0"
		rp["max_parallel_workers_per_gather"] = "0"
	} else {
		rp["pg_strom.enabled"] = "off"
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return pgx.ConnectConfig(cctx, cfg)
}

// session tracks the settings a client session has SET, so that only
// changes are sent.
type session struct {
	conn     *pgx.Conn
	parallel int
	set      map[string]bool
}

func (s *session) prepare(ctx context.Context, q query, parallel int) error {
	if parallel != s.parallel {
		if _, err := s.conn.Exec(ctx, fmt.Sprintf("SET max_parallel_workers_per_gather = %d", parallel)); err != nil {
			return err
		}
		s.parallel = parallel
	}
	want := map[string]bool{}
	for _, st := range q.settings {
		want[st] = true
		if !s.set[st] {
			if _, err := s.conn.Exec(ctx, "SET "+st); err != nil {
				return err
			}
			s.set[st] = true
		}
	}
	for st := range s.set {
		if !want[st] {
			if _, err := s.conn.Exec(ctx, "RESET "+strings.Fields(st)[0]); err != nil {
				return err
			}
			delete(s.set, st)
		}
	}
	return nil
}

type serviceStatus struct {
	pid      int
	state    string
	reason   string
	restarts int
}

func readStatus(ctx context.Context, conn *pgx.Conn) (serviceStatus, error) {
	var s serviceStatus
	var pid *int32
	var restarts *int32
	var reason *string
	err := conn.QueryRow(ctx, `SELECT pid, state, reason, restarts FROM pgstrom.gpu_service_status() LIMIT 1`).Scan(&pid, &s.state, &reason, &restarts)
	if reason != nil {
		s.reason = *reason
	}
	if pid != nil {
		s.pid = int(*pid)
	}
	if restarts != nil {
		s.restarts = int(*restarts)
	}
	return s, err
}

func waitReady(ctx context.Context, conn *pgx.Conn, timeout time.Duration, notPid int) (serviceStatus, error) {
	deadline := time.Now().Add(timeout)
	for {
		s, err := readStatus(ctx, conn)
		if err == nil && s.state == "ready" && s.pid != 0 && s.pid != notPid {
			return s, nil
		}
		if err == nil && s.state == "no_gpu" {
			return s, fmt.Errorf("service is %q: %s", s.state, s.reason)
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			if err != nil {
				return s, err
			}
			return s, fmt.Errorf("service is %q (pid %d) after %v", s.state, s.pid, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// errKey is an error's text grouped: SQLSTATE and message, digits elided.
func errKey(err error) (key, full string) {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		full = pe.Code + ": " + pe.Message
		if pe.Detail != "" {
			full += " (DETAIL: " + pe.Detail + ")"
		}
		key = pe.Code + ": " + elideDigits(pe.Message)
	} else {
		full = err.Error()
		key = elideDigits(full)
	}
	return key, full
}

func elideDigits(s string) string {
	var b strings.Builder
	prev := false
	for _, r := range s {
		if r >= '0' && r <= '9' {
			if !prev {
				b.WriteByte('N')
			}
			prev = true
			continue
		}
		prev = false
		b.WriteRune(r)
	}
	return b.String()
}

// errors grouped by key, with one full text and the queries that hit them
type errGroup struct {
	count   int
	example string
	where   map[string]int
}

type errBook struct {
	mu     sync.Mutex
	groups map[string]*errGroup
}

func (b *errBook) add(where string, err error) {
	key, full := errKey(err)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.groups == nil {
		b.groups = map[string]*errGroup{}
	}
	g := b.groups[key]
	if g == nil {
		g = &errGroup{example: full, where: map[string]int{}}
		b.groups[key] = g
	}
	g.count++
	g.where[where]++
}

func (b *errBook) print(indent string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	keys := make([]string, 0, len(b.groups))
	for k := range b.groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return b.groups[keys[i]].count > b.groups[keys[j]].count })
	for _, k := range keys {
		g := b.groups[k]
		var w []string
		for q, n := range g.where {
			w = append(w, fmt.Sprintf("%s %d", q, n))
		}
		sort.Strings(w)
		fmt.Printf("%s%5d  %s\n%s       in: %s\n", indent, g.count, g.example, indent, strings.Join(w, ", "))
	}
}

// per-query counters
type qstats struct {
	ok, failed, wrong atomic.Int64
	gpuPlans          string
}

func run(c config) int {
	ctx := context.Background()
	rng := rand.New(rand.NewSource(c.seed))
	logf("%s: duration %v, %d clients, kill interval %v, %d rows, parallel %d, regression mode %v, %d txn clients, pgbench %q x %d, side rate %d/s (0: unpaced), seed %d",
		c.label, c.duration, c.clients, c.killEvery, c.rows, c.parallel, c.regression, c.txnClients, c.pgbench, c.pgbenchClients, c.sideRate, c.seed)

	admin, err := connect(ctx, c, false)
	if err != nil {
		logf("SETUP FAILED: connect: %v", err)
		return 2
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_strom"); err != nil {
		logf("SETUP FAILED: create extension: %v", err)
		return 2
	}
	st0, err := waitReady(ctx, admin, 300*time.Second, 0)
	if err != nil {
		logf("SETUP FAILED: the GPU service is not ready: %v", err)
		return 2
	}
	logf("service ready: pid %d, restarts %d", st0.pid, st0.restarts)

	// tables
	have := loadedRows(ctx, admin)
	if c.load == "always" || (c.load == "auto" && have != c.rows) {
		t0 := time.Now()
		if err := load(ctx, admin, c.rows, c.parallel); err != nil {
			logf("SETUP FAILED: load: %v", err)
			return 2
		}
		logf("loaded stress_t: %d rows in %.1f s", c.rows, time.Since(t0).Seconds())
	} else if have != c.rows {
		logf("SETUP FAILED: stress_t has %d rows, want %d (-load never)", have, c.rows)
		return 2
	}
	if c.txnClients > 0 {
		if err := loadTxn(ctx, admin); err != nil {
			logf("SETUP FAILED: txn table: %v", err)
			return 2
		}
	}
	if c.pgbench != "" {
		if err := initPgbench(ctx, c, admin); err != nil {
			logf("SETUP FAILED: pgbench -i: %v", err)
			return 2
		}
	}

	// the queries, their expected results and their plans
	all := queries(c.rows)
	var qs []query
	for _, q := range all {
		if c.only == "" || strings.Contains(","+c.only+",", ","+q.name+",") {
			qs = append(qs, q)
		}
	}
	if len(qs) == 0 {
		logf("SETUP FAILED: no query named in -queries %q", c.only)
		return 2
	}
	expected := make([]*result, len(qs))
	for i, q := range qs {
		t0 := time.Now()
		rs, err := admin.Query(ctx, q.sql)
		if err != nil {
			logf("SETUP FAILED: %s on the CPU: %v", q.name, err)
			return 2
		}
		if expected[i], err = readResult(rs); err != nil {
			logf("SETUP FAILED: %s on the CPU: %v", q.name, err)
			return 2
		}
		logf("expected %-16s %7d rows (CPU, %.2f s)", q.name, len(expected[i].rows), time.Since(t0).Seconds())
	}
	parallels := []int{0}
	if c.parallel > 0 {
		parallels = append(parallels, c.parallel)
	}
	stats := make([]qstats, len(qs))
	var wrongs []string
	if code := checkPlans(ctx, c, qs, expected, parallels, stats, &wrongs); code != 0 {
		return code
	}

	// the run
	var (
		wg        sync.WaitGroup
		qerrs     errBook
		seenWrong = map[string]bool{}
		wrongMu   sync.Mutex
		total     atomic.Int64
		mon       = &monitor{}
		txn       = &txnStats{}
		pgb       = &pgbenchResult{}
		kills     = &killStats{}
		logStart  = logSize(c.serverLog)
	)
	if err := mon.start(ctx, c); err != nil {
		logf("SETUP FAILED: monitor: %v", err)
		return 2
	}
	runCtx, stop := context.WithTimeout(ctx, c.duration)
	defer stop()
	t0 := time.Now()
	if c.pgbench != "" {
		wg.Add(1)
		go func() { defer wg.Done(); runPgbench(c, pgb) }()
	}
	for i := 0; i < c.txnClients; i++ {
		wg.Add(1)
		go func(i int) { defer wg.Done(); txnLoop(runCtx, c, i, txn) }(i)
	}
	if c.killEvery > 0 {
		wg.Add(1)
		go func() { defer wg.Done(); killLoop(runCtx, c, kills) }()
	}
	var cwg sync.WaitGroup
	for i := 0; i < c.clients; i++ {
		cwg.Add(1)
		seed := rng.Int63()
		go func() {
			defer cwg.Done()
			r := rand.New(rand.NewSource(seed))
			var s *session
			for runCtx.Err() == nil {
				if s == nil {
					conn, err := connect(ctx, c, true)
					if err != nil {
						qerrs.add("connect", err)
						time.Sleep(200 * time.Millisecond)
						continue
					}
					s = &session{conn: conn, set: map[string]bool{}}
				}
				qi := r.Intn(len(qs))
				q := qs[qi]
				par := parallels[r.Intn(len(parallels))]
				total.Add(1)
				// in-flight queries finish after the deadline: ctx, not runCtx
				got, err := func() (*result, error) {
					if err := s.prepare(ctx, q, par); err != nil {
						return nil, err
					}
					rs, err := s.conn.Query(ctx, q.sql)
					if err != nil {
						return nil, err
					}
					return readResult(rs)
				}()
				if err != nil {
					stats[qi].failed.Add(1)
					qerrs.add(q.name, err)
					if s.conn.IsClosed() || s.conn.PgConn().IsBusy() {
						s.conn.Close(ctx)
						s = nil
					}
					continue
				}
				if d := diff(expected[qi], got); d != "" {
					stats[qi].wrong.Add(1)
					wrongMu.Lock()
					w := fmt.Sprintf("%s (parallel %d): %s", q.name, par, d)
					if !seenWrong[w] && len(wrongs) < 20 {
						seenWrong[w] = true
						wrongs = append(wrongs, w)
					}
					wrongMu.Unlock()
					continue
				}
				stats[qi].ok.Add(1)
			}
			if s != nil {
				s.conn.Close(ctx)
			}
		}()
	}
	cwg.Wait()
	stop()
	wg.Wait()
	elapsed := time.Since(t0)
	mon.stop()

	// after the run: the service is back and still runs the GPU paths
	var after serviceStatus
	afterErr := func() error {
		conn, err := connect(ctx, c, false)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		after, err = waitReady(ctx, conn, 60*time.Second, 0)
		return err
	}()
	postPlans := 0
	if afterErr == nil {
		postPlans = checkPlans(ctx, c, qs[:1], expected[:1], parallels[:1], nil, nil)
	}
	txnCheck := ""
	if c.txnClients > 0 {
		txnCheck = txnVerify(ctx, c, txn)
	}
	logLines, logRestarts := scanLog(c.serverLog, logStart)

	// summary
	var ok, failed, wrong int64
	for i := range stats {
		ok += stats[i].ok.Load()
		failed += stats[i].failed.Load()
		wrong += stats[i].wrong.Load()
	}
	fmt.Printf("\n=== %s summary (%.0f s, %d clients, kill interval %v, %d rows)\n", c.label, elapsed.Seconds(), c.clients, c.killEvery, c.rows)
	pre := ok + failed + wrong - total.Load() // the checks' runs that were wrong
	fmt.Printf("GPU queries: %d run, %d ok, %d failed, %d wrong (of which %d in the plan check before the run)\n", ok+failed+wrong, ok, failed, wrong, pre)
	for i, q := range qs {
		fmt.Printf("    %-16s %-9s ok %6d  failed %4d  wrong %4d   plan: %s\n", q.name, q.node,
			stats[i].ok.Load(), stats[i].failed.Load(), stats[i].wrong.Load(), stats[i].gpuPlans)
	}
	if failed > 0 || len(qerrs.groups) > 0 {
		fmt.Println("failed GPU queries by error:")
		qerrs.print("    ")
	}
	if len(wrongs) > 0 {
		fmt.Println("wrong answers (the first 20 distinct):")
		for _, w := range wrongs {
			fmt.Println("    " + w)
		}
	}
	txnFailed := int64(0)
	if c.txnClients > 0 {
		txnFailed += txn.failed.Load()
		fmt.Printf("transactions (pgx, %d clients, UPDATE+SELECT): %d committed, %d failed%s\n", c.txnClients, txn.committed.Load(), txn.failed.Load(), txnCheck)
		txn.errs.print("    ")
	}
	if c.pgbench != "" {
		txnFailed += pgb.failed + pgb.aborted
		if pgb.err != "" {
			txnFailed++
		}
		fmt.Printf("pgbench -S -c %d: %d transactions, %d failed, %d clients aborted, exit %d%s\n",
			c.pgbenchClients, pgb.processed, pgb.failed, pgb.aborted, pgb.exit, pgb.err)
		for _, l := range pgb.lines {
			fmt.Println("    " + l)
		}
	}
	restarts := -1
	if afterErr == nil {
		restarts = after.restarts - st0.restarts
	}
	fmt.Printf("kills: %d (skipped %d: service not ready in time); service restarts in gpu_service_status: %d; back ready after a kill: avg %.2f s, max %.2f s\n",
		kills.done, kills.skipped, restarts, kills.avg(), kills.max.Seconds())
	if mon.samples > 0 {
		fmt.Printf("service ready in %d of %d status samples (%.0f%% of the run; while it was not, GPU plans ran on the CPU fallback)\n",
			mon.ready, mon.samples, 100*float64(mon.ready)/float64(mon.samples))
	}
	if kills.err != "" {
		fmt.Println("    kill errors: " + kills.err)
	}
	if afterErr != nil {
		fmt.Printf("service after the run: NOT READY: %v\n", afterErr)
	} else {
		fmt.Printf("service after the run: ready, pid %d, restarts %d; GPU plan check after the run: %s\n", after.pid, after.restarts,
			map[bool]string{true: "ok", false: "FAILED"}[postPlans == 0])
	}
	// the monitor and the log see the same restarts: the larger count
	clusterRestarts := max(mon.restarts, logRestarts)
	fmt.Printf("cluster restarts: %d (monitor session lost %d times, postmaster pid %d -> %d, start time %s -> %s; 'reinitializing' in the log %d)\n",
		clusterRestarts, mon.restarts, mon.pm0, mon.pm, mon.start0, mon.startNow, logRestarts)
	for _, l := range logLines {
		fmt.Println("    log: " + l)
	}
	if afterErr != nil || postPlans != 0 {
		clusterRestarts++ // counted as a failure of the run
	}
	verdict := "PASS"
	code := 0
	if c.killEvery > 0 && c.killEvery < c.duration && kills.done == 0 {
		fmt.Println("NO KILL WAS DONE: the run did not test what it was asked to")
		verdict, code = "FAIL", 1
	}
	if c.txnClients > 0 && txn.committed.Load() == 0 || c.pgbench != "" && pgb.processed == 0 {
		fmt.Println("NO TRANSACTION COMPLETED beside the GPU queries: PostgreSQL's own work stopped")
		verdict, code = "FAIL", 1
	}
	if failed > 0 || wrong > 0 || txnFailed > 0 || clusterRestarts > 0 || txnCheck != "" && strings.Contains(txnCheck, "MISMATCH") {
		verdict, code = "FAIL", 1
	}
	fmt.Printf("%s: %s: queries %d, failed %d, wrong %d, txn failures %d, kills %d, service restarts %d, cluster restarts %d\n",
		c.label, verdict, ok+failed+wrong, failed, wrong, txnFailed, kills.done, restarts, clusterRestarts)
	return code
}

// checkPlans runs EXPLAIN ANALYZE of each query in each parallel setting
// (with the service ready): the plan must have the query's pg_strom node
// and no "CPU Path" line, i.e. the rows went through the GPU service; and
// the result of a GPU run must equal the expected one.
func checkPlans(ctx context.Context, c config, qs []query, expected []*result, parallels []int, stats []qstats, wrongNote *[]string) int {
	conn, err := connect(ctx, c, true)
	if err != nil {
		logf("PLAN CHECK FAILED: connect: %v", err)
		return 2
	}
	defer conn.Close(ctx)
	s := &session{conn: conn, set: map[string]bool{}}
	for i, q := range qs {
		var seen []string
		for _, par := range parallels {
			if _, err := waitReady(ctx, conn, 60*time.Second, 0); err != nil {
				logf("PLAN CHECK FAILED: %v", err)
				return 2
			}
			if err := s.prepare(ctx, q, par); err != nil {
				logf("PLAN CHECK FAILED: %s: %v", q.name, err)
				return 2
			}
			rs, err := conn.Query(ctx, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) "+q.sql)
			if err != nil {
				logf("PLAN CHECK FAILED: %s: %v", q.name, err)
				return 2
			}
			var plan []string
			for rs.Next() {
				plan = append(plan, string(rs.RawValues()[0]))
			}
			if err := rs.Err(); err != nil {
				logf("PLAN CHECK FAILED: %s: %v", q.name, err)
				return 2
			}
			text := strings.Join(plan, "\n")
			if !strings.Contains(text, "Custom Scan ("+q.node+")") || strings.Contains(text, "CPU Path") {
				logf("PLAN CHECK FAILED: %s (max_parallel_workers_per_gather %d): want %s run by the service:\n%s", q.name, par, q.node, text)
				return 2
			}
			kind := "serial"
			if strings.Contains(text, "Parallel Custom Scan") {
				kind = "parallel"
			}
			seen = append(seen, kind)
			rs, err = conn.Query(ctx, q.sql)
			if err != nil {
				logf("PLAN CHECK FAILED: %s: GPU run: %v", q.name, err)
				return 2
			}
			got, err := readResult(rs)
			if err != nil {
				logf("PLAN CHECK FAILED: %s: GPU run: %v", q.name, err)
				return 2
			}
			if d := diff(expected[i], got); d != "" {
				// counted, and the run goes on: the summary shows it
				logf("WRONG ANSWER before the run (no kill): %s (max_parallel_workers_per_gather %d): %s", q.name, par, d)
				if stats == nil {
					return 1
				}
				stats[i].wrong.Add(1)
				if wrongNote != nil {
					*wrongNote = append(*wrongNote, fmt.Sprintf("%s (parallel %d, before the run, no kill): %s", q.name, par, d))
				}
			}
		}
		if stats != nil {
			stats[i].gpuPlans = q.node + " " + strings.Join(seen, "+")
			logf("plan ok  %-16s %s", q.name, stats[i].gpuPlans)
		}
	}
	return 0
}

// killStats: SIGKILLs sent to the service and how long it took to be ready again
type killStats struct {
	done, skipped int
	sum, max      time.Duration
	err           string
}

func (k *killStats) avg() float64 {
	if k.done == 0 {
		return 0
	}
	return k.sum.Seconds() / float64(k.done)
}

// killLoop sends SIGKILL to the service every c.killEvery, once it is ready
// (it waits up to one interval for that), and measures how long the
// supervisor takes to have a new one ready.
func killLoop(ctx context.Context, c config, k *killStats) {
	conn, err := connect(context.Background(), c, false)
	if err != nil {
		k.err = err.Error()
		return
	}
	defer conn.Close(context.Background())
	tick := time.NewTicker(c.killEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		st, err := waitReady(ctx, conn, c.killEvery, 0)
		if err != nil {
			k.skipped++
			continue
		}
		if err := syscall.Kill(st.pid, syscall.SIGKILL); err != nil {
			k.err = fmt.Sprintf("kill -9 %d: %v", st.pid, err)
			k.skipped++
			continue
		}
		t0 := time.Now()
		k.done++
		back, err := waitReady(context.Background(), conn, 60*time.Second, st.pid)
		d := time.Since(t0)
		if err != nil {
			logf("kill %d: service pid %d killed; NOT ready again after %v: %v", k.done, st.pid, d, err)
			k.err = fmt.Sprintf("not ready 60 s after kill %d", k.done)
			continue
		}
		k.sum += d
		if d > k.max {
			k.max = d
		}
		logf("kill %d: service pid %d killed, pid %d ready after %.2f s (restarts %d)", k.done, st.pid, back.pid, d.Seconds(), back.restarts)
	}
}
