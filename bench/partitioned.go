package main

import (
	"regexp"
	"slices"
)

// The partitioned variants time SSB's and TPC-H's queries over a fact
// table partitioned by month beside the same queries over the plain one.
// ssb_lineorder_part and tpch_lineitem_part hold exactly the rows of
// ssb_lineorder and tpch_lineitem (the same generator, so the same pure
// functions of the row number), routed into 84 monthly partitions; the
// groups ssb_partitioned and tpch_partitioned share every other table with
// ssb and tpch, and their queries are ssb's and tpch's, those that read
// the fact table, over the partitioned one. The queries keep their names
// (Q1.1, Q1, ...): the group, the results' table column, tells them apart,
// and -queries Q2.1 picks the query over both.

const (
	ssbPartGroup  = "ssb_partitioned"
	tpchPartGroup = "tpch_partitioned"
)

// partitionedTwin is plain's rows in a table partitioned by p, in group.
func partitionedTwin(plain Dataset, group string, p monthlyPartitions) Dataset {
	d := plain
	d.Name, d.Group, d.Partitions = plain.Name+"_part", group, &p
	d.Description = plain.Description + ", partitioned by month of " + p.column
	return d
}

func datasetNamed(ds []Dataset, name string) Dataset {
	return ds[slices.IndexFunc(ds, func(d Dataset) bool { return d.Name == name })]
}

// withTwin is ds with the dataset plainName replaced by its twin.
func withTwin(ds []Dataset, plainName string, twin Dataset) []Dataset {
	out := slices.Clone(ds)
	out[slices.IndexFunc(out, func(d Dataset) bool { return d.Name == plainName })] = twin
	return out
}

var (
	// lo_orderdate is 1992-01-01 plus a hash modulo ssbDays (ssb.go): every
	// value falls in 1992-01 .. 1998-12.
	ssbLineorderPart = partitionedTwin(datasetNamed(ssbDatasets, "ssb_lineorder"), ssbPartGroup,
		monthlyPartitions{column: "lo_orderdate", first: 1992, last: 1998, bound: yyyymmddBound})
	// l_shipdate is o_orderdate (1992-01-01 .. 1998-08-02) plus 1 to 121
	// days (tpch_orders.go): 1992-01-02 .. 1998-12-01.
	tpchLineitemPart = partitionedTwin(datasetNamed(tpchDatasets, "tpch_lineitem"), tpchPartGroup,
		monthlyPartitions{column: "l_shipdate", first: 1992, last: 1998, bound: dateBound})

	ssbPartitionedDatasets  = withTwin(ssbDatasets, "ssb_lineorder", ssbLineorderPart)
	tpchPartitionedDatasets = withTwin(tpchDatasets, "tpch_lineitem", tpchLineitemPart)
)

// overTwin is the queries that read the table plainName, over twin instead,
// in twin's group.
func overTwin(queries []Query, plainName string, twin Dataset) []Query {
	word := regexp.MustCompile(`\b` + regexp.QuoteMeta(plainName) + `\b`)
	var out []Query
	for _, q := range queries {
		if word.MatchString(q.SQL) {
			q.SQL = word.ReplaceAllString(q.SQL, twin.Name)
			q.Group = twin.Group
			q.Description += ", over " + twin.Name
			out = append(out, q)
		}
	}
	return out
}

// PartitionedQueries are SSB's 13 queries over ssb_lineorder_part, then
// the TPC-H queries that read lineitem, over tpch_lineitem_part.
var PartitionedQueries = append(overTwin(SSBQueries, "ssb_lineorder", ssbLineorderPart),
	overTwin(TPCHQueries, "tpch_lineitem", tpchLineitemPart)...)
