//go:build lifecycle

package lifecycle

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

type serviceStatus struct {
	PID         *int32
	State       string
	Reason      *string
	Restarts    int32
	Device      *int32
	Workers     *int32
	PoolUsed    *int64
	PoolTotal   *int64
	Connections *int32
	Dropped     int64
}

func readStatus(ctx context.Context, t *testing.T, conn *pgx.Conn) []serviceStatus {
	t.Helper()
	rows, err := conn.Query(ctx, `SELECT pid, state, reason, restarts, device, workers,
		pool_used, pool_total, connections, dropped_log_lines FROM pgstrom.gpu_service_status()`)
	if err != nil {
		t.Fatalf("gpu_service_status: %v", err)
	}
	defer rows.Close()
	var out []serviceStatus
	for rows.Next() {
		var s serviceStatus
		if err := rows.Scan(&s.PID, &s.State, &s.Reason, &s.Restarts, &s.Device, &s.Workers,
			&s.PoolUsed, &s.PoolTotal, &s.Connections, &s.Dropped); err != nil {
			t.Fatalf("scan status: %v", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("status rows: %v", err)
	}
	if len(out) == 0 {
		t.Fatal("gpu_service_status() returned no row")
	}
	return out
}

// waitSettled polls until the service has left "starting" (or the predicate
// holds) and returns the last status.
func waitFor(ctx context.Context, t *testing.T, conn *pgx.Conn, timeout time.Duration, ok func([]serviceStatus) bool) []serviceStatus {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		st := readStatus(ctx, t, conn)
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v; last status: %+v", timeout, describe(st))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func settled(st []serviceStatus) bool { return st[0].State != "starting" }

func describe(st []serviceStatus) []string {
	var out []string
	for _, s := range st {
		reason, pid := "", int32(0)
		if s.Reason != nil {
			reason = *s.Reason
		}
		if s.PID != nil {
			pid = *s.PID
		}
		out = append(out, fmt.Sprintf("%s pid=%d restarts=%d reason=%q", s.State, pid, s.Restarts, reason))
	}
	return out
}

// startedCluster starts a cluster, creates the extension and waits until the
// service has settled.
func startedCluster(ctx context.Context, t *testing.T, extraConf ...string) (*cluster, *pgx.Conn, []serviceStatus) {
	t.Helper()
	c := newCluster(t, extraConf...)
	c.start()
	conn := c.connect(ctx)
	if _, err := conn.Exec(ctx, "CREATE EXTENSION pg_strom"); err != nil {
		t.Fatalf("CREATE EXTENSION: %v", err)
	}
	st := waitFor(ctx, t, conn, 60*time.Second, settled)
	return c, conn, st
}

func requireReady(t *testing.T, st []serviceStatus) {
	t.Helper()
	if st[0].State == "no_gpu" {
		r := ""
		if st[0].Reason != nil {
			r = *st[0].Reason
		}
		t.Skipf("needs a running GPU service; this machine has none (%s)", r)
	}
	if st[0].State != "ready" {
		t.Fatalf("service not ready: %v", describe(st))
	}
}
