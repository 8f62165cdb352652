//go:build lifecycle

package lifecycle

import (
	"context"
	"strings"
	"testing"
)

// With the default costs and a ready service (the host executor), the
// planner takes a GpuScan for a selective device qual and keeps the
// sequential scan for one that passes most rows: the device returns row
// positions, and a backend reads every page holding a passing row again,
// so an unselective GpuScan saves only the quals' evaluation.
func TestGpuScanDefaultCostsFollowSelectivity(t *testing.T) {
	ctx := context.Background()
	_, conn := hostExecCluster(ctx, t, "")
	mustExec(ctx, t, conn, `CREATE TABLE t_cost AS SELECT i AS id, (i::int8 * 7919) % 1000 AS v,
		md5(i::text) AS pad FROM generate_series(1, 300000) i`)
	mustExec(ctx, t, conn, "VACUUM ANALYZE t_cost")
	mustExec(ctx, t, conn, "SET max_parallel_workers_per_gather = 0")
	cases := []struct {
		query string
		gpu   bool
	}{
		// 0.1 % of the rows: about one page in twenty holds one
		{"SELECT id, pad FROM t_cost WHERE v = 17", true},
		// 90 % of the rows: every page holds some
		{"SELECT id, pad FROM t_cost WHERE v < 900", false},
	}
	for _, c := range cases {
		plan := explainPlain(ctx, t, conn, c.query)
		if got := strings.Contains(plan, "GpuScan"); got != c.gpu {
			t.Errorf("%s: GpuScan in the plan %v, want %v:\n%s", c.query, got, c.gpu, plan)
		}
	}
}
