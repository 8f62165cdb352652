//go:build lifecycle

package lifecycle

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// GpuPreAgg fused over GpuJoin: the device folds the join's combinations
// into its table, RECHECK outer rows are joined and aggregated on the CPU,
// and a service lost mid-query leaves the answered blocks to be joined and
// aggregated again on the CPU (the kept groups dropped), so the answer is
// PostgreSQL's.

// Every 7th outer row's text key is compressed in its page, which the
// device cannot read (a RECHECK row the CPU joins against the same inner
// rows).
const fusedQuery = `SELECT d.name, t.w, count(*) AS n, sum(f.id) AS s, max(t.w + f.k) AS m
	FROM t_jf f JOIN t_jd d ON f.k = d.id LEFT JOIN t_jt t ON f.tk = t.t
	GROUP BY d.name, t.w`

func makeFusedTables(ctx context.Context, t *testing.T, conn *pgx.Conn) {
	t.Helper()
	makeJoinTables(ctx, t, conn)
	// on the CPU: a GpuScan here would spend the answers a fault test's
	// service gives before it hangs, and wait out its timeout
	mustExec(ctx, t, conn, `SET pg_strom.enabled = off;
		UPDATE t_jf SET tk = repeat('long', 1000) || tk WHERE id % 7 = 0;
		RESET pg_strom.enabled`)
	mustExec(ctx, t, conn, "VACUUM ANALYZE t_jf")
}

func fusedPlanOK(plan string, parallel bool) bool {
	return strings.Contains(plan, "Custom Scan (GpuPreAgg)") && strings.Contains(plan, "Depth 2: Left Join") &&
		!strings.Contains(plan, "GpuJoin") && parallel == strings.Contains(plan, "Parallel Custom Scan (GpuPreAgg)")
}

// Without faults: the groups come from the device, the RECHECK rows from
// the CPU, and together they are PostgreSQL's answer.
func TestFusedPreAggDeviceAndRecheckRows(t *testing.T) {
	ctx := context.Background()
	_, conn := hostExecCluster(ctx, t, "")
	makeFusedTables(ctx, t, conn)
	for _, mode := range []struct{ name, set string }{
		{"serial", gpuSettings},
		{"parallel", parallelGPU},
	} {
		mustExec(ctx, t, conn, mode.set)
		plan := explain(ctx, t, conn, fusedQuery)
		if !fusedPlanOK(plan, mode.name == "parallel") || strings.Contains(plan, "CPU Path") ||
			regexpFind(`GPU Groups: (\d+)`, plan) == "0" || regexpFind(`Recheck Rows: (\d+)`, plan) == "0" {
			t.Fatalf("%s: not a fused GpuPreAgg with device groups and RECHECK rows:\n%s", mode.name, plan)
		}
		n, missing, extra := groupsDiffer(ctx, t, conn, fusedQuery)
		if n == 0 || missing != 0 || extra != 0 {
			t.Fatalf("%s: %d groups, %d missing, %d extra", mode.name, n, missing, extra)
		}
		t.Logf("%s: %d groups equal to PostgreSQL's; %s", mode.name, n, regexpFind(`(Recheck Rows: \d+)`, plan))
	}
}

// kill -9 of the service while the fused node waits for it (the service
// hangs after 40 tasks), serial and parallel: the answer is PostgreSQL's
// (the blocks the device answered are aggregated again on the CPU).
func TestFusedPreAggServiceKilledMidQuery(t *testing.T) {
	ctx := context.Background()
	_, conn := hostExecCluster(ctx, t, "hang_after=40")
	makeFusedTables(ctx, t, conn)
	for _, mode := range []struct{ name, set string }{
		{"serial", gpuSettings},
		{"parallel", parallelGPU},
	} {
		mustExec(ctx, t, conn, mode.set)
		var plan string
		pid, _ := killedDuring(ctx, t, conn, mode.name, func() { plan = explain(ctx, t, conn, fusedQuery) })
		if !fusedPlanOK(plan, mode.name == "parallel") || !strings.Contains(plan, "CPU Path") {
			t.Fatalf("%s: not a fused GpuPreAgg that lost its service:\n%s", mode.name, plan)
		}

		waitForRestart(ctx, t, conn, pid)
		var n, missing, extra int64
		pid, took := killedDuring(ctx, t, conn, mode.name, func() {
			n, missing, extra = groupsDiffer(ctx, t, conn, fusedQuery)
		})
		if n == 0 || missing != 0 || extra != 0 {
			t.Fatalf("%s: after kill -9 mid-query: %d groups, %d missing, %d extra", mode.name, n, missing, extra)
		}
		if took > 30*time.Second {
			t.Fatalf("%s: query took %v after the kill", mode.name, took)
		}
		waitForRestart(ctx, t, conn, pid)
		t.Logf("%s: %d groups equal to PostgreSQL's after kill -9; %s", mode.name, n, regexpFind(`(CPU Redo Pages: \d+)`, plan))
	}
}
