package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeSampler returns scripted cumulative figures, one per call.
type fakeSampler struct {
	host    []float64
	proc    []float64
	hostErr error
	procErr error
	pids    []int
}

func (f *fakeSampler) HostBusy() (float64, error) {
	if f.hostErr != nil {
		return 0, f.hostErr
	}
	v := f.host[0]
	f.host = f.host[1:]
	return v, nil
}

func (f *fakeSampler) ProcessCPU(pid int) (float64, error) {
	f.pids = append(f.pids, pid)
	if f.procErr != nil {
		return 0, f.procErr
	}
	v := f.proc[0]
	f.proc = f.proc[1:]
	return v, nil
}

func near(t *testing.T, what string, got *float64, want float64) {
	t.Helper()
	if got == nil {
		t.Errorf("%s: nil, want %g", what, want)
	} else if math.Abs(*got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("%s: %g, want %g", what, *got, want)
	}
}

func TestParseProcStat(t *testing.T) {
	stat := "cpu  100 5 30 9000 70 2 3 4 50 0\ncpu0 1 2 3 4 5 6 7 8 9 10\nintr 1 2\n"
	got, err := parseProcStat([]byte(stat))
	if err != nil || got != 100+5+30+2+3+4 { // not idle 9000, not iowait 70, not guest 50
		t.Fatalf("busy ticks %d, %v", got, err)
	}
	for _, bad := range []string{"cpu0 1 2 3 4 5 6 7 8\n", "cpu 1 2 3\n", "cpu 1 x 3 4 5 6 7 8\n"} {
		if _, err := parseProcStat([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParsePidStat(t *testing.T) {
	// field 14 utime = 1234, field 15 stime = 567; the name has ") (" in it
	stat := "4242 (gpu serv) (x)) S 1 4242 4242 0 -1 4194560 100 0 0 0 1234 567 0 0 20 0 9 0 100 0 0\n"
	got, err := parsePidStat([]byte(stat))
	if err != nil || got != 1234+567 {
		t.Fatalf("utime+stime %d, %v", got, err)
	}
	if _, err := parsePidStat([]byte("4242 (x) S 1 2")); err == nil {
		t.Error("short stat: no error")
	}
}

func TestProcSamplerFiles(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "stat"), []byte("cpu  200 0 100 5000 10 0 0 0 0 0\n"), 0o644)
	os.Mkdir(filepath.Join(root, "77"), 0o755)
	os.WriteFile(filepath.Join(root, "77", "stat"), []byte("77 (svc) S 1 1 1 0 -1 0 0 0 0 0 30 20 0 0\n"), 0o644)
	p := &procSampler{root: root, hz: 100}
	if h, err := p.HostBusy(); err != nil || h != 3 {
		t.Errorf("host %g, %v", h, err)
	}
	if c, err := p.ProcessCPU(77); err != nil || c != 0.5 {
		t.Errorf("process %g, %v", c, err)
	}
	if _, err := p.ProcessCPU(78); err == nil {
		t.Error("missing pid: no error")
	}
	if _, ok := cpuProbe(&procSampler{root: filepath.Join(root, "none"), hz: 100}); ok {
		t.Error("unreadable /proc/stat probed ok")
	}
	info, ok := cpuProbe(p)
	if !ok || info.TicksPerSec != 100 || !strings.Contains(info.Source, "/proc/stat") {
		t.Errorf("probe: %+v %v", info, ok)
	}
}

func TestClockTicks(t *testing.T) {
	dir := t.TempDir()
	var b []byte
	for _, kv := range [][2]uint64{{6, 4096}, {17, 250}, {0, 0}} {
		b = binary.NativeEndian.AppendUint64(b, kv[0])
		b = binary.NativeEndian.AppendUint64(b, kv[1])
	}
	path := filepath.Join(dir, "auxv")
	os.WriteFile(path, b, 0o644)
	if hz := clockTicks(path); hz != 250 {
		t.Errorf("AT_CLKTCK %g, want 250", hz)
	}
	if hz := clockTicks(filepath.Join(dir, "none")); hz != 100 {
		t.Errorf("fallback %g, want 100", hz)
	}
	if hz := clockTicks("/proc/self/auxv"); hz <= 0 {
		t.Errorf("this process: %g", hz)
	}
}

func TestMeasureCPU(t *testing.T) {
	// host before, service before, f, service after, host after
	s := &fakeSampler{host: []float64{1000, 1017.1}, proc: []float64{50, 53}}
	ran := false
	sp, err := measureCPU(s, 4242, func() error { ran = true; return nil })
	if err != nil || !ran {
		t.Fatal(err, ran)
	}
	near(t, "host", sp.host, 17.1)
	near(t, "service", sp.service, 3)
	if len(s.pids) != 2 || s.pids[0] != 4242 {
		t.Errorf("pids sampled: %v", s.pids)
	}

	// exact tick deltas despite large totals
	s = &fakeSampler{host: []float64{123456789.01 + 0.09, 123456789.01 + 0.18}}
	sp, _ = measureCPU(s, 0, func() error { return nil })
	if sp.host == nil || *sp.host != 0.09 {
		t.Errorf("large totals: %v", sp.host)
	}

	// no pid: the service is skipped; f's error is passed on
	s = &fakeSampler{host: []float64{10, 12}}
	boom := errors.New("boom")
	sp, err = measureCPU(s, 0, func() error { return boom })
	if err != boom || sp.service != nil || len(s.pids) != 0 {
		t.Errorf("no pid: %v %v %v", err, sp.service, s.pids)
	}
	near(t, "host without service", sp.host, 2)

	// failing samplers leave nil figures
	sp, _ = measureCPU(&fakeSampler{hostErr: boom, procErr: boom}, 7, func() error { return nil })
	if sp.host != nil || sp.service != nil {
		t.Errorf("failed samples gave figures: %+v", sp)
	}
	sp, err = measureCPU(nil, 7, func() error { return nil })
	if err != nil || sp.host != nil {
		t.Errorf("nil sampler: %+v %v", sp, err)
	}
}

func TestModeRunAddCPU(t *testing.T) {
	var mr modeRun
	mr.servicePID = 9
	one, two := 1.0, 2.0
	mr.addCPU(cpuSpan{host: &one, service: &two}, true)
	mr.addCPU(cpuSpan{host: &two}, true)
	if len(mr.hostCPU) != 2 || len(mr.serviceCPU) != 1 || !strings.Contains(mr.serviceNote, "/proc/9/stat") || mr.cpuNote != "" {
		t.Errorf("%+v", mr)
	}
	var res ModeResult
	res.setCPUFigures(mr.hostCPU, mr.serviceCPU, 2, 1000)
	near(t, "median host", res.HostCoreSMedian, 1.5)
	near(t, "host µs/page", res.HostCoreUsPerPage, 1500)
	if res.ServiceCoreSMedian != nil || res.ServiceCoreUsPerPage != nil {
		t.Error("service median from 1 of 2 runs")
	}
}

func TestSetCPUFigures(t *testing.T) {
	// a W1 query over copied pages: 17.1 core-s per query on 1,676,000 pages is 10.2 µs/page
	var m ModeResult
	m.setCPUFigures([]float64{17.5, 17.1, 16.0}, []float64{5.0, 5.028, 4.9}, 3, 1676000)
	near(t, "host median", m.HostCoreSMedian, 17.1)
	near(t, "host µs/page", m.HostCoreUsPerPage, 17.1e6/1676000)
	near(t, "service median", m.ServiceCoreSMedian, 5.0)
	near(t, "service µs/page", m.ServiceCoreUsPerPage, 5.0e6/1676000)
	var none ModeResult
	none.setCPUFigures(nil, nil, 3, 100)
	if none.HostCoreSMedian != nil || none.HostCoreUsPerPage != nil || none.ServiceCoreSMedian != nil {
		t.Error("figures without samples")
	}
	var noPages ModeResult
	noPages.setCPUFigures([]float64{1}, nil, 1, 0)
	if noPages.HostCoreSMedian == nil || noPages.HostCoreUsPerPage != nil {
		t.Error("per page without pages")
	}
	if heapPages(14e9) != 1708984 {
		t.Errorf("heapPages %d", heapPages(14e9))
	}
}

// TestJudgeCPU runs the runs' CPU samples through judge into the table and JSON.
func TestJudgeCPU(t *testing.T) {
	r := QueryResult{Query: "count_1pct", Table: "w1_narrow", HeapBytes: 8192 * 1e6, HeapPages: 1e6, HeapGB: 8.192, Status: statusOK}
	runs := make([]modeRun, len(Modes))
	row := []Row{{Value{Kind: KindInt, I: 1}}}
	for i, m := range Modes {
		runs[i] = modeRun{plan: "Seq Scan", times: []float64{2, 2, 2}, results: [][]Row{row, row, row, row},
			hostCPU: []float64{30, 20, 25}}
		if m.GPU {
			runs[i].plan = "Custom Scan (GpuScan)"
			runs[i].times = []float64{1, 1, 1}
			runs[i].hostCPU = []float64{10.2, 10.3, 10.1}
			runs[i].serviceCPU = []float64{3, 3.1, 2.9}
			runs[i].servicePID = 4242
		}
	}
	judge(&r, runs, make([]error, len(Modes)), 3, 1)
	r.computeFigures(0)
	gi := gpuMode()
	near(t, "pg µs/page", r.Modes[0].HostCoreUsPerPage, 25)
	near(t, "gpu µs/page", r.Modes[gi].HostCoreUsPerPage, 10.2)
	near(t, "svc µs/page", r.Modes[gi].ServiceCoreUsPerPage, 3)
	if r.Modes[0].ServiceCoreS != nil || r.Modes[0].ServiceCPUNote != "" {
		t.Errorf("plain mode has service CPU: %+v", r.Modes[0])
	}

	rep := fakeReport()
	rep.CPU = CPUInfo{Source: "busy time of all CPUs from /proc/stat", TicksPerSec: 100}
	rep.Results = []QueryResult{r}
	rep.CPU.Service = serviceNote(rep.Results)
	var b bytes.Buffer
	if err := WriteTable(&b, rep); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"PG core-µs/page", "GPU core-µs/page", "svc core-µs/page", "PG core-s", "GPU core-s",
		"host CPU: busy time of all CPUs from /proc/stat", "utime+stime of pid 4242"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	cells := tableLine(t, out, "count_1pct")
	for col, want := range map[string]string{"PG core-s": "25.00", "PG core-µs/page": "25.00", "GPU core-s": "10.20",
		"GPU core-µs/page": "10.20", "svc core-µs/page": "3.00"} {
		if got := cells[col]; got != want {
			t.Errorf("column %s = %q, want %q\n%s", col, got, want, out)
		}
	}

	b.Reset()
	if err := WriteJSON(&b, rep); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		CPU     map[string]any `json:"host_cpu"`
		Results []struct {
			HeapPages float64          `json:"heap_pages"`
			Modes     []map[string]any `json:"modes"`
		} `json:"results"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.CPU["source"] == "" || doc.CPU["ticks_per_s"] != 100.0 || doc.Results[0].HeapPages != 1e6 {
		t.Errorf("JSON: %s", b.String())
	}
	g := doc.Results[0].Modes[gi]
	for k, want := range map[string]float64{"host_core_s_median": 10.2, "host_core_us_per_page": 10.2,
		"gpu_service_core_s_median": 3, "gpu_service_core_us_per_page": 3, "gpu_service_pid": 4242} {
		if v, ok := g[k].(float64); !ok || math.Abs(v-want) > 1e-9 {
			t.Errorf("gpu mode %s = %v, want %g", k, g[k], want)
		}
	}
	if len(g["host_core_s"].([]any)) != 3 || len(g["gpu_service_core_s"].([]any)) != 3 {
		t.Errorf("per-run figures: %v", g)
	}
	if _, ok := doc.Results[0].Modes[0]["gpu_service_core_s_median"]; ok {
		t.Error("plain mode has a service figure in JSON")
	}
}

// tableLine returns the cells of the row starting with first, by header.
func tableLine(t *testing.T, out, first string) map[string]string {
	t.Helper()
	cells := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, first+" ") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != len(tableHeader) {
			t.Fatalf("row has %d cells, header %d: %q", len(f), len(tableHeader), line)
		}
		for i, h := range tableHeader {
			cells[h] = f[i]
		}
		return cells
	}
	t.Fatalf("no row %q in\n%s", first, out)
	return nil
}

func TestTableWithoutCPU(t *testing.T) {
	rep := fakeReport()
	rep.CPU = CPUInfo{Source: "not measured: open /proc/stat: permission denied", Service: "not measured: no GPU service process (state no_gpu)"}
	var b bytes.Buffer
	if err := WriteTable(&b, rep); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Count(out, "open /proc/stat: permission denied") != 1 || !strings.Contains(out, "state no_gpu") {
		t.Errorf("header does not say why once:\n%s", out)
	}
	cells := tableLine(t, out, "count_1pct")
	for _, col := range []string{"PG core-s", "PG core-µs/page", "GPU core-s", "GPU core-µs/page", "svc core-µs/page"} {
		if cells[col] != "-" {
			t.Errorf("column %s = %q, want -", col, cells[col])
		}
	}
	// aligned although µ is two bytes: the header and the separator line have the same rune count
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "query ") {
			if len([]rune(l)) != len([]rune(lines[i+1])) {
				t.Errorf("header %d runes, separator %d", len([]rune(l)), len([]rune(lines[i+1])))
			}
		}
	}
}

func TestServiceNote(t *testing.T) {
	gi := gpuMode()
	mk := func(pid int, note string) QueryResult {
		r := QueryResult{Modes: make([]ModeResult, len(Modes))}
		r.Modes[gi].ServicePID, r.Modes[gi].ServiceCPUNote = pid, note
		return r
	}
	if s := serviceNote([]QueryResult{mk(0, "no GPU service process (state no_gpu)")}); s != "not measured: no GPU service process (state no_gpu)" {
		t.Error(s)
	}
	if s := serviceNote([]QueryResult{mk(5, ""), mk(5, ""), mk(6, "")}); s != "utime+stime of pid 5, 6 from /proc/PID/stat" {
		t.Error(s)
	}
	if s := serviceNote(nil); !strings.HasPrefix(s, "not measured") {
		t.Error(s)
	}
}
