package main

import (
	"fmt"
	"strings"
)

// partitionedPairs pair each group over a partitioned fact table with the
// group over the plain one (partitioned.go).
var partitionedPairs = []struct{ plain, partitioned string }{
	{ssbGroup, ssbPartGroup},
	{tpchGroup, tpchPartGroup},
}

// writePartitionedComparison prints, where one run timed a group over the
// plain fact table and over the partitioned one, per query both GPU mode
// medians and partitioned / plain, then the sums: what partitioning costs
// the GPU plans, from one run on one server state.
func writePartitionedComparison(b *strings.Builder, rep *Report) {
	for _, pair := range partitionedPairs {
		plain := map[string]*float64{}
		for _, r := range rep.Results {
			if r.Table == pair.plain {
				plain[r.Query] = r.gpuMedian()
			}
		}
		var rows [][]string
		var sumPlain, sumPart float64
		both := 0
		for _, r := range rep.Results {
			p, ok := plain[r.Query]
			if r.Table != pair.partitioned || !ok {
				continue
			}
			q := r.gpuMedian()
			var ratio *float64
			if p != nil && q != nil {
				ratio = ptr(*q / *p)
				sumPlain, sumPart = sumPlain+*p, sumPart+*q
				both++
			}
			rows = append(rows, []string{r.Query, r.Table, fmtOpt(p, "%.3f"), fmtOpt(q, "%.3f"), fmtOpt(ratio, "%.2f")})
		}
		if len(rows) == 0 {
			continue
		}
		var sums [2]*float64
		var total *float64
		if both > 0 {
			sums = [2]*float64{ptr(sumPlain), ptr(sumPart)}
			total = ptr(sumPart / sumPlain)
		}
		rows = append(rows, []string{"Σ", pair.partitioned, fmtOpt(sums[0], "%.3f"), fmtOpt(sums[1], "%.3f"), fmtOpt(total, "%.2f")})
		fmt.Fprintf(b, "\npartitioned %s against %s: the GPU mode's medians, ratio = partitioned / plain\n", pair.partitioned, pair.plain)
		writeColumns(b, []string{"query", "table", "GPU s " + pair.plain, "GPU s " + pair.partitioned, "ratio"}, rows)
		fmt.Fprintf(b, "%s: Σ GPU s partitioned / Σ GPU s plain = %s over the %d of %d queries with both figures\n",
			pair.partitioned, fmtOpt(total, "%.2f"), both, len(rows)-1)
	}
}
