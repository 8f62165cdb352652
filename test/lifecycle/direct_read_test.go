//go:build lifecycle

package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Direct read: a table larger than shared_buffers, all-visible after a
// VACUUM, is read by the service from the relation's files.  Every query
// runs on the GPU service, or without a GPU on the host executor (the
// service's real path, the device work done on the CPU), and is compared
// with PostgreSQL's own answer.  The fault tests need the host executor.

// directConf: shared buffers far smaller than the ~100 MB tables below.
var directConf = []string{"shared_buffers = 16MB", "autovacuum = off"}

// directQueries are a GpuScan, a GpuPreAgg and a GpuJoin (t_d outer) over t_d.
var directQueries = []string{
	`SELECT id, g, v FROM t_d WHERE v % 97 = 3`,
	`SELECT g, count(*), sum(v), min(id), max(id) FROM t_d WHERE v <> 13 GROUP BY g`,
	`SELECT t_d.id, t_dim.name FROM t_d JOIN t_dim ON t_d.g = t_dim.g WHERE t_d.v % 89 = 5`,
}

// makeDirectTable makes t_d (about 100 MB, 12 500 pages) in tablespace spc
// ("" for the default), vacuumed (all-visible) and checkpointed (clean).
func makeDirectTable(ctx context.Context, t *testing.T, conn *pgx.Conn, spc string) {
	t.Helper()
	where := ""
	if spc != "" {
		where = " TABLESPACE " + spc
	}
	mustExec(ctx, t, conn, "DROP TABLE IF EXISTS t_d")
	mustExec(ctx, t, conn, `CREATE TABLE t_d`+where+` AS SELECT i AS id, ((i::int8 * 7919) % 50)::int AS g,
		(i::int8 * 104729) % 100000 AS v, repeat('x', 40) AS pad FROM generate_series(1, 1100000) i`)
	mustExec(ctx, t, conn, "VACUUM (FREEZE, ANALYZE) t_d")
	mustExec(ctx, t, conn, "DROP TABLE IF EXISTS t_dim")
	mustExec(ctx, t, conn, "CREATE TABLE t_dim AS SELECT g, 'name ' || g AS name FROM generate_series(0, 39) g")
	mustExec(ctx, t, conn, "ANALYZE t_dim")
	mustExec(ctx, t, conn, "CHECKPOINT")
}

// sameAsPostgreSQL compares q with pg_strom on (as the session is set) and
// off, as multisets, in the session's current transaction.
func sameAsPostgreSQL(ctx context.Context, t *testing.T, conn pgxQuerier, q string) error {
	t.Helper()
	var n, missing, extra int64
	cmp := fmt.Sprintf(`WITH gpu AS MATERIALIZED (%s), cpu AS MATERIALIZED (SELECT * FROM pg_temp.cpu_result)
		SELECT (SELECT count(*) FROM gpu),
		(SELECT count(*) FROM (SELECT * FROM cpu EXCEPT ALL SELECT * FROM gpu) a),
		(SELECT count(*) FROM (SELECT * FROM gpu EXCEPT ALL SELECT * FROM cpu) b)`, q)
	for _, s := range []string{"DROP TABLE IF EXISTS pg_temp.cpu_result",
		"SET LOCAL pg_strom.enabled = off", "CREATE TEMP TABLE cpu_result AS " + q,
		"SET LOCAL pg_strom.enabled = on"} {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	if err := conn.QueryRow(ctx, cmp).Scan(&n, &missing, &extra); err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	if n == 0 || missing != 0 || extra != 0 {
		return fmt.Errorf("%s: %d rows, %d missing, %d extra against PostgreSQL", q, n, missing, extra)
	}
	return nil
}

type pgxQuerier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// inTx runs f in a transaction of the given isolation level.
func inTx(ctx context.Context, conn *pgx.Conn, iso pgx.TxIsoLevel, f func(tx pgx.Tx) error) error {
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: iso})
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := f(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// directCounts reads "Direct Read Blocks: N  Shared Buffer Blocks: M
// Bounced Blocks: B" from an EXPLAIN ANALYZE (summed over its nodes);
// ok is false when no node read directly.
func directCounts(plan string) (direct, shared, bounced int, ok bool) {
	for _, l := range strings.Split(plan, "\n") {
		d := regexpFind(`Direct Read Blocks: (\d+)`, l)
		if d == "" {
			continue
		}
		ok = true
		n, _ := strconv.Atoi(d)
		direct += n
		n, _ = strconv.Atoi(regexpFind(`Shared Buffer Blocks: (\d+)`, l))
		shared += n
		n, _ = strconv.Atoi(regexpFind(`Bounced Blocks: (\d+)`, l))
		bounced += n
	}
	return
}

// checksumsOn says whether the stopped cluster has data checksums: initdb
// turns them on by default from PostgreSQL 18 on, off before.
func checksumsOn(t *testing.T, c *cluster) bool {
	t.Helper()
	out, err := c.asOwner(filepath.Join(c.bindir, "pg_controldata"), "-D", c.dir).CombinedOutput()
	if err != nil {
		t.Fatalf("pg_controldata: %v\n%s", err, out)
	}
	return !regexp.MustCompile(`(?m)^Data page checksum version:\s+0$`).Match(out)
}

// directCluster starts a cluster with directConf whose service is the GPU
// service or, on a machine without a GPU, the host executor; data checksums
// are on with checksums, off otherwise (the tests that patch pages in the
// files need them off), set before the first start.
func directCluster(ctx context.Context, t *testing.T, checksums ...bool) (*cluster, *pgx.Conn) {
	t.Helper()
	c := newCluster(t, directConf...)
	want := len(checksums) > 0 && checksums[0]
	if on := checksumsOn(t, c); on && !want {
		c.run(filepath.Join(c.bindir, "pg_checksums"), "--disable", "-D", c.dir)
	} else if !on && want {
		c.run(filepath.Join(c.bindir, "pg_checksums"), "--enable", "-D", c.dir)
	}
	c.start()
	conn := c.connect(ctx)
	mustExec(ctx, t, conn, "CREATE EXTENSION pg_strom")
	st := waitFor(ctx, t, conn, 60*time.Second, settled)
	if st[0].State == "no_gpu" {
		conn.Close(ctx)
		c.stop()
		installHostExecutor(t)
		c.env = append(c.env, "PG_STROM_TEST_HOST_EXECUTOR=1")
		c.start()
		conn = c.connect(ctx)
		st = waitFor(ctx, t, conn, 60*time.Second, settled)
	}
	if st[0].State != "ready" {
		t.Fatalf("service not ready: %v", describe(st))
	}
	mustExec(ctx, t, conn, "SET pg_strom.regression_test_mode = on")
	mustExec(ctx, t, conn, gpuSettings)
	return c, conn
}

// restartReady starts c again and returns a session with the GPU settings
// once the service is ready: a query sent while the service still starts
// takes the CPU path, and these tests assert the GPU's data path.
func restartReady(ctx context.Context, t *testing.T, c *cluster) *pgx.Conn {
	t.Helper()
	c.start()
	conn := c.connect(ctx)
	if st := waitFor(ctx, t, conn, 60*time.Second, settled); st[0].State != "ready" {
		t.Fatalf("service not ready after the restart: %v", describe(st))
	}
	mustExec(ctx, t, conn, "SET pg_strom.regression_test_mode = on")
	mustExec(ctx, t, conn, gpuSettings)
	return conn
}

func TestDirectReadLargerThanSharedBuffers(t *testing.T) {
	ctx := context.Background()
	c, conn := directCluster(ctx, t)
	makeDirectTable(ctx, t, conn, "")
	var pages int
	if err := conn.QueryRow(ctx, "SELECT relpages FROM pg_class WHERE relname = 't_d'").Scan(&pages); err != nil {
		t.Fatal(err)
	}

	for _, q := range directQueries {
		plan := explain(ctx, t, conn, q)
		direct, shared, bounced, ok := directCounts(plan)
		// the pages in shared buffers (the few the last query's rows were
		// formed from) go the zero-copy way, all others by number
		if !ok || direct+shared != pages || direct < pages/2 || bounced != 0 {
			t.Fatalf("%s: want the %d pages read directly but for those in shared buffers, got direct %d shared %d bounced %d:\n%s", q, pages, direct, shared, bounced, plan)
		}
		if strings.Contains(q, "JOIN") && !strings.Contains(plan, "GpuJoin") {
			t.Fatalf("%s: not a GpuJoin:\n%s", q, plan)
		}
		if err := inTx(ctx, conn, pgx.ReadCommitted, func(tx pgx.Tx) error { return sameAsPostgreSQL(ctx, t, tx, q) }); err != nil {
			t.Fatal(err)
		}
	}

	// EXPLAIN without ANALYZE claims nothing; the GUC switches the path off
	if plan := explainPlain(ctx, t, conn, directQueries[0]); strings.Contains(plan, "Direct Read") {
		t.Errorf("EXPLAIN without ANALYZE shows direct-read counts:\n%s", plan)
	}
	// a table whole in shared buffers goes the zero-copy way: the device
	// reads those pages where they lie, where a file read would copy them
	mustExec(ctx, t, conn, "CREATE EXTENSION IF NOT EXISTS pg_prewarm")
	mustExec(ctx, t, conn, "CREATE TABLE t_resident AS SELECT i AS id, i % 97 AS v FROM generate_series(1, 20000) i")
	mustExec(ctx, t, conn, "VACUUM FREEZE t_resident")
	mustExec(ctx, t, conn, "SELECT pg_prewarm('t_resident')")
	resident := "SELECT id FROM t_resident WHERE v = 3"
	if plan := explain(ctx, t, conn, resident); strings.Contains(plan, "Direct Read") || !strings.Contains(plan, "Zero-Copy Pages") {
		t.Errorf("a table in shared buffers was read from its file:\n%s", plan)
	}
	if err := inTx(ctx, conn, pgx.ReadCommitted, func(tx pgx.Tx) error { return sameAsPostgreSQL(ctx, t, tx, resident) }); err != nil {
		t.Fatal(err)
	}

	mustExec(ctx, t, conn, "SET pg_strom.direct_read = off")
	if plan := explain(ctx, t, conn, directQueries[1]); strings.Contains(plan, "Direct Read") {
		t.Errorf("pg_strom.direct_read = off still reads directly:\n%s", plan)
	}
	mustExec(ctx, t, conn, "RESET pg_strom.direct_read")

	// parallel workers share the blocks out; each reads its own directly
	mustExec(ctx, t, conn, parallelGPU)
	for _, q := range []string{directQueries[1],
		"/* GpuScan under a partial Agg */ SELECT count(*), sum(v), max(id) FROM t_d WHERE v % 97 = 3"} {
		if strings.Contains(q, "GpuScan") {
			mustExec(ctx, t, conn, "SET pg_strom.enable_gpupreagg = off")
		}
		plan := explain(ctx, t, conn, q)
		if direct, shared, _, _ := directCounts(plan); !strings.Contains(plan, "Workers Launched") || direct+shared != pages || direct == 0 {
			t.Fatalf("%s: a parallel plan reading %d pages directly of %d (shared %d):\n%s", q, direct, pages, shared, plan)
		}
		if err := inTx(ctx, conn, pgx.ReadCommitted, func(tx pgx.Tx) error { return sameAsPostgreSQL(ctx, t, tx, q) }); err != nil {
			t.Fatal(err)
		}
	}
	mustExec(ctx, t, conn, "SET max_parallel_workers_per_gather = 0; RESET pg_strom.enable_gpupreagg")

	// Pages dirty in shared buffers (all-visible, not yet written): VACUUM
	// after an UPDATE sets PD_ALL_VISIBLE in buffers it leaves dirty.  They
	// must come through the buffer manager, the rest from the files.
	mustExec(ctx, t, conn, "UPDATE t_d SET v = v + 1 WHERE id % 5000 = 0")
	mustExec(ctx, t, conn, "VACUUM t_d")
	plan := explain(ctx, t, conn, directQueries[1])
	if direct, shared, _, ok := directCounts(plan); !ok || shared == 0 || direct == 0 {
		t.Errorf("after an UPDATE and VACUUM (dirty buffers) want both ways, got direct %d shared %d:\n%s", direct, shared, plan)
	}
	for _, q := range directQueries {
		if err := inTx(ctx, conn, pgx.ReadCommitted, func(tx pgx.Tx) error { return sameAsPostgreSQL(ctx, t, tx, q) }); err != nil {
			t.Fatal(err)
		}
	}

	// A page whose file image says not all-visible while the visibility
	// map says all-visible (PD_ALL_VISIBLE cleared in the file while the
	// server is stopped) is bounced and read through shared buffers.
	mustExec(ctx, t, conn, "CHECKPOINT")
	path := relationFile(ctx, t, conn, "t_d")
	conn.Close(ctx)
	c.stop()
	for _, blk := range []int64{0, 7, 4000} {
		patchFile(t, filepath.Join(c.dir, path), blk*8192+10, func(b []byte) { b[0] &^= 0x04 }) // pd_flags: PD_ALL_VISIBLE
	}
	conn = restartReady(ctx, t, c)
	for i, q := range directQueries {
		plan := explain(ctx, t, conn, q)
		// the first scan reads the bounced blocks into shared buffers, so
		// later scans take those the zero-copy way
		if _, _, bounced, _ := directCounts(plan); (i == 0 && bounced != 3) || bounced > 3 {
			t.Errorf("%s: %d bounced blocks, want the 3 patched (the first scan) or fewer:\n%s", q, bounced, plan)
		}
		if err := inTx(ctx, conn, pgx.ReadCommitted, func(tx pgx.Tx) error { return sameAsPostgreSQL(ctx, t, tx, q) }); err != nil {
			t.Fatal(err)
		}
	}
}

// Writers during the scans: UPDATEs clear visibility-map bits and leave
// new page images, CHECKPOINTs write them to the files while the service
// reads them, VACUUM sets the bits again.  Each scan, in a REPEATABLE READ
// transaction, must equal PostgreSQL's answer in the same snapshot.
func TestDirectReadWithConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	c, conn := directCluster(ctx, t)
	makeDirectTable(ctx, t, conn, "")

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var writerErr error
	var mu sync.Mutex
	writer := func(stmts ...string) {
		defer wg.Done()
		w := c.connect(ctx)
		defer w.Close(ctx)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			s := strings.ReplaceAll(stmts[i%len(stmts)], "$i", strconv.Itoa(i))
			if _, err := w.Exec(ctx, s); err != nil {
				mu.Lock()
				writerErr = errors.Join(writerErr, fmt.Errorf("%s: %w", s, err))
				mu.Unlock()
				return
			}
		}
	}
	wg.Add(2)
	go writer("UPDATE t_d SET v = v + 1 WHERE id % 997 = $i % 997", "CHECKPOINT",
		"DELETE FROM t_d WHERE id % 1999 = $i % 1999", "INSERT INTO t_d SELECT -i, i % 50, i, 'y' FROM generate_series(1, 300) i")
	go writer("VACUUM t_d", "SELECT pg_sleep(0.2)")

	deadline := time.Now().Add(40 * time.Second)
	runs, direct, shared, bounced := 0, 0, 0, 0
	for time.Now().Before(deadline) {
		for _, q := range directQueries {
			err := inTx(ctx, conn, pgx.RepeatableRead, func(tx pgx.Tx) error {
				// the snapshot is taken by the first query: PostgreSQL's
				// answer, then ours, in the same snapshot
				return sameAsPostgreSQL(ctx, t, tx, q)
			})
			if err != nil {
				close(stop)
				wg.Wait()
				t.Fatalf("run %d: %v", runs, err)
			}
			runs++
		}
		d, s, b, _ := directCounts(explain(ctx, t, conn, directQueries[1]))
		direct, shared, bounced = direct+d, shared+s, bounced+b
	}
	close(stop)
	wg.Wait()
	if writerErr != nil {
		t.Fatal(writerErr)
	}
	t.Logf("%d scans equal to PostgreSQL's under concurrent UPDATE, DELETE, INSERT, VACUUM and CHECKPOINT; blocks read directly %d, through shared buffers %d, bounced %d",
		runs, direct, shared, bounced)
	if direct == 0 || shared == 0 {
		t.Errorf("the writers should leave blocks of both kinds: direct %d, shared %d", direct, shared)
	}
}

// A table in a tablespace: its files are under pg_tblspc.
func TestDirectReadTablespace(t *testing.T) {
	ctx := context.Background()
	c, conn := directCluster(ctx, t)
	loc := filepath.Join(c.dir, "spc_direct")
	c.run("mkdir", loc)
	mustExec(ctx, t, conn, "CREATE TABLESPACE spc_direct LOCATION '"+loc+"'")
	makeDirectTable(ctx, t, conn, "spc_direct")
	if path := relationFile(ctx, t, conn, "t_d"); !strings.HasPrefix(path, "pg_tblspc/") {
		t.Fatalf("t_d lies at %s, not in the tablespace", path)
	}
	for _, q := range directQueries {
		plan := explain(ctx, t, conn, q)
		if direct, _, _, ok := directCounts(plan); !ok || direct == 0 {
			t.Fatalf("%s: no page read directly (%d):\n%s", q, direct, plan)
		}
		if err := inTx(ctx, conn, pgx.ReadCommitted, func(tx pgx.Tx) error { return sameAsPostgreSQL(ctx, t, tx, q) }); err != nil {
			t.Fatal(err)
		}
	}
}

// With data checksums on, a page corrupted on disk (a copy of the table,
// bytes changed while the server is stopped) fails its checksum in the
// service, and reading it through the buffer manager raises PostgreSQL's
// data-corruption error naming the relation and block; the intact table
// still reads directly.
func TestDirectReadChecksumFailure(t *testing.T) {
	ctx := context.Background()
	c, conn := directCluster(ctx, t, true)
	var on string
	if err := conn.QueryRow(ctx, "SHOW data_checksums").Scan(&on); err != nil || on != "on" {
		t.Fatalf("data_checksums = %q (%v)", on, err)
	}
	makeDirectTable(ctx, t, conn, "")
	mustExec(ctx, t, conn, "CREATE TABLE t_copy AS SELECT * FROM t_d")
	mustExec(ctx, t, conn, "VACUUM (FREEZE) t_copy")
	mustExec(ctx, t, conn, "CHECKPOINT")
	path := relationFile(ctx, t, conn, "t_copy")
	conn.Close(ctx)
	c.stop()
	const badBlock = 1234
	patchFile(t, filepath.Join(c.dir, path), badBlock*8192+6000, func(b []byte) { b[0] ^= 0x5a; b[1] ^= 0xa5 })
	conn = restartReady(ctx, t, c)

	for _, q := range directQueries {
		if plan := explain(ctx, t, conn, q); !strings.Contains(plan, "Direct Read Blocks") {
			t.Fatalf("the intact table is not read directly:\n%s", plan)
		}
		if err := inTx(ctx, conn, pgx.ReadCommitted, func(tx pgx.Tx) error { return sameAsPostgreSQL(ctx, t, tx, q) }); err != nil {
			t.Fatal(err)
		}
		bad := regexp.MustCompile(`\bt_d\b`).ReplaceAllString(q, "t_copy")
		_, err := conn.Exec(ctx, bad)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "XX001" ||
			!strings.Contains(pgErr.Message, fmt.Sprintf("block %d", badBlock)) || !strings.Contains(pgErr.Message, path) {
			t.Fatalf("%s: got %v, want data_corrupted (XX001) naming block %d of %s", bad, err, badBlock, path)
		}
	}
	if !strings.Contains(c.serverLog(), fmt.Sprintf("block %d read from the file failed its checksum", badBlock)) &&
		!strings.Contains(c.serverLog(), "page verification failed") {
		t.Errorf("the server log does not mention the checksum failure")
	}
}

// relationFile is pg_relation_filepath of rel, relative to PGDATA.
func relationFile(ctx context.Context, t *testing.T, conn *pgx.Conn, rel string) string {
	t.Helper()
	var path string
	if err := conn.QueryRow(ctx, "SELECT pg_relation_filepath($1)", rel).Scan(&path); err != nil {
		t.Fatal(err)
	}
	return path
}

// patchFile changes the bytes at off of a file (the server stopped).
func patchFile(t *testing.T, path string, off int64, change func(b []byte)) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 2)
	if _, err := f.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	change(b)
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

func explainPlain(ctx context.Context, t *testing.T, conn *pgx.Conn, query string) string {
	t.Helper()
	var lines []string
	rows, err := conn.Query(ctx, "EXPLAIN (COSTS OFF) "+query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}

// The service lost with direct-read chunks in flight (hung, then killed;
// or a sticky device error that makes it exit): the chunks in flight are
// evaluated here, their pages read through shared buffers, and GpuPreAgg
// redoes the blocks of the chunks answered before, bounced ones excepted.
func TestDirectReadServiceLost(t *testing.T) {
	ctx := context.Background()
	for _, fault := range []string{"hang_after=2", "sticky_after=2"} {
		t.Run(fault, func(t *testing.T) {
			_, conn := hostExecCluster(ctx, t, fault, directConf...)
			mustExec(ctx, t, conn, "SET pg_strom.regression_test_mode = on")
			makeDirectTable(ctx, t, conn, "")
			for _, mode := range []struct{ name, set string }{{"serial", gpuSettings}, {"parallel", parallelGPU}} {
				mustExec(ctx, t, conn, mode.set)
				for _, q := range directQueries {
					st := waitFor(ctx, t, conn, 30*time.Second, func(s []serviceStatus) bool { return s[0].State == "ready" && s[0].PID != nil })
					var killed chan error
					if strings.HasPrefix(fault, "hang") {
						killed = killAfter(int(*st[0].PID), 2*time.Second)
					}
					err := inTx(ctx, conn, pgx.ReadCommitted, func(tx pgx.Tx) error { return sameAsPostgreSQL(ctx, t, tx, q) })
					if killed != nil {
						if kerr := <-killed; kerr != nil {
							t.Fatalf("kill: %v", kerr)
						}
					}
					if err != nil {
						t.Fatalf("%s, %s: %v", fault, mode.name, err)
					}
				}
			}
		})
	}
}

// A table of two 1 GB segment files: blocks past the first segment are
// read from <relfilenode>.1.
func TestDirectReadSeveralSegments(t *testing.T) {
	ctx := context.Background()
	// without WAL for the new table, the load takes half the time
	c, conn := hostExecCluster(ctx, t, "", append(directConf, "wal_level = minimal", "max_wal_senders = 0", "max_wal_size = 4GB")...)
	mustExec(ctx, t, conn, "SET pg_strom.regression_test_mode = on")
	mustExec(ctx, t, conn, gpuSettings)
	t0 := time.Now()
	mustExec(ctx, t, conn, `CREATE TABLE t_seg AS SELECT i AS id, i % 7 AS g, repeat(chr(65 + i % 26), 900) AS pad
		FROM generate_series(1, 1250000) i`)
	mustExec(ctx, t, conn, "VACUUM (FREEZE, ANALYZE) t_seg")
	mustExec(ctx, t, conn, "CHECKPOINT")
	path := relationFile(ctx, t, conn, "t_seg")
	if _, err := os.Stat(filepath.Join(c.dir, path+".1")); err != nil {
		t.Fatalf("t_seg has no second segment: %v", err)
	}
	t.Logf("1.1 GB table loaded in %v", time.Since(t0))
	for _, q := range []string{
		`SELECT g, count(*), sum(id), min(id), max(id) FROM t_seg WHERE pad > 'C' GROUP BY g`,
		`SELECT id, g FROM t_seg WHERE id % 50000 = 7`,
	} {
		plan := explain(ctx, t, conn, q)
		// all but the few pages in shared buffers (16MB) come from the files,
		// so the second segment is read too
		if direct, shared, _, ok := directCounts(plan); !ok || direct+shared < 131072 || shared > 2048 {
			t.Fatalf("%s: want every block (two segments) read directly but those in shared buffers, got direct %d shared %d:\n%s", q, direct, shared, plan)
		}
		if err := inTx(ctx, conn, pgx.ReadCommitted, func(tx pgx.Tx) error { return sameAsPostgreSQL(ctx, t, tx, q) }); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("done in %v", time.Since(t0))
}
