package main

import (
	"fmt"
	"math"
	"strings"
)

// The Star Schema Benchmark (SSB): P. O'Neil, E. O'Neil, X. Chen, "Star
// Schema Benchmark", revision 3, June 5 2009 (UMass/Boston), the spec cited
// below as "SSB". Its five tables are generated here like W1's, every value a
// pure SQL function of the row number i (no random(), nothing read from
// outside), so every load at the same scale factor holds the same rows.
//
// Cardinalities (SSB section 2):
//   - ssb_lineorder: 6,000,000 × SF rows; 1,500,000 × SF orders of 1 to 7
//     lines (4 on average).
//   - ssb_customer 30,000 × SF, ssb_supplier 2,000 × SF.
//   - ssb_part 200,000 × floor(1 + log2 SF) for SF >= 1; the spec defines no
//     part count below SF 1, and there it is 200,000 × SF, like the others.
//   - ssb_date: the 7 years 1992-01-01 .. 1998-12-31, 2557 days.
//
// Value domains follow SSB (and TPC-H, which it is derived from): 25 nations
// of 5 regions, 10 cities per nation named by the nation's first 9
// characters and a digit ('UNITED KI1'), brands 'MFGR#1101' .. 'MFGR#5540'
// (1000: 5 manufacturers × 5 categories × 40), lo_quantity 1..50,
// lo_discount 0..10, lo_tax 0..8, prices as TPC-H's p_retailprice.
//
// Two choices make the queries' selectivities those the spec derives (its
// "filter factors", FF, in section 3), also at small scale factors:
//   - dimension attributes are permutations of the key (k × A + B mod 250
//     for customer and supplier cities, mod 1000 for part brands), so every
//     250 (1000) consecutive keys hold each city (brand) exactly once, and a
//     region, a nation, a category each hold exactly their share;
//   - lineorder's foreign keys, dates and measures are independent uniform
//     hashes (PostgreSQL's hashint8extended with a seed per column) of the
//     order number or of i, so the fraction of rows passing a combination
//     of predicates is the product of their fractions, as the spec assumes.
//     lo_orderdate is uniform over all 2557 days (the spec's FFs count a
//     year as 1/7 of the rows; TPC-H's order dates would end in August 1998).
//
// Money is int4, in cents: SSB's own generator writes integers, every
// amount fits (lo_extendedprice at most 50 × 2098.99 dollars), sums and
// lo_extendedprice * lo_discount are exact in int8 (no numeric rounding to
// compare), and integer arithmetic is what the device does cheapest.
// Keys are int4, lo_orderdate and lo_commitdate the int4 yyyymmdd
// d_datekey, strings text. Where the generator departs from SSB's dbgen:
// lo_suppkey is uniform rather than one of a part's 4 TPC-H suppliers,
// lo_ordtotalprice is a value of the order in TPC-H's range rather than the
// sum of its lines (no SSB query reads either), and lo_commitdate (order
// date + 30..90 days) stops at 1998-12-31 so that it stays a date key.

const ssbGroup = "ssb"

// ssbDays is the date dimension's row count: 1992-01-01 .. 1998-12-31.
const ssbDays = 2557

var ssbNations = []struct{ name, region string }{
	{"ALGERIA", "AFRICA"}, {"ARGENTINA", "AMERICA"}, {"BRAZIL", "AMERICA"}, {"CANADA", "AMERICA"},
	{"EGYPT", "MIDDLE EAST"}, {"ETHIOPIA", "AFRICA"}, {"FRANCE", "EUROPE"}, {"GERMANY", "EUROPE"},
	{"INDIA", "ASIA"}, {"INDONESIA", "ASIA"}, {"IRAN", "MIDDLE EAST"}, {"IRAQ", "MIDDLE EAST"},
	{"JAPAN", "ASIA"}, {"JORDAN", "MIDDLE EAST"}, {"KENYA", "AFRICA"}, {"MOROCCO", "AFRICA"},
	{"MOZAMBIQUE", "AFRICA"}, {"PERU", "AMERICA"}, {"CHINA", "ASIA"}, {"ROMANIA", "EUROPE"},
	{"SAUDI ARABIA", "MIDDLE EAST"}, {"VIETNAM", "ASIA"}, {"RUSSIA", "EUROPE"}, {"UNITED KINGDOM", "EUROPE"},
	{"UNITED STATES", "AMERICA"},
}

// TPC-H's word lists (its clause 4.2.2.13): colors (P_NAME), types,
// containers, market segments, order priorities, ship modes.
var (
	ssbColors = strings.Fields(`almond antique aquamarine azure beige bisque black blanched blue blush brown
		burlywood burnished chartreuse chiffon chocolate coral cornflower cornsilk cream cyan dark deep dim
		dodger drab firebrick floral forest frosted gainsboro ghost goldenrod green grey honeydew hot indian
		ivory khaki lace lavender lawn lemon light lime linen magenta maroon medium metallic midnight mint
		misty moccasin navajo navy olive orange orchid pale papaya peach peru pink plum powder puff purple
		red rose rosy royal saddle salmon sandy seashell sienna sky slate smoke snow spring steel tan thistle
		tomato turquoise violet wheat white yellow`)
	ssbSegments   = []string{"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"}
	ssbPriorities = []string{"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"}
	ssbShipModes  = []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
)

func ssbTypes() []string {
	var out []string
	for _, a := range []string{"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"} {
		for _, b := range []string{"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"} {
			for _, c := range []string{"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"} {
				out = append(out, a+" "+b+" "+c)
			}
		}
	}
	return out
}

func ssbContainers() []string {
	var out []string
	for _, a := range []string{"SM", "LG", "MED", "JUMBO", "WRAP"} {
		for _, b := range []string{"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"} {
			out = append(out, a+" "+b)
		}
	}
	return out
}

// sqlArray is an ARRAY literal of texts; pick(arr, idx) its element idx
// (0-based SQL expression).
func sqlArray(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = "'" + strings.ReplaceAll(v, "'", "''") + "'"
	}
	return "(ARRAY[" + strings.Join(q, ",") + "]::text[])"
}

func pick(vals []string, idx string) string { return fmt.Sprintf("%s[(%s) + 1]", sqlArray(vals), idx) }

// hashOf is a non-negative uniform int8 hash of the int8 expression x.
func hashOf(x string, seed int) string {
	return fmt.Sprintf("(hashint8extended(%s, %d) & 4611686018427387903)", x, seed)
}

// SSB row counts at scale factor sf.
func ssbCustomers(sf float64) int64 { return max(1, int64(math.Round(30_000*sf))) }
func ssbSuppliers(sf float64) int64 { return max(1, int64(math.Round(2_000*sf))) }
func ssbLineorders(sf float64) int64 {
	return max(1, int64(math.Round(6_000_000*sf)))
}
func ssbParts(sf float64) int64 {
	if sf >= 1 {
		return 200_000 * int64(math.Floor(1+math.Log2(sf)))
	}
	return max(1, int64(math.Round(200_000*sf)))
}

// ssbPlace is the city, nation, region and phone columns of a customer or
// supplier: the city index c = (i × mult + add) mod 250 is a permutation of
// every 250 consecutive keys; nation = c / 10, the city's digit c % 10.
func ssbPlace(prefix string, mult, add, seed int) []Column {
	c := fmt.Sprintf("((i * %d + %d) %% 250)", mult, add)
	n := c + " / 10"
	var names, regions, city9 []string
	for _, nt := range ssbNations {
		names = append(names, nt.name)
		regions = append(regions, nt.region)
		city9 = append(city9, fmt.Sprintf("%-9.9s", nt.name))
	}
	h := hashOf("i", seed)
	return []Column{
		{prefix + "_city", "text NOT NULL", fmt.Sprintf("%s || (%s %% 10)::text", pick(city9, n), c)},
		{prefix + "_nation", "text NOT NULL", pick(names, n)},
		{prefix + "_region", "text NOT NULL", pick(regions, n)},
		{prefix + "_phone", "text NOT NULL", fmt.Sprintf("(10 + %s)::text || '-' || (100 + %s %% 900)::text || '-' || (100 + %s / 900 %% 900)::text || '-' || (1000 + %s / 810000 %% 9000)::text",
			n, h, h, h)},
	}
}

func ssbCustomerColumns(float64) []Column {
	cols := []Column{
		{"c_custkey", "int4 NOT NULL", "i::int4"},
		{"c_name", "text NOT NULL", "'Customer#' || lpad(i::text, 9, '0')"},
		{"c_address", "text NOT NULL", "substr(md5('c' || i::text), 1, 10 + (i % 16)::int4)"},
	}
	cols = append(cols, ssbPlace("c", 97, 13, 101)...)
	return append(cols, Column{"c_mktsegment", "text NOT NULL", pick(ssbSegments, hashOf("i", 102)+" % 5")})
}

func ssbSupplierColumns(float64) []Column {
	cols := []Column{
		{"s_suppkey", "int4 NOT NULL", "i::int4"},
		{"s_name", "text NOT NULL", "'Supplier#' || lpad(i::text, 9, '0')"},
		{"s_address", "text NOT NULL", "substr(md5('s' || i::text), 1, 10 + (i % 16)::int4)"},
	}
	return append(cols, ssbPlace("s", 103, 29, 201)...)
}

// ssbPartColumns: the brand index b = (i × 337 + 71) mod 1000 is a
// permutation of every 1000 consecutive keys; manufacturer b / 200 + 1,
// category digit b / 40 % 5 + 1, brand number b % 40 + 1.
func ssbPartColumns(float64) []Column {
	b := "((i * 337 + 71) % 1000)"
	mfgr := fmt.Sprintf("'MFGR#' || (%s / 200 + 1)::text", b)
	cat := fmt.Sprintf("%s || (%s / 40 %% 5 + 1)::text", mfgr, b)
	h := hashOf("i", 301)
	nc := len(ssbColors)
	return []Column{
		{"p_partkey", "int4 NOT NULL", "i::int4"},
		{"p_name", "text NOT NULL", fmt.Sprintf("%s || ' ' || %s", pick(ssbColors, fmt.Sprintf("%s %% %d", h, nc)),
			pick(ssbColors, fmt.Sprintf("%s / %d %% %d", h, nc, nc)))},
		{"p_mfgr", "text NOT NULL", mfgr},
		{"p_category", "text NOT NULL", cat},
		{"p_brand1", "text NOT NULL", fmt.Sprintf("%s || lpad((%s %% 40 + 1)::text, 2, '0')", cat, b)},
		{"p_color", "text NOT NULL", pick(ssbColors, fmt.Sprintf("%s %% %d", hashOf("i", 302), nc))},
		{"p_type", "text NOT NULL", pick(ssbTypes(), hashOf("i", 303)+" % 150")},
		{"p_size", "int4 NOT NULL", "(" + hashOf("i", 304) + " % 50 + 1)::int4"},
		{"p_container", "text NOT NULL", pick(ssbContainers(), hashOf("i", 305)+" % 40")},
	}
}

// ssbDateColumns: row i is the day 1991-12-31 + i. The week of the year
// is (day of year - 1) / 7 + 1 (1..53), as SSB's generator counts it.
func ssbDateColumns(float64) []Column {
	d := "(date '1991-12-31' + i::int4)"
	doy := fmt.Sprintf("extract(doy FROM %s)::int4", d)
	month := fmt.Sprintf("extract(month FROM %s)::int4", d)
	dow := fmt.Sprintf("extract(dow FROM %s)::int4", d) // 0 = Sunday
	return []Column{
		{"d_datekey", "int4 NOT NULL", fmt.Sprintf("to_char(%s, 'YYYYMMDD')::int4", d)},
		{"d_date", "text NOT NULL", fmt.Sprintf("to_char(%s, 'FMMonth FMDD, YYYY')", d)},
		{"d_dayofweek", "text NOT NULL", fmt.Sprintf("to_char(%s, 'FMDay')", d)},
		{"d_month", "text NOT NULL", fmt.Sprintf("to_char(%s, 'FMMonth')", d)},
		{"d_year", "int4 NOT NULL", fmt.Sprintf("extract(year FROM %s)::int4", d)},
		{"d_yearmonthnum", "int4 NOT NULL", fmt.Sprintf("to_char(%s, 'YYYYMM')::int4", d)},
		{"d_yearmonth", "text NOT NULL", fmt.Sprintf("to_char(%s, 'MonYYYY')", d)},
		{"d_daynuminweek", "int4 NOT NULL", dow + " + 1"},
		{"d_daynuminmonth", "int4 NOT NULL", fmt.Sprintf("extract(day FROM %s)::int4", d)},
		{"d_daynuminyear", "int4 NOT NULL", doy},
		{"d_monthnuminyear", "int4 NOT NULL", month},
		{"d_weeknuminyear", "int4 NOT NULL", fmt.Sprintf("(%s - 1) / 7 + 1", doy)},
		{"d_sellingseason", "text NOT NULL", fmt.Sprintf("(ARRAY['Winter','Winter','Spring','Spring','Spring','Summer','Summer','Summer','Fall','Fall','Christmas','Christmas']::text[])[%s]", month)},
		{"d_lastdayinweekfl", "bool NOT NULL", dow + " = 6"},
		{"d_lastdayinmonthfl", "bool NOT NULL", fmt.Sprintf("extract(day FROM %s + 1) = 1", d)},
		{"d_holidayfl", "bool NOT NULL", fmt.Sprintf("to_char(%s, 'MMDD') IN ('0101', '0704', '1111', '1225')", d)},
		{"d_weekdayfl", "bool NOT NULL", dow + " BETWEEN 1 AND 5"},
	}
}

// ssbOrderLines is the number of lines of the 7 orders of every block of 28
// lineorder rows (1 to 7, 4 on average): row i belongs to block (i-1) / 28,
// and its offset in the block gives its order and line number.
var ssbOrderLines = []int{4, 1, 7, 3, 6, 2, 5}

func ssbBlockMaps() (orderOf, lineOf []string) {
	for o, n := range ssbOrderLines {
		for l := 1; l <= n; l++ {
			orderOf = append(orderOf, fmt.Sprint(o))
			lineOf = append(lineOf, fmt.Sprint(l))
		}
	}
	return orderOf, lineOf
}

func intArray(vals []string) string { return "(ARRAY[" + strings.Join(vals, ",") + "]::int4[])" }

// ssbLineorderColumns depends on the scale factor: the foreign keys pick
// among the dimension tables' rows at that scale.
func ssbLineorderColumns(sf float64) []Column {
	orderOf, lineOf := ssbBlockMaps()
	off := "((i - 1) % 28 + 1)"
	o := fmt.Sprintf("((i - 1) / 28 * 7 + %s[%s] + 1)", intArray(orderOf), off) // order number, int8, from 1
	nlines := fmt.Sprintf("%s[(%s - 1) %% 7 + 1]", intArray(func() []string {
		s := make([]string, len(ssbOrderLines))
		for i, n := range ssbOrderLines {
			s[i] = fmt.Sprint(n)
		}
		return s
	}()), o)
	day := fmt.Sprintf("(date '1992-01-01' + (%s %% %d)::int4)", hashOf(o, 1), ssbDays)
	pk := fmt.Sprintf("(%s %% %d + 1)", hashOf("i", 3), ssbParts(sf))
	retail := fmt.Sprintf("(90000 + %s / 10 %% 20001 + 100 * (%s %% 1000))", pk, pk) // TPC-H p_retailprice, cents
	qty := fmt.Sprintf("(%s %% 50 + 1)", hashOf("i", 5))
	disc := fmt.Sprintf("(%s %% 11)", hashOf("i", 6))
	return []Column{
		{"lo_orderkey", "int4 NOT NULL", o + "::int4"},
		{"lo_linenumber", "int4 NOT NULL", fmt.Sprintf("%s[%s]", intArray(lineOf), off)},
		{"lo_custkey", "int4 NOT NULL", fmt.Sprintf("(%s %% %d + 1)::int4", hashOf(o, 2), ssbCustomers(sf))},
		{"lo_partkey", "int4 NOT NULL", pk + "::int4"},
		{"lo_suppkey", "int4 NOT NULL", fmt.Sprintf("(%s %% %d + 1)::int4", hashOf("i", 4), ssbSuppliers(sf))},
		{"lo_orderdate", "int4 NOT NULL", fmt.Sprintf("to_char(%s, 'YYYYMMDD')::int4", day)},
		{"lo_orderpriority", "text NOT NULL", pick(ssbPriorities, hashOf(o, 10)+" % 5")},
		{"lo_shippriority", "text NOT NULL", "'0'"},
		{"lo_quantity", "int4 NOT NULL", qty + "::int4"},
		{"lo_extendedprice", "int4 NOT NULL", fmt.Sprintf("(%s * %s)::int4", qty, retail)},
		{"lo_ordtotalprice", "int4 NOT NULL", fmt.Sprintf("(%s * (%s %% 7900000 + 100000))::int4", nlines, hashOf(o, 11))},
		{"lo_discount", "int4 NOT NULL", disc + "::int4"},
		{"lo_revenue", "int4 NOT NULL", fmt.Sprintf("(%s * %s * (100 - %s) / 100)::int4", qty, retail, disc)},
		{"lo_supplycost", "int4 NOT NULL", fmt.Sprintf("(%s * 6 / 10)::int4", retail)},
		{"lo_tax", "int4 NOT NULL", fmt.Sprintf("(%s %% 9)::int4", hashOf("i", 7))},
		{"lo_commitdate", "int4 NOT NULL", fmt.Sprintf("to_char(least(%s + (30 + %s %% 61)::int4, date '1998-12-31'), 'YYYYMMDD')::int4",
			day, hashOf("i", 9))},
		{"lo_shipmode", "text NOT NULL", pick(ssbShipModes, hashOf("i", 8)+" % 7")},
	}
}

// ssbDatasets are SSB's tables, dimensions first.
var ssbDatasets = []Dataset{
	{Name: "ssb_date", Group: ssbGroup, Description: "SSB date: 2557 days, 1992-1998", Parts: 1,
		RowsAt: func(float64) int64 { return ssbDays }, ColumnsAt: ssbDateColumns},
	{Name: "ssb_customer", Group: ssbGroup, Description: "SSB customer: 30,000 × SF", Parts: 8,
		RowsAt: ssbCustomers, ColumnsAt: ssbCustomerColumns},
	{Name: "ssb_supplier", Group: ssbGroup, Description: "SSB supplier: 2,000 × SF", Parts: 4,
		RowsAt: ssbSuppliers, ColumnsAt: ssbSupplierColumns},
	{Name: "ssb_part", Group: ssbGroup, Description: "SSB part: 200,000 × floor(1 + log2 SF)", Parts: 8,
		RowsAt: ssbParts, ColumnsAt: ssbPartColumns},
	{Name: "ssb_lineorder", Group: ssbGroup, Description: "SSB lineorder: 6,000,000 × SF", Parts: 64,
		RowsAt: ssbLineorders, ColumnsAt: ssbLineorderColumns},
}

// ssbQuery is one of SSB's 13 queries (SSB section 3.1), split so that the
// test can count the lineorder rows that pass its joins and predicates.
type ssbQuery struct {
	name, selectList, where, tail string
	tables                        []string
	ff                            float64 // the spec's filter factor
	ffText                        string
}

const ssbLO = "lo_orderdate = d_datekey"

// The queries with the spec's filter factors (SSB section 3.1). A year is
// 1/7 of the dates, a month 1/84, a week 1/364; a region 1/5 of the
// customers or suppliers, a nation 1/25, a city 1/250; a manufacturer 1/5
// of the parts, a category 1/25, a brand 1/1000; lo_discount's 11 values
// and lo_quantity's 50 are uniform (the spec rounds lo_quantity < 25 to 1/2).
var ssbQueries = []ssbQuery{
	{"Q1.1", "sum(lo_extendedprice * lo_discount) AS revenue",
		ssbLO + " AND d_year = 1993 AND lo_discount BETWEEN 1 AND 3 AND lo_quantity < 25", "",
		[]string{"ssb_lineorder", "ssb_date"}, 1.0 / 7 * 0.5 * 3 / 11, "(1/7) × (1/2) × (3/11)"},
	{"Q1.2", "sum(lo_extendedprice * lo_discount) AS revenue",
		ssbLO + " AND d_yearmonthnum = 199401 AND lo_discount BETWEEN 4 AND 6 AND lo_quantity BETWEEN 26 AND 35", "",
		[]string{"ssb_lineorder", "ssb_date"}, 1.0 / 84 * 3 / 11 * 0.2, "(1/84) × (3/11) × (1/5)"},
	{"Q1.3", "sum(lo_extendedprice * lo_discount) AS revenue",
		ssbLO + " AND d_weeknuminyear = 6 AND d_year = 1994 AND lo_discount BETWEEN 5 AND 7 AND lo_quantity BETWEEN 36 AND 40", "",
		[]string{"ssb_lineorder", "ssb_date"}, 1.0 / 364 * 3 / 11 * 0.1, "(1/364) × (3/11) × (1/10)"},
	{"Q2.1", "sum(lo_revenue), d_year, p_brand1",
		ssbLO + " AND lo_partkey = p_partkey AND lo_suppkey = s_suppkey AND p_category = 'MFGR#12' AND s_region = 'AMERICA'",
		"GROUP BY d_year, p_brand1 ORDER BY d_year, p_brand1",
		[]string{"ssb_lineorder", "ssb_date", "ssb_part", "ssb_supplier"}, 1.0 / 25 / 5, "(1/25) × (1/5)"},
	{"Q2.2", "sum(lo_revenue), d_year, p_brand1",
		ssbLO + " AND lo_partkey = p_partkey AND lo_suppkey = s_suppkey AND p_brand1 BETWEEN 'MFGR#2221' AND 'MFGR#2228' AND s_region = 'ASIA'",
		"GROUP BY d_year, p_brand1 ORDER BY d_year, p_brand1",
		[]string{"ssb_lineorder", "ssb_date", "ssb_part", "ssb_supplier"}, 1.0 / 125 / 5, "(1/125) × (1/5)"},
	{"Q2.3", "sum(lo_revenue), d_year, p_brand1",
		ssbLO + " AND lo_partkey = p_partkey AND lo_suppkey = s_suppkey AND p_brand1 = 'MFGR#2221' AND s_region = 'EUROPE'",
		"GROUP BY d_year, p_brand1 ORDER BY d_year, p_brand1",
		[]string{"ssb_lineorder", "ssb_date", "ssb_part", "ssb_supplier"}, 1.0 / 1000 / 5, "(1/1000) × (1/5)"},
	{"Q3.1", "c_nation, s_nation, d_year, sum(lo_revenue) AS revenue",
		"lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND " + ssbLO +
			" AND c_region = 'ASIA' AND s_region = 'ASIA' AND d_year >= 1992 AND d_year <= 1997",
		"GROUP BY c_nation, s_nation, d_year ORDER BY d_year ASC, revenue DESC",
		[]string{"ssb_customer", "ssb_lineorder", "ssb_supplier", "ssb_date"}, 1.0 / 5 / 5 * 6 / 7, "(1/5) × (1/5) × (6/7)"},
	{"Q3.2", "c_city, s_city, d_year, sum(lo_revenue) AS revenue",
		"lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND " + ssbLO +
			" AND c_nation = 'UNITED STATES' AND s_nation = 'UNITED STATES' AND d_year >= 1992 AND d_year <= 1997",
		"GROUP BY c_city, s_city, d_year ORDER BY d_year ASC, revenue DESC",
		[]string{"ssb_customer", "ssb_lineorder", "ssb_supplier", "ssb_date"}, 1.0 / 25 / 25 * 6 / 7, "(1/25) × (1/25) × (6/7)"},
	{"Q3.3", "c_city, s_city, d_year, sum(lo_revenue) AS revenue",
		"lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND " + ssbLO +
			" AND (c_city = 'UNITED KI1' OR c_city = 'UNITED KI5') AND (s_city = 'UNITED KI1' OR s_city = 'UNITED KI5')" +
			" AND d_year >= 1992 AND d_year <= 1997",
		"GROUP BY c_city, s_city, d_year ORDER BY d_year ASC, revenue DESC",
		[]string{"ssb_customer", "ssb_lineorder", "ssb_supplier", "ssb_date"}, 1.0 / 125 / 125 * 6 / 7, "(1/125) × (1/125) × (6/7)"},
	{"Q3.4", "c_city, s_city, d_year, sum(lo_revenue) AS revenue",
		"lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND " + ssbLO +
			" AND (c_city = 'UNITED KI1' OR c_city = 'UNITED KI5') AND (s_city = 'UNITED KI1' OR s_city = 'UNITED KI5')" +
			" AND d_yearmonth = 'Dec1997'",
		"GROUP BY c_city, s_city, d_year ORDER BY d_year ASC, revenue DESC",
		[]string{"ssb_customer", "ssb_lineorder", "ssb_supplier", "ssb_date"}, 1.0 / 125 / 125 / 84, "(1/125) × (1/125) × (1/84)"},
	{"Q4.1", "d_year, c_nation, sum(lo_revenue - lo_supplycost) AS profit",
		"lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND lo_partkey = p_partkey AND " + ssbLO +
			" AND c_region = 'AMERICA' AND s_region = 'AMERICA' AND (p_mfgr = 'MFGR#1' OR p_mfgr = 'MFGR#2')",
		"GROUP BY d_year, c_nation ORDER BY d_year, c_nation",
		[]string{"ssb_date", "ssb_customer", "ssb_supplier", "ssb_part", "ssb_lineorder"}, 1.0 / 5 / 5 * 2 / 5, "(1/5) × (1/5) × (2/5)"},
	{"Q4.2", "d_year, s_nation, p_category, sum(lo_revenue - lo_supplycost) AS profit",
		"lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND lo_partkey = p_partkey AND " + ssbLO +
			" AND c_region = 'AMERICA' AND s_region = 'AMERICA' AND (d_year = 1997 OR d_year = 1998) AND (p_mfgr = 'MFGR#1' OR p_mfgr = 'MFGR#2')",
		"GROUP BY d_year, s_nation, p_category ORDER BY d_year, s_nation, p_category",
		[]string{"ssb_date", "ssb_customer", "ssb_supplier", "ssb_part", "ssb_lineorder"}, 1.0 / 5 / 5 * 2 / 7 * 2 / 5, "(1/5) × (1/5) × (2/7) × (2/5)"},
	{"Q4.3", "d_year, s_city, p_brand1, sum(lo_revenue - lo_supplycost) AS profit",
		"lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND lo_partkey = p_partkey AND " + ssbLO +
			" AND c_region = 'AMERICA' AND s_nation = 'UNITED STATES' AND (d_year = 1997 OR d_year = 1998) AND p_category = 'MFGR#14'",
		"GROUP BY d_year, s_city, p_brand1 ORDER BY d_year, s_city, p_brand1",
		[]string{"ssb_date", "ssb_customer", "ssb_supplier", "ssb_part", "ssb_lineorder"}, 1.0 / 5 / 25 * 2 / 7 / 25, "(1/5) × (1/25) × (2/7) × (1/25)"},
}

func (q ssbQuery) from() string { return "FROM " + strings.Join(q.tables, ", ") + " WHERE " + q.where }

// countSQL counts the lineorder rows that pass the query's joins and
// predicates (every join is lineorder's foreign key, so one per row).
func (q ssbQuery) countSQL() string { return "SELECT count(*) " + q.from() }

func (q ssbQuery) query() Query {
	sql := "SELECT " + q.selectList + " " + q.from()
	if q.tail != "" {
		sql += " " + q.tail
	}
	return Query{Name: q.name, Group: ssbGroup, SQL: sql, SpecFF: q.ff,
		Description: fmt.Sprintf("SSB %s, %d tables, filter factor %s = %.2g", q.name, len(q.tables), q.ffText, q.ff)}
}

// SSBQueries are SSB's 13 queries, run once over the ssb_* tables.
var SSBQueries = func() []Query {
	out := make([]Query, len(ssbQueries))
	for i, q := range ssbQueries {
		out[i] = q.query()
	}
	return out
}()
