package jpatest

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"sort"

	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// Group is one group's key and aggregates, as the reference computes them
// and as Decode reads them from the device's entries.
type Group struct {
	A      int32
	P      int64 // p_last; 0 when PNull
	PNull  bool
	Count  uint64
	SumA   string // decimal, to compare int128 sums
	SumDbl string
	NDbl   uint64
	MinP0  int64
	NMinP0 uint64
	CountP uint64 // COUNT(p_last) FILTER (p_last > FilterMin)
	MaxP   int64
	NMaxP  uint64
}

// Key is the group's key as a map key.
func (g Group) Key() string { return fmt.Sprintf("%d/%d/%v", g.A, g.P, g.PNull) }

// Reference is what the device must end with over the star: the groups
// of the combinations of every row that is not RECHECK, and the RECHECK
// rows' items (sorted).  A row whose key matches no inner row at some
// INNER or SEMI depth has no combination and is never RECHECK (the kernel
// drops it before any combination's stage).  Another row is RECHECK when
// p_0 + p_0 overflows where the kernel evaluates it: with any residual
// qual, at every depth-0 match of the row (that stage is evaluated as
// depth 0's choice is made, before its qual); without, in the row's
// combinations.
func (s *Star) Reference() (map[string]Group, []uint32) {
	groups := map[string]*acc{}
	var recheck []uint32
	anyQual := false
	for _, q := range s.Quals {
		anyQual = anyQual || q
	}
	for _, o := range s.Outer {
		if o.A <= s.QualMin {
			continue
		}
		if s.noCombination(o) {
			continue
		}
		combos := s.combinations(o, 0, nil)
		bad := false
		if anyQual && s.hasCol(0) {
			for _, r := range s.matches(o, 0) {
				bad = bad || s.overflows(0, r)
			}
		} else if s.hasCol(0) {
			for _, c := range combos {
				bad = bad || s.overflows(0, c[0])
			}
		}
		if bad {
			recheck = append(recheck, o.Item)
			continue
		}
		for _, c := range combos {
			s.fold(groups, o, c)
		}
	}
	out := map[string]Group{}
	for k, a := range groups {
		out[k] = a.group()
	}
	sort.Slice(recheck, func(i, j int) bool { return recheck[i] < recheck[j] })
	return out, recheck
}

// NCombinations is the number of join combinations of the outer row of
// item (0 when the outer qual drops it).
func (s *Star) NCombinations(item uint32) int {
	for _, o := range s.Outer {
		if o.Item == item && o.A > s.QualMin {
			return len(s.combinations(o, 0, nil))
		}
	}
	return 0
}

// noCombination: at an INNER or SEMI depth the row's key (NULL matches
// nothing) equals no inner row's, whatever the residual quals say.
func (s *Star) noCombination(o Outer) bool {
	for d, t := range s.Types {
		if (t == xpu.JoinInner || t == xpu.JoinSemi) && len(s.matches(o, d)) == 0 {
			return true
		}
	}
	return false
}

func (s *Star) overflows(d int, r uint32) bool {
	if r == xpu.JoinNoInner {
		return false
	}
	p := s.Inners[d][r].Pay
	return p != nil && (*p > math.MaxInt64/2 || *p < math.MinInt64/2)
}

// matches is depth d's inner rows whose key equals the row's (NULL
// matches nothing).
func (s *Star) matches(o Outer, d int) []uint32 {
	var m []uint32
	if o.K[d] == nil {
		return nil
	}
	for r, in := range s.Inners[d] {
		if in.Key != nil && *in.Key == int64(*o.K[d]) {
			m = append(m, uint32(r))
		}
	}
	return m
}

// passes: depth d's residual qual p_d <> QualValue is true for row r
// (NULL is not true).
func (s *Star) passes(d int, r uint32) bool {
	if s.Quals == nil || !s.Quals[d] {
		return true
	}
	p := s.Inners[d][r].Pay
	return p != nil && *p != QualValue
}

// combinations is the row's combinations from depth d on, each the inner
// row (or NoInner) of every depth, by PostgreSQL's join semantics.
func (s *Star) combinations(o Outer, d int, prefix []uint32) [][]uint32 {
	if d == len(s.Types) {
		return [][]uint32{append([]uint32(nil), prefix...)}
	}
	m := s.matches(o, d)
	var choices []uint32
	switch s.Types[d] {
	case xpu.JoinInner, xpu.JoinLeft:
		for _, r := range m {
			if s.passes(d, r) {
				choices = append(choices, r)
			}
		}
		if len(choices) == 0 && s.Types[d] == xpu.JoinLeft {
			choices = []uint32{xpu.JoinNoInner}
		}
	case xpu.JoinSemi:
		if len(m) > 0 {
			choices = []uint32{xpu.JoinNoInner}
		}
	case xpu.JoinAnti:
		if len(m) == 0 {
			choices = []uint32{xpu.JoinNoInner}
		}
	}
	var out [][]uint32
	for _, c := range choices {
		out = append(out, s.combinations(o, d+1, append(prefix, c))...)
	}
	return out
}

// pay is depth d's payload in combination c; nil where NULL-extended.
func (s *Star) pay(c []uint32, d int) *int64 {
	if c[d] == xpu.JoinNoInner {
		return nil
	}
	return s.Inners[d][c[d]].Pay
}

type acc struct {
	g            Group
	sumA, sumDbl big.Int
}

func (a *acc) group() Group {
	g := a.g
	g.SumA, g.SumDbl = a.sumA.String(), a.sumDbl.String()
	return g
}

func (s *Star) fold(groups map[string]*acc, o Outer, c []uint32) {
	g := Group{A: o.A, PNull: true, MinP0: math.MaxInt64, MaxP: math.MinInt64}
	last := s.last()
	var pl *int64
	if last >= 0 {
		if pl = s.pay(c, last); pl != nil {
			g.P, g.PNull = *pl, false
		}
	} else {
		g.PNull = false // no p_last key: the key is a alone
	}
	a := groups[g.Key()]
	if a == nil {
		a = &acc{g: g}
		groups[g.Key()] = a
	}
	a.g.Count++
	a.sumA.Add(&a.sumA, big.NewInt(int64(o.A)))
	if s.hasCol(0) {
		if p0 := s.pay(c, 0); p0 != nil {
			a.sumDbl.Add(&a.sumDbl, big.NewInt(2**p0))
			a.g.NDbl++
			a.g.MinP0 = min(a.g.MinP0, *p0)
			a.g.NMinP0++
		}
	}
	if pl != nil {
		if *pl > FilterMin {
			a.g.CountP++
		}
		a.g.MaxP = max(a.g.MaxP, *pl)
		a.g.NMaxP++
	}
}

// Decode reads the groups of the star's program from the VALID entries
// of entrySize bytes (as Final returns them), skipping empty ones (a
// group that only a RECHECK row's combination created: it holds nothing).
func (s *Star) Decode(entries []byte, entrySize uint32) (map[string]Group, error) {
	le := binary.LittleEndian
	out := map[string]Group{}
	last := s.last()
	for off := 0; off+int(entrySize) <= len(entries); off += int(entrySize) {
		e := entries[off : off+int(entrySize)]
		// slots in the order Program adds them, 16 bytes apart from the header
		at := xpu.PreAggEntryHeader
		slot := func(n int) []byte { b := e[at : at+n]; at += (n + 15) / 16 * 16; return b }
		g := Group{MinP0: math.MaxInt64, MaxP: math.MinInt64}
		ka := slot(16)
		g.A = int32(le.Uint64(ka[8:]))
		if last >= 0 {
			kp := slot(16)
			g.PNull = kp[0] != 0
			if !g.PNull {
				g.P = int64(le.Uint64(kp[8:]))
			}
		}
		g.Count = le.Uint64(slot(8))
		sa := slot(32)
		g.SumA = int128(sa[16:]).String()
		g.SumDbl = "0"
		if s.hasCol(0) {
			sd := slot(32)
			g.NDbl, g.SumDbl = le.Uint64(sd), int128(sd[16:]).String()
			mn := slot(24)
			g.NMinP0 = le.Uint64(mn)
			if g.NMinP0 > 0 {
				g.MinP0 = int64(le.Uint64(mn[8:]))
			}
		}
		if last >= 0 {
			g.CountP = le.Uint64(slot(8))
			mx := slot(24)
			g.NMaxP = le.Uint64(mx)
			if g.NMaxP > 0 {
				g.MaxP = int64(le.Uint64(mx[8:]))
			}
		}
		if g.Count == 0 {
			continue
		}
		if _, dup := out[g.Key()]; dup {
			return nil, fmt.Errorf("group %s twice", g.Key())
		}
		out[g.Key()] = g
	}
	return out, nil
}

// int128 is the (lo, hi) pair of an int128 sum.
func int128(b []byte) *big.Int {
	le := binary.LittleEndian
	hi := big.NewInt(int64(le.Uint64(b[8:])))
	v := new(big.Int).Lsh(hi, 64)
	return v.Add(v, new(big.Int).SetUint64(le.Uint64(b)))
}

// Compare reports the first difference between the device's groups and
// the reference's.
func Compare(got, want map[string]Group) error {
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			return fmt.Errorf("group %s missing (want %+v)", k, w)
		}
		if g != w {
			return fmt.Errorf("group %s: got %+v, want %+v", k, g, w)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			return fmt.Errorf("extra group %s: %+v", k, g)
		}
	}
	return nil
}
