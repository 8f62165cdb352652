package main

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

var (
	colPG    = color.RGBA{52, 101, 164, 255} // PostgreSQL, the better of JIT on and off
	colGPU   = color.RGBA{230, 140, 30, 255} // pg_strom, a GPU plan
	colNoGPU = color.RGBA{170, 170, 170, 255}
)

// chartBar is one query's figures in the chart.
type chartBar struct {
	label   string
	pg, gpu float64 // median seconds; 0 when missing
	speedup *float64
	gpuPlan bool
	failed  bool
}

func chartBars(rep *Report) []chartBar {
	tables := map[string]bool{}
	for _, r := range rep.Results {
		tables[r.Table] = true
	}
	var out []chartBar
	gi := gpuMode()
	for _, r := range rep.Results {
		b := chartBar{label: r.Query, speedup: r.SpeedupBest, gpuPlan: r.GPUUsed(), failed: r.Status == statusFailure}
		if len(tables) > 1 {
			b.label += "/" + r.Table
		}
		if !b.failed && r.PGBest != nil && gi < len(r.Modes) && r.Modes[gi].Median != nil {
			b.pg, b.gpu = *r.PGBest, *r.Modes[gi].Median
		}
		out = append(out, b)
	}
	return out
}

// WriteChart draws, with gonum.org/v1/plot, one group of bars per query:
// PostgreSQL's median seconds (the better of JIT on and off) beside the
// GPU mode's, gray where the GPU mode's plan had no pg_strom node, the
// speedup written above each group and FAIL where the query failed.
func WriteChart(w io.Writer, rep *Report) error {
	bars := chartBars(rep)
	p := plot.New()
	var tables []string
	seen := map[string]bool{}
	for _, r := range rep.Results {
		if !seen[r.Table] {
			seen[r.Table] = true
			tables = append(tables, r.Table)
		}
	}
	p.Title.Text = "pg_strom on " + strings.Join(tables, ", ") + ": median seconds per query, speedup above"
	p.Y.Label.Text = "seconds (PostgreSQL: the better of JIT on and off)"
	p.Y.Min = 0
	p.Legend.Top = true
	p.Add(plotter.NewGrid())

	n := len(bars)
	names := make([]string, n)
	pg := make(plotter.Values, n)
	gpu := make(plotter.Values, n)
	noGPU := make(plotter.Values, n)
	var labels plotter.XYLabels
	top := 0.0
	for i, b := range bars {
		names[i] = b.label
		pg[i] = b.pg
		if b.gpuPlan {
			gpu[i] = b.gpu
		} else {
			noGPU[i] = b.gpu
		}
		top = math.Max(top, math.Max(b.pg, b.gpu))
	}
	for i, b := range bars {
		text := "-"
		switch {
		case b.failed:
			text = "FAIL"
		case b.speedup != nil:
			text = fmt.Sprintf("%.1fx", *b.speedup)
		}
		labels.XYs = append(labels.XYs, plotter.XY{X: float64(i), Y: math.Max(b.pg, b.gpu) + top*0.02})
		labels.Labels = append(labels.Labels, text)
	}
	width := 0.25 * vg.Inch
	if n > 0 {
		p.NominalX(names...)
		p.X.Tick.Label.Rotation = math.Pi / 4
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
		series := []struct {
			vals  plotter.Values
			name  string
			color color.Color
			off   vg.Length
		}{
			{pg, "PostgreSQL", colPG, -width / 2},
			{gpu, "pg_strom (GPU plan)", colGPU, width / 2},
			{noGPU, "pg_strom (no GPU node in the plan)", colNoGPU, width / 2},
		}
		for _, s := range series {
			bc, err := plotter.NewBarChart(s.vals, width)
			if err != nil {
				return fmt.Errorf("chart: %w", err)
			}
			bc.Color, bc.Offset = s.color, s.off
			bc.LineStyle.Width = 0
			p.Add(bc)
			p.Legend.Add(s.name, bc)
		}
		lb, err := plotter.NewLabels(labels)
		if err != nil {
			return fmt.Errorf("chart: %w", err)
		}
		for i := range lb.TextStyle {
			lb.TextStyle[i].XAlign = draw.XCenter
		}
		p.Add(lb)
		p.Y.Max = top*1.4 + 1e-3 // room for the legend
		p.X.Min, p.X.Max = -0.7, float64(n)-0.3
	} else {
		p.Title.Text += " (no results)"
	}
	wd := vg.Length(math.Max(9, 1.5+0.6*float64(n))) * vg.Inch
	wt, err := p.WriterTo(wd, 5*vg.Inch, "png")
	if err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	_, err = wt.WriteTo(w)
	return err
}
