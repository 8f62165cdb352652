package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"strings"
	"testing"
	"time"
)

func fakeReport() *Report {
	f := func(v float64) *float64 { return &v }
	rep := &Report{
		StartedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), Runs: 3, WarmUps: 1, Tolerance: FloatTolerance,
		Link:   LinkInfo{GBps: f(50), Source: "supplied by the -link-gbps flag"},
		Server: ServerInfo{Version: "PostgreSQL 15", Settings: map[string]string{}, Devices: []string{"GPU 0: H200"}},
	}
	for _, m := range Modes {
		rep.Modes = append(rep.Modes, ModeInfo{Key: m.Key, Label: m.Label})
	}
	ok := QueryResult{Query: "count_1pct", Table: "w1_narrow", Rows: 1, HeapBytes: 14e9, HeapGB: 14, Status: statusOK}
	for _, m := range Modes {
		med := 2.0
		if m.GPU {
			med = 0.5
		}
		ok.Modes = append(ok.Modes, ModeResult{Mode: m.Key, Times: []float64{med, med, med}, Median: f(med), UsedGPU: m.GPU, Plan: "plan"})
	}
	ok.computeFigures(50)
	bad := ok
	bad.Query, bad.Modes = "group_8", append([]ModeResult{}, ok.Modes...)
	bad.fail("wrong result: mode gpu run 1: sorted row 1 column 1: 2, reference 1")
	rep.Results = []QueryResult{ok, bad}
	rep.Failures = 1
	return rep
}

func TestComputeFigures(t *testing.T) {
	r := fakeReport().Results[0]
	if *r.Speedup != 4 || *r.GPUGBps != 28 || math.Abs(*r.LinkPct-56) > 1e-9 {
		t.Fatalf("figures: speedup %v GB/s %v link %v", *r.Speedup, *r.GPUGBps, *r.LinkPct)
	}
	r.LinkPct = nil
	r.computeFigures(0)
	if r.LinkPct != nil {
		t.Errorf("percent of link without a link bandwidth")
	}
}

func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, fakeReport()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"speedup", "4.00x", "56%", "FAILURE group_8 on w1_narrow", "1 failures", "supplied by the -link-gbps flag"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "group_8") && strings.Contains(line, "x ") {
			t.Errorf("failed query shows a speedup: %s", line)
		}
	}
}

func TestWriteJSONShape(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, fakeReport()); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	for _, k := range []string{"started_at", "server", "link", "host_cpu", "timed_runs", "modes", "results", "failures", "phases"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("missing top-level key %q", k)
		}
	}
	results := doc["results"].([]any)
	if len(results) != 2 {
		t.Fatalf("%d results", len(results))
	}
	r0 := results[0].(map[string]any)
	for _, k := range []string{"query", "table", "sql", "rows", "heap_bytes", "heap_gb", "heap_pages", "modes", "speedup", "gpu_gb_per_s", "link_pct", "status"} {
		if _, ok := r0[k]; !ok {
			t.Errorf("result lacks %q", k)
		}
	}
	if r0["speedup"].(float64) != 4 || r0["status"] != "ok" {
		t.Errorf("result 0: %v", r0)
	}
	r1 := results[1].(map[string]any)
	if r1["speedup"] != nil || r1["status"] != "FAILURE" || r1["failure"] == "" {
		t.Errorf("failed result: %v", r1)
	}
	m0 := r0["modes"].([]any)[0].(map[string]any)
	for _, k := range []string{"mode", "times_s", "median_s", "used_gpu", "plan", "host_core_s", "host_core_s_median", "host_core_us_per_page"} {
		if _, ok := m0[k]; !ok {
			t.Errorf("mode lacks %q", k)
		}
	}
}

func TestWritePlans(t *testing.T) {
	var b bytes.Buffer
	if err := WritePlans(&b, fakeReport()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "mode gpu") || !strings.Contains(b.String(), "used GPU: yes") {
		t.Errorf("plans:\n%s", b.String())
	}
}

func TestChartEncodes(t *testing.T) {
	for name, rep := range map[string]*Report{"results": fakeReport(), "empty": {}} {
		var b bytes.Buffer
		if err := WriteChart(&b, rep); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		img, err := png.Decode(&b)
		if err != nil {
			t.Fatalf("%s: not a PNG: %v", name, err)
		}
		if img.Bounds().Dx() < 500 || img.Bounds().Dy() < 300 {
			t.Errorf("%s: image %v", name, img.Bounds())
		}
	}
	// both bar colors are drawn
	var b bytes.Buffer
	if err := WriteChart(&b, fakeReport()); err != nil {
		t.Fatal(err)
	}
	img, _ := png.Decode(&b)
	found := map[[3]uint8]bool{}
	for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
		for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			found[[3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8)}] = true
		}
	}
	for _, c := range []color.RGBA{colPG, colGPU} {
		if !found[[3]uint8{c.R, c.G, c.B}] {
			t.Errorf("no pixel of color %v", c)
		}
	}
}

func TestErrFailuresWrapped(t *testing.T) {
	err := errors.Join(errors.New("x"), errFailures)
	if !errors.Is(err, errFailures) {
		t.Fatal("errFailures not found")
	}
}

func TestSummarize(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	var results []QueryResult
	for i, times := range [][3]float64{{4, 2, 1}, {9, 12, 1}} { // pg_jit, pg_nojit, gpu
		r := QueryResult{Query: fmt.Sprintf("Q%d", i+1), Table: "ssb", Status: statusOK, JoinDepth: i * 3}
		for k, m := range Modes {
			r.Modes = append(r.Modes, ModeResult{Mode: m.Key, Median: f(times[k]), UsedGPU: m.GPU})
		}
		r.computeFigures(0)
		results = append(results, r)
	}
	// PG best: 2 and 9; GPU 1 and 1: Σ 11 / 2, geometric mean sqrt(2 × 9)
	if *results[0].PGBest != 2 || *results[0].SpeedupBest != 2 || *results[0].Speedup != 4 {
		t.Fatalf("figures: %v %v %v", *results[0].PGBest, *results[0].SpeedupBest, *results[0].Speedup)
	}
	s := summarize(results)
	if len(s) != 1 || !s[0].Complete || *s[0].Ratio != 5.5 || math.Abs(*s[0].GeoMean-math.Sqrt(18)) > 1e-12 ||
		s[0].MaxJoinDepth != 3 || s[0].GPUPlans != 2 {
		t.Fatalf("summary: %+v", s)
	}
	rep := fakeReport()
	rep.Results, rep.Summaries, rep.Failures = results, s, 0
	var b bytes.Buffer
	if err := WriteTable(&b, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"summary ssb:", "ssb: Σ PG / Σ GPU = 5.50x, geometric mean of the speedups = 4.24x", "join depth up to 3"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	results[1].fail("x")
	if s := summarize(results); s[0].Complete || s[0].WithFigures != 1 || *s[0].Ratio != 2 {
		t.Errorf("with a failure: %+v", s)
	}
}
