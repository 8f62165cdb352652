package xpu_test

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// FuzzParseSession: no input may panic, every rejection is a protocol
// error, and an accepted program satisfies what the kernel relies on.  A
// TaskExec message goes to the chunk parser instead (zero-copy refs too).
func FuzzParseSession(f *testing.F) {
	good, l := scanProgram().MessageLayout(1)
	f.Add(good)
	f.Add(everyOpcode().Message(2))
	f.Add(good[:len(good)-3])
	f.Add(xputest.PutU32(good, xpu.OffSessNodesOffset, uint32(len(good)-4)))
	f.Add(xputest.PutU32(good, xpu.OffSessConstsOffset, uint32(l.ConstsOffset+1)))
	f.Add(xputest.PutU32(good, xpu.OffSessNArgs, 1<<31))
	// GpuPreAgg sessions: the descriptor and its arrays follow the pool,
	// so mutations of the tail reach keys, aggregates and slot offsets.
	pa, pl := preaggProgram().MessageLayout(3)
	f.Add(pa)
	f.Add(xputest.PutU32(pa, pl.PreAggOffset+xpu.OffDescEntrySize, 32))
	f.Add(xputest.PutU32(pa, pl.KeysOffset+xpu.OffKeyWidth, 8))
	f.Add(xputest.PutU32(pa, pl.AggsOffset+xpu.OffAggOffset, 16))
	f.Add(xputest.PutU32(pa, pl.AggsOffset+xpu.OffAggArg, 7))
	f.Add(xputest.PutU32(pa, pl.PreAggOffset+xpu.OffDescKeysOffset, uint32(pl.AggsOffset)))
	f.Add(xputest.PutU32(good, xpu.OffSessKind, xpu.KindGpuPreAgg))
	// GpuJoin sessions: the descriptor, depths and keys follow the pool.
	jm, jl := xputest.JoinProgram(4, 0, xpu.JoinLeft, true).MessageLayout(4)
	f.Add(jm)
	f.Add(xputest.PutU32(jm, jl.JoinDepthsOffset+xpu.OffJDepthRowSize, 32))
	f.Add(xputest.PutU32(jm, jl.JoinKeysOffset+xpu.JoinKeySize+xpu.OffJKeyOffset, 0))
	// fused GpuJoin + GpuPreAgg sessions: INNER_VARs, payload columns,
	// residual quals, keys and aggregates after the root
	fb, _, _ := fusedProgram()
	fm, fl := fb.MessageLayout(5)
	f.Add(fm)
	f.Add(xputest.PutU32(fm, fl.JoinColsOffset+xpu.OffJColOffset, 0))
	f.Add(xputest.PutU32(fm, fl.JoinQualsOffset, 5))
	f.Add(xputest.PutU32(fm, xpu.OffSessRoot, 6))
	// TaskExec chunks: inline, and zero-copy refs into shared buffers.
	f.Add(xputest.ChunkMessage(1, 2, make([]byte, xpu.BlockSize)))
	shared := xputest.SharedChunkMessage(1, 3, []xputest.PageRef{xputest.AllVisibleRef(1, 7), xputest.VisibleRef(fuzzNBuffers-1, 291, 1, 291)})
	f.Add(shared)
	f.Add(shared[:len(shared)-1])
	f.Add(xputest.PutU32(shared, xpu.OffChunkNBlocks, 3))
	f.Add(xputest.PutU32(shared, xputest.ChunkPagesOffset+xpu.OffRefBuffer, fuzzNBuffers))
	f.Add(xputest.PutU32(shared, xputest.ChunkPagesOffset+xpu.OffRefNLines, 292|0x10000))
	// direct-read chunks: a file locator and block numbers
	direct := xputest.DirectChunkMessage(1, 4, xpu.DirectFile{Spc: 16400, DB: 5, RelNode: 16384, SegBlocks: 131072,
		RelNBlocks: 300000, PgMajor: 15, Catversion: 202209061}, []uint32{0, 131072, 299999})
	f.Add(direct)
	f.Add(direct[:len(direct)-4])
	f.Add(xputest.PutU32(direct, xpu.DirectFileOffset+16, 0))
	f.Fuzz(func(t *testing.T, msg []byte) {
		if h, err := protocol.DecodeHeader(msg); err == nil && h.Tag == protocol.TagTaskExec {
			fuzzChunk(t, msg)
			return
		}
		p, err := parseSession(msg)
		if err != nil {
			if !errors.Is(err, protocol.ErrProtocol) || p != nil {
				t.Fatalf("rejection %v (program %v) is not a protocol error", err, p)
			}
			return
		}
		if p.Kind != xpu.KindGpuScan && p.Kind != xpu.KindGpuPreAgg && p.Kind != xpu.KindGpuJoin && p.Kind != xpu.KindGpuJoinPreAgg {
			t.Fatalf("accepted kind %d", p.Kind)
		}
		checkAccepted(t, p.Program, p.Join)
		checkAcceptedPreAgg(t, p)
		checkAcceptedJoin(t, p)
	})
}

// checkAccepted: what the interpreter relies on in an accepted program;
// j is a fused session's join (nil otherwise), whose payload columns its
// INNER_VARs (after the root, and only there) read.
func checkAccepted(t *testing.T, p *xpu.Program, j *xpu.Join) {
	n := len(p.Nodes)
	fused := p.Kind == xpu.KindGpuJoinPreAgg
	if n == 0 || n > xpu.MaxSlots || p.Root > n-1 || !fused && p.Root != n-1 || p.Nodes[p.Root].Restype != xpu.TypeBool {
		t.Fatalf("accepted %d nodes with root %d", n, p.Root)
	}
	for i, nd := range p.Nodes {
		if nd.Opcode == xpu.OpInnerVar {
			if !fused || i <= p.Root || len(nd.Args) != 0 || nd.Aux < 0 || int(nd.Aux) >= len(j.Cols) || j.Cols[nd.Aux].InnerXType != nd.Restype {
				t.Fatalf("node %d: INNER_VAR %+v accepted", i, nd)
			}
			continue
		}
		if nd.Opcode == xpu.OpVar && i > p.Root {
			t.Fatalf("node %d: a VAR after the root accepted", i)
		}
		if !nd.Opcode.Valid() || !nd.Restype.Valid() {
			t.Fatalf("node %d: opcode %d type %d", i, nd.Opcode, nd.Restype)
		}
		for _, a := range nd.Args {
			if a < 0 || int(a) >= i {
				t.Fatalf("node %d has argument %d", i, a)
			}
		}
		switch {
		case nd.Opcode == xpu.OpVar && (nd.Aux < 0 || int(nd.Aux) >= len(p.Attrs) || p.Attrs[nd.Aux].XType != nd.Restype):
			t.Fatalf("node %d: VAR of attribute %d", i, nd.Aux)
		case nd.Opcode == xpu.OpConst && nd.Flags&xpu.FlagConstNull == 0 &&
			(nd.Aux < 0 || nd.Aux%16 != 0 || int(nd.Aux) >= len(p.Consts)):
			t.Fatalf("node %d: CONST at %d of a %d-byte pool", i, nd.Aux, len(p.Consts))
		}
	}
}

// checkAcceptedPreAgg: what the GpuPreAgg kernel relies on in an accepted
// descriptor.
func checkAcceptedPreAgg(t *testing.T, p *parsedSession) {
	pa := p.PreAgg
	if (p.Kind == xpu.KindGpuPreAgg || p.Kind == xpu.KindGpuJoinPreAgg) != (pa != nil) {
		t.Fatalf("kind %d with preagg %v", p.Kind, pa)
	}
	if pa == nil {
		return
	}
	if pa.EntrySize%16 != 0 || pa.EntrySize < 16 || int(pa.EntrySize) > xpu.PreAggMaxEntry ||
		len(pa.Keys) > xpu.PreAggMaxKeys || len(pa.Aggs) > xpu.PreAggMaxAggs {
		t.Fatalf("accepted entry size %d with %d keys %d aggs", pa.EntrySize, len(pa.Keys), len(pa.Aggs))
	}
	used := make([]bool, pa.EntrySize)
	claim := func(what string, off, n uint32) {
		if off%16 != 0 || off < 16 || uint64(off)+uint64(n) > uint64(pa.EntrySize) {
			t.Fatalf("%s at [%d, +%d) in a %d-byte entry", what, off, n, pa.EntrySize)
		}
		for i := off; i < off+n; i++ {
			if used[i] {
				t.Fatalf("%s at [%d, +%d) overlaps another slot", what, off, n)
			}
			used[i] = true
		}
	}
	// a fused session's nodes after the root are evaluated per combination
	last := p.Root - 1
	if p.Kind == xpu.KindGpuJoinPreAgg {
		last = len(p.Nodes) - 1
	}
	node := func(what string, n int32) xpu.Node {
		if n < 0 || int(n) > last || int(n) == p.Root {
			t.Fatalf("%s is node %d, root %d", what, n, p.Root)
		}
		return p.Nodes[n]
	}
	for _, k := range pa.Keys {
		if node("key", k.Node).Restype != k.XType {
			t.Fatalf("key %+v type", k)
		}
		claim("key", k.Offset, k.Width)
	}
	for _, a := range pa.Aggs {
		if !a.Kind.Valid() || (a.Arg == -1) != (a.ArgType == xpu.TypeInvalid) || (a.Arg == -1 && a.Kind != xpu.AggCount) {
			t.Fatalf("aggregate %+v", a)
		}
		if a.Arg != -1 && node("argument", a.Arg).Restype != a.ArgType {
			t.Fatalf("aggregate %+v argument type", a)
		}
		if a.Filter != -1 && node("filter", a.Filter).Restype != xpu.TypeBool {
			t.Fatalf("aggregate %+v filter", a)
		}
		claim("aggregate", a.Offset, uint32(a.Kind.Bytes()))
	}
}

// fuzzNBuffers is the shared buffer count the fuzzed refs are checked against.
const fuzzNBuffers = 64

// fuzzChunk: a TaskExec message is rejected with a protocol error or
// describes exactly the bytes it has; accepted refs are within the limits.
func fuzzChunk(t *testing.T, msg []byte) {
	c, err := xpu.ParseChunk(msg)
	if err != nil {
		if !errors.Is(err, protocol.ErrProtocol) {
			t.Fatalf("chunk rejection %v is not a protocol error", err)
		}
		return
	}
	if c.Direct() {
		fuzzDirect(t, c, msg)
		return
	}
	if !c.Shared() {
		if c.Inline() && len(c.Pages(msg)) != c.PagesLen() {
			t.Fatalf("inline chunk %+v of a %d-byte message", c, len(msg))
		}
		return
	}
	refs := c.Refs(msg)
	if len(refs) != c.RefsLen() || int(c.PagesOffset)+len(refs) != len(msg) {
		t.Fatalf("shared chunk %+v of a %d-byte message", c, len(msg))
	}
	if err := xpu.CheckPageRefs(c, msg, fuzzNBuffers); err != nil {
		if !errors.Is(err, protocol.ErrProtocol) {
			t.Fatalf("ref rejection %v is not a protocol error", err)
		}
		return
	}
	for i := 0; i < len(refs); i += xpu.PageRefSize {
		r := refs[i:]
		if binary.LittleEndian.Uint32(r[xpu.OffRefBuffer:]) >= fuzzNBuffers || int(binary.LittleEndian.Uint16(r[xpu.OffRefNLines:])) > xpu.MaxTuplesPerPage ||
			binary.LittleEndian.Uint16(r[xpu.OffRefFlags:])&^xpu.PageFlagsMask != 0 {
			t.Fatalf("accepted ref % x", r[:xpu.PageRefSize])
		}
	}
}

// checkAcceptedJoin: an accepted GpuJoin session's keys are what the
// kernels index with: nodes before the root of the declared type, slots
// inside their row, types that join.
func checkAcceptedJoin(t *testing.T, p *parsedSession) {
	if (p.Kind == xpu.KindGpuJoin || p.Kind == xpu.KindGpuJoinPreAgg) != (p.Join != nil) {
		t.Fatalf("kind %d with join %v", p.Kind, p.Join)
	}
	if p.Join == nil {
		return
	}
	if p.Kind == xpu.KindGpuJoin && (len(p.Join.Cols) != 0 || p.Join.Quals != nil) {
		t.Fatalf("a GpuJoin session with payload columns or quals accepted: %+v", p.Join)
	}
	for c, col := range p.Join.Cols {
		if col.Depth < 0 || col.Depth >= len(p.Join.Depths) || uint64(col.Offset)+uint64(col.Width) > uint64(p.Join.Depths[col.Depth].RowSize) ||
			p.Join.Depths[col.Depth].Type != xpu.JoinInner && p.Join.Depths[col.Depth].Type != xpu.JoinLeft {
			t.Fatalf("payload column %d accepted as %+v", c, col)
		}
	}
	for d, q := range p.Join.Quals {
		if q != -1 && (int(q) <= p.Root || int(q) >= len(p.Nodes) || p.Nodes[q].Restype != xpu.TypeBool) {
			t.Fatalf("depth %d: residual qual node %d accepted", d, q)
		}
	}
	if n := len(p.Join.Depths); n < 1 || n > xpu.JoinMaxDepths {
		t.Fatalf("accepted %d depths", n)
	}
	for d, jd := range p.Join.Depths {
		if !jd.Type.Valid() || jd.RowSize%16 != 0 || jd.RowSize == 0 || jd.RowSize > uint32(xpu.JoinMaxRow) || len(jd.Keys) == 0 {
			t.Fatalf("depth %d accepted as %+v", d, jd)
		}
		for _, k := range jd.Keys {
			if k.Node < 0 || int(k.Node) >= p.Root || p.Nodes[k.Node].Restype != k.OuterXType ||
				!xpu.JoinTypesJoinable(k.OuterXType, k.InnerXType) || uint64(k.Offset)+uint64(k.Width) > uint64(jd.RowSize) {
				t.Fatalf("depth %d key accepted as %+v", d, k)
			}
		}
	}
}

// fuzzDirect: an accepted direct-read chunk names only blocks below the
// relation's size, and its segment paths stay under base/ or pg_tblspc/.
func fuzzDirect(t *testing.T, c xpu.Chunk, msg []byte) {
	f, blknos, _, err := xpu.ParseDirect(c, msg)
	if err != nil {
		if !errors.Is(err, protocol.ErrProtocol) {
			t.Fatalf("direct rejection %v is not a protocol error", err)
		}
		return
	}
	if len(blknos) != int(c.NBlocks) || f.SegBlocks == 0 || f.RelNode == 0 {
		t.Fatalf("accepted direct chunk %+v with %d blocks", f, len(blknos))
	}
	for _, b := range blknos {
		seg, _ := f.Locate(b)
		path := f.SegmentPath(seg)
		if b >= f.RelNBlocks || strings.Contains(path, "..") ||
			!(strings.HasPrefix(path, "base/") || strings.HasPrefix(path, "pg_tblspc/")) {
			t.Fatalf("accepted block %d of %+v at %s", b, f, path)
		}
	}
}
