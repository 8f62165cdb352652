package xpu_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/kinds"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// fusedProgram: outer (a int4, k int4), qual a > 0 at the root; depth 0
// INNER on k = an int8 slot with an int8 payload column and the residual
// qual p <> 3; GROUP BY p: COUNT(*), SUM(p) FILTER (p <> 3).
func fusedProgram() (*xputest.Builder, int, int) {
	b := xputest.New()
	b.Attr(4, 4, true, xpu.TypeInt4)
	b.Attr(4, 4, true, xpu.TypeInt4)
	a := b.Var(0, xpu.TypeInt4)
	k := b.Var(1, xpu.TypeInt4)
	b.Root = b.Op(xpu.OpGt, xpu.TypeBool, a, b.ConstInt4(0))
	b.JoinDepth(xpu.JoinInner, 32)
	b.JoinKey(k, xpu.TypeInt8, 0, 16)
	p := b.InnerVar(b.JoinCol(0, xpu.TypeInt8, 16, 16))
	q := b.Op(xpu.OpNe, xpu.TypeBool, p, b.ConstInt8(3))
	b.JoinQual(0, q)
	b.GroupBy(p, 0)
	b.Aggregate(xpu.AggCount, -1, -1)
	b.Aggregate(xpu.AggSumInt, p, q)
	return b, p, q
}

func TestParseJoinPreAggAccepts(t *testing.T) {
	b, p, q := fusedProgram()
	msg := b.Message(1)
	prog, _, err := kinds.All().ParseSession(msg)
	if err != nil {
		t.Fatal(err)
	}
	j, pa, err := xpu.ParseJoinPreAgg(msg, prog)
	if err != nil {
		t.Fatal(err)
	}
	if prog.Root != 3 || len(prog.Nodes) != 7 || prog.Nodes[p].Opcode != xpu.OpInnerVar || prog.Nodes[p].Opcode.String() != "INNER_VAR" {
		t.Fatalf("program root %d of %d nodes", prog.Root, len(prog.Nodes))
	}
	if len(j.Cols) != 1 || j.Cols[0] != (xpu.JoinCol{Depth: 0, InnerXType: xpu.TypeInt8, Offset: 16, Width: 16}) ||
		len(j.Quals) != 1 || j.Quals[0] != int32(q) {
		t.Fatalf("join %+v", j)
	}
	if pa.Keys[0].Node != int32(p) || pa.Aggs[1].Filter != int32(q) {
		t.Fatalf("preagg %+v", pa)
	}
}

// A GpuJoin session with a residual qual: its nodes after the root are an
// inner stage, as in the fused session, without the GpuPreAgg.
func TestParseJoinAcceptsResidualQuals(t *testing.T) {
	b, p, q := fusedProgram()
	b.PreAgg = nil
	b.Kind = xpu.KindGpuJoin
	msg := b.Message(1)
	prog, _, err := kinds.All().ParseSession(msg)
	if err != nil {
		t.Fatal(err)
	}
	j, err := xpu.ParseJoin(msg, prog)
	if err != nil {
		t.Fatal(err)
	}
	if prog.Root != 3 || prog.Nodes[p].Opcode != xpu.OpInnerVar || len(j.Quals) != 1 || j.Quals[0] != int32(q) {
		t.Fatalf("program root %d, node %d %s, quals %v", prog.Root, p, prog.Nodes[p].Opcode, j.Quals)
	}
}

func TestParseJoinPreAggRejects(t *testing.T) {
	build := func(mut func(b *xputest.Builder)) []byte {
		b, _, _ := fusedProgram()
		mut(b)
		return b.Message(1)
	}
	cases := []struct {
		name, substr string
		msg          []byte
	}{
		{"inner var in GpuJoin", "unknown opcode 64", build(func(b *xputest.Builder) {
			b.PreAgg = nil
			b.Kind = xpu.KindGpuJoin
			b.Join.Quals = nil
			b.Join.Cols = nil
			b.Root = -1
		})},
		{"inner var in GpuPreAgg", "unknown opcode 64", build(func(b *xputest.Builder) { b.Join = nil; b.Kind = xpu.KindGpuPreAgg; b.Root = -1 })},
		{"inner var at the root", "at or before the root", build(func(b *xputest.Builder) { b.Root = 6 })},
		{"no preagg", "preagg_offset is 0", build(func(b *xputest.Builder) { b.PreAgg = nil })},
		{"var after the root", "a VAR after the root", build(func(b *xputest.Builder) { b.Nodes[5] = b.Nodes[0]; b.Args[3] = 4 })},
		{"column of another type", "result type INT8 but payload column 0 is INT4", build(func(b *xputest.Builder) { b.Join.Cols[0].InnerXType = xpu.TypeInt4 })},
		{"no such column", "payload column 1 of 1", build(func(b *xputest.Builder) { b.Nodes[4].Aux = 1 })},
		{"column at a SEMI depth", "SEMI join, which has no matched row", build(func(b *xputest.Builder) {
			b.Join.Depths[0].Type = xpu.JoinSemi
			b.Join.Quals = nil
		})},
		{"column over the key", "overlaps", build(func(b *xputest.Builder) { b.Join.Cols[0].Offset = 0 })},
		{"column past the row", "runs past the 32-byte inner row", build(func(b *xputest.Builder) { b.Join.Cols[0].Offset = 32 })},
		{"column width", "width 32 is not a valid INT8 slot", build(func(b *xputest.Builder) { b.Join.Cols[0].Width = 32 })},
		{"too many columns", "33 payload columns", build(func(b *xputest.Builder) {
			for len(b.Join.Cols) < 33 {
				b.Join.Cols = append(b.Join.Cols, b.Join.Cols[0])
			}
		})},
		{"qual is the root", "must be a node after the root", build(func(b *xputest.Builder) { b.Join.Quals[0] = 3 })},
		{"qual not BOOL", "returns INT8, must return BOOL", build(func(b *xputest.Builder) { b.Join.Quals[0] = 4 })},
		{"qual past the nodes", "must be a node after the root", build(func(b *xputest.Builder) { b.Join.Quals[0] = 7 })},
		{"group key is the root", "other than the root", build(func(b *xputest.Builder) { b.PreAgg.Keys[0].Node = 3; b.PreAgg.Keys[0].XType = xpu.TypeBool })},
		{"qual past a GpuJoin's nodes", "the residual qual is node 6, must be a node after the root (4..3)", build(func(b *xputest.Builder) {
			b.PreAgg = nil
			b.Kind = xpu.KindGpuJoin
			b.Nodes = b.Nodes[:4]
			b.Join.Cols = nil
		})},
	}
	for _, c := range cases {
		_, _, err := kinds.All().ParseSession(c.msg)
		if err == nil || !errors.Is(err, protocol.ErrProtocol) || !strings.Contains(err.Error(), c.substr) {
			t.Errorf("%s: err = %v, want a protocol error containing %q", c.name, err, c.substr)
		}
	}
}
