package protocol

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
)

// fuzzMaxLen keeps each fuzz iteration's allocation small; lengths up to
// MaxLength are covered by the unit tests.
const fuzzMaxLen = 1 << 20

func FuzzParseMessage(f *testing.F) {
	status := EncodeRequest(TagStatus, 1, nil)
	f.Add(status)
	f.Add(status[:HeaderSize-2])
	f.Add(withU32(status, offHdrMagic, 0x4d534750))
	f.Add(withU32(status, offHdrLength, MaxLength+1))
	f.Add(EncodeRequest(TagTaskExec, 2, []byte("kds")))
	f.Add(EncodeRequest(TagSuccess, 3, nil))
	f.Add(EncodeStatusReply(4, StatusReply{Workers: 1}))
	f.Add(append(EncodeRequest(TagStatus, 5, nil), EncodeRequest(TagStatus, 6, nil)...))
	// the retired ATTACH_BUFFER is refused at its header
	f.Add(EncodeRequest(TagRetiredAttachBuffer, 7, make([]byte, 16)))
	probe := EncodeLinkProbe(10, 256<<20, 8)
	f.Add(probe)
	f.Add(probe[:len(probe)-1])
	f.Add(EncodeLinkProbe(11, 1<<20+1, 1))
	f.Add(EncodeLinkProbe(12, 2<<30, 8))
	f.Add(EncodeLinkProbe(13, 1<<20, 0))
	f.Add(EncodeLinkProbe(14, 1<<20, 65))
	f.Add(withU32(probe, offProbeReserved, 1))
	f.Add(EncodeRequest(TagLinkProbe, 15, append(append([]byte(nil), probe[HeaderSize:]...), 0)))
	f.Add(EncodeLinkProbeReply(16, LinkProbeReply{Copies: 8, Bytes: 1 << 20, H2DNs: 1, D2HNs: 1}))
	ji := EncodeJoinInner(17, JoinInnerRequest{PlanID: 1, RowSize: 16, NRows: 3, PieceRows: 2, Rows: make([]byte, 32)})
	f.Add(ji)
	f.Add(EncodeJoinInner(18, JoinInnerRequest{RowSize: 16}))
	f.Add(withU32(ji, offJiRowsOffset, 48))
	f.Add(withU32(ji, offJiFirstRow, 2))

	f.Fuzz(func(t *testing.T, data []byte) {
		msg, h, err := ReadMessage(bytes.NewReader(data), fuzzMaxLen)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, ErrProtocol) {
				t.Fatalf("ReadMessage: unexpected error class: %v", err)
			}
			if errors.Is(err, io.EOF) && len(data) != 0 {
				t.Fatalf("io.EOF with %d bytes of input", len(data))
			}
			return
		}
		if len(msg) != int(h.Length) || !bytes.Equal(msg, data[:len(msg)]) {
			t.Fatalf("ReadMessage returned %d bytes, header says %d, or bytes differ from input", len(msg), h.Length)
		}

		req, err := ParseRequest(msg)
		if err != nil {
			if !errors.Is(err, ErrProtocol) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("ParseRequest: unexpected error class: %v", err)
			}
			return
		}
		// Success must mean the bytes are exactly a well-formed request.
		if !req.Tag().IsRequest() || req.Tag() != h.Tag {
			t.Fatalf("request tag %s, header tag %s", req.Tag(), h.Tag)
		}
		flagsOK := h.Flags == 0 || (h.Tag == TagTaskFinal && h.Flags == FinalCollect)
		if h.Magic != Magic || !flagsOK || int(h.Length) != len(msg) {
			t.Fatalf("accepted inconsistent header %+v for %d bytes", h, len(msg))
		}
		if (h.Tag == TagStatus || h.Tag == TagTaskFinal) && len(msg) != HeaderSize {
			t.Fatalf("%s accepted with %d bytes", h.Tag, len(msg))
		}
		if h.Tag == TagRetiredAttachBuffer {
			t.Fatalf("the retired AttachBuffer was read as a message of %d bytes", len(msg))
		}
		if h.Tag == TagLinkProbe {
			p, ok := req.(LinkProbeRequest)
			if !ok || len(msg) != HeaderSize+LinkProbeSize ||
				p.Bytes < LinkProbeMinBytes || p.Bytes > LinkProbeMaxBytes || p.Bytes%LinkProbeUnit != 0 ||
				p.Copies < LinkProbeMinCopies || p.Copies > LinkProbeMaxCopies {
				t.Fatalf("LinkProbe accepted as %#v with %d bytes", req, len(msg))
			}
			// reserved is 0, so the message re-encodes exactly
			if re := EncodeLinkProbe(h.RequestID, p.Bytes, p.Copies); !bytes.Equal(re, msg) {
				t.Fatalf("LinkProbe re-encoding differs: % x vs % x", re, msg)
			}
		}
		if h.Tag == TagJoinInner {
			checkJoinInner(t, req, msg)
		}
		re := EncodeRequest(h.Tag, h.RequestID, msg[HeaderSize:])
		binary.LittleEndian.PutUint16(re[offHdrFlags:], h.Flags) // TaskFinal's collect flag
		if !bytes.Equal(re, msg) {
			t.Fatalf("re-encoding differs: % x vs % x", re, msg)
		}
	})
}

// checkJoinInner: an accepted piece's rows lie inside the message, end it
// (but for padding), and are whole rows of a piece within its depth.
func checkJoinInner(t *testing.T, req Request, msg []byte) {
	r, ok := req.(JoinInnerRequest)
	if !ok {
		t.Fatalf("JoinInner accepted as %T", req)
	}
	bytes := uint64(r.PieceRows) * uint64(r.RowSize)
	off := binary.LittleEndian.Uint32(msg[offJiRowsOffset:])
	switch {
	case uint64(len(r.Rows)) != bytes || bytes > uint64(JoinInnerMaxPiece):
		t.Fatalf("JoinInner rows of %d bytes for %d rows of %d", len(r.Rows), r.PieceRows, r.RowSize)
	case off%16 != 0 || off < uint32(HeaderSize+JoinInnerSize) || uint64(off)+bytes > uint64(len(msg)) || uint64(len(msg))-uint64(off)-bytes >= 16:
		t.Fatalf("JoinInner rows at %d of a %d-byte message", off, len(msg))
	case uint64(r.FirstRow)+uint64(r.PieceRows) > uint64(r.NRows) || r.RowSize == 0 || r.PieceRows == 0 && r.NRows != 0:
		t.Fatalf("JoinInner piece %+v", r)
	}
}
