package main

import "fmt"

// TPC-H's orders and lineitem. A line's values are hashes of its order's
// number n and its line number l, and its dates offsets from the order's
// date, a hash of n: so orders can compute, from n alone, the columns that
// TPC-H derives from its lines (o_orderstatus, o_totalprice), and lineitem,
// from its row number, the order it belongs to.

// tpchLine is one line: n the order's number (1-based), l the line number
// (1..7), both SQL integer expressions.
type tpchLine struct{ n, l string }

// key numbers the lines of all orders apart, for the hashes.
func (x tpchLine) key() string       { return fmt.Sprintf("(%s * 8 + %s)", x.n, x.l) }
func (x tpchLine) h(seed int) string { return hashOf(x.key(), seed) }

// tpchOrderKey is the order key of order n: the first 8 of every 32 keys
// (dbgen's mk_sparse), 1..7, 32..39, 64..71, ...
func tpchOrderKey(n string) string { return fmt.Sprintf("(%s / 8 * 32 + %s %% 8)", n, n) }

func tpchOrderDate(n string) string {
	return fmt.Sprintf("(%s + (%s %% %d)::int4)", tpchStart, hashOf(n, 121), tpchOrderDays)
}

// tpchOrderLines is the number of lines of order n.
func tpchOrderLines(n string) string {
	s := make([]string, len(ssbOrderLines))
	for i, l := range ssbOrderLines {
		s[i] = fmt.Sprint(l)
	}
	return fmt.Sprintf("%s[(%s - 1) %% 7 + 1]", intArray(s), n)
}

func (x tpchLine) partkey(sf float64) string {
	return fmt.Sprintf("(%s %% %d + 1)", x.h(131), tpchParts(sf))
}

func (x tpchLine) suppkey(sf float64) string {
	return tpchPartSupplier(x.partkey(sf), fmt.Sprintf("(%s %% 4)", x.h(132)), tpchSuppliers(sf))
}

func (x tpchLine) quantity() string { return fmt.Sprintf("(%s %% 50 + 1)", x.h(133)) }
func (x tpchLine) discount() string { return fmt.Sprintf("(%s %% 11)", x.h(134)) } // percent
func (x tpchLine) tax() string      { return fmt.Sprintf("(%s %% 9)", x.h(135)) }  // percent

// priceCents is l_extendedprice in cents.
func (x tpchLine) priceCents(sf float64) string {
	return fmt.Sprintf("(%s * %s)", x.quantity(), tpchRetailCents(x.partkey(sf)))
}

// chargeCents is the line's share of o_totalprice, truncated to cents after
// the discount and after the tax, as dbgen sums it.
func (x tpchLine) chargeCents(sf float64) string {
	return fmt.Sprintf("(%s * (100 - %s) / 100 * (100 + %s) / 100)", x.priceCents(sf), x.discount(), x.tax())
}

func (x tpchLine) shipDate() string {
	return fmt.Sprintf("(%s + (1 + %s %% 121)::int4)", tpchOrderDate(x.n), x.h(136))
}

func (x tpchLine) commitDate() string {
	return fmt.Sprintf("(%s + (30 + %s %% 61)::int4)", tpchOrderDate(x.n), x.h(137))
}

func (x tpchLine) receiptDate() string {
	return fmt.Sprintf("(%s + (1 + %s %% 30)::int4)", x.shipDate(), x.h(138))
}

// tpchOverLines aggregates expr over the lines of order i.
func tpchOverLines(expr string) string {
	return fmt.Sprintf("(SELECT %s FROM generate_series(1, %s) AS x(l))", expr, tpchOrderLines("i"))
}

// tpchOrderComment: 1% of the orders (by a hash) hold 'special' ...
// 'requests', the words Q13 leaves out.
func tpchOrderComment() string {
	return fmt.Sprintf("CASE WHEN %s %% 100 = 0 THEN %s ELSE %s END", hashOf("i", 122),
		tpchTextWith("i", 123, 19, 78, "special", "requests"), tpchText("i", 123, 19, 78))
}

// tpchOrdersColumns: row i is order i. o_custkey takes the j-th key that
// is not a multiple of 3, j uniform.
func tpchOrdersColumns(sf float64) []Column {
	x := tpchLine{"i", "x.l"}
	c := tpchCustomers(sf)
	j := fmt.Sprintf("(%s %% %d)", hashOf("i", 124), c-c/3)
	ship := x.shipDate()
	return []Column{
		{"o_orderkey", "int4 NOT NULL", tpchOrderKey("i") + "::int4"},
		{"o_custkey", "int4 NOT NULL", fmt.Sprintf("(%s / 2 * 3 + %s %% 2 + 1)::int4", j, j)},
		{"o_orderstatus", "char(1) NOT NULL", tpchOverLines(fmt.Sprintf(
			"CASE WHEN bool_and(%s > %s) THEN 'O' WHEN bool_or(%s > %s) THEN 'P' ELSE 'F' END",
			ship, tpchCurrentDate, ship, tpchCurrentDate))},
		{"o_totalprice", "numeric(15,2) NOT NULL", tpchOverLines(fmt.Sprintf("sum(%s) * 0.01", x.chargeCents(sf)))},
		{"o_orderdate", "date NOT NULL", tpchOrderDate("i")},
		{"o_orderpriority", "char(15) NOT NULL", pick(ssbPriorities, hashOf("i", 125)+" % 5")},
		{"o_clerk", "char(15) NOT NULL", fmt.Sprintf("'Clerk#' || lpad((%s %% %d + 1)::text, 9, '0')",
			hashOf("i", 126), tpchCount(1000, sf))},
		{"o_shippriority", "int4 NOT NULL", "0"},
		{"o_comment", "varchar(79) NOT NULL", tpchOrderComment()},
	}
}

// tpchLineitemColumns: row i is a line of the 7-order block (i - 1) / 28,
// its order and line number given by its offset in the block (SSB's
// lineorder maps rows to orders the same way).
func tpchLineitemColumns(sf float64) []Column {
	orderOf, lineOf := ssbBlockMaps()
	off := "((i - 1) % 28 + 1)"
	n := fmt.Sprintf("((i - 1) / 28 * 7 + %s[%s] + 1)", intArray(orderOf), off)
	x := tpchLine{n, fmt.Sprintf("%s[%s]", intArray(lineOf), off)}
	return []Column{
		{"l_orderkey", "int4 NOT NULL", tpchOrderKey(n) + "::int4"},
		{"l_partkey", "int4 NOT NULL", x.partkey(sf) + "::int4"},
		{"l_suppkey", "int4 NOT NULL", x.suppkey(sf) + "::int4"},
		{"l_linenumber", "int4 NOT NULL", x.l},
		{"l_quantity", "numeric(15,2) NOT NULL", x.quantity()},
		{"l_extendedprice", "numeric(15,2) NOT NULL", x.priceCents(sf) + " * 0.01"},
		{"l_discount", "numeric(15,2) NOT NULL", x.discount() + " * 0.01"},
		{"l_tax", "numeric(15,2) NOT NULL", x.tax() + " * 0.01"},
		{"l_returnflag", "char(1) NOT NULL", fmt.Sprintf("CASE WHEN %s <= %s THEN (ARRAY['R', 'A'])[%s %% 2 + 1] ELSE 'N' END",
			x.receiptDate(), tpchCurrentDate, x.h(139))},
		{"l_linestatus", "char(1) NOT NULL", fmt.Sprintf("CASE WHEN %s > %s THEN 'O' ELSE 'F' END", x.shipDate(), tpchCurrentDate)},
		{"l_shipdate", "date NOT NULL", x.shipDate()},
		{"l_commitdate", "date NOT NULL", x.commitDate()},
		{"l_receiptdate", "date NOT NULL", x.receiptDate()},
		{"l_shipinstruct", "char(25) NOT NULL", pick(tpchInstructions, x.h(140)+" % 4")},
		{"l_shipmode", "char(10) NOT NULL", pick(ssbShipModes, x.h(141)+" % 7")},
		{"l_comment", "varchar(44) NOT NULL", tpchText(x.key(), 142, 10, 43)},
	}
}
