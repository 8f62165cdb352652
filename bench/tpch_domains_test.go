//go:build benchdb

package main

import (
	"fmt"
	"testing"
)

// checkTPCHDomains checks the loaded TPC-H tables against clause 4.2.3:
// each query counts the rows that break a rule (or, where said, counts what
// the rule fixes); rows are the tables' row counts.
func checkTPCHDomains(t *testing.T, count func(string) int64, rows map[string]int64) {
	t.Helper()
	orders, customers, suppliers := rows["tpch_orders"], rows["tpch_customer"], rows["tpch_supplier"]
	lastKey := orders/8*32 + orders%8 // the sparse key of the last order
	for _, c := range []struct {
		what, sql string
		want      int64
	}{
		// keys
		{"distinct order keys", "SELECT count(DISTINCT o_orderkey) FROM tpch_orders", orders},
		{"order keys outside the first 8 of 32", fmt.Sprintf("SELECT count(*) FROM tpch_orders WHERE o_orderkey %% 32 >= 8 OR o_orderkey < 1 OR o_orderkey > %d", lastKey), 0},
		{"orders of 1..7 lines numbered 1..n", "SELECT count(*) FROM (SELECT l_orderkey FROM tpch_lineitem GROUP BY 1 HAVING count(*) <> max(l_linenumber) OR count(DISTINCT l_linenumber) <> count(*) OR max(l_linenumber) > 7) o", 0},
		{"lineitems whose order is missing", "SELECT count(*) FROM tpch_lineitem WHERE NOT EXISTS (SELECT 1 FROM tpch_orders WHERE o_orderkey = l_orderkey)", 0},
		{"orders without lines", "SELECT count(*) FROM tpch_orders WHERE NOT EXISTS (SELECT 1 FROM tpch_lineitem WHERE l_orderkey = o_orderkey)", 0},
		{"lineitems whose part and supplier are not in partsupp", "SELECT count(*) FROM tpch_lineitem WHERE (l_partkey, l_suppkey) NOT IN (SELECT ps_partkey, ps_suppkey FROM tpch_partsupp)", 0},
		{"distinct partsupp keys, 4 per part", "SELECT count(*) FROM (SELECT ps_partkey FROM tpch_partsupp GROUP BY 1 HAVING count(DISTINCT ps_suppkey) = 4) p", rows["tpch_part"]},
		{"partsupp suppliers missing", "SELECT count(*) FROM tpch_partsupp WHERE ps_suppkey NOT IN (SELECT s_suppkey FROM tpch_supplier)", 0},
		{"orders of a missing customer or one whose key is a multiple of 3", "SELECT count(*) FROM tpch_orders WHERE o_custkey % 3 = 0 OR o_custkey NOT IN (SELECT c_custkey FROM tpch_customer)", 0},
		{"customers without orders (the multiples of 3)", "SELECT count(*) FROM tpch_customer WHERE c_custkey NOT IN (SELECT o_custkey FROM tpch_orders)", customers / 3},
		{"suppliers per nation, 1/25 each", fmt.Sprintf("SELECT count(*) FROM (SELECT s_nationkey FROM tpch_supplier GROUP BY 1 HAVING count(*) = %d) n", suppliers/25), 25},
		{"customers and suppliers of a missing nation, nations of a missing region", "SELECT (SELECT count(*) FROM tpch_customer WHERE c_nationkey NOT IN (SELECT n_nationkey FROM tpch_nation)) + (SELECT count(*) FROM tpch_supplier WHERE s_nationkey NOT IN (SELECT n_nationkey FROM tpch_nation)) + (SELECT count(*) FROM tpch_nation WHERE n_regionkey NOT IN (SELECT r_regionkey FROM tpch_region))", 0},
		// dates
		{"order dates outside 1992-01-01 .. 1998-08-02", "SELECT count(*) FROM tpch_orders WHERE o_orderdate NOT BETWEEN date '1992-01-01' AND date '1998-08-02'", 0},
		{"line dates off their order date", "SELECT count(*) FROM tpch_lineitem JOIN tpch_orders ON o_orderkey = l_orderkey WHERE l_shipdate - o_orderdate NOT BETWEEN 1 AND 121 OR l_commitdate - o_orderdate NOT BETWEEN 30 AND 90 OR l_receiptdate - l_shipdate NOT BETWEEN 1 AND 30", 0},
		{"line dates after 1998-12-31", "SELECT count(*) FROM tpch_lineitem WHERE l_receiptdate > date '1998-12-31'", 0},
		{"return flags against receipt dates", "SELECT count(*) FROM tpch_lineitem WHERE (l_receiptdate <= date '1995-06-17') <> (l_returnflag IN ('R', 'A')) OR l_returnflag NOT IN ('R', 'A', 'N')", 0},
		{"line statuses against ship dates", "SELECT count(*) FROM tpch_lineitem WHERE (l_shipdate > date '1995-06-17') <> (l_linestatus = 'O') OR l_linestatus NOT IN ('O', 'F')", 0},
		{"flag and status combinations (A F, N F, N O, R F)", "SELECT count(DISTINCT (l_returnflag, l_linestatus)) FROM tpch_lineitem", 4},
		// derived columns
		{"order statuses against their lines", "SELECT count(*) FROM tpch_orders JOIN (SELECT l_orderkey, CASE WHEN bool_and(l_linestatus = 'F') THEN 'F' WHEN bool_and(l_linestatus = 'O') THEN 'O' ELSE 'P' END AS s FROM tpch_lineitem GROUP BY 1) l ON l_orderkey = o_orderkey WHERE s <> o_orderstatus", 0},
		{"order statuses present", "SELECT count(DISTINCT o_orderstatus) FROM tpch_orders", 3},
		{"total prices against their lines", "SELECT count(*) FROM tpch_orders JOIN (SELECT l_orderkey, sum(trunc(trunc(l_extendedprice * (1 - l_discount), 2) * (1 + l_tax), 2)) AS p FROM tpch_lineitem GROUP BY 1) l ON l_orderkey = o_orderkey WHERE p <> o_totalprice", 0},
		{"extended prices other than quantity × retail price", "SELECT count(*) FROM tpch_lineitem JOIN tpch_part ON p_partkey = l_partkey WHERE l_extendedprice <> l_quantity * p_retailprice", 0},
		{"retail prices off the formula", "SELECT count(*) FROM tpch_part WHERE p_retailprice <> (90000 + p_partkey / 10 % 20001 + 100 * (p_partkey % 1000)) / 100.0", 0},
		// value domains
		{"(quantity, discount, tax) combinations in 1..50 × 0.00..0.10 × 0.00..0.08", "SELECT count(DISTINCT (l_quantity, l_discount, l_tax)) FROM tpch_lineitem WHERE l_quantity BETWEEN 1 AND 50 AND l_quantity = trunc(l_quantity) AND l_discount BETWEEN 0 AND 0.10 AND l_tax BETWEEN 0 AND 0.08", 50 * 11 * 9},
		{"lineitems outside those domains", "SELECT count(*) FROM tpch_lineitem WHERE l_quantity NOT BETWEEN 1 AND 50 OR l_discount NOT BETWEEN 0 AND 0.10 OR l_tax NOT BETWEEN 0 AND 0.08", 0},
		{"account balances outside -999.99 .. 9999.99", "SELECT (SELECT count(*) FROM tpch_customer WHERE c_acctbal NOT BETWEEN -999.99 AND 9999.99) + (SELECT count(*) FROM tpch_supplier WHERE s_acctbal NOT BETWEEN -999.99 AND 9999.99)", 0},
		{"partsupp values outside availqty 1..9999, supplycost 1.00..1000.00", "SELECT count(*) FROM tpch_partsupp WHERE ps_availqty NOT BETWEEN 1 AND 9999 OR ps_supplycost NOT BETWEEN 1 AND 1000", 0},
		{"phones not NN-NNN-NNN-NNNN with country code nation + 10", "SELECT count(*) FROM tpch_customer WHERE c_phone !~ '^[1-3][0-9]-[1-9][0-9]{2}-[1-9][0-9]{2}-[1-9][0-9]{3}$' OR left(c_phone, 2)::int4 <> c_nationkey + 10", 0},
		{"brands not Brand#MN of their manufacturer M", "SELECT count(*) FROM tpch_part WHERE p_brand::text !~ '^Brand#[1-5][1-5]$' OR substr(p_brand, 7, 1) <> substr(p_mfgr, 14, 1) OR p_mfgr::text !~ '^Manufacturer#[1-5]$'", 0},
		{"part names not 5 different colors", "SELECT count(*) FROM tpch_part WHERE (SELECT count(DISTINCT w) FROM unnest(string_to_array(p_name, ' ')) w) <> 5", 0},
		{"word lists: 150 types, 40 containers, 25 brands, 5 segments, 5 priorities, 7 ship modes, 4 instructions", "SELECT (SELECT count(DISTINCT p_type) * 1000000 + count(DISTINCT p_container) * 10000 + count(DISTINCT p_brand) FROM tpch_part) + (SELECT count(DISTINCT c_mktsegment) * 100000000 FROM tpch_customer) + (SELECT count(DISTINCT o_orderpriority) * 1000000000 FROM tpch_orders) + (SELECT count(DISTINCT (l_shipmode, l_shipinstruct)) * 10000000000 FROM tpch_lineitem)", 28*10000000000 + 5*1000000000 + 5*100000000 + 150*1000000 + 40*10000 + 25},
		// comments
		{"comments off their length ranges", "SELECT (SELECT count(*) FROM tpch_lineitem WHERE length(l_comment) NOT BETWEEN 10 AND 43) + (SELECT count(*) FROM tpch_orders WHERE length(o_comment) NOT BETWEEN 19 AND 78) + (SELECT count(*) FROM tpch_partsupp WHERE length(ps_comment) NOT BETWEEN 49 AND 198) + (SELECT count(*) FROM tpch_part WHERE length(p_comment) NOT BETWEEN 5 AND 22) + (SELECT count(*) FROM tpch_customer WHERE length(c_comment) NOT BETWEEN 29 AND 116) + (SELECT count(*) FROM tpch_supplier WHERE length(s_comment) NOT BETWEEN 25 AND 100)", 0},
		{"o_comment with '%special%requests%', about 1% (Q13)", "SELECT round(100.0 * count(*) FILTER (WHERE o_comment LIKE '%special%requests%') / count(*)) FROM tpch_orders", 1},
		{"s_comment with '%Customer%Complaints%', one per 2,000 suppliers (Q16)", "SELECT count(*) FROM tpch_supplier WHERE s_comment LIKE '%Customer%Complaints%'", (suppliers + 2000 - 17) / 2000},
	} {
		if got := count(c.sql); got != c.want {
			t.Errorf("%s: %d, want %d\n  %s", c.what, got, c.want, c.sql)
		}
	}
}
