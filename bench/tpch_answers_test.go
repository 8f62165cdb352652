//go:build benchdb

package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// checkTPCHAnswer checks what can be said of query q's answer without a
// reference answer: its size, the domain of its group keys, the predicates
// its rows must meet. rows are the tables' row counts.
func checkTPCHAnswer(q string, ans []Row, rows map[string]int64) error {
	text := func(v Value) string { return strings.TrimRight(v.S, " ") }
	num := func(v Value) float64 {
		f, err := strconv.ParseFloat(v.S, 64)
		if v.Kind != KindText || err != nil {
			return -1e300
		}
		return f
	}
	allIn := func(col int, set ...string) error {
		for _, r := range ans {
			if !slices.Contains(set, text(r[col])) {
				return fmt.Errorf("column %d: %s, not one of %v", col+1, r[col], set)
			}
		}
		return nil
	}
	size := func(lo, hi int) error {
		if len(ans) < lo || len(ans) > hi {
			return fmt.Errorf("%d rows, want %d..%d", len(ans), lo, hi)
		}
		return nil
	}
	// one row, its first value a number > 0
	positive := func() error {
		if err := size(1, 1); err != nil {
			return err
		}
		if num(ans[0][0]) <= 0 {
			return fmt.Errorf("%s, want a number > 0", ans[0][0])
		}
		return nil
	}
	europe := []string{"FRANCE", "GERMANY", "ROMANIA", "RUSSIA", "UNITED KINGDOM"}
	asia := []string{"INDIA", "INDONESIA", "JAPAN", "CHINA", "VIETNAM"}
	switch q {
	case "Q1":
		var groups []string
		for _, r := range ans {
			groups = append(groups, text(r[0])+text(r[1]))
		}
		if !slices.Equal(groups, []string{"AF", "NF", "NO", "RF"}) {
			return fmt.Errorf("groups %v, want AF NF NO RF", groups)
		}
	case "Q2":
		if err := size(1, 100); err != nil {
			return err
		}
		return allIn(2, europe...)
	case "Q3":
		return size(10, 10)
	case "Q4":
		if err := size(5, 5); err != nil {
			return err
		}
		return allIn(0, ssbPriorities...)
	case "Q5":
		if err := size(1, 5); err != nil {
			return err
		}
		return allIn(0, asia...)
	case "Q6", "Q17", "Q19":
		return positive()
	case "Q7":
		if err := size(1, 4); err != nil {
			return err
		}
		if err := allIn(0, "FRANCE", "GERMANY"); err != nil {
			return err
		}
		return allIn(2, "1995", "1996")
	case "Q8":
		if err := size(1, 2); err != nil {
			return err
		}
		for _, r := range ans {
			if s := num(r[1]); s < 0 || s > 1 {
				return fmt.Errorf("market share %s", r[1])
			}
		}
		return allIn(0, "1995", "1996")
	case "Q9":
		if err := size(1, 25*7); err != nil {
			return err
		}
		return allIn(1, "1992", "1993", "1994", "1995", "1996", "1997", "1998")
	case "Q10":
		return size(20, 20)
	case "Q12":
		if err := size(2, 2); err != nil {
			return err
		}
		return allIn(0, "MAIL", "SHIP")
	case "Q13":
		// every customer is counted once; a third never ordered
		var sum, zero int64
		for _, r := range ans {
			sum += r[1].I
			if r[0].I == 0 {
				zero = r[1].I
			}
		}
		if sum != rows["tpch_customer"] || zero < rows["tpch_customer"]/3 {
			return fmt.Errorf("%d customers, %d with no order; want %d, at least %d", sum, zero, rows["tpch_customer"], rows["tpch_customer"]/3)
		}
	case "Q14":
		// PROMO is 1 of the 6 type syllables: about 16.7% of the revenue
		if err := positive(); err != nil {
			return err
		}
		if p := num(ans[0][0]); p < 5 || p > 35 {
			return fmt.Errorf("promo revenue %g%%, want about 16.7%%", p)
		}
	case "Q18":
		if err := size(1, 100); err != nil {
			return err
		}
		for _, r := range ans {
			if num(r[5]) <= 300 {
				return fmt.Errorf("order %s has quantity %s", r[2], r[5])
			}
		}
	case "Q22":
		if err := size(1, 7); err != nil {
			return err
		}
		return allIn(0, "13", "31", "23", "29", "30", "18", "17")
	default: // Q11, Q15, Q16, Q20, Q21
		return size(1, 100_000)
	}
	return nil
}
