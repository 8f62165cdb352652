package protocol

import (
	"encoding/binary"
	"errors"
	"testing"
)

func TestLinkProbeLayout(t *testing.T) {
	if LinkProbeSize != 16 || LinkProbeReplySize != 32 {
		t.Fatalf("LinkProbe %d bytes, reply %d; want 16 and 32", LinkProbeSize, LinkProbeReplySize)
	}
	if TagLinkProbe != 6 || !TagLinkProbe.IsRequest() || TagLinkProbe.IsReply() || TagLinkProbe.String() != "LinkProbe" {
		t.Fatalf("TagLinkProbe %d %q", TagLinkProbe, TagLinkProbe)
	}
	msg := EncodeLinkProbe(3, 256<<20, 8)
	// bytes at payload offset 0, copies at 8, reserved at 12, little-endian.
	p := msg[HeaderSize:]
	if binary.LittleEndian.Uint64(p) != 256<<20 || binary.LittleEndian.Uint32(p[8:]) != 8 || binary.LittleEndian.Uint32(p[12:]) != 0 {
		t.Fatalf("LinkProbe payload % x", p)
	}
}

func TestParseLinkProbe(t *testing.T) {
	for _, c := range []struct {
		bytes  uint64
		copies uint32
	}{{1 << 20, 1}, {256 << 20, 8}, {1 << 30, 64}} {
		req, err := ParseRequest(EncodeLinkProbe(7, c.bytes, c.copies))
		r, ok := req.(LinkProbeRequest)
		if err != nil || !ok || r.Tag() != TagLinkProbe || r.Bytes != c.bytes || r.Copies != c.copies {
			t.Errorf("%d x %d: %#v, %v", c.bytes, c.copies, req, err)
		}
	}
}

func TestParseLinkProbeRejects(t *testing.T) {
	good := EncodeLinkProbe(1, 64<<20, 4)
	reserved := append([]byte(nil), good...)
	binary.LittleEndian.PutUint32(reserved[offProbeReserved:], 1)
	cases := map[string][]byte{
		"empty payload":       EncodeRequest(TagLinkProbe, 1, nil),
		"short payload":       EncodeRequest(TagLinkProbe, 1, good[HeaderSize:len(good)-1]),
		"long payload":        EncodeRequest(TagLinkProbe, 1, append(append([]byte(nil), good[HeaderSize:]...), 0)),
		"zero bytes":          EncodeLinkProbe(1, 0, 4),
		"under 1MB":           EncodeLinkProbe(1, 1<<20-1, 4),
		"not a multiple":      EncodeLinkProbe(1, 3<<20+4096, 4),
		"over 1GB":            EncodeLinkProbe(1, 1<<30+1<<20, 4),
		"huge bytes":          EncodeLinkProbe(1, ^uint64(0), 4),
		"zero copies":         EncodeLinkProbe(1, 1<<20, 0),
		"65 copies":           EncodeLinkProbe(1, 1<<20, 65),
		"max copies":          EncodeLinkProbe(1, 1<<20, ^uint32(0)),
		"reserved not zero":   reserved,
		"bytes beyond length": append(append([]byte(nil), good...), 0),
	}
	for name, msg := range cases {
		req, err := ParseRequest(msg)
		if !errors.Is(err, ErrProtocol) || req != nil {
			t.Errorf("%s: got %#v, %v; want ErrProtocol", name, req, err)
		}
	}
}

func TestLinkProbeReplyRoundTrip(t *testing.T) {
	r := LinkProbeReply{DeviceIndex: -2, Copies: 64, Bytes: 1 << 30, H2DNs: 1<<40 + 3, D2HNs: ^uint64(0)}
	msg := EncodeLinkProbeReply(99, r)
	h, err := DecodeHeader(msg)
	if err != nil || h.Tag != TagSuccess || h.RequestID != 99 || int(h.Length) != HeaderSize+LinkProbeReplySize || len(msg) != int(h.Length) {
		t.Fatalf("header %+v, err %v", h, err)
	}
	got, err := DecodeLinkProbeReply(msg)
	if err != nil || got != r {
		t.Fatalf("got %+v, %v; want %+v", got, err, r)
	}
	// the C struct's field offsets: device_index 0, copies 4, bytes 8, h2d 16, d2h 24
	p := msg[HeaderSize:]
	if binary.LittleEndian.Uint32(p[4:]) != 64 || binary.LittleEndian.Uint64(p[8:]) != 1<<30 || binary.LittleEndian.Uint64(p[16:]) != 1<<40+3 {
		t.Fatalf("reply payload % x", p)
	}
	for name, bad := range map[string][]byte{
		"status reply": EncodeStatusReply(1, StatusReply{}),
		"error":        EncodeError(1, ErrorReply{}),
		"short":        msg[:len(msg)-1],
	} {
		if _, err := DecodeLinkProbeReply(bad); !errors.Is(err, ErrProtocol) {
			t.Errorf("%s decoded as a link probe reply: %v", name, err)
		}
	}
}
