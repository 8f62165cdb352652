//go:build lifecycle

package lifecycle

import (
	"context"
	"strings"
	"testing"
)

// What the random star-join test found, each as a check of its own.

// A serial GpuJoin whose inner path is
// a Gather was marked parallel safe, so that it became the inner plan of a
// parallel GpuJoin of a larger join (a snowflake: the fact table joined to
// a dimension joined to its own dimension). The Gather then ran under
// another Gather, and every run ended with "relcache reference leak" and
// "Snapshot reference leak" WARNINGs. A path is parallel safe only when
// its inner paths are.
func TestStarJoinNoGatherUnderParallelGpuJoin(t *testing.T) {
	ctx := context.Background()
	c, _, _ := serviceCluster(ctx, t)
	sess, err := newSJSession(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.conn.Close(ctx)
	conn := sess.conn
	mustExec(ctx, t, conn, `CREATE TABLE ng_fact (id int, k int8, pad text) WITH (parallel_workers = 4)`)
	mustExec(ctx, t, conn, `INSERT INTO ng_fact SELECT i, i % 2100, repeat('x', 60) FROM generate_series(1, 200000) i`)
	mustExec(ctx, t, conn, `CREATE TABLE ng_dim AS SELECT i AS id, i % 17 AS grp FROM generate_series(0, 1999) i`)
	mustExec(ctx, t, conn, `CREATE TABLE ng_grp AS SELECT g AS grp, 'g' || g AS gname FROM generate_series(0, 14) g`)
	mustExec(ctx, t, conn, "VACUUM ANALYZE ng_fact, ng_dim, ng_grp")
	mustExec(ctx, t, conn, parallelGPU)
	mustExec(ctx, t, conn, "SET pg_strom.regression_test_mode = on")
	const q = `SELECT f.id FROM ng_fact f JOIN ng_dim d ON d.id = f.k JOIN ng_grp g ON g.grp = d.grp`
	plan := explain(ctx, t, conn, q)
	if !strings.Contains(plan, "GpuJoin") {
		t.Fatalf("no GpuJoin in the plan:\n%s", plan)
	}
	if strings.Count(plan, "Gather") > 1 {
		t.Errorf("a Gather under another:\n%s", plan)
	}
	if w := sess.takeWarnings(); len(w) > 0 {
		t.Errorf("WARNINGs: %q\n%s", w, plan)
	}
	n, missing, extra := groupsDiffer(ctx, t, conn, q)
	if n == 0 || missing != 0 || extra != 0 {
		t.Errorf("%d rows, %d missing, %d extra against PostgreSQL's", n, missing, extra)
	}
	if w := sess.takeWarnings(); len(w) > 0 {
		t.Errorf("WARNINGs: %q", w)
	}
}

// x IN (SELECT y ...) and EXISTS (... z = x) put x, y and z in one
// equivalence class, and PostgreSQL may join the IN's relation as a SEMI
// depth and then join z on y = z above it: the semi join's output must
// carry y (PostgreSQL's semi join emits its first match's columns). A
// GpuJoin SEMI depth has no inner row, so y came out NULL and the upper
// join matched nothing: 0 rows where PostgreSQL has 100,000. A GpuJoin is
// not offered where its target reads a SEMI depth's columns.
func TestStarJoinSemiInnerColumnsReadAbove(t *testing.T) {
	ctx := context.Background()
	_, conn, _ := serviceCluster(ctx, t)
	mustExec(ctx, t, conn, `CREATE TABLE sc_fact (id int, k int2) WITH (parallel_workers = 0)`)
	mustExec(ctx, t, conn, `INSERT INTO sc_fact SELECT i, i % 60 FROM generate_series(1, 100000) i`)
	mustExec(ctx, t, conn, `CREATE TABLE sc_dim (k numeric(8,2))`)
	mustExec(ctx, t, conn, `INSERT INTO sc_dim SELECT g / 4.0 FROM generate_series(0, 399) g`)
	mustExec(ctx, t, conn, `INSERT INTO sc_dim SELECT g / 4.0 FROM generate_series(0, 399, 50) g`)
	mustExec(ctx, t, conn, "VACUUM ANALYZE sc_fact, sc_dim")
	mustExec(ctx, t, conn, gpuSettings)
	mustExec(ctx, t, conn, "SET pg_strom.regression_test_mode = on")
	const q = `SELECT f.id FROM sc_fact f WHERE f.k IN (SELECT d2.k FROM sc_dim d2)
		AND EXISTS (SELECT 1 FROM sc_dim d3 WHERE d3.k = f.k)`
	n, missing, extra := groupsDiffer(ctx, t, conn, q)
	if n != 100000 || missing != 0 || extra != 0 {
		t.Errorf("%d rows, want 100000; %d missing, %d extra against PostgreSQL's\n%s",
			n, missing, extra, explain(ctx, t, conn, q))
	}
	// a SEMI depth whose columns nothing reads is still offered
	if plan := explain(ctx, t, conn, `SELECT count(*) FROM sc_fact f WHERE f.k IN (SELECT d2.k FROM sc_dim d2)`); !strings.Contains(plan, "Depth 1: Semi Join") {
		t.Errorf("no SEMI depth where its columns are not read:\n%s", plan)
	}
}
