//go:build lifecycle

package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Cursors that stop reading a GpuJoin that fans out, or read it slowly,
// must not slow down other sessions' GPU queries: the service gives the
// worker of a command that waits for its client to other commands.
//
// A backend reads a chunk's whole answer before it emits the chunk's first
// row, and reads nothing while its client does not fetch.  So a cursor
// stops the service's writer only if a chunk after the one FETCH 1 read
// answers more than the socket buffers and the per-connection outbox
// (128 MB) hold, and its rows must still be few enough to read at the
// end.  The cursor's rows are placed for that.  With pg_strom.zero_copy
// off, chunks are page copies of 4096 pages (GPU_TASK_CHUNK_MAX_BLOCKS),
// whatever shared_buffers is; the cursor takes fairHead rows at the end of
// t_out's first chunk and fairBody rows of its second, each matching
// fairFanout rows of t_in.  FETCH 1 reads the first chunk's 200 000
// records, which last a slow reader 40 s; the second chunk's 25 million
// (200 MB) wait in the service.

const (
	fairWorkers = 4     // pg_strom.max_async_tasks
	fairStalled = 4     // cursors that stop reading: at least fairWorkers
	fairSlow    = 2     // cursors that fetch 1000 rows every 200 ms
	fairFanout  = 1000  // t_in rows of each of the 10 keys
	fairHead    = 200   // the cursor's t_out rows in the first chunk
	fairBody    = 25000 // the cursor's t_out rows in the second chunk
	// about 185 rows a page: a little more than one chunk of pages
	fairOutRows    = 800000
	fairChunkPages = 4096
)

// fairProbes are the other session's queries, over small tables, with the
// node each plan must have.
var fairProbes = []struct{ node, query string }{
	{"Custom Scan (GpuScan)", "SELECT id, v FROM t_f WHERE v % 7 = 3"},
	{"Custom Scan (GpuPreAgg)", "SELECT g, count(*), sum(v), min(id) FROM t_f GROUP BY g"},
	{"Custom Scan (GpuJoin)", "SELECT f.id, d.name FROM t_f f JOIN t_fd d ON f.g = d.g WHERE f.v % 11 = 1"},
}

// probeSettings: serial GPU plans, and GpuJoin rather than PostgreSQL's
// joins.
const probeSettings = gpuSettings + `; SET enable_hashjoin = off; SET enable_mergejoin = off;
SET enable_nestloop = off`

// cursorSettings: chunks of page copies, cut where the test placed the
// cursor's rows.
const cursorSettings = probeSettings + "; SET pg_strom.direct_read = off; SET pg_strom.zero_copy = off"

// fairCluster starts a cluster whose service is the host executor with
// fairWorkers workers.  The test is skipped where the host executor does
// not build or does not start: only it can stand in for a GPU here.
func fairCluster(ctx context.Context, t *testing.T) (*cluster, *pgx.Conn) {
	t.Helper()
	if os.Getenv("PGSTROM_HOSTEXEC_SO") == "" {
		so := filepath.Join(t.TempDir(), "pg_strom_gosvc_hostexec.so")
		build := exec.Command("go", "build", "-buildmode=c-shared", "-o", so,
			"./gosvc/hostexec/cmd/pg_strom_gosvc_hostexec")
		build.Dir = "../.."
		build.Env = append(os.Environ(), "CGO_ENABLED=1")
		if b, err := build.CombinedOutput(); err != nil {
			t.Skipf("the host executor does not build: %v\n%s", err, b)
		}
		t.Setenv("PGSTROM_HOSTEXEC_SO", so)
	}
	installHostExecutor(t)
	c := newCluster(t, fmt.Sprintf("pg_strom.max_async_tasks = %d", fairWorkers), "autovacuum = off")
	c.env = append(c.env, "PG_STROM_TEST_HOST_EXECUTOR=1")
	c.start()
	conn := c.connect(ctx)
	mustExec(ctx, t, conn, "CREATE EXTENSION pg_strom")
	st := waitFor(ctx, t, conn, 60*time.Second, settled)
	if st[0].State != "ready" {
		t.Skipf("the host executor service did not start: %v", describe(st))
	}
	if st[0].Workers == nil || *st[0].Workers != fairWorkers {
		t.Fatalf("service status %v, want %d workers", describe(st), fairWorkers)
	}
	return c, conn
}

// sortedRows is a query's rows in text form, sorted; the query is planned
// afresh under the session's settings.
func sortedRows(ctx context.Context, conn *pgx.Conn, q string) ([]string, error) {
	rows, err := textRows(ctx, conn, q)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, "|")
	}
	slices.Sort(out)
	return out, nil
}

// timedProbe runs q, checks its rows against want and returns how long it
// took.
func timedProbe(ctx context.Context, t *testing.T, conn *pgx.Conn, q string, want []string) time.Duration {
	t.Helper()
	t0 := time.Now()
	got, err := sortedRows(ctx, conn, q)
	took := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s: %d rows, not PostgreSQL's %d", q, len(got), len(want))
	}
	return took
}

// perOuter sums what a t_out row was joined with: an exact check of each
// outer row's matches that needs no order and no copy of the rows.
type perOuter struct{ n, sumW, sumW2 int64 }

// fairCursor is a session with the cursor c open in a transaction.
type fairCursor struct {
	conn    *pgx.Conn
	fetched int64              // rows fetched before the drain
	rows    map[int64]perOuter // by v, for the cursor read whole; else nil
}

// textInt parses a non-negative integer in text form: the rows read whole
// are many, and Scan's conversions would take most of their time.
func textInt(b []byte) (int64, bool) {
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, len(b) > 0
}

// fetchInto runs a FETCH, keeps its rows where fc.rows is kept, and
// returns their number.
func (fc *fairCursor) fetchInto(ctx context.Context, fetch string) (int64, error) {
	rows, err := fc.conn.Query(ctx, fetch, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var n int64
	for rows.Next() {
		raw := rows.RawValues()
		if len(raw) != 2 {
			return n, fmt.Errorf("%s: %d columns", fetch, len(raw))
		}
		v, okV := textInt(raw[0])
		w, okW := textInt(raw[1])
		if !okV || !okW {
			return n, fmt.Errorf("%s: row (%q, %q)", fetch, raw[0], raw[1])
		}
		n++
		if fc.rows != nil {
			p := fc.rows[v]
			fc.rows[v] = perOuter{p.n + 1, p.sumW + w, p.sumW2 + w*w}
		}
	}
	return n, rows.Err()
}

// drain reads the rest of the cursor, whole where fc.rows is kept, else
// by MOVE, which counts the rows without sending them; it returns all the
// rows the cursor gave.
func (fc *fairCursor) drain(ctx context.Context) (int64, error) {
	total := fc.fetched
	if fc.rows != nil {
		for {
			n, err := fc.fetchInto(ctx, "FETCH 200000 FROM c")
			if err != nil {
				return total, err
			}
			if n == 0 {
				break
			}
			total += n
		}
	} else {
		tag, err := fc.conn.Exec(ctx, "MOVE FORWARD ALL IN c", pgx.QueryExecModeSimpleProtocol)
		if err != nil {
			return total, err
		}
		total += tag.RowsAffected()
	}
	_, err := fc.conn.Exec(ctx, "COMMIT", pgx.QueryExecModeSimpleProtocol)
	return total, err
}

// With fairWorkers workers, fairStalled cursors stop after FETCH 1 and
// fairSlow read slowly, and meanwhile another session's GpuScan, GpuPreAgg
// and GpuJoin each finish within 1 s of their time on an idle service,
// with PostgreSQL's answers.  Then every cursor gives PostgreSQL's rows:
// one is read whole and compared per t_out row, the others are counted.
// (Should a stall outlast the service's write timeout, the backend
// finishes on the CPU, with the same rows.)
func TestStalledCursorsDoNotSlowOthers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	tStart := time.Now()
	c, conn := fairCluster(ctx, t)

	mustExec(ctx, t, conn, fmt.Sprintf(`CREATE TABLE t_out AS SELECT i AS id, i %% 10 AS k, i AS v
		FROM generate_series(1, %d) i`, fairOutRows))
	mustExec(ctx, t, conn, fmt.Sprintf(`CREATE TABLE t_in AS SELECT i AS id, i %% 10 AS k, i AS w
		FROM generate_series(1, %d) i`, 10*fairFanout))
	mustExec(ctx, t, conn, `CREATE TABLE t_f AS SELECT i AS id, i % 40 AS g, (i * 31) % 100000 AS v
		FROM generate_series(1, 50000) i`)
	mustExec(ctx, t, conn, "CREATE TABLE t_fd AS SELECT g, 'name ' || g AS name FROM generate_series(0, 29) g")
	for _, tbl := range []string{"t_out", "t_in", "t_f", "t_fd"} {
		mustExec(ctx, t, conn, "VACUUM ANALYZE "+tbl)
	}
	var first, last int64
	if err := conn.QueryRow(ctx, fmt.Sprintf("SELECT min(id), max(id) FROM t_out WHERE ctid >= '(%d,1)'", fairChunkPages)).
		Scan(&first, &last); err != nil {
		t.Fatalf("t_out's rows from page %d on: %v", fairChunkPages, err)
	}
	lo, hi := first-fairHead, first+fairBody-1
	if lo < 1 || hi > last {
		t.Fatalf("t_out holds ids %d..%d from page %d on, fewer than the %d rows the cursor takes there",
			first, last, fairChunkPages, fairBody)
	}
	cursorQuery := fmt.Sprintf("SELECT o.v, i.w FROM t_out o JOIN t_in i ON o.k = i.k WHERE o.id BETWEEN %d AND %d", lo, hi)

	// PostgreSQL's answers, with its own plans
	mustExec(ctx, t, conn, "SET pg_strom.enabled = off")
	want := map[int64]perOuter{}
	var wantRows int64
	rows, err := conn.Query(ctx, fmt.Sprintf(`SELECT o.v, count(*), sum(i.w), sum(i.w::int8 * i.w)
		FROM t_out o JOIN t_in i ON o.k = i.k WHERE o.id BETWEEN %d AND %d GROUP BY o.v`, lo, hi),
		pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var v int64
		var p perOuter
		if err := rows.Scan(&v, &p.n, &p.sumW, &p.sumW2); err != nil {
			t.Fatal(err)
		}
		want[v] = p
		wantRows += p.n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	wantProbe := make([][]string, len(fairProbes))
	for i, p := range fairProbes {
		if wantProbe[i], err = sortedRows(ctx, conn, p.query); err != nil {
			t.Fatal(err)
		}
	}
	mustExec(ctx, t, conn, "RESET pg_strom.enabled; "+probeSettings)
	for _, p := range fairProbes {
		if plan := explainPlain(ctx, t, conn, p.query); !strings.Contains(plan, p.node) {
			t.Fatalf("the plan of %s has no %s:\n%s", p.query, p.node, plan)
		}
	}

	// on an idle service: the median of three runs
	idle := make([]time.Duration, len(fairProbes))
	for i, p := range fairProbes {
		var runs []time.Duration
		for range 3 {
			runs = append(runs, timedProbe(ctx, t, conn, p.query, wantProbe[i]))
		}
		slices.Sort(runs)
		idle[i] = runs[1]
	}

	cursors := make([]*fairCursor, fairStalled+fairSlow)
	var stalledPIDs []int32
	for i := range cursors {
		fc := &fairCursor{conn: c.connect(ctx)}
		mustExec(ctx, t, fc.conn, cursorSettings)
		if i < fairStalled {
			var pid int32
			if err := fc.conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
				t.Fatal(err)
			}
			stalledPIDs = append(stalledPIDs, pid)
		}
		if i == 0 {
			fc.rows = map[int64]perOuter{}
			// a cursor is planned for its first rows: its own plan
			plan := explainPlain(ctx, t, fc.conn, "DECLARE c NO SCROLL CURSOR FOR "+cursorQuery)
			if !strings.Contains(plan, "Custom Scan (GpuJoin) on t_out") {
				t.Fatalf("the cursor's plan has no GpuJoin over t_out, so nothing fans out in the service:\n%s", plan)
			}
		}
		mustExec(ctx, t, fc.conn, "BEGIN")
		mustExec(ctx, t, fc.conn, "DECLARE c NO SCROLL CURSOR FOR "+cursorQuery)
		cursors[i] = fc
	}
	t.Logf("set up in %v; each cursor returns %d rows (t_out ids %d..%d, page %d from id %d)",
		time.Since(tStart).Round(time.Millisecond), wantRows, lo, hi, fairChunkPages, first)

	tStall := time.Now()
	for _, fc := range cursors[:fairStalled] {
		n, err := fc.fetchInto(ctx, "FETCH 1 FROM c")
		if err != nil || n != 1 {
			t.Fatalf("FETCH 1: %d rows, %v", n, err)
		}
		fc.fetched = n
	}
	stopSlow := make(chan struct{})
	slowErr := make(chan error, fairSlow)
	var slowWG sync.WaitGroup
	for _, fc := range cursors[fairStalled:] {
		slowWG.Add(1)
		go func() {
			defer slowWG.Done()
			for {
				n, err := fc.fetchInto(ctx, "FETCH 1000 FROM c")
				fc.fetched += n
				if err != nil {
					slowErr <- err
					return
				}
				select {
				case <-stopSlow:
					return
				case <-time.After(200 * time.Millisecond):
				}
			}
		}()
	}
	stopped := false
	stopReaders := func() {
		stopped = true
		close(stopSlow)
		slowWG.Wait()
	}
	defer func() {
		if !stopped {
			// ending early: a reader's FETCH may be waiting for the service
			cancel()
			stopReaders()
		}
	}()

	// Unless every cursor's second chunk waits for its client, the probes
	// below measure nothing.
	var busy, suspended int32
	for deadline := time.Now().Add(20 * time.Second); ; {
		if err := conn.QueryRow(ctx, "SELECT busy, suspended FROM pgstrom.gpu_service_status()").Scan(&busy, &suspended); err != nil {
			t.Fatal(err)
		}
		if suspended >= fairStalled+fairSlow {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v after the cursors stopped reading, %d commands wait for their clients (%d hold a worker), want %d",
				time.Since(tStall).Round(time.Millisecond), suspended, busy, fairStalled+fairSlow)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("%v after FETCH 1: %d commands wait for their clients, %d of %d workers busy",
		time.Since(tStall).Round(time.Millisecond), suspended, busy, fairWorkers)
	checkStalledClientsShown(ctx, t, conn, stalledPIDs)

	for i, p := range fairProbes {
		var worst time.Duration
		for range 2 {
			worst = max(worst, timedProbe(ctx, t, conn, p.query, wantProbe[i]))
		}
		t.Logf("%s: idle %v, beside %d stalled and %d slow cursors %v", p.node,
			idle[i].Round(time.Microsecond), fairStalled, fairSlow, worst.Round(time.Microsecond))
		if worst > idle[i]+time.Second {
			t.Errorf("%s took %v beside the stalled cursors, %v on an idle service: want at most 1 s more",
				p.query, worst, idle[i])
		}
		// quick because the service answered, not because it was left out
		if plan := explain(ctx, t, conn, p.query); strings.Contains(plan, "CPU Path") {
			t.Fatalf("%s ran on the CPU beside the stalled cursors:\n%s", p.query, plan)
		}
	}
	select {
	case err := <-slowErr:
		t.Fatalf("slow reader: %v", err)
	default:
	}
	stopReaders()
	for _, fc := range cursors[fairStalled:] {
		if fc.fetched == 0 {
			t.Fatal("a slow reader fetched nothing")
		}
	}
	t.Logf("cursors stalled for %v; the slow readers fetched %d and %d rows",
		time.Since(tStall).Round(time.Millisecond), cursors[fairStalled].fetched, cursors[fairStalled+1].fetched)

	tDrain := time.Now()
	totals := make([]int64, len(cursors))
	errs := make([]error, len(cursors))
	var wg sync.WaitGroup
	for i, fc := range cursors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			totals[i], errs[i] = fc.drain(ctx)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("reading the cursors: %v", err)
	}
	t.Logf("all cursors read in %v (one whole, %d by MOVE)", time.Since(tDrain).Round(time.Millisecond), len(cursors)-1)
	for i, n := range totals {
		if n != wantRows {
			t.Errorf("cursor %d gave %d rows, PostgreSQL %d", i, n, wantRows)
		}
	}
	got := cursors[0].rows
	var differ []string
	for v, p := range want {
		if got[v] != p {
			differ = append(differ, fmt.Sprintf("v=%d: %+v, PostgreSQL %+v", v, got[v], p))
		}
	}
	for v, p := range got {
		if _, ok := want[v]; !ok {
			differ = append(differ, fmt.Sprintf("v=%d: %+v, not in PostgreSQL's rows", v, p))
		}
	}
	if len(differ) > 0 {
		slices.Sort(differ)
		t.Fatalf("the cursor read whole differs from PostgreSQL for %d t_out rows, e.g. %s", len(differ), differ[0])
	}
	t.Logf("whole test %v", time.Since(tStart).Round(time.Millisecond))
}

// checkStalledClientsShown: pgstrom.gpu_service_clients() names each
// stalled cursor's backend with reply bytes waiting for it (the status is
// refreshed every second).
func checkStalledClientsShown(ctx context.Context, t *testing.T, conn *pgx.Conn, pids []int32) {
	t.Helper()
	var got map[int32]int64
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		got = map[int32]int64{}
		rows, err := conn.Query(ctx, "SELECT pid, reply_bytes FROM pgstrom.gpu_service_clients()")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var pid int32
			var bytes int64
			if err := rows.Scan(&pid, &bytes); err != nil {
				t.Fatal(err)
			}
			got[pid] = bytes
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		shown := 0
		for _, pid := range pids {
			if got[pid] > 0 {
				shown++
			}
		}
		if shown == len(pids) {
			t.Logf("gpu_service_clients() shows the %d stalled backends with reply bytes waiting: %v", len(pids), got)
			return
		}
	}
	t.Errorf("gpu_service_clients() = %v (pid: reply bytes), want each stalled cursor's backend %v with reply bytes waiting", got, pids)
}
