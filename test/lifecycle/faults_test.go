//go:build lifecycle

package lifecycle

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// Device faults, injected through the TEST-ONLY host executor
// (PG_STROM_HOSTEXEC_FAULTS, see gosvc/hostexec/faults.go), and hostile or
// vanishing clients of a real service.

// hostExecCluster starts a cluster whose service is the host executor with
// the given faults, whatever the machine has: the faults exist only there.
func hostExecCluster(ctx context.Context, t *testing.T, faults string, extraConf ...string) (*cluster, *pgx.Conn) {
	t.Helper()
	installHostExecutor(t)
	c := newCluster(t, extraConf...)
	c.env = append(c.env, "PG_STROM_TEST_HOST_EXECUTOR=1", "PG_STROM_HOSTEXEC_FAULTS="+faults)
	c.start()
	conn := c.connect(ctx)
	if _, err := conn.Exec(ctx, "CREATE EXTENSION pg_strom"); err != nil {
		t.Fatalf("CREATE EXTENSION: %v", err)
	}
	st := waitFor(ctx, t, conn, 60*time.Second, settled)
	if st[0].State != "ready" {
		t.Fatalf("host executor service not ready: %v", describe(st))
	}
	return c, conn
}

// gpuSettings make the planner take the GPU nodes for the small tables
// here, serially (one backend, one connection to the service).
const gpuSettings = `SET pg_strom.gpu_setup_cost = 0; SET pg_strom.gpu_page_cost = 0;
SET pg_strom.gpu_tuple_cost = 0; SET pg_strom.gpu_operator_cost = 0;
SET max_parallel_workers_per_gather = 0`

func mustExec(ctx context.Context, t *testing.T, conn *pgx.Conn, sql string) {
	t.Helper()
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// explain returns EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) of query.
func explain(ctx context.Context, t *testing.T, conn *pgx.Conn, query string) string {
	t.Helper()
	rows, err := conn.Query(ctx, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) "+query)
	if err != nil {
		t.Fatalf("EXPLAIN %s: %v", query, err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("EXPLAIN %s: %v", query, err)
	}
	return strings.Join(lines, "\n")
}

// countSum runs a query returning (bigint, bigint), planned afresh: pgx
// would otherwise prepare it once, and PostgreSQL would run the plan made
// under the settings of that time.
func countSum(ctx context.Context, t *testing.T, conn *pgx.Conn, query string) [2]int64 {
	t.Helper()
	var r [2]int64
	if err := conn.QueryRow(ctx, query, pgx.QueryExecModeSimpleProtocol).Scan(&r[0], &r[1]); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return r
}

func cpuAnswer(ctx context.Context, t *testing.T, conn *pgx.Conn, query string) [2]int64 {
	t.Helper()
	mustExec(ctx, t, conn, "SET pg_strom.enabled = off")
	defer mustExec(ctx, t, conn, "RESET pg_strom.enabled")
	return countSum(ctx, t, conn, query)
}

const scanQuery = "SELECT count(*), sum(v) FROM t_f WHERE v % 7 = 3"

func makeScanTable(ctx context.Context, t *testing.T, conn *pgx.Conn, rows int) {
	t.Helper()
	mustExec(ctx, t, conn, fmt.Sprintf("CREATE TABLE t_f AS SELECT i AS id, (i * 31) %% 100000 AS v FROM generate_series(1, %d) i", rows))
	mustExec(ctx, t, conn, "VACUUM ANALYZE t_f")
	mustExec(ctx, t, conn, gpuSettings)
	// the aggregate stays on the CPU: the scan's rows come back per chunk
	mustExec(ctx, t, conn, "SET pg_strom.enable_gpupreagg = off")
}

// A task that never returns: the backend gives up after
// pg_strom.gpu_task_timeout, closes the connection and finishes on the
// CPU with the right answer; with cpu_fallback off it fails saying why;
// and while it waits (no timeout), statement_timeout still cancels it.
func TestInjectedHangFallsBackWithinTimeout(t *testing.T) {
	ctx := context.Background()
	_, conn := hostExecCluster(ctx, t, "hang_after=0")
	makeScanTable(ctx, t, conn, 50000)
	want := cpuAnswer(ctx, t, conn, scanQuery)
	mustExec(ctx, t, conn, "SET pg_strom.gpu_task_timeout = '2s'")

	plan := explain(ctx, t, conn, scanQuery)
	if !strings.Contains(plan, "GpuScan") ||
		!strings.Contains(plan, "CPU Path: GPU service did not reply within pg_strom.gpu_task_timeout (2s)") {
		t.Fatalf("plan does not show the GpuScan finishing on the CPU after the timeout:\n%s", plan)
	}
	t0 := time.Now()
	got := countSum(ctx, t, conn, scanQuery)
	took := time.Since(t0)
	if got != want {
		t.Fatalf("GpuScan after the timeout: %v, PostgreSQL: %v", got, want)
	}
	if took < 2*time.Second || took > 10*time.Second {
		t.Fatalf("query took %v; want the 2 s timeout and then the CPU, well under 10 s", took)
	}

	mustExec(ctx, t, conn, "SET pg_strom.cpu_fallback = off")
	_, err := conn.Exec(ctx, scanQuery, pgx.QueryExecModeSimpleProtocol)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || !strings.Contains(pgErr.Detail, "did not reply within pg_strom.gpu_task_timeout (2s)") {
		t.Fatalf("with cpu_fallback off: %v, want the timeout as the error's detail", err)
	}
	mustExec(ctx, t, conn, "RESET pg_strom.cpu_fallback")

	mustExec(ctx, t, conn, "SET pg_strom.gpu_task_timeout = 0; SET statement_timeout = '1s'")
	t0 = time.Now()
	_, err = conn.Exec(ctx, scanQuery, pgx.QueryExecModeSimpleProtocol)
	if !errors.As(err, &pgErr) || pgErr.Code != "57014" || time.Since(t0) > 5*time.Second {
		t.Fatalf("statement_timeout while waiting for a hung service: %v after %v, want a cancel (57014) after about 1 s", err, time.Since(t0))
	}
}

// A sticky device error: the chunk's Error reply sends the scan to the CPU
// (the right answer), the service exits, the supervisor restarts it, and
// gpu_service_status() shows the restart and why.
func TestInjectedStickyErrorRestartsService(t *testing.T) {
	ctx := context.Background()
	_, conn := hostExecCluster(ctx, t, "sticky_after=0")
	makeScanTable(ctx, t, conn, 50000)
	want := cpuAnswer(ctx, t, conn, scanQuery)
	before := readStatus(ctx, t, conn)[0]

	if got := countSum(ctx, t, conn, scanQuery); got != want {
		t.Fatalf("GpuScan on a device with a sticky error: %v, PostgreSQL: %v", got, want)
	}
	st := waitFor(ctx, t, conn, 30*time.Second, func(s []serviceStatus) bool {
		return s[0].State == "ready" && s[0].Restarts > before.Restarts && s[0].PID != nil && *s[0].PID != *before.PID
	})
	var lastExit *string
	if err := conn.QueryRow(ctx, "SELECT last_exit FROM pgstrom.gpu_service_status() LIMIT 1").Scan(&lastExit); err != nil {
		t.Fatal(err)
	}
	if lastExit == nil || !strings.Contains(*lastExit, "exited with exit code 1") || !strings.Contains(*lastExit, "device lost") ||
		!strings.Contains(*lastExit, "ILLEGAL_ADDRESS") {
		t.Fatalf("last_exit %v, want the old service's exit code 1 and its device lost reason", lastExit)
	}
	t.Logf("service restarted: %v; last_exit: %s", describe(st), *lastExit)
}

// A device whose pool cannot hold a table of a million groups: the rows
// that find the table full come back to the backend, which aggregates them
// on the CPU; the groups equal PostgreSQL's.
func TestSmallDevicePoolMillionGroups(t *testing.T) {
	ctx := context.Background()
	// one task at a time, so chunks do not compete with the table for
	// the pool (128 MB: gpu_mempool_max_ratio 0.5 of 256 MB)
	_, conn := hostExecCluster(ctx, t, "device_pool=256M", "pg_strom.max_async_tasks = 1")
	mustExec(ctx, t, conn, "CREATE TABLE t_m AS SELECT i AS id, i % 1000000 AS g, i % 1000 AS v FROM generate_series(1, 2000000) i")
	mustExec(ctx, t, conn, "VACUUM ANALYZE t_m")
	// the pool's sizes were worked out for zero-copy chunks: direct-read
	// chunks (32 MB of pages each) change what the table can take
	mustExec(ctx, t, conn, gpuSettings+"; SET pg_strom.regression_test_mode = on; SET work_mem = '256MB'; SET pg_strom.direct_read = off")
	const q = "SELECT g, count(*) AS n, sum(v) AS s FROM t_m GROUP BY g"
	plan := explain(ctx, t, conn, q)
	m := regexpFind(`Recheck Rows: (\d+)`, plan)
	if !strings.Contains(plan, "GpuPreAgg") || m == "" || m == "0" || strings.Contains(plan, "CPU Path") {
		t.Fatalf("plan does not show GpuPreAgg returning rows to the CPU from a full table:\n%s", plan)
	}
	t.Logf("%s", plan)
	// the groups, with pg_strom on and off
	mustExec(ctx, t, conn, "CREATE TEMP TABLE gpu_groups AS "+q)
	mustExec(ctx, t, conn, "SET pg_strom.enabled = off; CREATE TEMP TABLE cpu_groups AS "+q+"; RESET pg_strom.enabled")
	var n, missing, extra int64
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM gpu_groups),
		(SELECT count(*) FROM (SELECT * FROM cpu_groups EXCEPT ALL SELECT * FROM gpu_groups) a),
		(SELECT count(*) FROM (SELECT * FROM gpu_groups EXCEPT ALL SELECT * FROM cpu_groups) b)`).Scan(&n, &missing, &extra); err != nil {
		t.Fatal(err)
	}
	if n != 1000000 || missing != 0 || extra != 0 {
		t.Fatalf("GpuPreAgg with a full table: %d groups, %d missing, %d extra; want PostgreSQL's 1000000", n, missing, extra)
	}
}

func regexpFind(pattern, s string) string {
	m := regexp.MustCompile(pattern).FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	return m[1]
}

type poolStatus struct {
	connections int32
	poolUsed    int64
	hostPinned  int64
}

func readPool(ctx context.Context, t *testing.T, conn *pgx.Conn) poolStatus {
	t.Helper()
	var p poolStatus
	if err := conn.QueryRow(ctx, `SELECT sum(connections)::int, sum(pool_used)::bigint, sum(host_pinned)::bigint
		FROM pgstrom.gpu_service_status()`).Scan(&p.connections, &p.poolUsed, &p.hostPinned); err != nil {
		t.Fatalf("status: %v", err)
	}
	return p
}

// pg_terminate_backend of a backend in the middle of a GPU query: the
// service's connections, pool and pinned memory return to what they were.
func TestTerminateBackendMidQueryReturnsToBaseline(t *testing.T) {
	ctx := context.Background()
	c, conn, _ := serviceCluster(ctx, t)
	makeScanTable(ctx, t, conn, 200000)
	mustExec(ctx, t, conn, `CREATE FUNCTION slow(int) RETURNS bool LANGUAGE sql VOLATILE
		AS $$ SELECT pg_sleep(0.001) IS NOT NULL $$`)
	countSum(ctx, t, conn, scanQuery) // warm the service up
	time.Sleep(1500 * time.Millisecond)
	base := readPool(ctx, t, conn)

	victim := c.connect(ctx)
	mustExec(ctx, t, victim, gpuSettings+"; SET pg_strom.enable_gpupreagg = off")
	var pid int
	if err := victim.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := victim.Exec(ctx, "SELECT count(*) FROM t_f WHERE v % 7 = 3 AND slow(v)", pgx.QueryExecModeSimpleProtocol)
		done <- err
	}()
	// the query holds a connection of the service while it runs
	deadline := time.Now().Add(20 * time.Second)
	for readPool(ctx, t, conn).connections <= base.connections {
		if time.Now().After(deadline) {
			t.Fatal("the query never connected to the service")
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	mustExec(ctx, t, conn, fmt.Sprintf("SELECT pg_terminate_backend(%d)", pid))
	if err := <-done; err == nil {
		t.Fatal("the terminated query succeeded")
	}
	deadline = time.Now().Add(10 * time.Second)
	for {
		now := readPool(ctx, t, conn)
		if now == base {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after pg_terminate_backend the service holds %+v, before the query %+v", now, base)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// pg_ctl stop -m immediate, then start: the old service does not outlive
// its cluster, the next start is not hindered by what it left, and a new
// service comes up on a socket of the new postmaster.
func TestImmediateStopThenStartIsClean(t *testing.T) {
	ctx := context.Background()
	c, conn, st := serviceCluster(ctx, t)
	old := int(*st[0].PID)
	oldPostmaster := c.postmasterPID()
	conn.Close(ctx)
	c.run(filepath.Join(c.bindir, "pg_ctl"), "-D", c.dir, "-m", "immediate", "-w", "stop")
	deadline := time.Now().Add(5 * time.Second)
	for processAlive(old) {
		if time.Now().After(deadline) {
			t.Fatalf("service process %d still alive 5 s after an immediate stop", old)
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.start()
	conn = c.connect(ctx)
	st = waitFor(ctx, t, conn, 60*time.Second, func(s []serviceStatus) bool { return s[0].State == "ready" })
	if *st[0].PID == int32(old) {
		t.Fatal("the same service pid after a restart")
	}
	files := c.socketFiles()
	for _, f := range files {
		if strings.Contains(f, fmt.Sprintf(".pg_strom.%d.", oldPostmaster)) {
			t.Errorf("stale socket %s of the old postmaster survived the start", f)
		}
	}
	if len(files) != len(st) {
		t.Fatalf("socket files %v for %d devices", files, len(st))
	}
	statusOverSocket(t, files[0], 1)
}

// A client that pipelines requests and never reads its replies (as an idle
// cursor does) does not delay another client's status request.
func TestNonReadingClientDoesNotDelayOthers(t *testing.T) {
	ctx := context.Background()
	c, _, _ := serviceCluster(ctx, t)
	path := c.socketFiles()[0]
	hog, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer hog.Close()
	var batch []byte
	for i := uint32(1); i <= 20000; i++ {
		batch = append(batch, protocol.EncodeRequest(protocol.TagStatus, i, nil)...)
	}
	go hog.Write(batch) // blocks once the service stops reading it
	time.Sleep(500 * time.Millisecond)
	for i := 0; i < 5; i++ {
		t0 := time.Now()
		statusOverSocket(t, path, 1)
		if took := time.Since(t0); took > time.Second {
			t.Fatalf("status took %v beside a client that does not read, want < 1 s", took)
		}
	}
}

// refusedAtOnce sends a TaskExec header that claims 1 GB: the service
// answers with an Error and closes the connection well before the message
// deadline, without waiting for the body.
func refusedAtOnce(t *testing.T, path string) {
	t.Helper()
	cl, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	h := protocol.EncodeRequest(protocol.TagTaskExec, 1, nil)
	binary.LittleEndian.PutUint32(h[8:], protocol.MaxLength) // PgStromMsgHeader.length
	if _, err := cl.Write(h); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	cl.SetReadDeadline(t0.Add(5 * time.Second))
	reply, err := io.ReadAll(cl)
	if err != nil {
		t.Fatalf("a header claiming %d bytes was not refused within 5 s: %v", protocol.MaxLength, err)
	}
	if h, err := protocol.DecodeHeader(reply); err != nil || h.Tag != protocol.TagError {
		t.Fatalf("a header claiming %d bytes got %d bytes back (%v), want an Error reply", protocol.MaxLength, len(reply), err)
	}
	if took := time.Since(t0); took > 2*time.Second {
		t.Fatalf("a header claiming %d bytes was refused after %v, want at once", protocol.MaxLength, took)
	}
}

func vmRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatalf("no VmRSS for %d", pid)
	return 0
}

// Clients that send only a header claiming the longest TaskExec message:
// the service does not commit memory for what they claim, and drops each
// after the message deadline (10 s without a byte; where the body budget
// is taken first, in turn, so the test allows for both).  A header that
// claims more than a TaskExec may be (1 GB) is refused at once.
func TestHeaderOnlyClientsAreBoundedAndDropped(t *testing.T) {
	const clients = 2
	ctx := context.Background()
	c, conn, st := serviceCluster(ctx, t)
	pid := int(*st[0].PID)
	path := c.socketFiles()[0]
	base := readPool(ctx, t, conn).connections
	rss0 := vmRSS(t, pid)
	refusedAtOnce(t, path)
	var conns []net.Conn
	for i := 0; i < clients; i++ {
		cl, err := net.Dial("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		h := protocol.EncodeRequest(protocol.TagTaskExec, uint32(i+1), nil)
		binary.LittleEndian.PutUint32(h[8:], uint32(xpu.MaxTaskExecLength)) // PgStromMsgHeader.length
		if _, err := cl.Write(h); err != nil {
			t.Fatal(err)
		}
		conns = append(conns, cl)
	}
	time.Sleep(2 * time.Second) // the connections' counts reach the status
	if grew := vmRSS(t, pid) - rss0; grew > 64<<20 {
		t.Fatalf("the service grew by %d MB for %d headers claiming 1 GB each", grew>>20, clients)
	}
	if n := readPool(ctx, t, conn).connections; n < base+clients {
		t.Fatalf("%d connections, want the %d header-only clients counted (base %d)", n, clients, base)
	}
	statusOverSocket(t, path, 1) // others are served meanwhile
	t0 := time.Now()
	for i, cl := range conns {
		cl.SetReadDeadline(time.Now().Add(clients*10*time.Second + 15*time.Second))
		buf := make([]byte, 4096)
		for {
			if _, err := cl.Read(buf); err != nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					t.Fatalf("header-only client %d was not dropped", i)
				}
				break
			}
		}
		if i == 0 && time.Since(t0) < 7*time.Second {
			t.Fatalf("a header-only client was dropped after %v, before the 10 s message deadline", time.Since(t0))
		}
	}
	waitFor(ctx, t, conn, 5*time.Second, func([]serviceStatus) bool { return readPool(ctx, t, conn).connections == base })
}
