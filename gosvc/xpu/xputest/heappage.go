package xputest

import (
	"fmt"
	"math"

	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// PostgreSQL's heap page layout (bufpage.h, itemid.h, htup_details.h) for
// an 8 kB block on a 64-bit little-endian server.  These are PostgreSQL's
// on-disk format, not ours, so they are spelled out here.
const (
	pageHeaderSize    = 24 // SizeOfPageHeaderData
	itemIDSize        = 4
	tupleHeaderSize   = 23 // SizeofHeapTupleHeader
	maxAlign          = 8
	pageLayoutVersion = 4
	lpUnused          = 0
	lpNormal          = 1
	heapHasNull       = 0x0001
	heapHasVarWidth   = 0x0002
	heapXminCommitted = 0x0100
	heapXmaxInvalid   = 0x0800
	offPdLower        = 12
	offPdUpper        = 14
	offPdSpecial      = 16
	offPdPagesizeVer  = 18
	offTInfomask2     = 18
	offTInfomask      = 20
	offTHoff          = 22
	offTBits          = 23
)

// Column describes one attribute of the heap tuples.
type Column struct {
	Len   int16 // > 0 fixed, -1 varlena
	Align int   // 1, 2, 4 or 8
}

// Common columns.
var (
	ColInt4   = Column{4, 4}
	ColInt8   = Column{8, 8}
	ColFloat8 = Column{8, 8}
	ColText   = Column{-1, 4}
)

// Page is an 8 kB heap page being filled with tuples.
type Page struct {
	buf   []byte
	lower int // end of the line pointer array
	upper int // start of the tuple data
	n     int // line pointers
}

// NewPage returns an empty heap page.
func NewPage() *Page {
	p := &Page{buf: make([]byte, xpu.BlockSize), lower: pageHeaderSize, upper: xpu.BlockSize}
	le.PutUint16(p.buf[offPdSpecial:], uint16(xpu.BlockSize))
	le.PutUint16(p.buf[offPdPagesizeVer:], uint16(xpu.BlockSize)|pageLayoutVersion)
	p.sync()
	return p
}

func (p *Page) sync() {
	le.PutUint16(p.buf[offPdLower:], uint16(p.lower))
	le.PutUint16(p.buf[offPdUpper:], uint16(p.upper))
}

// Bytes is the page image.
func (p *Page) Bytes() []byte { return p.buf }

func (p *Page) addItemID(off, flags, length int) int {
	le.PutUint32(p.buf[p.lower:], uint32(off)|uint32(flags)<<15|uint32(length)<<17)
	p.lower += itemIDSize
	p.n++
	p.sync()
	return p.n
}

// AddUnused adds an LP_UNUSED line pointer (a tuple the snapshot cannot
// see) and returns its line pointer number.
func (p *Page) AddUnused() int { return p.addItemID(0, lpUnused, 0) }

// AddTuple forms a heap tuple as heap_form_tuple does and returns its line
// pointer number (1-based).  values[i] is nil for NULL, or an int32, int64,
// float64 or string matching cols[i].
func (p *Page) AddTuple(cols []Column, values []any) int {
	if len(cols) != len(values) {
		panic("xputest: AddTuple: columns and values differ in number")
	}
	hasNull := false
	for _, v := range values {
		hasNull = hasNull || v == nil
	}
	hoff := tupleHeaderSize
	if hasNull {
		hoff += (len(cols) + 7) / 8
	}
	hoff = alignUp(hoff, maxAlign)
	data, varwidth := formData(cols, values)
	tup := make([]byte, hoff+len(data))
	infomask := heapXminCommitted | heapXmaxInvalid
	if hasNull {
		infomask |= heapHasNull
		for i, v := range values {
			if v != nil {
				tup[offTBits+i/8] |= 1 << (i % 8)
			}
		}
	}
	if varwidth {
		infomask |= heapHasVarWidth
	}
	le.PutUint16(tup[offTInfomask2:], uint16(len(cols)))
	le.PutUint16(tup[offTInfomask:], uint16(infomask))
	tup[offTHoff] = byte(hoff)
	copy(tup[hoff:], data)

	off := (p.upper - len(tup)) &^ (maxAlign - 1)
	if off < p.lower+itemIDSize {
		panic("xputest: heap page full")
	}
	copy(p.buf[off:], tup)
	p.upper = off
	// The block number and offset of t_ctid do not matter to the kernel.
	return p.addItemID(off, lpNormal, len(tup))
}

// formData lays the non-NULL values out as heap_fill_tuple does: short
// (1-byte header) varlenas unaligned, everything else at its alignment.
func formData(cols []Column, values []any) ([]byte, bool) {
	var d []byte
	varwidth := false
	for i, c := range cols {
		if values[i] == nil {
			continue
		}
		if c.Len == -1 {
			varwidth = true
			s := values[i].(string)
			if len(s)+1 <= 0x7f {
				d = append(d, byte((len(s)+1)<<1|1)) // VARSIZE_1B header
				d = append(d, s...)
				continue
			}
			for len(d)%c.Align != 0 {
				d = append(d, 0)
			}
			d = le.AppendUint32(d, uint32(len(s)+4)<<2) // VARSIZE_4B header
			d = append(d, s...)
			continue
		}
		for len(d)%c.Align != 0 {
			d = append(d, 0)
		}
		switch v := values[i].(type) {
		case int32:
			d = le.AppendUint32(d, uint32(v))
		case int64:
			d = le.AppendUint64(d, uint64(v))
		case float64:
			d = le.AppendUint64(d, math.Float64bits(v))
		default:
			panic(fmt.Sprintf("xputest: value %#v of column %d", v, i))
		}
	}
	return d, varwidth
}

// Int4Page is a heap page of one int4 column holding from..to-1, one tuple
// each, in line pointer order.
func Int4Page(from, to int) []byte {
	p := NewPage()
	for v := from; v < to; v++ {
		p.AddTuple([]Column{ColInt4}, []any{int32(v)})
	}
	return p.Bytes()
}
