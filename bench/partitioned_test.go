package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestPartitionedTwins(t *testing.T) {
	for _, c := range []struct {
		twin          Dataset
		plain, column string
		first, last   string // the first partition's bounds and the last one's upper bound
	}{
		{ssbLineorderPart, "ssb_lineorder", "lo_orderdate", "FROM (19920101) TO (19920201)", "TO (19990101)"},
		{tpchLineitemPart, "tpch_lineitem", "l_shipdate", "FROM (date '1992-01-01') TO (date '1992-02-01')", "TO (date '1999-01-01')"},
	} {
		plain, err := FindDataset(c.plain)
		if err != nil {
			t.Fatal(err)
		}
		twin, err := FindDataset(c.plain + "_part")
		if err != nil || twin.Name != c.twin.Name {
			t.Fatalf("%s: %v", c.twin.Name, err)
		}
		p, d := plain.At(0.5), twin.At(0.5)
		// the same rows: the same columns, generated the same way
		if d.Rows(0.5) != p.Rows(0.5) || d.Parts != p.Parts ||
			strings.Replace(d.InsertSQL(1, 9), d.ident(), p.ident(), 1) != p.InsertSQL(1, 9) {
			t.Errorf("%s does not generate %s's rows", d.Name, p.Name)
		}
		stmts := d.CreateStatements()
		if len(stmts) != 85 || len(d.leaves()) != 84 || !strings.HasSuffix(stmts[0], `PARTITION BY RANGE ("`+c.column+`")`) ||
			!strings.Contains(stmts[1], c.first) || !strings.Contains(stmts[84], c.last) ||
			strings.Replace(stmts[0], d.ident(), p.ident(), 1) != p.CreateSQL()+d.partitionClause() {
			t.Errorf("%s: %d statements:\n%s\n%s\n%s", d.Name, len(stmts), stmts[0], stmts[1], stmts[84])
		}
		if d.Fingerprint(10) == p.Fingerprint(10) || d.Fingerprint(10) == d.At(1).Fingerprint(10) {
			t.Errorf("%s: fingerprint does not tell it from %s or from another scale factor", d.Name, p.Name)
		}
		// a plain table is its own single leaf, created by one statement,
		// so its fingerprint is what it was before partitioning existed
		if !slices.Equal(p.leaves(), []string{p.ident()}) || !slices.Equal(p.CreateStatements(), []string{p.CreateSQL()}) {
			t.Errorf("%s: leaves %v", p.Name, p.leaves())
		}
	}
	// the generators' domains lie in the partitions' months (1992 .. 1998):
	// lo_orderdate 1992-01-01 + 0 .. ssbDays - 1; l_shipdate an order date
	// 1992-01-01 + 0 .. tpchOrderDays - 1, plus 1 .. 121 days
	start := time.Date(1992, 1, 1, 0, 0, 0, 0, time.UTC)
	end := time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC)
	for name, last := range map[string]time.Time{
		"lo_orderdate": start.AddDate(0, 0, ssbDays-1), "l_shipdate": start.AddDate(0, 0, tpchOrderDays-1+121),
	} {
		if !last.Before(end) {
			t.Errorf("%s reaches %s, past the last partition", name, last.Format(time.DateOnly))
		}
	}
}

func TestPartitionedGroups(t *testing.T) {
	for group, want := range map[string][]string{
		ssbPartGroup:  {"ssb_date", "ssb_customer", "ssb_supplier", "ssb_part", "ssb_lineorder_part"},
		tpchPartGroup: {"tpch_region", "tpch_nation", "tpch_supplier", "tpch_customer", "tpch_part", "tpch_partsupp", "tpch_orders", "tpch_lineitem_part"},
	} {
		ds, err := FindDatasets(group)
		var names []string
		for _, d := range ds {
			names = append(names, d.Name)
		}
		if err != nil || !slices.Equal(names, want) {
			t.Errorf("FindDatasets(%s): %v, %v", group, names, err)
		}
	}
	// both SSB groups: the dimensions once, two targets in -tables order
	cfg, err := parseConfig("run", []string{"-tables", "ssb_partitioned,ssb", "-sf", "0.5"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Tables) != 6 {
		t.Errorf("%d tables", len(cfg.Tables))
	}
	tg := runTargets(cfg)
	if len(tg) != 2 || tg[0].Name != ssbPartGroup || tg[1].Name != ssbGroup || len(tg[0].Tables) != 5 || len(tg[0].Queries) != 13 {
		t.Fatalf("targets: %+v", tg)
	}
	for _, q := range tg[0].Queries {
		if sql := tg[0].sql(q); !strings.Contains(sql, "ssb_lineorder_part") || strings.Contains(sql, "ssb_lineorder,") {
			t.Errorf("%s: %s", q.Name, sql)
		}
	}
	for _, d := range cfg.Tables {
		if d.Name == "ssb_lineorder_part" && d.Fingerprint(1) != ssbLineorderPart.At(0.5).Fingerprint(1) {
			t.Errorf("ssb_lineorder_part not bound to -sf")
		}
	}
	cfg, err = parseConfig("run", []string{"-tables", "tpch_partitioned", "-queries", "Q1,Q2,Q21"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tg := runTargets(cfg); len(tg) != 1 || tg[0].Name != tpchPartGroup || len(tg[0].Queries) != 2 ||
		!strings.Contains(tg[0].Queries[1].SQL, "tpch_lineitem_part l1") {
		t.Errorf("TPC-H targets: %+v", tg)
	}
	if _, err := parseConfig("run", []string{"-tables", "ssb_lineorder_part"}, nil, &strings.Builder{}); err == nil ||
		!strings.Contains(err.Error(), "give -tables ssb_partitioned") {
		t.Errorf("run on the partitioned table alone: %v", err)
	}
}

func TestPartitionedQueries(t *testing.T) {
	var tpch []string
	for _, q := range PartitionedQueries {
		if q.Group == tpchPartGroup {
			tpch = append(tpch, q.Name)
		}
	}
	// the TPC-H queries that read lineitem
	want := []string{"Q1", "Q3", "Q4", "Q5", "Q6", "Q7", "Q8", "Q9", "Q10", "Q12", "Q14", "Q15", "Q17", "Q18", "Q19", "Q20", "Q21"}
	if len(PartitionedQueries) != 13+len(want) || !slices.Equal(tpch, want) {
		t.Errorf("partitioned queries: %d, TPC-H %v", len(PartitionedQueries), tpch)
	}
	names := QueryNames()
	for i, n := range names {
		if slices.Contains(names[i+1:], n) {
			t.Errorf("query name %s listed twice", n)
		}
	}
	if qs, err := SelectQueries("Q2.1"); err != nil || len(qs) != 2 || qs[1].Group != ssbPartGroup {
		t.Errorf("-queries Q2.1: %+v, %v", qs, err)
	}
}

func TestPartitionedComparison(t *testing.T) {
	rep := fakeReport()
	f := func(v float64) *float64 { return &v }
	timed := func(query, table string, gpu float64) QueryResult {
		r := QueryResult{Query: query, Table: table, Status: statusOK}
		for _, m := range Modes {
			r.Modes = append(r.Modes, ModeResult{Mode: m.Key, Median: f(gpu * 2)})
		}
		r.Modes[gpuMode()].Median = f(gpu)
		return r
	}
	failed := timed("Q1.3", ssbPartGroup, 1)
	failed.fail("wrong result")
	rep.Results = append(rep.Results, timed("Q1.1", ssbGroup, 1), timed("Q1.2", ssbGroup, 2), timed("Q1.3", ssbGroup, 1),
		timed("Q1.1", ssbPartGroup, 1.5), timed("Q1.2", ssbPartGroup, 2.5), failed)
	var b bytes.Buffer
	if err := WriteTable(&b, rep); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"partitioned ssb_partitioned against ssb", "GPU s ssb_partitioned",
		"1.50", "1.25", "Σ      ssb_partitioned      3.000                  4.000   1.33",
		"ssb_partitioned: Σ GPU s partitioned / Σ GPU s plain = 1.33 over the 2 of 3 queries with both figures"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "tpch_partitioned against") {
		t.Errorf("a comparison without TPC-H results:\n%s", out)
	}
}

func TestPlanJoinDepthPartitioned(t *testing.T) {
	leaf := func(name string) string {
		return "->  Parallel Custom Scan (GpuPreAgg) on " + name + "\n" +
			"      Depth 1: Inner Join on (" + name + ".lo_custkey = ssb_customer.c_custkey)\n" +
			"      Depth 2: Inner Join on (" + name + ".lo_orderdate = ssb_date.d_datekey)\n"
	}
	plan := "Finalize HashAggregate\n  ->  Gather\n    ->  Parallel Append\n" + leaf("ssb_lineorder_part_199201") + leaf("ssb_lineorder_part_199202")
	if got := planJoinDepth(plan); got != 2 {
		t.Errorf("per-partition copies: depth %d, want 2\n%s", got, plan)
	}
	// aliased: the partitions are l1_1, l1_2, ...
	alias := "Custom Scan (GpuJoin) on tpch_lineitem_part_199201 l1_1\n  Depth 1: Inner Join on (l1_1.l_suppkey = s_suppkey)\n" +
		"Custom Scan (GpuJoin) on tpch_lineitem_part_199202 l1_2\n  Depth 1: Inner Join on (l1_2.l_suppkey = s_suppkey)\n"
	if got := planJoinDepth(alias); got != 1 {
		t.Errorf("aliased copies: depth %d, want 1", got)
	}
}
