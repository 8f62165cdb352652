package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Plant is the self-test of the result check: -plant-wrong-result=QUERY (or
// QUERY@TABLE) perturbs the GPU mode's result of that query, which must then
// be reported as a FAILURE and make the program exit non-zero.
type Plant struct {
	Query string
	Table string // empty: every table
}

// ParsePlant parses "", "QUERY" or "QUERY@TABLE".
func ParsePlant(s string) (Plant, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Plant{}, nil
	}
	q, t, _ := strings.Cut(s, "@")
	if !slices.Contains(QueryNames(), q) {
		return Plant{}, fmt.Errorf("-plant-wrong-result: unknown query %q (known: %s)", q, strings.Join(QueryNames(), ", "))
	}
	return Plant{Query: q, Table: t}, nil
}

// Active says whether a plant was asked for.
func (p Plant) Active() bool { return p.Query != "" }

// Matches says whether the plant applies to query on table.
func (p Plant) Matches(query, table string) bool {
	return p.Active() && p.Query == query && (p.Table == "" || p.Table == table)
}

// Perturb returns a copy of rows with one value changed (or one row added
// when there are none), so that it no longer agrees with the original.
func Perturb(rows []Row) []Row {
	out := make([]Row, len(rows))
	for i, r := range rows {
		out[i] = slices.Clone(r)
	}
	if len(out) == 0 || len(out[0]) == 0 {
		return append(out, Row{{Kind: KindInt, I: 1}})
	}
	v := &out[0][0]
	switch v.Kind {
	case KindNull:
		*v = Value{Kind: KindInt}
	case KindInt:
		v.I++
	case KindFloat:
		if math.IsNaN(v.F) || math.IsInf(v.F, 0) || v.F == 0 {
			v.F = 1
		} else {
			v.F *= 1 + 1e-6
		}
	default:
		v.S += "~"
	}
	return out
}
