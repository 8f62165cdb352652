package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// ServerInfo describes where the benchmark ran.
type ServerInfo struct {
	Version       string            `json:"postgresql_version"`
	Settings      map[string]string `json:"settings"`
	ClientHost    string            `json:"client_host"`
	ClientCPUs    int               `json:"client_cpus"`
	ServiceBefore string            `json:"gpu_service_before"`
	ServiceAfter  string            `json:"gpu_service_after"`
	Devices       []string          `json:"gpu_devices"`
	// HugePages: this host's huge pages (/proc/meminfo) when the run
	// began, which tells whether a cluster on this host had its shared
	// memory in huge pages (PostgreSQL 15 cannot say).
	HugePages string `json:"client_huge_pages,omitempty"`
}

var reportedSettings = []string{
	"shared_buffers", "max_worker_processes", "max_parallel_workers", "pg_strom.regression_test_mode",
	"pg_strom.max_async_tasks", "pg_strom.cpu_fallback", "pg_strom.zero_copy", "pg_strom.direct_read",
	"huge_pages",
}

// hostHugePages summarizes /proc/meminfo's huge pages, or "" where there is
// none to read.
func hostHugePages() string {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return ""
	}
	v := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if k, rest, ok := strings.Cut(line, ":"); ok && (strings.HasPrefix(k, "HugePages_") || k == "Hugepagesize") {
			v[k] = strings.TrimSpace(rest)
		}
	}
	if v["HugePages_Total"] == "" {
		return ""
	}
	return fmt.Sprintf("%s reserved, %s free, %s each", v["HugePages_Total"], v["HugePages_Free"], v["Hugepagesize"])
}

// checkPgStrom fails unless pg_strom is loaded (a SET of an unknown
// pg_strom.* name would silently create a placeholder).
func checkPgStrom(ctx context.Context, conn *pgx.Conn) error {
	var vartype string
	err := conn.QueryRow(ctx, "SELECT coalesce((SELECT vartype FROM pg_settings WHERE name = 'pg_strom.enabled'), '')").Scan(&vartype)
	if err != nil {
		return fmt.Errorf("look up pg_strom.enabled: %w", err)
	}
	if vartype != "bool" {
		return fmt.Errorf("pg_strom is not loaded: add shared_preload_libraries = 'pg_strom' to postgresql.conf and restart")
	}
	return nil
}

// serverInfo gathers the version, settings, and the GPU devices.
func serverInfo(ctx context.Context, conn *pgx.Conn) (ServerInfo, error) {
	info := ServerInfo{Settings: map[string]string{}, ClientCPUs: runtime.NumCPU()}
	info.ClientHost, _ = os.Hostname()
	info.HugePages = hostHugePages()
	if err := conn.QueryRow(ctx, "SELECT version()").Scan(&info.Version); err != nil {
		return info, fmt.Errorf("version(): %w", err)
	}
	for _, name := range reportedSettings {
		var v *string
		if err := conn.QueryRow(ctx, "SELECT current_setting($1, true)", name).Scan(&v); err != nil {
			return info, fmt.Errorf("current_setting(%s): %w", name, err)
		}
		if v != nil {
			info.Settings[name] = *v
		}
	}
	var err error
	if info.ServiceBefore, err = waitServiceStarted(ctx, conn, 2*time.Minute); err != nil {
		return info, err
	}
	if ok, err := hasStatusFunctions(ctx, conn); err != nil || !ok {
		return info, err
	}
	rows, err := conn.Query(ctx, `SELECT format('GPU %s: %s, %s GiB, compute capability %s, %s SMs, PCIe %s',
		device, name, round(total_memory / 1073741824.0, 1), compute_capability, multiprocessors, coalesce(pcie_link, '?'))
		FROM pgstrom.gpu_device_info() ORDER BY device`)
	if err != nil {
		return info, fmt.Errorf("gpu_device_info(): %w", err)
	}
	if info.Devices, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		return info, fmt.Errorf("gpu_device_info(): %w", err)
	}
	return info, nil
}

func hasStatusFunctions(ctx context.Context, conn *pgx.Conn) (bool, error) {
	var ok bool
	if err := conn.QueryRow(ctx, "SELECT to_regproc('pgstrom.gpu_service_status') IS NOT NULL").Scan(&ok); err != nil {
		return false, fmt.Errorf("look up pgstrom.gpu_service_status: %w", err)
	}
	return ok, nil
}

// waitServiceStarted waits up to limit while the GPU service is starting
// (right after a server start), so the GPU mode is not timed on the CPU path.
func waitServiceStarted(ctx context.Context, conn *pgx.Conn, limit time.Duration) (string, error) {
	deadline := time.Now().Add(limit)
	for {
		st, err := serviceState(ctx, conn)
		if err != nil || !strings.HasPrefix(st, "starting") || time.Now().After(deadline) {
			return st, err
		}
		select {
		case <-ctx.Done():
			return st, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// serviceState summarizes pgstrom.gpu_service_status(), e.g. "ready" or
// "no_gpu (cuInit failed ...)".
func serviceState(ctx context.Context, conn *pgx.Conn) (string, error) {
	ok, err := hasStatusFunctions(ctx, conn)
	if err != nil {
		return "", err
	}
	if !ok {
		return "unknown (CREATE EXTENSION pg_strom not run in this database)", nil
	}
	rows, err := conn.Query(ctx, "SELECT DISTINCT state || coalesce(' (' || nullif(reason, '') || ')', '') FROM pgstrom.gpu_service_status()")
	if err != nil {
		return "", fmt.Errorf("gpu_service_status(): %w", err)
	}
	states, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", fmt.Errorf("gpu_service_status(): %w", err)
	}
	return strings.Join(states, "; "), nil
}
