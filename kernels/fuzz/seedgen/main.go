// Command seedgen writes the kernel fuzzers' seed corpora (see
// kernels/fuzz/make_seeds.sh, which runs it): the heap pages and GpuScan
// programs the script took from a real cluster, GpuPreAgg programs over the
// same table's attributes built here, combined into fuzz_kernels inputs
// (flags byte, uint32 session length, session, pages or refs + buffers) and
// into FuzzKernelValidator seeds (Go fuzz corpus files of the sessions).
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

var le = binary.LittleEndian

// Flags of a fuzz_kernels input (kernels/fuzz/fuzz_kernels.cc).
const (
	flagShared     = 0x01
	flagSlotsShift = 1
)

// fzAttrs are the attributes of make_seeds.sh's table fz, in order.
func fzAttrs(b *xputest.Builder) {
	b.Attr(2, 2, true, xpu.TypeInt2)        // a
	b.Attr(4, 4, true, xpu.TypeInt4)        // b
	b.Attr(8, 8, true, xpu.TypeInt8)        // c
	b.Attr(4, 4, true, xpu.TypeFloat4)      // d
	b.Attr(8, 8, true, xpu.TypeFloat8)      // e
	b.Attr(-1, 4, false, xpu.TypeNumeric)   // f
	b.Attr(-1, 4, false, xpu.TypeText)      // g
	b.Attr(-1, 4, false, xpu.TypeVarchar)   // h
	b.Attr(-1, 4, false, xpu.TypeBpchar)    // i
	b.Attr(4, 4, true, xpu.TypeDate)        // j
	b.Attr(8, 8, true, xpu.TypeTimestamp)   // k
	b.Attr(8, 8, true, xpu.TypeTimestampTz) // l
	b.Attr(1, 1, true, xpu.TypeBool)        // m
}

// preaggPrograms are GpuPreAgg sessions over fz: keys of every width class,
// every aggregate kind, FILTERs.
func preaggPrograms() [][]byte {
	var out [][]byte
	{
		b := xputest.New()
		fzAttrs(b)
		a := b.Var(0, xpu.TypeInt2)
		vb := b.Var(1, xpu.TypeInt4)
		vc := b.Var(2, xpu.TypeInt8)
		ve := b.Var(4, xpu.TypeFloat8)
		pos := b.Op(xpu.OpGt, xpu.TypeBool, vb, b.ConstInt4(10))
		b.ConstBool(true)
		b.GroupBy(a, 0)
		b.Aggregate(xpu.AggCount, -1, -1)
		b.Aggregate(xpu.AggSumInt, vc, pos)
		b.Aggregate(xpu.AggSumFP, ve, -1)
		b.Aggregate(xpu.AggMinInt, vb, -1)
		b.Aggregate(xpu.AggMaxFP, ve, -1)
		b.Aggregate(xpu.AggVarFP, ve, pos)
		b.Aggregate(xpu.AggVarInt, vb, -1)
		b.Aggregate(xpu.AggVarInt8, vc, -1)
		out = append(out, b.Message(1))
	}
	{
		b := xputest.New()
		fzAttrs(b)
		g := b.Var(6, xpu.TypeText)
		f := b.Var(5, xpu.TypeNumeric)
		j := b.Var(9, xpu.TypeDate)
		d := b.Var(3, xpu.TypeFloat4)
		nn := b.Op(xpu.OpIsNotNull, xpu.TypeBool, f)
		b.GroupBy(g, 48)
		b.GroupBy(f, 0)
		b.Aggregate(xpu.AggCount, g, -1)
		b.Aggregate(xpu.AggSumInt, f, nn)
		b.Aggregate(xpu.AggMinInt, f, -1)
		b.Aggregate(xpu.AggMaxInt, j, -1)
		b.Aggregate(xpu.AggMinFP, d, -1)
		b.ConstBool(true)
		b.PreAgg.Aggs[1].Param = 3
		b.PreAgg.Aggs[2].Param = 3
		out = append(out, b.Message(2))
	}
	{
		b := xputest.New()
		fzAttrs(b)
		h := b.Var(7, xpu.TypeVarchar)
		i := b.Var(8, xpu.TypeBpchar)
		k := b.Var(10, xpu.TypeTimestamp)
		l := b.Var(11, xpu.TypeTimestampTz)
		m := b.Var(12, xpu.TypeBool)
		b.GroupBy(h, 16)
		b.GroupBy(i, 32)
		b.GroupBy(k, 0)
		b.GroupBy(m, 0)
		b.Aggregate(xpu.AggMaxInt, l, m)
		b.Aggregate(xpu.AggCount, -1, m)
		b.Op(xpu.OpIsNotTrue, xpu.TypeBool, m)
		out = append(out, b.Message(3))
	}
	{
		// no keys: one group
		b := xputest.New()
		fzAttrs(b)
		vb := b.Var(1, xpu.TypeInt4)
		b.Aggregate(xpu.AggCount, -1, -1)
		b.Aggregate(xpu.AggSumInt, vb, -1)
		b.Op(xpu.OpLt, xpu.TypeBool, vb, b.ConstInt4(1000))
		out = append(out, b.Message(4))
	}
	return out
}

// input encodes one fuzz_kernels input.
func input(flags byte, session []byte, rest ...[]byte) []byte {
	b := []byte{flags, 0, 0, 0, 0}
	le.PutUint32(b[1:], uint32(len(session)))
	b = append(b, session...)
	for _, r := range rest {
		b = append(b, r...)
	}
	return b
}

// ref encodes an XpuPageRef.
func ref(r xputest.PageRef) []byte {
	b := make([]byte, xpu.PageRefSize)
	le.PutUint32(b[xpu.OffRefBuffer:], r.Buffer)
	le.PutUint16(b[xpu.OffRefNLines:], r.NLines)
	le.PutUint16(b[xpu.OffRefFlags:], r.Flags)
	for w, v := range r.Visible {
		le.PutUint32(b[xpu.OffRefVisible+4*w:], v)
	}
	return b
}

// nlines is a page's line pointer count (pd_lower).
func nlines(page []byte) int { return (int(le.Uint16(page[12:])) - 24) / 4 }

func readAll(dir, prefix string) [][]byte {
	names, err := filepath.Glob(filepath.Join(dir, prefix+"*"))
	if err != nil {
		log.Fatal(err)
	}
	sort.Strings(names)
	var out [][]byte
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			log.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

func write(dir, name string, b []byte) {
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		log.Fatal(err)
	}
}

func main() {
	raw := flag.String("raw", "", "folder of page<N> and scan<N> files (make_seeds.sh)")
	corpus := flag.String("corpus", "", "fuzz_kernels corpus folder to (re)write")
	gocorpus := flag.String("gocorpus", "", "FuzzKernelValidator corpus folder to (re)write")
	flag.Parse()
	pages := readAll(*raw, "page")
	scans := readAll(*raw, "scan")
	if len(pages) == 0 || len(scans) == 0 {
		log.Fatalf("seedgen: %d pages, %d programs in %s", len(pages), len(scans), *raw)
	}
	preaggs := preaggPrograms()
	for _, d := range []string{*corpus, *gocorpus} {
		if err := os.RemoveAll(d); err != nil {
			log.Fatal(err)
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			log.Fatal(err)
		}
	}

	n := 0
	add := func(kind string, b []byte) {
		write(*corpus, fmt.Sprintf("%02d-%s", n, kind), b)
		n++
	}
	for i, s := range scans {
		add("scan", input(0, s, pages[i%len(pages)]))
	}
	// two pages in one chunk, and a page whose tuples end past the input
	add("scan-2pages", input(0, scans[0], pages[0], pages[len(pages)-1]))
	add("scan-cut", input(0, scans[len(scans)-1], pages[0][:6000]))
	for i, s := range preaggs {
		// tables of 2 << i slots: the small ones fill and grow
		add("preagg", input(byte(i%4)<<flagSlotsShift, s, pages[i%len(pages)]))
	}
	add("preagg-2pages", input(3<<flagSlotsShift, preaggs[0], pages[0], pages[len(pages)-1]))
	// zero-copy: refs (all visible, some visible, past the buffers) + buffers
	p0 := pages[0]
	add("scan-shared", input(flagShared, scans[0], ref(xputest.AllVisibleRef(0, nlines(p0))),
		ref(xputest.VisibleRef(1%uint32(len(pages)), nlines(pages[1%len(pages)]), 1, 2, 5, 9)), pages[0], pages[1%len(pages)]))
	add("preagg-shared", input(flagShared|1<<flagSlotsShift, preaggs[1], ref(xputest.VisibleRef(0, nlines(p0), 1, 3, 4, 7, 8)),
		ref(xputest.AllVisibleRef(7, 5)), p0))

	// FuzzKernelValidator: the sessions themselves
	for i, s := range append(scans, preaggs...) {
		write(*gocorpus, fmt.Sprintf("seed-%02d", i), []byte(fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", goQuote(s))))
	}
	fmt.Printf("seedgen: %d fuzz_kernels inputs in %s, %d sessions in %s\n", n, *corpus, len(scans)+len(preaggs), *gocorpus)
}

// goQuote is strconv.Quote for bytes, as the Go fuzz corpus format reads it.
func goQuote(b []byte) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, c := range b {
		switch {
		case c == '"' || c == '\\':
			sb.WriteByte('\\')
			sb.WriteByte(c)
		case c >= 0x20 && c < 0x7f:
			sb.WriteByte(c)
		default:
			fmt.Fprintf(&sb, "\\x%02x", c)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}
