package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Run times every query in every mode on every table, checks that the modes
// agree and writes the outputs. It returns an error wrapping errFailures
// when some query failed (after writing every output).
func Run(ctx context.Context, cfg *Config) (*Report, error) {
	rep := &Report{StartedAt: time.Now(), Runs: cfg.Runs, WarmUps: cfg.WarmUps, Tolerance: FloatTolerance}
	for _, m := range Modes {
		var set []string
		for _, kv := range settingsFor(m, cfg) {
			set = append(set, kv[0]+"="+kv[1])
		}
		rep.Modes = append(rep.Modes, ModeInfo{Key: m.Key, Label: m.Label, Settings: set})
	}
	rep.Link = LinkInfo{Source: "not measured: the run stopped before the link probe"}
	var cpuOK bool
	if rep.CPU, cpuOK = cpuProbe(cfg.CPU); !cpuOK {
		cfg.CPU = nil // unreadable: every CPU column is "-", the header says why
	}
	rep.CPU.Service = "not measured: no gpu mode run"
	logw := cfg.Stderr // while bars are drawn: above them
	timed := func(name string, f func() error) error {
		t0 := time.Now()
		err := phase(logw, name, f)
		rep.Phases = append(rep.Phases, PhaseTime{Name: name, Seconds: time.Since(t0).Seconds()})
		return err
	}

	conn, err := connect(ctx, cfg)
	if err != nil {
		return rep, err
	}
	defer conn.Close(context.Background())
	heap := map[string]int64{}
	err = timed("check", func() error {
		if err := checkPgStrom(ctx, conn); err != nil {
			return err
		}
		if rep.Server, err = serverInfo(ctx, conn); err != nil {
			return err
		}
		for _, d := range cfg.Tables {
			st, err := readLoaded(ctx, conn, d)
			if err != nil {
				return err
			}
			if heap[d.Name], err = heapBytes(ctx, conn, d); err != nil {
				return err
			}
			fmt.Fprintf(cfg.Stderr, "  %s: %d rows, heap %.3f GB\n", d.Name, st.Rows, gb(heap[d.Name]))
		}
		if rep.SharedBuffersBytes, err = sharedBuffersBytes(ctx, conn); err != nil {
			return err
		}
		for _, d := range cfg.Tables {
			rep.Tables = append(rep.Tables, TableSize{Name: d.Name, HeapBytes: heap[d.Name],
				LargerThanSharedBuffers: heap[d.Name] > rep.SharedBuffersBytes})
		}
		return nil
	})
	if err != nil {
		return rep, err
	}
	err = timed("link", func() (err error) {
		rep.Link, err = linkPhase(ctx, conn, cfg)
		return err
	})
	if err != nil {
		return rep, err
	}
	if cfg.Prewarm {
		if err := timed("prewarm", func() error { return prewarm(ctx, conn, cfg.Tables, cfg.Stderr) }); err != nil {
			return rep, err
		}
	}
	targets := runTargets(cfg)
	prog := newProgress(cfg.Stderr)
	total := 0
	for _, tg := range targets {
		total += len(tg.Queries)
	}
	bar := prog.bar("queries", int64(total))
	qcfg := *cfg
	qcfg.Stderr = prog.writer()
	logw = qcfg.Stderr
	for _, tg := range targets {
		var heapSum int64
		for _, d := range tg.Tables {
			heapSum += heap[d.Name]
		}
		err := timed("queries on "+tg.Name, func() error {
			for _, q := range tg.Queries {
				r, err := runQuery(ctx, conn, &qcfg, q, tg, heapSum, rep.Link.gbps())
				if err != nil {
					return err
				}
				rep.Results = append(rep.Results, r)
				bar.increment(q.Name + " on " + tg.Name)
			}
			return nil
		})
		if err != nil {
			prog.wait()
			logw = cfg.Stderr
			rep.FinishedAt = time.Now()
			rep.CPU.Service = serviceNote(rep.Results)
			rep.Summaries = summarize(rep.Results)
			if werr := writeOutputs(cfg, rep); werr != nil {
				fmt.Fprintf(cfg.Stderr, "writing the partial results: %v\n", werr)
			}
			return rep, fmt.Errorf("stopped after %d results (written above): %w", len(rep.Results), err)
		}
	}
	prog.wait()
	logw = cfg.Stderr
	if rep.Server.ServiceAfter, err = serviceState(ctx, conn); err != nil {
		return rep, err
	}
	rep.CPU.Service = serviceNote(rep.Results)
	rep.Summaries = summarize(rep.Results)
	for _, r := range rep.Results {
		if r.Status == statusFailure {
			rep.Failures++
		}
	}
	rep.FinishedAt = time.Now()
	if err := writeOutputs(cfg, rep); err != nil {
		return rep, err
	}
	if rep.Failures > 0 {
		return rep, fmt.Errorf("%d of %d queries FAILED: %w", rep.Failures, len(rep.Results), errFailures)
	}
	return rep, nil
}

// readLoaded checks that load finished d.
func readLoaded(ctx context.Context, conn *pgx.Conn, d Dataset) (DatasetState, error) {
	var st DatasetState
	var ok bool
	if err := conn.QueryRow(ctx, "SELECT to_regclass('bench_meta') IS NOT NULL").Scan(&ok); err != nil {
		return st, fmt.Errorf("look up bench_meta: %w", err)
	}
	if ok {
		var err error
		if st, err = readState(ctx, conn, d); err != nil {
			return st, err
		}
	}
	if exists, err := tableExists(ctx, conn, d); err != nil || !exists || !st.Found || !st.Finalized {
		if err != nil {
			return st, err
		}
		return st, fmt.Errorf("dataset %s is not completely loaded: run `pgstrom-bench load` first", d.Name)
	}
	return st, nil
}

// target is what one set of queries runs on: a W1 table (the W1 queries,
// each on that table) or a group (groups.go: its queries over its tables).
type target struct {
	Name    string // the table, or the group ("ssb", "tpch", ...); the results' table column
	Tables  []Dataset
	Queries []Query
}

// sql is q's text for this target.
func (t target) sql(q Query) string {
	if q.Group == "" {
		return q.For(t.Tables[0])
	}
	return q.SQL
}

// runTargets lists what Run runs, in -tables order: each W1 table with the
// selected W1 queries, then each group whose tables are all given with the
// group's selected queries; a target without a selected query is left out.
func runTargets(cfg *Config) []target {
	var out []target
	for _, d := range cfg.Tables {
		if d.Group != "" {
			continue
		}
		t := target{Name: d.Name, Tables: []Dataset{d}}
		for _, q := range cfg.Queries {
			if q.Group == "" {
				t.Queries = append(t.Queries, q)
			}
		}
		if len(t.Queries) > 0 {
			out = append(out, t)
		}
	}
	for _, g := range completeGroups(cfg.Tables) {
		t := target{Name: g.name}
		for _, d := range cfg.Tables {
			if g.has(d) {
				t.Tables = append(t.Tables, d)
			}
		}
		for _, q := range cfg.Queries {
			if q.Group == g.name {
				t.Queries = append(t.Queries, q)
			}
		}
		if len(t.Queries) > 0 {
			out = append(out, t)
		}
	}
	return out
}

// runQuery runs q on tg in every mode, then judges the results; heap is
// the bytes of tg's tables and linkGBps (0: unknown) the host-to-device
// bandwidth of the '% link' column.
func runQuery(ctx context.Context, conn *pgx.Conn, cfg *Config, q Query, tg target, heap int64, linkGBps float64) (QueryResult, error) {
	sql := tg.sql(q)
	r := QueryResult{Query: q.Name, Table: tg.Name, SQL: sql, HeapBytes: heap, HeapGB: gb(heap), HeapPages: heapPages(heap), Status: statusOK}
	r.Planted = cfg.Plant.Matches(q.Name, tg.Name)
	runs := make([]modeRun, len(Modes))
	errs := make([]error, len(Modes))
	for i, m := range Modes {
		runs[i], errs[i] = runMode(ctx, conn, cfg, m, sql)
		if errs[i] != nil && ctx.Err() != nil {
			return r, fmt.Errorf("%s on %s: %w", q.Name, tg.Name, errs[i])
		}
		fmt.Fprintf(cfg.Stderr, "  %-11s %-10s %-8s %s\n", q.Name, tg.Name, m.Key, runText(runs[i], errs[i]))
	}
	judge(&r, runs, errs, cfg.Runs, cfg.WarmUps)
	r.computeFigures(linkGBps)
	if r.Status == statusFailure {
		fmt.Fprintf(cfg.Stderr, "  %-11s %-10s FAILURE: %s\n", q.Name, tg.Name, r.Failure)
	}
	return r, nil
}

// judge fills r.Modes from the runs of every mode (in Modes order) and
// fails r when a mode failed, a plain mode planned a GpuScan, or any
// execution's result differs from the first mode's first execution. When
// r.Planted, the GPU mode's results are perturbed first (the self-test).
func judge(r *QueryResult, runs []modeRun, errs []error, timedRuns, warmUps int) {
	var ref []Row
	haveRef := false
	for i, m := range Modes {
		mr := runs[i]
		res := ModeResult{Mode: m.Key, Times: mr.times, Plan: mr.plan, UsedGPU: planUsesGPU(mr.plan), JoinDepth: planJoinDepth(mr.plan)}
		if len(mr.times) == timedRuns {
			res.Median = ptr(Median(mr.times))
		}
		res.setCPUFigures(mr.hostCPU, mr.serviceCPU, timedRuns, r.HeapPages)
		res.CPUNote, res.ServicePID = mr.cpuNote, mr.servicePID
		if m.GPU {
			res.ServiceCPUNote = mr.serviceNote
			r.JoinDepth = res.JoinDepth
		}
		if errs[i] != nil {
			res.Error = errs[i].Error()
			r.fail(fmt.Sprintf("mode %s: %s", m.Key, oneLine(res.Error)))
		}
		if !m.GPU && res.UsedGPU {
			r.fail(fmt.Sprintf("mode %s planned a GpuScan with pg_strom.enabled = off", m.Key))
		}
		for k, rows := range mr.results {
			if m.GPU && r.Planted {
				rows = Perturb(rows)
			}
			if !haveRef {
				ref, haveRef = SortedCopy(rows), true
				r.Rows = len(rows)
				continue
			}
			if err := compareSorted(ref, rows, FloatTolerance); err != nil {
				r.fail(fmt.Sprintf("wrong result: mode %s %s: %v (reference: mode %s %s)", m.Key, execName(k, warmUps), err, Modes[0].Key, execName(0, warmUps)))
				break
			}
		}
		r.Modes = append(r.Modes, res)
	}
}

// execName names execution i of a mode, the warm-ups first
func execName(i, warmUps int) string {
	if i < warmUps {
		if warmUps == 1 {
			return "warm-up"
		}
		return fmt.Sprintf("warm-up %d", i+1)
	}
	return fmt.Sprintf("run %d", i-warmUps+1)
}

func runText(mr modeRun, err error) string {
	parts := make([]string, len(mr.times))
	for i, t := range mr.times {
		parts[i] = fmt.Sprintf("%.3f", t)
	}
	s := strings.Join(parts, " ") + " s"
	if len(mr.times) > 0 {
		s += fmt.Sprintf(" (median %.3f)", Median(mr.times))
	}
	if len(mr.hostCPU) > 0 {
		s += fmt.Sprintf(" host-cpu %.2f core-s", Median(mr.hostCPU))
	}
	if len(mr.serviceCPU) > 0 {
		s += fmt.Sprintf(" (service %.2f)", Median(mr.serviceCPU))
	}
	s += " gpu-plan=" + yesNo(planUsesGPU(mr.plan))
	if err != nil {
		s += " ERROR " + oneLine(err.Error())
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// writeOutputs prints the table and writes the JSON, PNG and plans files
// that were asked for.
func writeOutputs(cfg *Config, rep *Report) error {
	if err := WriteTable(cfg.Stdout, rep); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	var errs []error
	if cfg.JSONPath != "" {
		errs = append(errs, writeFile(cfg.JSONPath, func(f *os.File) error { return WriteJSON(f, rep) }))
	}
	if cfg.PNGPath != "" {
		errs = append(errs, writeFile(cfg.PNGPath, func(f *os.File) error { return WriteChart(f, rep) }))
	}
	if cfg.PlansPath != "" {
		errs = append(errs, writeFile(cfg.PlansPath, func(f *os.File) error { return WritePlans(f, rep) }))
	}
	return errors.Join(errs...)
}

func writeFile(path string, write func(*os.File) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	return nil
}
