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
	Error   string    `json:"error,omitempty"`

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
	GPUGBps   *float64     `json:"gpu_gb_per_s"`
	LinkPct   *float64     `json:"link_pct"`
	Status    string       `json:"status"` // "ok" or "FAILURE"
	Failure   string       `json:"failure,omitempty"`
	Planted   bool         `json:"planted_wrong_result,omitempty"`
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
