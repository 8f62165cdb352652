//go:build benchdb

package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// onOffAnswer is one query's answer with pg_strom.enabled off, the seconds it
// took off and on, and its plan with pg_strom on.
type onOffAnswer struct {
	off       []Row
	offS, onS float64
	plan      string
}

// answersOnOff runs each query with pg_strom off, then on (after its
// plan), in a session of cfg's after the statements of setup, and fails t
// where a run fails or the answers differ (compare.go's CompareResults:
// sorted, numerics exactly, floats within FloatTolerance). A query that
// ends the session (a server crash) fails, and the next gets a new one.
// It returns what it measured of the queries that ran both ways.
func answersOnOff(t *testing.T, ctx context.Context, cfg *Config, setup []string, queries []Query) map[string]onOffAnswer {
	t.Helper()
	var conn *pgx.Conn
	defer func() {
		if conn != nil {
			conn.Close(context.Background())
		}
	}()
	got := map[string]onOffAnswer{}
	for _, q := range queries {
		if conn == nil || conn.IsClosed() {
			conn = sessionAfterRecovery(t, ctx, cfg, setup)
		}
		var o onOffAnswer
		if _, err := conn.Exec(ctx, "SET pg_strom.enabled = off"); err != nil {
			t.Errorf("%s: %v", q.Name, err)
			continue
		}
		off, secs, err := fetch(ctx, conn, q.SQL)
		if err != nil {
			t.Errorf("%s with pg_strom off: %v", q.Name, err)
			continue
		}
		o.off, o.offS = off, secs
		if _, err := conn.Exec(ctx, "SET pg_strom.enabled = on"); err != nil {
			t.Errorf("%s: %v", q.Name, err)
			continue
		}
		if o.plan, err = explain(ctx, conn, q.SQL); err != nil {
			t.Errorf("%s: %v", q.Name, err)
			if conn.IsClosed() {
				continue
			}
		}
		on, secs, err := fetch(ctx, conn, q.SQL)
		if err != nil {
			t.Errorf("%s with pg_strom on: %v", q.Name, err)
			continue
		}
		o.onS = secs
		got[q.Name] = o
		if err := CompareResults(off, on, FloatTolerance); err != nil {
			t.Errorf("%s: pg_strom on differs from off: %v", q.Name, err)
		}
	}
	return got
}

// sessionAfterRecovery connects with cfg and runs setup, waiting up to a
// minute for a server that restarts after a crash.
func sessionAfterRecovery(t *testing.T, ctx context.Context, cfg *Config, setup []string) *pgx.Conn {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		conn, err := connect(ctx, cfg)
		if err == nil {
			for _, s := range setup {
				if _, err := conn.Exec(ctx, s); err != nil {
					t.Fatalf("%s: %v", s, err)
				}
			}
			return conn
		}
		if time.Now().After(deadline) {
			t.Fatalf("no session: %v", err)
		}
		time.Sleep(time.Second)
	}
}

// logGPUPlans logs which plans with pg_strom on have a pg_strom node
// (reported, not required), with their nodes and GPU join depths;
// testMode is the server's pg_strom.regression_test_mode.
func logGPUPlans(t *testing.T, testMode string, queries []Query, got map[string]onOffAnswer) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "%-5s %5s %8s %8s  %-3s %-34s %s\n", "query", "rows", "off s", "on s", "GPU", "nodes", "GPU join depth")
	gpu := 0
	for _, q := range queries {
		o, ok := got[q.Name]
		if !ok {
			fmt.Fprintf(&b, "%-5s  (failed)\n", q.Name)
			continue
		}
		var nodes []string
		for _, n := range []string{"GpuScan", "GpuPreAgg", "GpuJoin"} {
			if k := strings.Count(o.plan, "("+n+")"); k > 0 {
				nodes = append(nodes, fmt.Sprintf("%s×%d", n, k))
			}
		}
		if planUsesGPU(o.plan) {
			gpu++
		}
		fmt.Fprintf(&b, "%-5s %5d %8.3f %8.3f  %-3s %-34s %d\n", q.Name, len(o.off), o.offS, o.onS,
			yesNo(planUsesGPU(o.plan)), strings.Join(nodes, " "), planJoinDepth(o.plan))
	}
	t.Logf("pg_strom plans (pg_strom.regression_test_mode = %s): %d of %d with a GPU node\n%s",
		testMode, gpu, len(queries), b.String())
}

func currentSetting(ctx context.Context, conn *pgx.Conn, name string) string {
	var v string
	if err := conn.QueryRow(ctx, "SELECT coalesce(current_setting($1, true), 'unset')", name).Scan(&v); err != nil {
		return err.Error()
	}
	return v
}
