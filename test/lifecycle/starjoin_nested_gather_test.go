//go:build lifecycle

package lifecycle

import (
	"context"
	"strings"
	"testing"
)

// Found by the random star-join test: a serial GpuJoin whose inner path is
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
