//go:build lifecycle

package lifecycle

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A zero-copy chunk's pages are sent in the order of their shared buffers,
// not of their blocks, so that the device can copy long runs of buffers
// by DMA (pgext/runtime/task_buffer_order.c).  Here the table's blocks lie
// in shared buffers in reverse order (read one block at a time from the
// last after a restart), so every chunk is reordered whole, and some of
// its pages are all-visible and some are not (their refs carry a bitmap
// of visible tuples).  Rows, groups and join results must be PostgreSQL's.

// bufferRunsInBlockOrder is how many runs of consecutive buffers the
// table's blocks form in block order, and how many blocks are in buffers.
const bufferRunsInBlockOrder = `WITH b AS (
	SELECT relblocknumber AS blk, bufferid AS buf FROM pg_buffercache
	 WHERE relfilenode = pg_relation_filenode('t_bo') AND relforknumber = 0
	   AND reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database()))
SELECT count(*) FILTER (WHERE buf IS DISTINCT FROM prev + 1), count(*)
  FROM (SELECT buf, lag(buf) OVER (ORDER BY blk) AS prev FROM b) r`

func TestZeroCopyChunksInBufferOrder(t *testing.T) {
	ctx := context.Background()
	c, conn := hostExecCluster(ctx, t, "", "shared_buffers = 512MB")
	mustExec(ctx, t, conn, "CREATE EXTENSION pg_prewarm; CREATE EXTENSION pg_buffercache")
	mustExec(ctx, t, conn, `CREATE TABLE t_bo AS SELECT i AS id, (i::int8 * 7919) % 40 AS g,
		(i::int8 * 104729) % 1000 AS v, repeat('p', 40) AS pad FROM generate_series(1, 150000) i`)
	mustExec(ctx, t, conn, "CREATE TABLE t_bo_dim AS SELECT g, 'dim ' || g AS label FROM generate_series(0, 39) g")
	for _, s := range []string{"VACUUM (FREEZE, ANALYZE) t_bo", "VACUUM ANALYZE t_bo_dim", "CHECKPOINT"} {
		mustExec(ctx, t, conn, s)
	}
	conn.Close(ctx)
	c.stop()
	c.start()
	conn = c.connect(ctx)
	defer conn.Close(ctx)
	if st := waitFor(ctx, t, conn, 60*time.Second, settled); st[0].State != "ready" {
		t.Fatalf("service not ready after the restart: %v", describe(st))
	}
	mustExec(ctx, t, conn, `SELECT pg_prewarm('t_bo', 'buffer', 'main', b, b)
		FROM generate_series(pg_relation_size('t_bo') / current_setting('block_size')::int - 1, 0, -1) b`)
	// pages that are no longer all-visible, still in the same buffers
	mustExec(ctx, t, conn, "DELETE FROM t_bo WHERE id % 97 = 0")
	var runs, blocks int64
	if err := conn.QueryRow(ctx, bufferRunsInBlockOrder).Scan(&runs, &blocks); err != nil {
		t.Fatal(err)
	}
	if blocks < 500 || runs < blocks*9/10 {
		t.Fatalf("the table's %d blocks in shared buffers form %d runs of consecutive buffers in block order; want nearly one a block", blocks, runs)
	}
	t.Logf("%d blocks in shared buffers, %d runs of consecutive buffers in block order", blocks, runs)

	mustExec(ctx, t, conn, gpuSettings+"; SET pg_strom.direct_read = off; SET pg_strom.regression_test_mode = on")
	for _, q := range []struct{ name, node, sql string }{
		{"GpuScan", "GpuScan", "SELECT ctid AS tid, id, g, v FROM t_bo WHERE v % 7 = 3"},
		{"GpuPreAgg", "GpuPreAgg", "SELECT g, count(*), sum(v), min(id), max(id) FROM t_bo WHERE v > 10 GROUP BY g"},
		{"GpuJoin", "GpuJoin", "SELECT t.id, d.label FROM t_bo t JOIN t_bo_dim d ON t.g = d.g WHERE t.v < 20"},
	} {
		plan := explain(ctx, t, conn, q.sql)
		zeroCopy, _ := strconv.Atoi(regexpFind(`Zero-Copy Pages: (\d+)`, plan))
		if !strings.Contains(plan, q.node) || strings.Contains(plan, "CPU Path") || zeroCopy < int(blocks)/2 {
			t.Fatalf("%s: the plan is not a %s over zero-copy pages on the device:\n%s", q.name, q.node, plan)
		}
		n, missing, extra := groupsDiffer(ctx, t, conn, q.sql)
		if n == 0 || missing != 0 || extra != 0 {
			t.Fatalf("%s: %d rows, %d missing, %d extra against PostgreSQL's", q.name, n, missing, extra)
		}
		t.Logf("%s: %d rows, PostgreSQL's; %d zero-copy pages", q.name, n, zeroCopy)
	}
}
