//go:build benchdb

// The integration test runs load and run at a tiny scale against the
// PostgreSQL named by the PG* environment (pg_strom preloaded; with
// pg_strom.regression_test_mode = on GpuScan is planned without a GPU):
//
//	PGHOST=/tmp PGPORT=55480 PGUSER=pgstrom_bench go test -tags benchdb -run Integration -v ./bench
//
// It works in its own database, pgstrom_bench_itest, dropped and created
// afresh, so a loaded benchmark database is never touched.
package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

const itestDB = "pgstrom_bench_itest"

func itestConfig(t *testing.T, out *bytes.Buffer, args ...string) *Config {
	t.Helper()
	cfg, err := parseConfig("run", append([]string{"-dsn", "dbname=" + itestDB, "-scale", "0.0001", "-workers", "4"}, args...), out, out)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// configMaker makes a test's configs: its database db and flags, then a
// call's own flags (a flag given again takes the later value).
func configMaker(t *testing.T, db string, flags ...string) func(out *bytes.Buffer, args ...string) *Config {
	return func(out *bytes.Buffer, args ...string) *Config {
		t.Helper()
		cfg, err := parseConfig("run", append(append([]string{"-dsn", "dbname=" + db}, flags...), args...), out, out)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
}

// timedLoad loads cfg's tables, failing t with load's output on an error,
// and returns the seconds it took.
func timedLoad(t *testing.T, ctx context.Context, cfg *Config, out *bytes.Buffer) float64 {
	t.Helper()
	t0 := time.Now()
	if err := Load(ctx, cfg); err != nil {
		t.Fatalf("load: %v\n%s", err, out.String())
	}
	return time.Since(t0).Seconds()
}

// freshDatabase drops and creates the database name, so that a test never
// touches a loaded benchmark database.
func freshDatabase(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	conn, err := pgx.Connect(ctx, "")
	if err != nil {
		t.Fatalf("connect (PGHOST=%q PGPORT=%q): %v", os.Getenv("PGHOST"), os.Getenv("PGPORT"), err)
	}
	defer conn.Close(ctx)
	for _, s := range []string{"DROP DATABASE IF EXISTS " + name + " WITH (FORCE)", "CREATE DATABASE " + name} {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func TestIntegrationLoadRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	freshDatabase(t, ctx, itestDB)
	var out bytes.Buffer

	// load, then again: nothing to do
	if err := Load(ctx, itestConfig(t, &out)); err != nil {
		t.Fatalf("load: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := Load(ctx, itestConfig(t, &out)); err != nil {
		t.Fatalf("second load: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "complete, nothing to load") || !strings.Contains(out.String(), "nothing to insert") {
		t.Errorf("second load was not a no-op:\n%s", out.String())
	}

	// resume: forget one part (rows and bookkeeping) and load again
	conn, err := pgx.Connect(ctx, "dbname="+itestDB)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	narrow, _ := FindDataset("w1_narrow")
	lo, hi := narrow.PartRange(narrow.Rows(0.0001), 5)
	for _, s := range []string{
		"DELETE FROM w1_narrow WHERE id BETWEEN $1 AND $2",
		"DELETE FROM bench_meta_parts WHERE dataset = 'w1_narrow' AND part = 5 AND $1::int8 <= $2::int8",
		"UPDATE bench_meta SET finalized_at = NULL WHERE dataset = 'w1_narrow' AND $1::int8 <= $2::int8",
	} {
		if _, err := conn.Exec(ctx, s, lo, hi); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	out.Reset()
	if err := Load(ctx, itestConfig(t, &out)); err != nil {
		t.Fatalf("resumed load: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "resuming: 63 of 64 parts loaded") || !strings.Contains(out.String(), "inserted 1 parts") {
		t.Errorf("load did not resume:\n%s", out.String())
	}
	for _, d := range W1Datasets {
		var n, distinct int64
		if err := conn.QueryRow(ctx, "SELECT count(*), count(DISTINCT id) FROM "+d.ident()).Scan(&n, &distinct); err != nil {
			t.Fatal(err)
		}
		if n != d.Rows(0.0001) || distinct != n {
			t.Errorf("%s: %d rows (%d distinct ids), want %d", d.Name, n, distinct, d.Rows(0.0001))
		}
	}

	// run with every output
	dir := t.TempDir()
	out.Reset()
	cfg := itestConfig(t, &out, "-json", filepath.Join(dir, "out.json"), "-png", filepath.Join(dir, "out.png"),
		"-plans", filepath.Join(dir, "plans.txt"), "-link-gbps", "50")
	rep, err := Run(ctx, cfg)
	t.Logf("run output:\n%s", out.String())
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if len(rep.Results) != len(Queries)*len(W1Datasets) || rep.Failures != 0 {
		t.Fatalf("%d results, %d failures", len(rep.Results), rep.Failures)
	}
	if rep.Link.gbps() != 50 || rep.Link.Measured != nil {
		t.Errorf("link %+v, want the -link-gbps value and no probe", rep.Link)
	}
	// host CPU: this test runs on the server's host, so /proc/stat is measured
	if _, ok := cpuProbe(newProcSampler()); ok {
		for _, r := range rep.Results {
			for _, m := range r.Modes {
				if len(m.HostCoreS) != cfg.Runs || m.HostCoreSMedian == nil || m.HostCoreUsPerPage == nil || r.HeapPages <= 0 {
					t.Errorf("%s on %s mode %s: host CPU %v (median %v, per page %v, %d pages)", r.Query, r.Table, m.Mode,
						m.HostCoreS, m.HostCoreSMedian, m.HostCoreUsPerPage, r.HeapPages)
				}
			}
		}
		if !strings.Contains(out.String(), "host CPU: busy time of all CPUs from /proc/stat") {
			t.Errorf("no host CPU header line")
		}
	}
	for _, f := range []string{"out.json", "out.png", "plans.txt"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	if rep.Server.Settings["pg_strom.regression_test_mode"] == "on" {
		for _, r := range rep.Results {
			if !r.GPUUsed() {
				t.Errorf("%s on %s: no GPU node in the GPU mode's plan", r.Query, r.Table)
			}
		}
	}
}

// TestIntegrationPlantedWrongResult: the self-test must fail the run with
// exit status 1 and a FAILURE line (run after TestIntegrationLoadRun).
func TestIntegrationPlantedWrongResult(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"run", "-dsn", "dbname=" + itestDB, "-queries", "group_8,count_1pct", "-runs", "1",
		"-plant-wrong-result", "group_8@w1_wide"}
	if code := realMain(args, &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout.String(), stderr.String())
	}
	t.Logf("planted run output:\n%s", stdout.String())
	if !strings.Contains(stdout.String(), "FAILURE group_8 on w1_wide: wrong result: mode gpu") ||
		strings.Count(stdout.String(), "FAILURE ") != 1 {
		t.Errorf("planted failure not reported as the only FAILURE:\n%s", stdout.String())
	}
	if !strings.Contains(stderr.String(), "1 of 4 queries FAILED") {
		t.Errorf("stderr: %s", stderr.String())
	}

	// and a run without the plant passes
	var out bytes.Buffer
	cfg := itestConfig(t, &out, "-queries", "group_8", "-runs", "1")
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		if errors.Is(err, errFailures) {
			t.Fatalf("clean run failed:\n%s", out.String())
		}
		t.Fatal(err)
	}
	// without -link-gbps the service measures the link, or the report
	// says why it could not
	if strings.HasPrefix(rep.Server.ServiceBefore, "ready") {
		if rep.Link.GBps == nil || len(rep.Link.Measured) == 0 || !strings.Contains(out.String(), "host-to-device link: ") {
			t.Errorf("service ready but link not measured: %+v\n%s", rep.Link, out.String())
		}
	} else if rep.Link.GBps != nil || !strings.Contains(rep.Link.Source, "GPU service is not available") ||
		!strings.Contains(out.String(), "host-to-device link: not measured: ") {
		t.Errorf("service %s: link %+v, want the probe's error\n%s", rep.Server.ServiceBefore, rep.Link, out.String())
	}
}
