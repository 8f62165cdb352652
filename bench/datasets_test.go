package main

import (
	"strings"
	"testing"
	"time"
)

func TestPartRangesCoverEveryRow(t *testing.T) {
	for _, d := range Datasets {
		for _, rows := range []int64{1, 7, 63, 64, 65, 2500, d.BaseRows} {
			next := int64(1)
			for p := 0; p < d.PartCount(rows); p++ {
				lo, hi := d.PartRange(rows, p)
				if lo != next || hi < lo {
					t.Fatalf("%s rows %d part %d: %d..%d, want to start at %d", d.Name, rows, p, lo, hi, next)
				}
				next = hi + 1
			}
			if next != rows+1 {
				t.Fatalf("%s rows %d: parts end at %d", d.Name, rows, next-1)
			}
		}
	}
}

func TestDatasetDefinitions(t *testing.T) {
	n, err := FindDataset("w1_narrow")
	if err != nil {
		t.Fatal(err)
	}
	if n.Rows(1) != 200_000_000 || n.Rows(0.0001) != 20000 || n.Rows(1e-12) != 1 {
		t.Errorf("rows: %d %d %d", n.Rows(1), n.Rows(0.0001), n.Rows(1e-12))
	}
	w, _ := FindDataset("w1_wide")
	if w.Rows(1) != 25_000_000 {
		t.Errorf("wide rows %d", w.Rows(1))
	}
	if n.Fingerprint(10) == n.Fingerprint(11) || n.Fingerprint(10) == w.Fingerprint(10) {
		t.Errorf("fingerprints do not tell datasets or row counts apart")
	}
	ins := n.InsertSQL(1, 5)
	if !strings.Contains(ins, "generate_series(1::int8, 5::int8)") || strings.Contains(ins, "random") {
		t.Errorf("insert: %s", ins)
	}
	// every W1 table has the columns the queries read
	for _, d := range Datasets {
		cols := map[string]bool{}
		for _, c := range d.Columns {
			cols[c.Name] = true
		}
		for _, c := range w1Core {
			if !cols[c.Name] {
				t.Errorf("%s lacks column %s", d.Name, c.Name)
			}
		}
	}
	if _, err := FindDataset("ssb"); err == nil {
		t.Errorf("unknown dataset accepted")
	}
}

func TestQueries(t *testing.T) {
	all, err := SelectQueries("")
	if err != nil || len(all) != len(Queries) {
		t.Fatalf("all queries: %d, %v", len(all), err)
	}
	two, err := SelectQueries("group_1m, count_1pct")
	if err != nil || len(two) != 2 || two[0].Name != "group_1m" {
		t.Fatalf("selection: %v, %v", two, err)
	}
	if _, err := SelectQueries("nope"); err == nil {
		t.Errorf("unknown query accepted")
	}
	d, _ := FindDataset("w1_wide")
	if sql := Queries[0].For(d); !strings.Contains(sql, `FROM "w1_wide"`) {
		t.Errorf("For: %s", sql)
	}
	if !planUsesGPU("->  Parallel Custom Scan (GpuScan) on t") || !planUsesGPU("->  Parallel Custom Scan (GpuPreAgg) on t") ||
		planUsesGPU("Parallel Seq Scan on t") {
		t.Errorf("planUsesGPU")
	}
}

func TestParseConfig(t *testing.T) {
	t.Setenv("BENCH_PLANT_WRONG_RESULT", "sum_expr@w1_wide")
	cfg, err := parseConfig("run", []string{"-tables", "w1_wide", "-queries", "sum_expr", "-timeout", "90s", "-link-gbps", "55.5"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Tables) != 1 || len(cfg.Queries) != 1 || cfg.Timeout != 90*time.Second || cfg.LinkGBps != 55.5 ||
		cfg.Runs != 3 || !cfg.Plant.Matches("sum_expr", "w1_wide") || cfg.Workers < 1 || cfg.Workers > 16 {
		t.Errorf("config: %+v", cfg)
	}
	for _, bad := range [][]string{{"-tables", "x"}, {"-scale", "0"}, {"-runs", "0"}, {"-plant-wrong-result", "x"}, {"extra"}} {
		if _, err := parseConfig("run", bad, nil, &strings.Builder{}); err == nil {
			t.Errorf("accepted %v", bad)
		}
	}
}
