package main

import (
	"cmp"
	"fmt"
	"slices"
)

// datasetGroup is a set of tables whose queries run over all of them: SSB,
// TPC-H, and their variants over a partitioned fact table, which share the
// other tables with them. A group's name is a -tables entry, its queries'
// Group and its results' table column.
type datasetGroup struct {
	name   string
	what   string
	tables []Dataset
	scale  func(*Config) float64 // the scale factor its tables are loaded at
}

func ssbScale(c *Config) float64  { return c.SF }
func tpchScale(c *Config) float64 { return c.TPCHSF }

var datasetGroups = []datasetGroup{
	{ssbGroup, "SSB", ssbDatasets, ssbScale},
	{tpchGroup, "TPC-H", tpchDatasets, tpchScale},
	{ssbPartGroup, "SSB over ssb_lineorder_part", ssbPartitionedDatasets, ssbScale},
	{tpchPartGroup, "TPC-H over tpch_lineitem_part", tpchPartitionedDatasets, tpchScale},
}

func findGroup(name string) (datasetGroup, bool) {
	i := slices.IndexFunc(datasetGroups, func(g datasetGroup) bool { return g.name == name })
	if i < 0 {
		return datasetGroup{}, false
	}
	return datasetGroups[i], true
}

func (g datasetGroup) has(d Dataset) bool {
	return slices.ContainsFunc(g.tables, func(t Dataset) bool { return t.Name == d.Name })
}

// completeGroups are the groups all of whose tables are among tables, in
// the order in which the list completes them (so in -tables order).
func completeGroups(tables []Dataset) []datasetGroup {
	at := map[string]int{}
	for i, d := range tables {
		at[d.Name] = i
	}
	type complete struct {
		g    datasetGroup
		last int
	}
	var found []complete
	for _, g := range datasetGroups {
		last, all := -1, true
		for _, d := range g.tables {
			i, ok := at[d.Name]
			all = all && ok
			last = max(last, i)
		}
		if all {
			found = append(found, complete{g, last})
		}
	}
	slices.SortStableFunc(found, func(a, b complete) int { return cmp.Compare(a.last, b.last) })
	out := make([]datasetGroup, len(found))
	for i, c := range found {
		out[i] = c.g
	}
	return out
}

// checkGroupsComplete fails for a table of a group that comes without the
// rest of a group it belongs to: no query could run over it.
func checkGroupsComplete(tables []Dataset) error {
	complete := completeGroups(tables)
	for _, d := range tables {
		if d.Group == "" || slices.ContainsFunc(complete, func(g datasetGroup) bool { return g.has(d) }) {
			continue
		}
		g, _ := findGroup(d.Group)
		return fmt.Errorf("-tables: the %s queries need all %d %s tables: give -tables %s", g.what, len(g.tables), g.what, g.name)
	}
	return nil
}
