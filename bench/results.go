package main

import (
	"math"
	"time"
)

// ModeResult is one query in one mode.
type ModeResult struct {
	Mode    string    `json:"mode"`
	Times   []float64 `json:"times_s"`
	Median  *float64  `json:"median_s"`
	UsedGPU bool      `json:"used_gpu"`
	Plan    string    `json:"plan"`
	// JoinDepth is the number of joins the plan does on the GPU (GpuJoin
	// depths; see planJoinDepth).
	JoinDepth int    `json:"gpu_join_depth"`
	Error     string `json:"error,omitempty"`

	// Host CPU (see cpu.go): busy core-seconds of the whole host during
	// each timed run, their median, and the median per heap page.
	HostCoreS         []float64 `json:"host_core_s"`
	HostCoreSMedian   *float64  `json:"host_core_s_median"`
	HostCoreUsPerPage *float64  `json:"host_core_us_per_page"`
	CPUNote           string    `json:"cpu_note,omitempty"` // why host CPU is missing

	// The GPU service process's share (gpu mode only): its utime+stime.
	ServicePID           int       `json:"gpu_service_pid,omitempty"`
	ServiceCoreS         []float64 `json:"gpu_service_core_s,omitempty"`
	ServiceCoreSMedian   *float64  `json:"gpu_service_core_s_median,omitempty"`
	ServiceCoreUsPerPage *float64  `json:"gpu_service_core_us_per_page,omitempty"`
	ServiceCPUNote       string    `json:"gpu_service_cpu_note,omitempty"` // why it is missing
}

// QueryResult is one query on one table in every mode.
type QueryResult struct {
	Query     string       `json:"query"`
	Table     string       `json:"table"`
	SQL       string       `json:"sql"`
	Rows      int          `json:"rows"`
	HeapBytes int64        `json:"heap_bytes"`
	HeapGB    float64      `json:"heap_gb"`
	HeapPages int64        `json:"heap_pages"` // heap_bytes / 8192
	Modes     []ModeResult `json:"modes"`
	Speedup   *float64     `json:"speedup"`
	// PGBest is the better of the plain modes' medians (JIT on or off), and
	// SpeedupBest PGBest / GPU median: the figures of the summaries.
	PGBest      *float64 `json:"pg_best_s"`
	SpeedupBest *float64 `json:"speedup_vs_best_pg"`
	JoinDepth   int      `json:"gpu_join_depth"` // the gpu mode's plan's
	GPUGBps     *float64 `json:"gpu_gb_per_s"`
	LinkPct     *float64 `json:"link_pct"`
	Status      string   `json:"status"` // "ok" or "FAILURE"
	Failure     string   `json:"failure,omitempty"`
	Planted     bool     `json:"planted_wrong_result,omitempty"`
}

// LinkInfo is the host-to-device bandwidth the '% link' column uses.
type LinkInfo struct {
	GBps     *float64    `json:"gb_per_s"`
	Source   string      `json:"source"`
	Measured []LinkProbe `json:"measured,omitempty"` // pgstrom.gpu_link_bandwidth(), one per device
}

// ModeInfo describes a mode in the report.
type ModeInfo struct {
	Key      string   `json:"key"`
	Label    string   `json:"label"`
	Settings []string `json:"settings"` // "name=value", applied in order
}

// PhaseTime is the elapsed time of one phase.
type PhaseTime struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

// Report is everything one run measured.
type Report struct {
	StartedAt  time.Time     `json:"started_at"`
	FinishedAt time.Time     `json:"finished_at"`
	Server     ServerInfo    `json:"server"`
	Link       LinkInfo      `json:"link"`
	CPU        CPUInfo       `json:"host_cpu"`
	Runs       int           `json:"timed_runs"`
	WarmUps    int           `json:"warm_up_runs"`
	Tolerance  float64       `json:"float_relative_tolerance"`
	Modes      []ModeInfo    `json:"modes"`
	Results    []QueryResult `json:"results"`
	Failures   int           `json:"failures"`
	Phases     []PhaseTime   `json:"phases"`
	Summaries  []Summary     `json:"summaries"`
	// Tables against shared_buffers: a table larger than shared_buffers
	// is read from the OS page cache (prewarm "read"), and by the direct
	// read path where pg_strom.direct_read is on.
	SharedBuffersBytes int64       `json:"shared_buffers_bytes"`
	Tables             []TableSize `json:"tables"`
}

// TableSize is one table's heap against shared_buffers.
type TableSize struct {
	Name                    string `json:"name"`
	HeapBytes               int64  `json:"heap_bytes"`
	LargerThanSharedBuffers bool   `json:"larger_than_shared_buffers"`
}

// Summary sums up the queries of one table or of SSB: PG time is the
// better of JIT on and off (each a median), per query; Ratio is Σ PG / Σ GPU
// and GeoMean the geometric mean of the per-query speedups, both over the
// queries with figures (Complete: all of them).
type Summary struct {
	Table        string   `json:"table"`
	Queries      int      `json:"queries"`
	WithFigures  int      `json:"queries_with_figures"`
	Complete     bool     `json:"complete"`
	SumPG        *float64 `json:"sum_pg_best_s"`
	SumGPU       *float64 `json:"sum_gpu_s"`
	Ratio        *float64 `json:"sum_pg_over_sum_gpu"`
	GeoMean      *float64 `json:"geomean_speedup"`
	GPUPlans     int      `json:"gpu_plans"`
	MaxJoinDepth int      `json:"max_gpu_join_depth"`
}

// summarize makes one Summary per table (or "ssb"), in results order.
func summarize(results []QueryResult) []Summary {
	var out []Summary
	idx := map[string]int{}
	logSum := map[string]float64{}
	for _, r := range results {
		i, ok := idx[r.Table]
		if !ok {
			i = len(out)
			idx[r.Table] = i
			out = append(out, Summary{Table: r.Table, Complete: true})
		}
		s := &out[i]
		s.Queries++
		if r.GPUUsed() {
			s.GPUPlans++
		}
		s.MaxJoinDepth = max(s.MaxJoinDepth, r.JoinDepth)
		gi := gpuMode()
		if r.PGBest == nil || r.SpeedupBest == nil || gi >= len(r.Modes) || r.Modes[gi].Median == nil {
			s.Complete = false
			continue
		}
		s.WithFigures++
		if s.SumPG == nil {
			s.SumPG, s.SumGPU = new(float64), new(float64)
		}
		*s.SumPG += *r.PGBest
		*s.SumGPU += *r.Modes[gi].Median
		logSum[r.Table] += math.Log(*r.SpeedupBest)
	}
	for i := range out {
		s := &out[i]
		if s.WithFigures > 0 {
			s.Ratio = ptr(*s.SumPG / *s.SumGPU)
			s.GeoMean = ptr(math.Exp(logSum[s.Table] / float64(s.WithFigures)))
		}
	}
	return out
}

const (
	statusOK      = "ok"
	statusFailure = "FAILURE"
)

func ptr(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

// fail marks r failed with reason (the first reason wins) and drops its
// figures.
func (r *QueryResult) fail(reason string) {
	if r.Status != statusFailure {
		r.Failure = reason
	}
	r.Status = statusFailure
	r.Speedup, r.GPUGBps, r.LinkPct = nil, nil, nil
	r.PGBest, r.SpeedupBest = nil, nil
}

// computeFigures fills speedup, GB/s and % of link for a passing result.
func (r *QueryResult) computeFigures(linkGBps float64) {
	if r.Status == statusFailure {
		return
	}
	gi := gpuMode()
	ref, gpu := r.Modes[0].Median, r.Modes[gi].Median
	if ref == nil || gpu == nil || *gpu <= 0 {
		return
	}
	r.Speedup = ptr(*ref / *gpu)
	for i, m := range Modes {
		if med := r.Modes[i].Median; !m.GPU && med != nil && (r.PGBest == nil || *med < *r.PGBest) {
			r.PGBest = ptr(*med)
		}
	}
	r.SpeedupBest = ptr(*r.PGBest / *gpu)
	r.GPUGBps = ptr(r.HeapGB / *gpu)
	if linkGBps > 0 && r.GPUGBps != nil {
		r.LinkPct = ptr(*r.GPUGBps / linkGBps * 100)
	}
}

// GPUUsed says whether the GPU mode's plan has a GpuScan.
func (r *QueryResult) GPUUsed() bool {
	gi := gpuMode()
	return gi < len(r.Modes) && r.Modes[gi].UsedGPU
}

// gpuMedian is the GPU mode's median seconds; nil for a failed query.
func (r *QueryResult) gpuMedian() *float64 {
	gi := gpuMode()
	if r.Status == statusFailure || gi >= len(r.Modes) {
		return nil
	}
	return r.Modes[gi].Median
}
