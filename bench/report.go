package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// tableHeader lists the columns of the text table (see README: bench).
var tableHeader = []string{"query", "table", "rows", "heap GB", "PG jit=on s", "PG jit=off s", "GPU s",
	"speedup", "GPU GB/s", "% link", "PG core-s", "PG core-µs/page", "GPU core-s", "GPU core-µs/page",
	"svc core-µs/page", "GPU used", "join depth", "status"}

func fmtOpt(f *float64, format string) string {
	if f == nil {
		return "-"
	}
	return fmt.Sprintf(format, *f)
}

// tableRows formats the results, one line per query and table.
func tableRows(rep *Report) [][]string {
	var out [][]string
	for _, r := range rep.Results {
		row := []string{r.Query, r.Table, fmt.Sprint(r.Rows), fmt.Sprintf("%.2f", r.HeapGB)}
		for i := range Modes {
			var med *float64
			if i < len(r.Modes) && r.Status != statusFailure {
				med = r.Modes[i].Median
			}
			row = append(row, fmtOpt(med, "%.3f"))
		}
		row = append(row, fmtOpt(r.Speedup, "%.2fx"), fmtOpt(r.GPUGBps, "%.1f"), fmtOpt(r.LinkPct, "%.0f%%"))
		row = append(row, cpuCells(r)...)
		row = append(row, yesNo(r.GPUUsed()), fmt.Sprint(r.JoinDepth), r.Status)
		out = append(out, row)
	}
	return out
}

// cpuCells are the host CPU columns: core-seconds and core-µs per heap
// page of the reference mode (Modes[0]) and the gpu mode, and the GPU
// service's core-µs per page; "-" where not measured or the query failed.
func cpuCells(r QueryResult) []string {
	var pg, gpu ModeResult
	if r.Status != statusFailure {
		if len(r.Modes) > 0 {
			pg = r.Modes[0]
		}
		if gi := gpuMode(); gi < len(r.Modes) {
			gpu = r.Modes[gi]
		}
	}
	return []string{
		fmtOpt(pg.HostCoreSMedian, "%.2f"), fmtOpt(pg.HostCoreUsPerPage, "%.2f"),
		fmtOpt(gpu.HostCoreSMedian, "%.2f"), fmtOpt(gpu.HostCoreUsPerPage, "%.2f"),
		fmtOpt(gpu.ServiceCoreUsPerPage, "%.2f"),
	}
}

// WriteTable prints the header lines, the results table and the failures.
func WriteTable(w io.Writer, rep *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "pg_strom benchmark, %s\n", rep.StartedAt.Format("2006-01-02 15:04:05 MST"))
	fmt.Fprintf(&b, "server: %s\n", rep.Server.Version)
	for _, d := range rep.Server.Devices {
		fmt.Fprintf(&b, "device: %s\n", d)
	}
	fmt.Fprintf(&b, "GPU service: %s at start, %s at end\n", rep.Server.ServiceBefore, rep.Server.ServiceAfter)
	if v := rep.Server.Settings["pg_strom.regression_test_mode"]; v == "on" {
		fmt.Fprintf(&b, "NOTE: pg_strom.regression_test_mode = on: GpuScan may be planned without a usable GPU (CPU path)\n")
	}
	if rep.Link.GBps != nil {
		fmt.Fprintf(&b, "host-to-device link: %.1f GB/s (%s)\n", *rep.Link.GBps, rep.Link.Source)
	} else {
		fmt.Fprintf(&b, "host-to-device link: %s\n", rep.Link.Source)
	}
	for _, t := range rep.Tables {
		fmt.Fprintf(&b, "table %s: heap %.2f GB, shared_buffers %.2f GB: %s (pg_strom.direct_read = %s)\n", t.Name, gb(t.HeapBytes),
			gb(rep.SharedBuffersBytes), map[bool]string{true: "larger", false: "fits"}[t.LargerThanSharedBuffers],
			rep.Server.Settings["pg_strom.direct_read"])
	}
	if hp := rep.Server.HugePages; hp != "" {
		fmt.Fprintf(&b, "huge pages of this host (/proc/meminfo, at start): %s; huge_pages = %s\n", hp, rep.Server.Settings["huge_pages"])
	}
	fmt.Fprintf(&b, "host CPU: %s\n", rep.CPU.Source)
	fmt.Fprintf(&b, "GPU service CPU (svc column): %s\n", rep.CPU.Service)
	fmt.Fprintf(&b, "each figure: median of %d timed runs after %d warm-ups; modes must agree (floats within relative %g)\n",
		rep.Runs, rep.WarmUps, rep.Tolerance)
	for _, m := range rep.Modes {
		fmt.Fprintf(&b, "mode %-9s %s\n", m.Key+":", strings.Join(m.Settings, " "))
	}
	b.WriteString("\n")
	writeColumns(&b, tableHeader, tableRows(rep))
	for _, r := range rep.Results {
		if r.Status == statusFailure {
			planted := ""
			if r.Planted {
				planted = " [planted by -plant-wrong-result]"
			}
			fmt.Fprintf(&b, "FAILURE %s on %s: %s%s\n", r.Query, r.Table, r.Failure, planted)
		}
	}
	for _, s := range rep.Summaries {
		writeSummary(&b, rep, s)
	}
	writePartitionedComparison(&b, rep)
	fmt.Fprintf(&b, "\n%d queries, %d failures\n", len(rep.Results), rep.Failures)
	for _, p := range rep.Phases {
		fmt.Fprintf(&b, "phase %-22s %8.1f s\n", p.Name, p.Seconds)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeColumns aligns cells: the first two columns left, the others right.
func writeColumns(b *strings.Builder, header []string, rows [][]string) {
	width := make([]int, len(header))
	for i, h := range header {
		width[i] = utf8.RuneCountInString(h)
	}
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	line := func(cells []string) {
		for i, c := range cells {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", max(0, width[i]-utf8.RuneCountInString(c)))
			if i < 2 {
				b.WriteString(c + pad)
			} else {
				b.WriteString(pad + c)
			}
		}
		b.WriteString("\n")
	}
	line(header)
	sep := make([]string, len(header))
	for i := range sep {
		sep[i] = strings.Repeat("-", width[i])
	}
	line(sep)
	for _, r := range rows {
		line(r)
	}
}

// writeSummary prints one table's (or SSB's) per-query figures against the
// better of the two plain modes, Σ PG / Σ GPU and the geometric mean.
func writeSummary(b *strings.Builder, rep *Report, s Summary) {
	fmt.Fprintf(b, "\nsummary %s: PG s = the better of the jit=on and jit=off medians\n", s.Table)
	var rows [][]string
	for _, r := range rep.Results {
		if r.Table != s.Table {
			continue
		}
		rows = append(rows, []string{r.Query, r.Table, fmtOpt(r.PGBest, "%.3f"), fmtOpt(r.gpuMedian(), "%.3f"),
			fmtOpt(r.SpeedupBest, "%.2fx"), yesNo(r.GPUUsed()), fmt.Sprint(r.JoinDepth), r.Status})
	}
	rows = append(rows, []string{"Σ", s.Table, fmtOpt(s.SumPG, "%.3f"), fmtOpt(s.SumGPU, "%.3f"), fmtOpt(s.Ratio, "%.2fx"), "", "", ""})
	writeColumns(b, []string{"query", "table", "PG s", "GPU s", "speedup", "GPU used", "join depth", "status"}, rows)
	note := ""
	if !s.Complete {
		note = fmt.Sprintf(" (over the %d of %d queries with figures)", s.WithFigures, s.Queries)
	}
	fmt.Fprintf(b, "%s: Σ PG / Σ GPU = %s, geometric mean of the speedups = %s%s; %d of %d GPU plans, join depth up to %d\n",
		s.Table, fmtOpt(s.Ratio, "%.2fx"), fmtOpt(s.GeoMean, "%.2fx"), note, s.GPUPlans, s.Queries, s.MaxJoinDepth)
}
