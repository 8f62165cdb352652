package main

import (
	"fmt"
	"math"
	"strings"
)

// TPC-H: the TPC Benchmark H standard specification, revision 3.0.1, cited
// below as "TPC-H" with its clause numbers. Its eight tables are generated
// here like SSB's, every value a pure SQL function of the row number i, so
// every load at the same scale factor holds the same rows. The tables are
// named tpch_<table>, so that a load, which drops a table whose definition
// or size changed, never touches a database's own TPC-H tables; the
// columns keep the spec's names and types (clauses 1.3 and 1.4:
// identifiers int4, money and quantities numeric(15,2), char(n),
// varchar(n), date).
//
// Cardinalities (clause 4.2.5): region 5, nation 25, supplier 10,000 × SF,
// customer 150,000 × SF, part 200,000 × SF, partsupp 4 per part, orders
// 1,500,000 × SF with TPC-H's sparse keys (the first 8 of every 32), and
// 1 to 7 lines per order, 4 on average, about 6,000,000 × SF lineitems.
//
// Value domains and derived columns follow clause 4.2.3: dates of
// 1992-1998, o_orderdate up to 151 days before the end, l_shipdate 1..121
// days after it, l_commitdate 30..90, l_receiptdate 1..30 days after the
// ship date; l_linestatus 'O' for a ship date after CURRENTDATE
// (1995-06-17), else 'F'; l_returnflag 'R' or 'A' for a receipt date up to
// CURRENTDATE, else 'N'; o_orderstatus 'F', 'O' or 'P' from its lines'
// statuses; o_totalprice the sum over its lines of price × (1 - discount) ×
// (1 + tax), rounded down to cents at each step as dbgen does;
// l_extendedprice quantity × p_retailprice; l_suppkey one of the part's
// four partsupp suppliers; o_custkey never a multiple of 3 (a third of the
// customers has no order); the word lists of clause 4.2.2.13 (ssb.go).
//
// Departures from dbgen, whose pseudo-random streams SQL cannot reproduce
// (and need not: the spec fixes the distributions, not the values):
//   - every "random" value is a hash of the row (or order, or line);
//   - the number of lines of an order follows a fixed cycle of 7 orders
//     (4, 1, 7, 3, 6, 2, 5 lines, as SSB's lineorder here), not a random
//     draw, so that a lineitem's order and line number are arithmetic on i;
//   - s_nationkey and c_nationkey hold every nation exactly once in each 25
//     consecutive keys, so that every nation has its share at small SF;
//   - comments are substrings of a 32 KB pool (tpch_text.go), where dbgen's
//     is 300 MB; '%special%requests%' is in 1% of o_comment (a hash of the
//     order), '%Customer%Complaints%' in the suppliers whose key is 17
//     mod 2,000 and '%Customer%Recommends%' in those of 1,017 mod 2,000
//     (SF × 5 each of SF × 10,000, as the spec, but placed, not drawn);
//   - addresses are hex digits (md5), not dbgen's alphanumeric characters.

const tpchGroup = "tpch"

const (
	tpchStart       = "date '1992-01-01'"
	tpchOrderDays   = 2406 // o_orderdate: 1992-01-01 .. 1998-08-02 (ENDDATE - 151)
	tpchCurrentDate = "date '1995-06-17'"
)

var (
	tpchRegions      = []string{"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"}
	tpchInstructions = []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
)

// TPC-H row counts at scale factor sf.
func tpchCount(base, sf float64) int64 { return max(1, int64(math.Round(base*sf))) }
func tpchSuppliers(sf float64) int64   { return tpchCount(10_000, sf) }
func tpchCustomers(sf float64) int64   { return tpchCount(150_000, sf) }
func tpchParts(sf float64) int64       { return tpchCount(200_000, sf) }
func tpchPartsupps(sf float64) int64   { return 4 * tpchParts(sf) }
func tpchOrders(sf float64) int64      { return tpchCount(1_500_000, sf) }
func tpchLineitems(sf float64) int64   { return tpchLinesOf(tpchOrders(sf)) }

// tpchLinesOf is the number of lines of the first n orders.
func tpchLinesOf(n int64) int64 {
	lines := n / 7 * 28
	for _, l := range ssbOrderLines[:n%7] {
		lines += int64(l)
	}
	return lines
}

// tpchNation is a nation key (0..24) for row i: each 25 consecutive keys
// hold every nation once, rotated by a hash of the block.
func tpchNation(seed int) string {
	return fmt.Sprintf("(((i - 1) %% 25 + %s %% 25) %% 25)", hashOf("((i - 1) / 25)", seed))
}

// tpchPhone is clause 4.2.2.9's phone number: country code nation + 10,
// then 3, 3 and 4 digits.
func tpchPhone(nation string, seed int) string {
	h := hashOf("i", seed)
	return fmt.Sprintf("(10 + %s)::text || '-' || (100 + %s %% 900)::text || '-' || (100 + %s / 900 %% 900)::text || '-' || (1000 + %s / 810000 %% 9000)::text",
		nation, h, h, h)
}

// tpchMoney is cents lo..hi (uniform, from the hash h) as numeric(15,2).
func tpchMoney(h string, lo, hi int64) string {
	return fmt.Sprintf("((%s %% %d %+d) * 0.01)", h, hi-lo+1, lo)
}

func tpchAddress(prefix string, seed int) string {
	return fmt.Sprintf("substr(md5('%s' || i::text) || md5('%s' || i::text), 1, (10 + %s %% 31)::int4)",
		prefix, strings.ToUpper(prefix), hashOf("i", seed))
}

// tpchRetailCents is clause 4.2.3's P_RETAILPRICE of part key pk, in cents.
func tpchRetailCents(pk string) string {
	return fmt.Sprintf("(90000 + %s / 10 %% 20001 + 100 * (%s %% 1000))", pk, pk)
}

// tpchPartSupplier is the supplier j (0..3) of part pk (clause 4.2.3's
// PS_SUPPKEY), with s suppliers.
func tpchPartSupplier(pk, j string, s int64) string {
	return fmt.Sprintf("((%s + %s * (%d + (%s - 1) / %d)) %% %d + 1)", pk, j, s/4, pk, s, s)
}

func tpchRegionColumns(float64) []Column {
	return []Column{
		{"r_regionkey", "int4 NOT NULL", "(i - 1)::int4"},
		{"r_name", "char(25) NOT NULL", pick(tpchRegions, "i - 1")},
		{"r_comment", "varchar(152) NOT NULL", tpchText("i", 61, 31, 114)},
	}
}

func tpchNationColumns(float64) []Column {
	var names, regions []string
	for _, n := range ssbNations {
		names = append(names, n.name)
		for k, r := range tpchRegions {
			if r == n.region {
				regions = append(regions, fmt.Sprint(k))
			}
		}
	}
	return []Column{
		{"n_nationkey", "int4 NOT NULL", "(i - 1)::int4"},
		{"n_name", "char(25) NOT NULL", pick(names, "i - 1")},
		{"n_regionkey", "int4 NOT NULL", fmt.Sprintf("%s[i]", intArray(regions))},
		{"n_comment", "varchar(152) NOT NULL", tpchText("i", 71, 31, 114)},
	}
}

// tpchSupplierComment: one supplier of every 2,000 keys complains and one
// recommends (clause 4.2.3: SF × 5 each of SF × 10,000); the complaining
// one is near the start of each block, so that Q16's NOT IN has a supplier
// to leave out from SF 0.002 on.
func tpchSupplierComment() string {
	return fmt.Sprintf("CASE i %% 2000 WHEN 17 THEN %s WHEN 1017 THEN %s ELSE %s END",
		tpchTextWith("i", 81, 25, 100, "Customer", "Complaints"),
		tpchTextWith("i", 81, 25, 100, "Customer", "Recommends"),
		tpchText("i", 81, 25, 100))
}

func tpchSupplierColumns(float64) []Column {
	nation := tpchNation(82)
	return []Column{
		{"s_suppkey", "int4 NOT NULL", "i::int4"},
		{"s_name", "char(25) NOT NULL", "'Supplier#' || lpad(i::text, 9, '0')"},
		{"s_address", "varchar(40) NOT NULL", tpchAddress("s", 83)},
		{"s_nationkey", "int4 NOT NULL", nation + "::int4"},
		{"s_phone", "char(15) NOT NULL", tpchPhone(nation, 84)},
		{"s_acctbal", "numeric(15,2) NOT NULL", tpchMoney(hashOf("i", 85), -99999, 999999)},
		{"s_comment", "varchar(101) NOT NULL", tpchSupplierComment()},
	}
}

func tpchCustomerColumns(float64) []Column {
	nation := tpchNation(91)
	return []Column{
		{"c_custkey", "int4 NOT NULL", "i::int4"},
		{"c_name", "varchar(25) NOT NULL", "'Customer#' || lpad(i::text, 9, '0')"},
		{"c_address", "varchar(40) NOT NULL", tpchAddress("c", 92)},
		{"c_nationkey", "int4 NOT NULL", nation + "::int4"},
		{"c_phone", "char(15) NOT NULL", tpchPhone(nation, 93)},
		{"c_acctbal", "numeric(15,2) NOT NULL", tpchMoney(hashOf("i", 94), -99999, 999999)},
		{"c_mktsegment", "char(10) NOT NULL", pick(ssbSegments, hashOf("i", 95)+" % 5")},
		{"c_comment", "varchar(117) NOT NULL", tpchText("i", 96, 29, 116)},
	}
}

// tpchPartName is five different colors: the color start + k × step
// (mod 92) for k = 0..4, step a unit mod 92 (odd, not 23 or 69), so every
// color is as likely at every position.
func tpchPartName() string {
	var units []string
	for u := 1; u < 92; u += 2 {
		if u != 23 && u != 69 {
			units = append(units, fmt.Sprint(u))
		}
	}
	start := hashOf("i", 101)
	step := fmt.Sprintf("%s[%s %% %d + 1]", intArray(units), hashOf("i", 102), len(units))
	words := make([]string, 5)
	for k := range words {
		words[k] = pick(ssbColors, fmt.Sprintf("(%s + %d * %s) %% 92", start, k, step))
	}
	return strings.Join(words, " || ' ' || ")
}

func tpchPartColumns(float64) []Column {
	mfgr := fmt.Sprintf("(%s %% 5 + 1)::text", hashOf("i", 103))
	return []Column{
		{"p_partkey", "int4 NOT NULL", "i::int4"},
		{"p_name", "varchar(55) NOT NULL", tpchPartName()},
		{"p_mfgr", "char(25) NOT NULL", "'Manufacturer#' || " + mfgr},
		{"p_brand", "char(10) NOT NULL", fmt.Sprintf("'Brand#' || %s || (%s %% 5 + 1)::text", mfgr, hashOf("i", 104))},
		{"p_type", "varchar(25) NOT NULL", pick(ssbTypes(), hashOf("i", 105)+" % 150")},
		{"p_size", "int4 NOT NULL", fmt.Sprintf("(%s %% 50 + 1)::int4", hashOf("i", 106))},
		{"p_container", "char(10) NOT NULL", pick(ssbContainers(), hashOf("i", 107)+" % 40")},
		{"p_retailprice", "numeric(15,2) NOT NULL", tpchRetailCents("i") + " * 0.01"},
		{"p_comment", "varchar(23) NOT NULL", tpchText("i", 108, 5, 22)},
	}
}

// tpchPartsuppColumns: rows 4k-3 .. 4k are part k's four suppliers.
func tpchPartsuppColumns(sf float64) []Column {
	pk := "((i - 1) / 4 + 1)"
	return []Column{
		{"ps_partkey", "int4 NOT NULL", pk + "::int4"},
		{"ps_suppkey", "int4 NOT NULL", tpchPartSupplier(pk, "((i - 1) % 4)", tpchSuppliers(sf)) + "::int4"},
		{"ps_availqty", "int4 NOT NULL", fmt.Sprintf("(%s %% 9999 + 1)::int4", hashOf("i", 111))},
		{"ps_supplycost", "numeric(15,2) NOT NULL", tpchMoney(hashOf("i", 112), 100, 100000)},
		{"ps_comment", "varchar(199) NOT NULL", tpchText("i", 113, 49, 198)},
	}
}

// tpchDatasets are TPC-H's tables, in the spec's order.
var tpchDatasets = []Dataset{
	{Name: "tpch_region", Group: tpchGroup, Description: "TPC-H region: 5 rows", Parts: 1,
		RowsAt: func(float64) int64 { return 5 }, ColumnsAt: tpchRegionColumns},
	{Name: "tpch_nation", Group: tpchGroup, Description: "TPC-H nation: 25 rows", Parts: 1,
		RowsAt: func(float64) int64 { return 25 }, ColumnsAt: tpchNationColumns},
	{Name: "tpch_supplier", Group: tpchGroup, Description: "TPC-H supplier: 10,000 × SF", Parts: 4,
		RowsAt: tpchSuppliers, ColumnsAt: tpchSupplierColumns},
	{Name: "tpch_customer", Group: tpchGroup, Description: "TPC-H customer: 150,000 × SF", Parts: 8,
		RowsAt: tpchCustomers, ColumnsAt: tpchCustomerColumns},
	{Name: "tpch_part", Group: tpchGroup, Description: "TPC-H part: 200,000 × SF", Parts: 8,
		RowsAt: tpchParts, ColumnsAt: tpchPartColumns},
	{Name: "tpch_partsupp", Group: tpchGroup, Description: "TPC-H partsupp: 800,000 × SF", Parts: 16,
		RowsAt: tpchPartsupps, ColumnsAt: tpchPartsuppColumns},
	{Name: "tpch_orders", Group: tpchGroup, Description: "TPC-H orders: 1,500,000 × SF", Parts: 32,
		RowsAt: tpchOrders, ColumnsAt: tpchOrdersColumns},
	{Name: "tpch_lineitem", Group: tpchGroup, Description: "TPC-H lineitem: about 6,000,000 × SF", Parts: 64,
		RowsAt: tpchLineitems, ColumnsAt: tpchLineitemColumns},
}
