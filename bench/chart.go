package main

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
)

var (
	colBackground = color.RGBA{255, 255, 255, 255}
	colAxis       = color.RGBA{40, 40, 40, 255}
	colGrid       = color.RGBA{225, 225, 225, 255}
	colReference  = color.RGBA{200, 30, 30, 255}
	colNoGPU      = color.RGBA{170, 170, 170, 255}
	colTables     = []color.RGBA{{52, 101, 164, 255}, {230, 140, 30, 255}, {78, 154, 6, 255}, {117, 80, 123, 255}}
)

const (
	chartLeft   = 60
	chartRight  = 24
	chartTop    = 64
	chartBottom = 150
	chartPlotH  = 320
	barW        = 30
	barGap      = 18
)

func fillRect(img *image.RGBA, x, y, w, h int, c color.Color) {
	draw.Draw(img, image.Rect(x, y, x+w, y+h), &image.Uniform{c}, image.Point{}, draw.Src)
}

// niceStep picks a tick step (1, 2 or 5 times a power of ten) giving about
// five ticks up to top.
func niceStep(top float64) float64 {
	raw := top / 5
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// WriteChart draws one bar per query and table: the speedup (plain
// PostgreSQL with JIT time / GPU time), a red line at 1.0x, bars colored by
// table (gray when the GPU mode's plan had no pg_strom node), FAIL for failures.
func WriteChart(w io.Writer, rep *Report) error {
	n := len(rep.Results)
	width := max(720, chartLeft+chartRight+n*(barW+barGap)+barGap)
	height := chartTop + chartPlotH + chartBottom
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	fillRect(img, 0, 0, width, height, colBackground)
	drawText(img, chartLeft, 12, "pg_strom speedup = PG time (jit=on) / GPU time", 2, colAxis)

	top := 1.0
	for _, r := range rep.Results {
		if r.Speedup != nil {
			top = math.Max(top, *r.Speedup)
		}
	}
	top *= 1.15
	step := niceStep(top)
	top = math.Ceil(top/step) * step
	base := chartTop + chartPlotH
	yOf := func(v float64) int { return base - int(math.Round(v/top*chartPlotH)) }
	plotW := width - chartLeft - chartRight
	for v := 0.0; v <= top+step/2; v += step {
		y := yOf(v)
		fillRect(img, chartLeft, y, plotW, 1, colGrid)
		label := trimFloat(v) + "x"
		drawText(img, chartLeft-6-textWidth(label, 1), y-3, label, 1, colAxis)
	}

	tableColor := map[string]color.RGBA{}
	var tables []string
	for _, r := range rep.Results {
		if _, ok := tableColor[r.Table]; !ok {
			tableColor[r.Table] = colTables[len(tables)%len(colTables)]
			tables = append(tables, r.Table)
		}
	}
	lx := chartLeft
	for _, t := range tables {
		fillRect(img, lx, 42, 10, 10, tableColor[t])
		drawText(img, lx+14, 44, t, 1, colAxis)
		lx += 14 + textWidth(t, 1) + 16
	}
	fillRect(img, lx, 46, 16, 2, colReference)
	drawText(img, lx+20, 44, "1.0x", 1, colAxis)
	fillRect(img, lx+52, 42, 10, 10, colNoGPU)
	drawText(img, lx+66, 44, "no GPU node in plan", 1, colAxis)

	for i, r := range rep.Results {
		x := chartLeft + barGap + i*(barW+barGap)
		label := r.Query + "/" + r.Table
		drawTextUp(img, x+barW/2-3, base+8+textWidth(label, 1), label, 1, colAxis)
		if r.Speedup == nil {
			drawTextUp(img, x+barW/2-3, base-6, "FAIL", 1, colReference)
			continue
		}
		c := tableColor[r.Table]
		if !r.GPUUsed() {
			c = colNoGPU
		}
		y := yOf(*r.Speedup)
		fillRect(img, x, y, barW, base-y, c)
		v := fmt.Sprintf("%.1fx", *r.Speedup)
		drawText(img, x+barW/2-textWidth(v, 1)/2, y-10, v, 1, colAxis)
	}
	fillRect(img, chartLeft, yOf(1), plotW, 2, colReference)
	fillRect(img, chartLeft, chartTop, 1, chartPlotH+1, colAxis)
	fillRect(img, chartLeft, base, plotW, 1, colAxis)
	return png.Encode(w, img)
}

func trimFloat(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}
