package protocol

import (
	"encoding/binary"
	"errors"
	"testing"
)

// withField returns a copy of msg with a header field overwritten.
func withU32(msg []byte, off int, v uint32) []byte {
	b := append([]byte(nil), msg...)
	binary.LittleEndian.PutUint32(b[off:], v)
	return b
}

func withU16(msg []byte, off int, v uint16) []byte {
	b := append([]byte(nil), msg...)
	binary.LittleEndian.PutUint16(b[off:], v)
	return b
}

func TestDecodeHeaderValid(t *testing.T) {
	msg := EncodeRequest(TagTaskExec, 77, []byte("payload"))
	h, err := DecodeHeader(msg)
	if err != nil {
		t.Fatal(err)
	}
	want := Header{Magic: Magic, Tag: TagTaskExec, Length: uint32(HeaderSize + 7), RequestID: 77}
	if h != want {
		t.Fatalf("header %+v, want %+v", h, want)
	}
}

func TestDecodeHeaderRejects(t *testing.T) {
	good := EncodeRequest(TagStatus, 1, nil)
	cases := map[string][]byte{
		"empty":                       nil,
		"short":                       good[:HeaderSize-1],
		"bad magic":                   withU32(good, offHdrMagic, 0xdeadbeef),
		"flags":                       withU16(good, offHdrFlags, 1),
		"collect flag on another tag": withU16(good, offHdrFlags, FinalCollect),
		"other flag on TaskFinal":     withU16(EncodeRequest(TagTaskFinal, 1, nil), offHdrFlags, 2),
		"unknown tag":                 withU16(good, offHdrTag, 8),
		"tag zero":                    withU16(good, offHdrTag, 0),
		"length too low":              withU32(good, offHdrLength, uint32(HeaderSize-1)),
		"length huge":                 withU32(good, offHdrLength, MaxLength+1),
		"length max u32":              withU32(good, offHdrLength, ^uint32(0)),
	}
	for name, b := range cases {
		if _, err := DecodeHeader(b); !errors.Is(err, ErrProtocol) {
			t.Errorf("%s: err = %v, want ErrProtocol", name, err)
		}
	}
	if _, err := DecodeHeader(withU32(good, offHdrLength, MaxLength)); err != nil {
		t.Errorf("length == MaxLength rejected: %v", err)
	}
	if h, err := DecodeHeader(withU16(EncodeRequest(TagTaskFinal, 1, nil), offHdrFlags, FinalCollect)); err != nil || h.Flags != FinalCollect {
		t.Errorf("TaskFinal with PGSTROM_FINAL_COLLECT: %+v, %v; want it accepted", h, err)
	}
}
