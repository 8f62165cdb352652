// Package jointest builds GpuJoin inputs for the tests of the executors:
// outer heap pages of (int4 a, text t) for xputest.JoinProgram, the inner
// rows of its depths, the JOIN_INNER pieces that load them, and the
// records a nested loop over the same values gives.
package jointest

import (
	"fmt"
	"math/rand"
	"slices"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// Outer is one outer row; T nil is NULL.
type Outer struct {
	A    int32
	T    *string
	Item uint32 // set by Pages
}

// Data is a join's input: the outer rows and each depth's inner keys (nil
// is a NULL key).
type Data struct {
	Outer  []Outer
	Inner0 []*int64
	Inner1 []*string
}

func str(s string) *string { return &s }
func i64(v int64) *int64   { return &v }

// Random makes n outer rows and inner sides of n0 and n1 rows over small
// key domains, so that keys repeat on both sides (fan-out) and some match
// nothing; about one key in 10 is NULL.
func Random(rng *rand.Rand, n, n0, n1 int) *Data {
	d := &Data{}
	word := func() *string {
		if rng.Intn(10) == 0 {
			return nil
		}
		return str(fmt.Sprintf("k%d", rng.Intn(12)))
	}
	for i := 0; i < n; i++ {
		d.Outer = append(d.Outer, Outer{A: int32(rng.Intn(40) - 5), T: word()})
	}
	for i := 0; i < n0; i++ {
		if rng.Intn(10) == 0 {
			d.Inner0 = append(d.Inner0, nil)
		} else {
			d.Inner0 = append(d.Inner0, i64(int64(rng.Intn(30))))
		}
	}
	for i := 0; i < n1; i++ {
		d.Inner1 = append(d.Inner1, word())
	}
	return d
}

// Pages forms the outer rows into heap pages (up to perPage a page) and
// sets their items; it returns the pages and their count.
func (d *Data) Pages(perPage int) ([]byte, uint32) {
	cols := []xputest.Column{xputest.ColInt4, xputest.ColText}
	var out []byte
	var nblocks uint32
	for base := 0; base < len(d.Outer); base += perPage {
		p := xputest.NewPage()
		for i := base; i < min(base+perPage, len(d.Outer)); i++ {
			var t any
			if d.Outer[i].T != nil {
				t = *d.Outer[i].T
			}
			lp := p.AddTuple(cols, []any{d.Outer[i].A, t})
			d.Outer[i].Item = nblocks<<xpu.ItemBlockShift | uint32(lp)
		}
		out = append(out, p.Bytes()...)
		nblocks++
	}
	return out, nblocks
}

// Rows0 and Rows1 are the inner rows of JoinProgram's depths.
func (d *Data) Rows0() []byte {
	rows := make([]byte, 16*len(d.Inner0))
	for i, v := range d.Inner0 {
		if v == nil {
			xputest.IntSlot(rows[16*i:], 0, 0, true)
		} else {
			xputest.IntSlot(rows[16*i:], 0, *v, false)
		}
	}
	return rows
}

func (d *Data) Rows1() []byte {
	rows := make([]byte, 64*len(d.Inner1))
	for i, v := range d.Inner1 {
		if v == nil {
			rows[64*i+16] = 1
		} else {
			xputest.TextSlot(rows[64*i:], 16, *v)
		}
	}
	return rows
}

// NestedLoop is the records of JoinProgram(qualMin, t0, twoDepths) over
// d, by docs/internals/join-kernels.md's rules, sorted.
func (d *Data) NestedLoop(qualMin int32, t0 xpu.JoinType, twoDepths bool) [][]uint32 {
	var recs [][]uint32
	for _, o := range d.Outer {
		if o.A <= qualMin {
			continue
		}
		var m0 []uint32
		for r, v := range d.Inner0 {
			if v != nil && *v == int64(o.A) {
				m0 = append(m0, uint32(r))
			}
		}
		var c0 []uint32
		switch {
		case t0 == xpu.JoinInner, t0 == xpu.JoinLeft && len(m0) > 0:
			c0 = m0
		case t0 == xpu.JoinLeft, t0 == xpu.JoinAnti && len(m0) == 0, t0 == xpu.JoinSemi && len(m0) > 0:
			c0 = []uint32{xpu.JoinNoInner}
		}
		for _, r0 := range c0 {
			if !twoDepths {
				recs = append(recs, []uint32{o.Item, r0})
				continue
			}
			var m1 []uint32
			for r, v := range d.Inner1 {
				if v != nil && o.T != nil && *v == *o.T {
					m1 = append(m1, uint32(r))
				}
			}
			if len(m1) == 0 {
				m1 = []uint32{xpu.JoinNoInner} // depth 1 is LEFT
			}
			for _, r1 := range m1 {
				recs = append(recs, []uint32{o.Item, r0, r1})
			}
		}
	}
	SortRecords(recs)
	return recs
}

// Split cuts words into records of stride words, sorted.
func Split(words []uint32, stride int) [][]uint32 {
	var recs [][]uint32
	for i := 0; i+stride <= len(words); i += stride {
		recs = append(recs, slices.Clone(words[i:i+stride]))
	}
	SortRecords(recs)
	return recs
}

// SortRecords sorts records lexicographically.
func SortRecords(recs [][]uint32) { slices.SortFunc(recs, slices.Compare[[]uint32]) }

// Load sends rows (of rowSize bytes) of depth to l in pieces of at most
// pieceRows rows and returns the replies.  It stops at the first error or
// at a reply other than MORE.
func Load(l nodekind.InnerLoader, planID uint64, depth, rowSize uint32, rows []byte, pieceRows int) ([]protocol.JoinInnerReply, error) {
	nrows := len(rows) / int(rowSize)
	var replies []protocol.JoinInnerReply
	for first := 0; first < nrows || first == 0; first += pieceRows {
		n := min(pieceRows, nrows-first)
		r := protocol.JoinInnerRequest{PlanID: planID, Depth: depth, RowSize: rowSize, NRows: uint32(nrows),
			FirstRow: uint32(first), PieceRows: uint32(n), Rows: rows[first*int(rowSize) : (first+n)*int(rowSize)]}
		rep, err := l.LoadInner(r)
		if err != nil {
			return replies, err
		}
		replies = append(replies, rep)
		if rep.State != protocol.JoinInnerMore || nrows == 0 {
			break
		}
	}
	return replies, nil
}
