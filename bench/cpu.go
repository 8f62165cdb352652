package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unsafe"

	"github.com/jackc/pgx/v5"
)

// heapPageBytes is PostgreSQL's block size: heap pages = pg_relation_size / 8192.
const heapPageBytes = 8192

// CPUSampler reads cumulative CPU time, in core-seconds. The bench samples
// it just before and after every timed run; tests feed it numbers.
type CPUSampler interface {
	// HostBusy is the busy time of all the host's CPUs.
	HostBusy() (float64, error)
	// ProcessCPU is the user+system time of process pid.
	ProcessCPU(pid int) (float64, error)
}

// procSampler reads /proc: the bench runs on the database server's host,
// so /proc/stat is the server's.
type procSampler struct {
	root string  // "/proc"
	hz   float64 // USER_HZ, the unit of /proc/stat and /proc/PID/stat
}

func newProcSampler() *procSampler {
	return &procSampler{root: "/proc", hz: clockTicks("/proc/self/auxv")}
}

func (p *procSampler) HostBusy() (float64, error) {
	b, err := os.ReadFile(filepath.Join(p.root, "stat"))
	if err != nil {
		return 0, err
	}
	ticks, err := parseProcStat(b)
	return float64(ticks) / p.hz, err
}

func (p *procSampler) ProcessCPU(pid int) (float64, error) {
	b, err := os.ReadFile(filepath.Join(p.root, strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, err
	}
	ticks, err := parsePidStat(b)
	return float64(ticks) / p.hz, err
}

// parseProcStat returns the busy ticks of the aggregate "cpu" line of
// /proc/stat: user+nice+system+irq+softirq+steal (not idle, not iowait;
// guest time is already inside user and nice).
func parseProcStat(b []byte) (uint64, error) {
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "cpu" {
			continue
		}
		if len(f) < 9 {
			return 0, fmt.Errorf("/proc/stat: short cpu line %q", line)
		}
		var sum uint64
		for _, i := range []int{1, 2, 3, 6, 7, 8} { // user nice system [idle iowait] irq softirq steal
			v, err := strconv.ParseUint(f[i], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("/proc/stat: cpu field %d: %w", i, err)
			}
			sum += v
		}
		return sum, nil
	}
	return 0, fmt.Errorf("/proc/stat: no aggregate cpu line")
}

// parsePidStat returns utime+stime (fields 14 and 15) of /proc/PID/stat.
// The command name (field 2) may hold spaces and parentheses, so fields
// are counted from its last ')'.
func parsePidStat(b []byte) (uint64, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/PID/stat: no command name")
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3, the state
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/PID/stat: %d fields after the command name", len(f))
	}
	var sum uint64
	for _, s := range f[11:13] {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/PID/stat: utime/stime: %w", err)
		}
		sum += v
	}
	return sum, nil
}

// clockTicks is sysconf(_SC_CLK_TCK), which glibc takes from the auxiliary
// vector's AT_CLKTCK; 100 (Linux's USER_HZ) when that cannot be read.
func clockTicks(auxv string) float64 {
	const atClkTck = 17
	b, err := os.ReadFile(auxv)
	if err != nil {
		return 100
	}
	w := int(unsafe.Sizeof(uintptr(0)))
	word := func(p []byte) uint64 {
		if w == 4 {
			return uint64(binary.NativeEndian.Uint32(p))
		}
		return binary.NativeEndian.Uint64(p)
	}
	for off := 0; off+2*w <= len(b); off += 2 * w {
		tag, val := word(b[off:]), word(b[off+w:])
		if tag == 0 {
			break
		}
		if tag == atClkTck && val > 0 {
			return float64(val)
		}
	}
	return 100
}

// cpuSpan is the CPU time one timed run used; nil where it was not measured.
type cpuSpan struct {
	host, service *float64
}

// measureCPU runs f and returns the host's busy core-seconds during it and,
// for pid > 0, the core-seconds of process pid. A sampler that fails leaves
// its figure nil; f's error is returned as is.
func measureCPU(s CPUSampler, pid int, f func() error) (cpuSpan, error) {
	var sp cpuSpan
	if s == nil {
		return sp, f()
	}
	h0, herr := s.HostBusy()
	var p0 float64
	perr := fmt.Errorf("no pid")
	if pid > 0 {
		p0, perr = s.ProcessCPU(pid)
	}
	err := f()
	if perr == nil {
		if p1, e := s.ProcessCPU(pid); e == nil && p1 >= p0 {
			sp.service = ptr(roundMicro(p1 - p0))
		}
	}
	if herr == nil {
		if h1, e := s.HostBusy(); e == nil && h1 >= h0 {
			sp.host = ptr(roundMicro(h1 - h0))
		}
	}
	return sp, err
}

// roundMicro drops the float noise of subtracting two large tick counts
// divided by USER_HZ (0.08999999999991815 for 9 ticks).
func roundMicro(s float64) float64 { return math.Round(s*1e6) / 1e6 }

// CPUInfo says how host CPU was measured (the header of the table).
type CPUInfo struct {
	Source      string  `json:"source"` // how, or why not ("-" in the table)
	TicksPerSec float64 `json:"ticks_per_s,omitempty"`
	Service     string  `json:"gpu_service"` // the GPU service's process, or why it is not measured
}

// cpuProbe checks that s can read the host's CPU time (ok) and says how.
func cpuProbe(s CPUSampler) (info CPUInfo, ok bool) {
	ticks := 0.0
	if ps, ok := s.(*procSampler); ok {
		ticks = ps.hz
	}
	if s == nil {
		return CPUInfo{Source: "not measured: no CPU sampler"}, false
	}
	if _, err := s.HostBusy(); err != nil {
		return CPUInfo{Source: "not measured: " + err.Error()}, false
	}
	unit := ""
	if ticks > 0 {
		unit = fmt.Sprintf(", %g ticks/s", ticks)
	}
	return CPUInfo{TicksPerSec: ticks, Source: fmt.Sprintf(
		"busy time of all CPUs from /proc/stat (user+nice+system+irq+softirq+steal%s) just before and after each timed run; "+
			"the whole host: server backends, parallel workers, GPU service and this client", unit)}, true
}

// servicePID returns the GPU service's pid (the first row of
// pgstrom.gpu_service_status()), or 0 and why there is none.
func servicePID(ctx context.Context, conn *pgx.Conn) (int, string) {
	ok, err := hasStatusFunctions(ctx, conn)
	if err != nil {
		return 0, err.Error()
	}
	if !ok {
		return 0, "no pgstrom.gpu_service_status() in this database"
	}
	var pid *int32
	var state *string
	err = conn.QueryRow(ctx, "SELECT pid, state FROM pgstrom.gpu_service_status() LIMIT 1").Scan(&pid, &state)
	if err == pgx.ErrNoRows {
		return 0, "pgstrom.gpu_service_status() returned no row"
	}
	if err != nil {
		return 0, "gpu_service_status(): " + oneLine(err.Error())
	}
	if pid == nil || *pid <= 0 {
		st := "?"
		if state != nil {
			st = *state
		}
		return 0, fmt.Sprintf("no GPU service process (state %s)", st)
	}
	return int(*pid), ""
}

// serviceNote summarizes, for the header, the GPU service's pids seen by
// the gpu mode, or why its CPU was not measured.
func serviceNote(results []QueryResult) string {
	gi := gpuMode()
	var pids []string
	seen := map[int]bool{}
	why := ""
	for _, r := range results {
		if gi >= len(r.Modes) {
			continue
		}
		m := r.Modes[gi]
		if m.ServicePID > 0 && !seen[m.ServicePID] {
			seen[m.ServicePID] = true
			pids = append(pids, strconv.Itoa(m.ServicePID))
		}
		if why == "" && m.ServiceCPUNote != "" {
			why = m.ServiceCPUNote
		}
	}
	switch {
	case len(pids) > 0:
		return fmt.Sprintf("utime+stime of pid %s from /proc/PID/stat", strings.Join(pids, ", "))
	case why != "":
		return "not measured: " + why
	default:
		return "not measured: no gpu mode run"
	}
}

// heapPages is the number of 8 kB heap pages of heap bytes.
func heapPages(heap int64) int64 { return heap / heapPageBytes }

// perPage is core-seconds as core-µs per heap page; nil without pages.
func perPage(coreS *float64, pages int64) *float64 {
	if coreS == nil || pages <= 0 {
		return nil
	}
	return ptr(*coreS * 1e6 / float64(pages))
}

// setCPUFigures fills m's CPU medians from the per-run figures (only when
// every timed run was measured).
func (m *ModeResult) setCPUFigures(host, service []float64, timedRuns int, pages int64) {
	m.HostCoreS, m.ServiceCoreS = host, service
	if timedRuns > 0 && len(host) == timedRuns {
		m.HostCoreSMedian = ptr(Median(host))
		m.HostCoreUsPerPage = perPage(m.HostCoreSMedian, pages)
	}
	if timedRuns > 0 && len(service) == timedRuns {
		m.ServiceCoreSMedian = ptr(Median(service))
		m.ServiceCoreUsPerPage = perPage(m.ServiceCoreSMedian, pages)
	}
}
