package main

import (
	"math"
	"strings"
	"testing"
)

func TestParsePlant(t *testing.T) {
	p, err := ParsePlant("group_8@w1_wide")
	if err != nil || p.Query != "group_8" || p.Table != "w1_wide" {
		t.Fatalf("ParsePlant = %+v, %v", p, err)
	}
	if !p.Matches("group_8", "w1_wide") || p.Matches("group_8", "w1_narrow") || p.Matches("sum_expr", "w1_wide") {
		t.Errorf("Matches with a table is wrong")
	}
	p, _ = ParsePlant("sum_expr")
	if !p.Matches("sum_expr", "w1_narrow") || !p.Matches("sum_expr", "w1_wide") {
		t.Errorf("a plant without a table must match every table")
	}
	if p, _ := ParsePlant(""); p.Active() || p.Matches("sum_expr", "w1_wide") {
		t.Errorf("empty plant is active")
	}
	if _, err := ParsePlant("nope"); err == nil {
		t.Errorf("unknown query accepted")
	}
}

func TestPerturbAlwaysDetected(t *testing.T) {
	inputs := map[string][]Row{
		"int":   {{iv(5), fv(1)}, {iv(6), fv(2)}},
		"float": {{fv(2.5)}},
		"zero":  {{fv(0)}},
		"nan":   {{fv(math.NaN())}},
		"inf":   {{fv(math.Inf(-1))}},
		"text":  {{sv("abc")}},
		"null":  {{null, iv(1)}},
		"empty": {},
		"cols":  {{}},
	}
	for name, rows := range inputs {
		orig := SortedCopy(rows)
		bad := Perturb(rows)
		if err := CompareResults(rows, bad, FloatTolerance); err == nil {
			t.Errorf("%s: perturbed result not detected", name)
		}
		if err := CompareResults(orig, rows, 0); err != nil {
			t.Errorf("%s: Perturb changed its input: %v", name, err)
		}
	}
}

// TestPlantedWrongResultFailsTheQuery runs the judging of one query with
// fake mode runs: equal results pass; the planted run is a FAILURE with no
// figures.
func TestPlantedWrongResultFailsTheQuery(t *testing.T) {
	rows := []Row{{iv(0), iv(100), fv(12.5)}, {iv(1), iv(90), fv(-3.25)}}
	runs := make([]modeRun, len(Modes))
	for i, m := range Modes {
		plan := "Seq Scan on w1_narrow"
		if m.GPU {
			plan = "Custom Scan (GpuScan) on w1_narrow"
		}
		runs[i] = modeRun{plan: plan, times: []float64{float64(3 - i), 1, 2}, results: [][]Row{rows, rows, rows, rows}}
	}
	errs := make([]error, len(Modes))

	ok := QueryResult{Query: "group_8", Table: "w1_narrow", HeapGB: 2, Status: statusOK}
	judge(&ok, runs, errs, 3, 1)
	ok.computeFigures(50)
	if ok.Status != statusOK || ok.Speedup == nil || ok.Rows != 2 || !ok.GPUUsed() {
		t.Fatalf("clean run: %+v", ok)
	}

	bad := QueryResult{Query: "group_8", Table: "w1_narrow", HeapGB: 2, Status: statusOK, Planted: true}
	judge(&bad, runs, errs, 3, 1)
	bad.computeFigures(50)
	if bad.Status != statusFailure || bad.Speedup != nil || bad.GPUGBps != nil || bad.LinkPct != nil {
		t.Fatalf("planted run not failed: %+v", bad)
	}
	if !strings.Contains(bad.Failure, "mode gpu") {
		t.Errorf("failure does not name the GPU mode: %s", bad.Failure)
	}
}

func TestPlainModeWithGpuScanFails(t *testing.T) {
	runs := make([]modeRun, len(Modes))
	for i := range Modes {
		runs[i] = modeRun{plan: "Custom Scan (GpuScan) on t", times: []float64{1}, results: [][]Row{{{iv(1)}}}}
	}
	r := QueryResult{Status: statusOK}
	judge(&r, runs, make([]error, len(Modes)), 1, 1)
	if r.Status != statusFailure || !strings.Contains(r.Failure, "pg_strom.enabled = off") {
		t.Fatalf("plain mode with GpuScan not failed: %+v", r)
	}
}

// Without warm-ups every execution is timed, and a wrong one is still found
// and named by its run.
func TestPlantedWrongResultFailsWithoutWarmUps(t *testing.T) {
	rows := []Row{{iv(0), iv(100)}, {iv(1), iv(90)}}
	runs := make([]modeRun, len(Modes))
	for i, m := range Modes {
		plan := "Seq Scan on t"
		if m.GPU {
			plan = "Custom Scan (GpuScan) on t"
		}
		runs[i] = modeRun{plan: plan, times: []float64{1}, results: [][]Row{rows}}
	}
	r := QueryResult{Status: statusOK, Planted: true}
	judge(&r, runs, make([]error, len(Modes)), 1, 0)
	if r.Status != statusFailure || !strings.Contains(r.Failure, "mode gpu run 1") ||
		!strings.Contains(r.Failure, "reference: mode "+Modes[0].Key+" run 1") {
		t.Fatalf("planted run without warm-ups: %+v", r)
	}
	for _, c := range []struct {
		i, warmUps int
		want       string
	}{{0, 1, "warm-up"}, {1, 1, "run 1"}, {0, 0, "run 1"}, {1, 2, "warm-up 2"}, {2, 2, "run 1"}} {
		if got := execName(c.i, c.warmUps); got != c.want {
			t.Errorf("execName(%d, %d) = %q, want %q", c.i, c.warmUps, got, c.want)
		}
	}
}
