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
	for _, d := range W1Datasets {
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
		t.Errorf("the group name accepted as a dataset")
	}
	if ds, err := FindDatasets("ssb"); err != nil || len(ds) != 5 {
		t.Errorf("FindDatasets(ssb): %d, %v", len(ds), err)
	}
}

func TestSSBDefinitions(t *testing.T) {
	rows := map[string][3]int64{ // at SF 1, 20, 0.125
		"ssb_lineorder": {6_000_000, 120_000_000, 750_000}, "ssb_customer": {30_000, 600_000, 3_750},
		"ssb_supplier": {2_000, 40_000, 250}, "ssb_part": {200_000, 1_000_000, 25_000}, "ssb_date": {2557, 2557, 2557},
	}
	for _, d := range ssbDatasets {
		for i, sf := range []float64{1, 20, 0.125} {
			if got := d.Rows(sf); got != rows[d.Name][i] {
				t.Errorf("%s at SF %g: %d rows, want %d", d.Name, sf, got, rows[d.Name][i])
			}
		}
		a, b := d.At(1), d.At(2)
		if len(a.Columns) == 0 || strings.Contains(a.InsertSQL(1, 2), "random") {
			t.Errorf("%s: %d columns, %s", d.Name, len(a.Columns), a.InsertSQL(1, 2))
		}
		// lineorder's keys depend on the dimensions' sizes, so on the SF
		if (d.Name == "ssb_lineorder") != (a.Fingerprint(10) != b.Fingerprint(10)) {
			t.Errorf("%s: fingerprint at SF 1 and 2", d.Name)
		}
	}
	if len(ssbColors) != 92 || len(ssbTypes()) != 150 || len(ssbContainers()) != 40 || len(ssbNations) != 25 {
		t.Errorf("word lists: %d colors, %d types, %d containers, %d nations", len(ssbColors), len(ssbTypes()), len(ssbContainers()), len(ssbNations))
	}
	sum := 0
	for _, n := range ssbOrderLines {
		sum += n
	}
	if o, l := ssbBlockMaps(); sum != 28 || len(o) != 28 || len(l) != 28 {
		t.Errorf("order block: %d lines", sum)
	}
	if len(SSBQueries) != 13 || SSBQueries[0].Name != "Q1.1" || SSBQueries[12].Name != "Q4.3" {
		t.Fatalf("SSB queries: %v", SSBQueries)
	}
	// the spec's filter factors (SSB section 3.1)
	for name, ff := range map[string]float64{"Q1.1": 1.9e-2, "Q1.2": 6.5e-4, "Q1.3": 7.5e-5, "Q2.1": 8e-3, "Q2.2": 1.6e-3,
		"Q2.3": 2e-4, "Q3.1": 3.4e-2, "Q3.2": 1.4e-3, "Q3.3": 5.5e-5, "Q3.4": 7.6e-7, "Q4.1": 1.6e-2, "Q4.2": 4.6e-3, "Q4.3": 9.1e-5} {
		for _, q := range SSBQueries {
			if q.Name == name && (q.SpecFF < ff*0.95 || q.SpecFF > ff*1.05) {
				t.Errorf("%s: filter factor %g, spec %g", name, q.SpecFF, ff)
			}
		}
	}
	for _, q := range ssbQueries {
		if !strings.HasPrefix(q.countSQL(), "SELECT count(*) FROM ") || !strings.Contains(q.query().SQL, q.where) {
			t.Errorf("%s: %s", q.name, q.countSQL())
		}
	}
}

func TestRunTargets(t *testing.T) {
	cfg, err := parseConfig("run", []string{"-tables", "w1_narrow,ssb", "-sf", "0.5"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	tg := runTargets(cfg)
	if len(tg) != 2 || tg[0].Name != "w1_narrow" || len(tg[0].Queries) != len(Queries) ||
		tg[1].Name != "ssb" || len(tg[1].Tables) != 5 || len(tg[1].Queries) != 13 {
		t.Fatalf("targets: %+v", tg)
	}
	if sql := tg[0].sql(tg[0].Queries[0]); !strings.Contains(sql, `"w1_narrow"`) {
		t.Errorf("W1 sql: %s", sql)
	}
	if sql := tg[1].sql(tg[1].Queries[0]); !strings.Contains(sql, "ssb_lineorder") {
		t.Errorf("SSB sql: %s", sql)
	}
	// lineorder's generator is the one of the SF given
	for _, d := range cfg.Tables {
		if d.Name == "ssb_lineorder" && d.Fingerprint(d.Rows(0.5)) != ssbDatasets[4].At(0.5).Fingerprint(3_000_000) {
			t.Errorf("lineorder not bound to -sf")
		}
	}
	cfg, _ = parseConfig("run", []string{"-tables", "w1_narrow,ssb", "-queries", "Q2.1"}, nil, nil)
	if tg := runTargets(cfg); len(tg) != 1 || tg[0].Name != "ssb" || len(tg[0].Queries) != 1 {
		t.Errorf("-queries Q2.1: %+v", tg)
	}
	if _, err := parseConfig("run", []string{"-tables", "ssb_part"}, nil, &strings.Builder{}); err == nil {
		t.Errorf("run on one SSB table accepted")
	}
	if _, err := parseConfig("load", []string{"-tables", "ssb_part", "-sf", "0"}, nil, &strings.Builder{}); err == nil {
		t.Errorf("-sf 0 accepted")
	}
}

func TestPlanJoinDepth(t *testing.T) {
	for plan, want := range map[string]int{
		"Hash Join\n  ->  Parallel Seq Scan on ssb_lineorder":                                                              0,
		"->  Parallel Custom Scan (GpuPreAgg) on ssb_lineorder":                                                            0,
		"Custom Scan (GpuJoin) on ssb_lineorder\n  Depth 1: GpuHashJoin (nrows 10)\n  Depth 2: GpuHashJoin (nrows 5)":      2,
		"Custom Scan (GpuJoin) on ssb_lineorder":                                                                           1,
		"Custom Scan (GpuPreAgg) on ssb_lineorder\n  Depth 1: GpuHashJoin\n  Depth 2: GpuHashJoin\n  Depth 3: GpuHashJoin": 3,
	} {
		if got := planJoinDepth(plan); got != want {
			t.Errorf("%q: depth %d, want %d", plan, got, want)
		}
	}
	if !planUsesGPU("Custom Scan (GpuJoin) on t") {
		t.Errorf("GpuJoin is a GPU plan")
	}
}

func TestQueries(t *testing.T) {
	all, err := SelectQueries("")
	if err != nil || len(all) != len(Queries)+len(SSBQueries) {
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
