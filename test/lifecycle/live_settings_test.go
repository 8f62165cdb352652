//go:build lifecycle

package lifecycle

import (
	"context"
	"strings"
	"testing"
)

// A plain user's parallel query must not undo a superuser's live setting:
// its workers restore the leader's settings (here the configuration file's
// values), and before the fix their assign hooks published those
// cluster-wide.  No GPU is needed: the published values live in the
// shared state that pg_strom creates whenever it is preloaded.
func TestParallelWorkersDoNotUndoLiveSettings(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t, "pg_strom.max_async_tasks = 8", "pg_strom.gpuserv_debug_output = off")
	c.start()
	conn := c.connect(ctx)
	for _, q := range []string{
		"SET pg_strom.max_async_tasks = 64",
		"SET pg_strom.gpuserv_debug_output = on",
		"CREATE ROLE plain_user LOGIN",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	plain := c.connectAs(ctx, "plain_user")
	// PostgreSQL 16 renamed force_parallel_mode to debug_parallel_query
	forceParallel := "SET debug_parallel_query = on"
	var major int
	if err := plain.QueryRow(ctx, "SELECT current_setting('server_version_num')::int / 10000").Scan(&major); err != nil {
		t.Fatal(err)
	}
	if major < 16 {
		forceParallel = "SET force_parallel_mode = on"
	}
	for _, q := range []string{forceParallel, "SET parallel_setup_cost = 0"} {
		if _, err := plain.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var plan strings.Builder
	rows, err := plain.Query(ctx, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT count(*) FROM pg_class")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan.WriteString(line + "\n")
	}
	rows.Close()
	if !strings.Contains(plan.String(), "Workers Launched: 1") {
		t.Fatalf("the plain user's query ran no parallel worker:\n%s", plan.String())
	}
	other := c.connect(ctx)
	for name, want := range map[string]string{"pg_strom.max_async_tasks": "64", "pg_strom.gpuserv_debug_output": "on"} {
		var got string
		if err := other.QueryRow(ctx, "SHOW "+name).Scan(&got); err != nil || got != want {
			t.Errorf("after a plain user's parallel query %s = %q (err %v), want the superuser's %q", name, got, err, want)
		}
	}
	// a test-only planner switch is not for plain users either
	if _, err := plain.Exec(ctx, "SET pg_strom.regression_test_mode = on"); err == nil ||
		!strings.Contains(err.Error(), "permission denied") {
		t.Errorf("plain user SET pg_strom.regression_test_mode: err = %v, want permission denied", err)
	}
}
