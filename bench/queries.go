package main

import (
	"fmt"
	"slices"
	"strings"
)

// Query is one benchmark query: a W1 query runs on each W1 table, {t}
// standing for the table; a group's query (Group "ssb", "tpch", ...: the
// groups of groups.go) runs once over the tables of its group it names.
type Query struct {
	Name        string
	Description string
	SQL         string
	Group       string  // "" (W1) or the group's name
	SpecFF      float64 // SSB: the spec's filter factor (ssb.go)
}

// Queries run on every W1 table (they read only the w1Core columns).
var Queries = []Query{
	{
		Name:        "count_1pct",
		Description: "count(*), about 1% of the rows pass",
		SQL:         "SELECT count(*) FROM {t} WHERE a BETWEEN 250000 AND 259999",
	},
	{
		Name:        "count_50pct",
		Description: "count(*), about 50% of the rows pass",
		SQL:         "SELECT count(*) FROM {t} WHERE x < 12500",
	},
	{
		Name:        "sum_expr",
		Description: "sum of an arithmetic expression, about 50% of the rows pass",
		SQL:         "SELECT sum(x * 2 + y * 0.5 - (a % 7)::float8), count(*) FROM {t} WHERE d >= date '2005-01-01'",
	},
	{
		Name:        "group_8",
		Description: "GROUP BY with 8 groups, 90% of the rows pass",
		SQL:         "SELECT c, count(*), sum(x), avg(y) FROM {t} WHERE e < 9000 GROUP BY c",
	},
	{
		Name:        "group_1m",
		Description: "GROUP BY with 1 million groups (at scale 1), 10% of the rows pass",
		SQL:         "SELECT b, count(*), sum(y) FROM {t} WHERE a < 100000 GROUP BY b",
	},
	{
		Name:        "preagg_10",
		Description: "GROUP BY an expression with 10 groups, count/sum/avg, 90% of the rows pass",
		SQL:         "SELECT a % 10 AS k, count(*), sum(x), avg(y) FROM {t} WHERE e < 9000 GROUP BY 1",
	},
	{
		Name:        "preagg_1m",
		Description: "GROUP BY with 1 million groups (at scale 1), count/sum/avg, 90% of the rows pass",
		SQL:         "SELECT b, count(*), sum(x), avg(y) FROM {t} WHERE e < 9000 GROUP BY b",
	},
	{
		Name:        "rollup_80",
		Description: "GROUP BY ROLLUP of two keys (80, 8 and 1 groups), 90% of the rows pass",
		SQL:         "SELECT c, a % 10 AS k, count(*), sum(x), avg(y) FROM {t} WHERE e < 9000 GROUP BY ROLLUP (c, a % 10)",
	},
	{
		Name:        "distinct_mix",
		Description: "count(DISTINCT) of 1000 values beside count/sum per 8 groups, 90% of the rows pass",
		SQL:         "SELECT c, count(DISTINCT a % 1000), count(*), sum(x) FROM {t} WHERE e < 9000 GROUP BY c",
	},
	{
		Name:        "arith_pred",
		Description: "a predicate heavy in float and integer arithmetic",
		SQL: "SELECT count(*), sum(a) FROM {t} WHERE " +
			"(x * 1.5 + y * y / 7.0 - (a % 1000)::float8 * 0.25) * ((b % 13) + 1)::float8 " +
			"> abs(x - y) * 3.0 + (id % 1000)::float8 + 20000.0 AND (a * 3 + e) % 11 < 7",
	},
}

// For returns the query text for table t.
func (q Query) For(t Dataset) string { return strings.ReplaceAll(q.SQL, "{t}", t.ident()) }

// AllQueries are the W1 queries, then SSB's.
func AllQueries() []Query { return append(append([]Query{}, Queries...), SSBQueries...) }

// knownQueries are AllQueries, TPC-H's and the partitioned variants
// (partitioned.go): every name -queries accepts. SelectQueries' empty
// filter keeps its meaning, the W1 and SSB queries; parseConfig adds the
// others to the default selection.
func knownQueries() []Query {
	return append(append(AllQueries(), TPCHQueries...), PartitionedQueries...)
}

// SelectQueries keeps the queries named in the comma-separated filter (all
// W1 and SSB queries when it is empty).
func SelectQueries(filter string) ([]Query, error) {
	if strings.TrimSpace(filter) == "" {
		return AllQueries(), nil
	}
	var out []Query
	for _, name := range splitList(filter) {
		found := false
		for _, q := range knownQueries() {
			if q.Name == name {
				out = append(out, q)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown query %q (known: %s)", name, strings.Join(QueryNames(), ", "))
		}
	}
	return out, nil
}

// QueryNames lists the known query names, each once (a partitioned
// variant has its query's name).
func QueryNames() []string {
	var names []string
	for _, q := range knownQueries() {
		if !slices.Contains(names, q.Name) {
			names = append(names, q.Name)
		}
	}
	return names
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
