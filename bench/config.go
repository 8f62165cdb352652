package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"
)

// Config holds the flags of both steps.
type Config struct {
	ConnString string  // libpq-style; empty: PGHOST, PGPORT, PGUSER, PGDATABASE, ...
	Scale      float64 // W1 row-count multiplier
	SF         float64 // SSB scale factor
	TPCHSF     float64 // TPC-H scale factor
	Tables     []Dataset
	Timeout    time.Duration

	// load
	Workers int
	Prewarm bool

	// run
	Queries   []Query
	Runs      int
	WarmUps   int
	JSONPath  string
	PNGPath   string
	PlansPath string
	LinkGBps  float64 // 0: measured by pgstrom.gpu_link_bandwidth()

	GPUSettings [][2]string // -gpu-set: extra SETs of the GPU mode
	Plant       Plant

	CPU CPUSampler // host CPU of every timed run; nil: not measured

	Stdout io.Writer
	Stderr io.Writer
}

// scaleOf is the scale d is loaded at: its group's scale factor (-sf for
// SSB, -tpch-sf for TPC-H), -scale for W1.
func (c *Config) scaleOf(d Dataset) float64 {
	if g, ok := findGroup(d.Group); ok {
		return g.scale(c)
	}
	return c.Scale
}

func defaultWorkers() int { return min(runtime.NumCPU(), 16) }

// parseConfig parses the flags of step (load, run or sql).
func parseConfig(step string, args []string, stdout, stderr io.Writer) (*Config, error) {
	fs := flag.NewFlagSet("pgstrom-bench "+step, flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := &Config{Stdout: stdout, Stderr: stderr, CPU: newProcSampler()}
	var tables, queries, plant, gpuSet string
	fs.StringVar(&cfg.ConnString, "dsn", "", "connection string (default: the PGHOST, PGPORT, PGUSER, PGDATABASE, ... environment)")
	fs.Float64Var(&cfg.Scale, "scale", 1.0, "W1 row-count multiplier: 1.0 = 200M narrow rows and 25M wide rows (load)")
	fs.Float64Var(&cfg.SF, "sf", 1.0, "SSB scale factor: 1 = 6M lineorder rows, 30,000 customers, 2,000 suppliers, 200,000 parts (load)")
	fs.Float64Var(&cfg.TPCHSF, "tpch-sf", 1.0, "TPC-H scale factor: 1 = about 6M lineitem rows, 1.5M orders, 150,000 customers, 200,000 parts, 10,000 suppliers (load)")
	fs.StringVar(&tables, "tables", "w1_narrow,w1_wide", "comma-separated datasets: w1_narrow, w1_wide, ssb (the five ssb_* tables), tpch (the eight tpch_* tables), ssb_partitioned and tpch_partitioned (the same over ssb_lineorder_part and tpch_lineitem_part, partitioned by month) or single ssb_* or tpch_* tables (load)")
	fs.DurationVar(&cfg.Timeout, "timeout", 10*time.Minute, "statement_timeout of every statement (0: none)")
	fs.IntVar(&cfg.Workers, "workers", defaultWorkers(), "parallel loader connections (load)")
	fs.BoolVar(&cfg.Prewarm, "prewarm", true, "pg_prewarm the tables (at the end of load, and before run)")
	fs.StringVar(&queries, "queries", "", "comma-separated query names (default: all of "+fmt.Sprint(QueryNames())+")")
	fs.IntVar(&cfg.Runs, "runs", 3, "timed runs per query and mode, after the warm-ups (run)")
	fs.IntVar(&cfg.WarmUps, "warm-ups", 1, "untimed runs per query and mode before the timed ones; their results are checked as well (run)")
	fs.StringVar(&cfg.JSONPath, "json", "", "write the results as JSON to this file (run)")
	fs.StringVar(&cfg.PNGPath, "png", "", "write a bar chart of the speedups to this PNG file (run)")
	fs.StringVar(&cfg.PlansPath, "plans", "", "write the EXPLAIN (COSTS OFF) plan of every query in every mode to this file (run)")
	fs.StringVar(&gpuSet, "gpu-set", "", "extra settings of the GPU mode, e.g. pg_strom.gpu_page_cost=0,pg_strom.gpu_tuple_cost=0 to see the GPU plan where the default costs keep the CPU one (run)")
	fs.Float64Var(&cfg.LinkGBps, "link-gbps", 0, "host-to-device link bandwidth in GB/s (10^9 bytes/s), measured elsewhere; overrides the measurement by pgstrom.gpu_link_bandwidth() (run)")
	fs.StringVar(&plant, "plant-wrong-result", os.Getenv("BENCH_PLANT_WRONG_RESULT"),
		"SELF-TEST: perturb the GPU mode's result of QUERY or QUERY@TABLE; the run must then report FAILURE and exit 1 (env BENCH_PLANT_WRONG_RESULT)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if cfg.Scale <= 0 {
		return nil, fmt.Errorf("-scale must be positive, got %g", cfg.Scale)
	}
	if cfg.SF <= 0 {
		return nil, fmt.Errorf("-sf must be positive, got %g", cfg.SF)
	}
	if cfg.TPCHSF <= 0 {
		return nil, fmt.Errorf("-tpch-sf must be positive, got %g", cfg.TPCHSF)
	}
	if cfg.Workers < 1 {
		return nil, fmt.Errorf("-workers must be at least 1, got %d", cfg.Workers)
	}
	if cfg.Runs < 1 {
		return nil, fmt.Errorf("-runs must be at least 1, got %d", cfg.Runs)
	}
	if cfg.WarmUps < 0 {
		return nil, fmt.Errorf("-warm-ups must be at least 0, got %d", cfg.WarmUps)
	}
	if cfg.LinkGBps < 0 {
		return nil, fmt.Errorf("-link-gbps must not be negative, got %g", cfg.LinkGBps)
	}
	seen := map[string]bool{}
	for _, name := range splitList(tables) {
		ds, err := FindDatasets(name)
		if err != nil {
			return nil, fmt.Errorf("-tables: %w", err)
		}
		for _, d := range ds {
			if !seen[d.Name] {
				seen[d.Name] = true
				cfg.Tables = append(cfg.Tables, d.At(cfg.scaleOf(d)))
			}
		}
	}
	if len(cfg.Tables) == 0 {
		return nil, fmt.Errorf("-tables: no dataset given")
	}
	if step == "run" {
		if err := checkGroupsComplete(cfg.Tables); err != nil {
			return nil, err
		}
	}
	var err error
	if cfg.Queries, err = SelectQueries(queries); err != nil {
		return nil, fmt.Errorf("-queries: %w", err)
	}
	if strings.TrimSpace(queries) == "" {
		cfg.Queries = append(append(cfg.Queries, TPCHQueries...), PartitionedQueries...)
	}
	if cfg.Plant, err = ParsePlant(plant); err != nil {
		return nil, err
	}
	if cfg.GPUSettings, err = parseGPUSettings(gpuSet); err != nil {
		return nil, err
	}
	return cfg, nil
}
