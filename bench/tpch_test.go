package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

func TestTPCHDefinitions(t *testing.T) {
	rows := map[string][3]int64{ // at SF 1, 10, 0.01
		"tpch_region": {5, 5, 5}, "tpch_nation": {25, 25, 25}, "tpch_supplier": {10_000, 100_000, 100},
		"tpch_customer": {150_000, 1_500_000, 1_500}, "tpch_part": {200_000, 2_000_000, 2_000},
		"tpch_partsupp": {800_000, 8_000_000, 8_000}, "tpch_orders": {1_500_000, 15_000_000, 15_000},
		// 28 lines in each 7 orders, then the first orders of the cycle
		// (1,500,000 = 7 × 214,285 + 5: 4 + 1 + 7 + 3 + 6 lines)
		"tpch_lineitem": {214_285*28 + 21, 2_142_857*28 + 4, 2_142*28 + 23},
	}
	for i, sf := range []float64{1, 10, 0.01} {
		if d := float64(rows["tpch_lineitem"][i]) / (6_000_000 * sf); d < 0.9999 || d > 1.0001 {
			t.Errorf("lineitem at SF %g: %d rows, not about 6,000,000 × SF", sf, rows["tpch_lineitem"][i])
		}
	}
	if len(tpchDatasets) != 8 {
		t.Fatalf("%d TPC-H tables", len(tpchDatasets))
	}
	sfDependent := map[string]bool{"tpch_partsupp": true, "tpch_orders": true, "tpch_lineitem": true}
	for _, d := range tpchDatasets {
		for i, sf := range []float64{1, 10, 0.01} {
			if got := d.Rows(sf); got != rows[d.Name][i] {
				t.Errorf("%s at SF %g: %d rows, want %d", d.Name, sf, got, rows[d.Name][i])
			}
		}
		a, b := d.At(1), d.At(2)
		if len(a.Columns) == 0 || strings.Contains(a.InsertSQL(1, 2), "random") || d.Group != tpchGroup {
			t.Errorf("%s: %d columns, group %q", d.Name, len(a.Columns), d.Group)
		}
		// keys that pick among other tables' rows depend on their sizes
		if sfDependent[d.Name] != (a.Fingerprint(10) != b.Fingerprint(10)) {
			t.Errorf("%s: fingerprint at SF 1 and 2", d.Name)
		}
		if a.Fingerprint(10) != d.At(1).Fingerprint(10) {
			t.Errorf("%s: the generator is not deterministic", d.Name)
		}
	}
	if ds, err := FindDatasets("tpch"); err != nil || len(ds) != 8 {
		t.Errorf("FindDatasets(tpch): %d, %v", len(ds), err)
	}
	if got := tpchOrderKey("n"); got != "(n / 8 * 32 + n % 8)" {
		t.Errorf("order key: %s", got)
	}
}

func TestTPCHTextPool(t *testing.T) {
	chunk := regexp.MustCompile(`'([^']*)'`)
	chunks := chunk.FindAllStringSubmatch(tpchPool, -1)
	if len(chunks) != tpchChunks {
		t.Fatalf("%d chunks", len(chunks))
	}
	for _, c := range chunks {
		// Q13 and Q16 find their words only where the generator puts them
		if len(c[1]) != tpchChunkLen || strings.Contains(c[1], "special") || strings.ToLower(c[1]) != c[1] {
			t.Fatalf("chunk of %d characters: %q", len(c[1]), c[1])
		}
	}
	s := splitmix64(1)
	if a, b := s.next(), s.next(); a == b || fmt.Sprint(a) != "10451216379200822465" {
		t.Errorf("splitmix64 gave %d, %d", a, b)
	}
}

func TestTPCHQueries(t *testing.T) {
	if len(TPCHQueries) != 22 {
		t.Fatalf("%d TPC-H queries", len(TPCHQueries))
	}
	for i, q := range TPCHQueries {
		if q.Name != fmt.Sprintf("Q%d", i+1) || q.Group != tpchGroup || !strings.HasPrefix(q.SQL, "SELECT") && !strings.HasPrefix(q.SQL, "WITH") {
			t.Errorf("query %d: %s, group %q: %.30s", i+1, q.Name, q.Group, q.SQL)
		}
	}
	cfg, err := parseConfig("run", []string{"-tables", "ssb,tpch", "-tpch-sf", "0.5"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	tg := runTargets(cfg)
	if len(tg) != 2 || tg[0].Name != "ssb" || tg[1].Name != "tpch" || len(tg[1].Tables) != 8 || len(tg[1].Queries) != 22 {
		t.Fatalf("targets: %+v", tg)
	}
	for _, d := range cfg.Tables {
		if d.Name == "tpch_lineitem" && d.Fingerprint(10) != tpchDatasets[7].At(0.5).Fingerprint(10) {
			t.Errorf("lineitem not bound to -tpch-sf")
		}
	}
	cfg, _ = parseConfig("run", []string{"-tables", "tpch,w1_narrow", "-queries", "Q6,Q1.1"}, nil, nil)
	if tg := runTargets(cfg); len(tg) != 1 || tg[0].Name != "tpch" || len(tg[0].Queries) != 1 || tg[0].Queries[0].Name != "Q6" {
		t.Errorf("-queries Q6,Q1.1: %+v", tg)
	}
	if _, err := parseConfig("run", []string{"-tables", "tpch_orders"}, nil, &strings.Builder{}); err == nil {
		t.Errorf("run on one TPC-H table accepted")
	}
	if _, err := parseConfig("load", []string{"-tables", "tpch", "-tpch-sf", "0"}, nil, &strings.Builder{}); err == nil {
		t.Errorf("-tpch-sf 0 accepted")
	}
}
