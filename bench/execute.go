package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// applyMode resets the session and applies m's settings.
func applyMode(ctx context.Context, conn *pgx.Conn, cfg *Config, m Mode) error {
	if _, err := conn.Exec(ctx, "RESET ALL"); err != nil {
		return fmt.Errorf("RESET ALL: %w", err)
	}
	if err := sessionSettings(ctx, conn, cfg); err != nil {
		return err
	}
	for _, s := range settingsFor(m, cfg) {
		stmt := fmt.Sprintf("SET %s = %s", s[0], s[1])
		if _, err := conn.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("mode %s: %s: %w", m.Key, stmt, err)
		}
	}
	return nil
}

// explain returns the EXPLAIN (COSTS OFF) text of sql.
func explain(ctx context.Context, conn *pgx.Conn, sql string) (string, error) {
	rows, err := conn.Query(ctx, "EXPLAIN (COSTS OFF) "+sql)
	if err != nil {
		return "", fmt.Errorf("explain: %w", err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", fmt.Errorf("explain: %w", err)
	}
	return strings.Join(lines, "\n"), nil
}

// planUsesGPU says whether a plan has a pg_strom node (GpuScan, GpuPreAgg,
// GpuJoin).
func planUsesGPU(plan string) bool {
	return strings.Contains(plan, "(GpuScan)") || strings.Contains(plan, "(GpuPreAgg)") || strings.Contains(plan, "(GpuJoin)")
}

// depthLine is a GPU join depth in EXPLAIN, as PG-Strom prints them under
// its GpuJoin (and GpuPreAgg over GpuJoin) nodes: "Depth 1: GpuHashJoin ...".
var depthLine = regexp.MustCompile(`(?m)^\s*(->\s*)?Depth\s*[0-9]+\s*:`)

// gpuNodeLine is a pg_strom node's first line; its last word names the
// relation it scans in the node's expressions (the alias, if any).
var gpuNodeLine = regexp.MustCompile(`Custom Scan \(Gpu[A-Za-z]+\) on (\S+)(?: (\S+))?`)

// planJoinDepth is the number of joins a plan does on the GPU: its "Depth
// N:" lines, or, where a GpuJoin node prints none, one per GpuJoin node. 0
// for a plan whose joins all run on the CPU. Over a partitioned table,
// pg_strom plans one node per partition, each doing the same joins: nodes
// whose Depth lines differ only in the partition they scan count once.
func planJoinDepth(plan string) int {
	seen := map[string]bool{}
	n, ref := 0, ""
	var node []string
	endNode := func() {
		key := strings.Join(node, "\n")
		if !seen[key] {
			seen[key] = true
			n += len(node)
		}
		node = nil
	}
	for _, line := range strings.Split(plan, "\n") {
		if m := gpuNodeLine.FindStringSubmatch(line); m != nil {
			endNode()
			ref = m[1]
			if m[2] != "" {
				ref = m[2]
			}
		} else if depthLine.MatchString(line) {
			line = strings.TrimSpace(line)
			if ref != "" {
				line = strings.ReplaceAll(line, ref+".", "<scanned>.")
			}
			node = append(node, line)
		}
	}
	endNode()
	if n > 0 {
		return n
	}
	return strings.Count(plan, "(GpuJoin)")
}

// fetch runs sql and returns every row and the seconds until the last row
// arrived (decoding included: what a client sees).
func fetch(ctx context.Context, conn *pgx.Conn, sql string) ([]Row, float64, error) {
	t0 := time.Now()
	rows, err := conn.Query(ctx, sql)
	if err != nil {
		return nil, 0, err
	}
	var raw [][]any
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			rows.Close()
			return nil, 0, err
		}
		raw = append(raw, vals)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	secs := time.Since(t0).Seconds()
	out := make([]Row, len(raw))
	for i, vals := range raw {
		r := make(Row, len(vals))
		for j, v := range vals {
			r[j] = Normalize(v)
		}
		out[i] = r
	}
	return out, secs, nil
}

// modeRun is what runMode measured: the plan, the timed runs and the result
// of every execution (warm-ups first).
type modeRun struct {
	plan    string
	times   []float64
	results [][]Row

	hostCPU     []float64 // host busy core-seconds of each timed run
	serviceCPU  []float64 // the GPU service's core-seconds of each timed run
	servicePID  int
	cpuNote     string // why hostCPU is short
	serviceNote string // why serviceCPU is short
}

// runMode runs sql in mode m: the plan, cfg.WarmUps warm-ups, then cfg.Runs
// timed runs.
func runMode(ctx context.Context, conn *pgx.Conn, cfg *Config, m Mode, sql string) (modeRun, error) {
	var mr modeRun
	if err := applyMode(ctx, conn, cfg, m); err != nil {
		return mr, err
	}
	plan, err := explain(ctx, conn, sql)
	if err != nil {
		return mr, err
	}
	mr.plan = plan
	sampler := cfg.CPU
	if sampler == nil {
		mr.cpuNote, mr.serviceNote = "host CPU not measured", "host CPU not measured"
	} else if m.GPU {
		// looked up outside the timed runs; 0 (skipped) when there is none
		mr.servicePID, mr.serviceNote = servicePID(ctx, conn)
	}
	for i := 0; i < cfg.WarmUps+cfg.Runs; i++ {
		var rows []Row
		var secs float64
		var err error
		if i < cfg.WarmUps {
			rows, secs, err = fetch(ctx, conn, sql)
		} else {
			var sp cpuSpan
			sp, err = measureCPU(sampler, mr.servicePID, func() (ferr error) {
				rows, secs, ferr = fetch(ctx, conn, sql)
				return ferr
			})
			mr.addCPU(sp, m.GPU && mr.servicePID > 0)
		}
		if err != nil {
			return mr, fmt.Errorf("%s: %w", execName(i, cfg.WarmUps), err)
		}
		mr.results = append(mr.results, rows)
		if i >= cfg.WarmUps {
			mr.times = append(mr.times, secs)
		}
	}
	return mr, nil
}

// addCPU records one timed run's CPU figures; a missing one is noted once.
func (mr *modeRun) addCPU(sp cpuSpan, wantService bool) {
	if sp.host != nil {
		mr.hostCPU = append(mr.hostCPU, *sp.host)
	} else if mr.cpuNote == "" {
		mr.cpuNote = "a /proc/stat sample failed"
	}
	if !wantService {
		return
	}
	if sp.service != nil {
		mr.serviceCPU = append(mr.serviceCPU, *sp.service)
	} else if mr.serviceNote == "" {
		mr.serviceNote = fmt.Sprintf("a /proc/%d/stat sample failed (the service restarted?)", mr.servicePID)
	}
}
