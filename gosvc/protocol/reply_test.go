package protocol

import (
	"errors"
	"strings"
	"testing"
)

func TestStatusReplyRoundTrip(t *testing.T) {
	s := StatusReply{
		DeviceIndex: -1, Workers: 12, Connections: 3, Queued: 4,
		PoolUsed: 1 << 40, PoolTotal: 1<<40 + 5, PoolLimit: ^uint64(0), RequestsServed: 123456789,
	}
	msg := EncodeStatusReply(42, s)
	h, err := DecodeHeader(msg)
	if err != nil || h.Tag != TagSuccess || h.RequestID != 42 || int(h.Length) != HeaderSize+StatusReplySize || len(msg) != int(h.Length) {
		t.Fatalf("header %+v, err %v", h, err)
	}
	got, err := DecodeStatusReply(msg)
	if err != nil {
		t.Fatal(err)
	}
	if got != s {
		t.Fatalf("got %+v, want %+v", got, s)
	}
}

func TestDecodeStatusReplyRejects(t *testing.T) {
	good := EncodeStatusReply(1, StatusReply{})
	cases := map[string][]byte{
		"short":     good[:len(good)-1],
		"wrong tag": EncodeRequest(TagError, 1, make([]byte, StatusReplySize)),
		"too long":  EncodeRequest(TagSuccess, 1, make([]byte, StatusReplySize+1)),
	}
	for name, msg := range cases {
		if _, err := DecodeStatusReply(msg); !errors.Is(err, ErrProtocol) {
			t.Errorf("%s: err = %v, want ErrProtocol", name, err)
		}
	}
}

func TestErrorReplyRoundTrip(t *testing.T) {
	e := ErrorReply{Code: ErrCodeDevice, Line: 321, File: "gpu/exec.go", Func: "gpu.(*Device).Run", Message: "CUDA_ERROR_ILLEGAL_ADDRESS"}
	msg := EncodeError(7, e)
	h, err := DecodeHeader(msg)
	if err != nil || h.Tag != TagError || h.RequestID != 7 || int(h.Length) != HeaderSize+ErrorPayloadSize {
		t.Fatalf("header %+v, err %v", h, err)
	}
	got, err := DecodeError(msg)
	if err != nil {
		t.Fatal(err)
	}
	if got != e {
		t.Fatalf("got %+v, want %+v", got, e)
	}
}

func TestErrorReplyTruncatesAndTerminates(t *testing.T) {
	e := ErrorReply{
		Code:    ErrCodeInternal,
		File:    strings.Repeat("f", 100),
		Func:    strings.Repeat("g", 64),
		Message: strings.Repeat("€", 400), // 1200 bytes of 3-byte runes
	}
	msg := EncodeError(1, e)
	p := msg[HeaderSize:]
	for _, end := range []int{offErrFile + ErrorFileSize, offErrFunc + ErrorFuncSize, offErrMessage + ErrorMessageSize} {
		if p[end-1] != 0 {
			t.Errorf("field ending at %d is not NUL-terminated", end)
		}
	}
	got, err := DecodeError(msg)
	if err != nil {
		t.Fatal(err)
	}
	if got.File != strings.Repeat("f", ErrorFileSize-1) || got.Func != strings.Repeat("g", ErrorFuncSize-1) {
		t.Errorf("file %q func %q not cut to field size - 1", got.File, got.Func)
	}
	if want := strings.Repeat("€", (ErrorMessageSize-1)/3); got.Message != want {
		t.Errorf("message of %d bytes, want %d bytes cut on a rune boundary", len(got.Message), len(want))
	}
}

func TestDecodeErrorWithoutNUL(t *testing.T) {
	// A C sender that fills the whole array still decodes.
	msg := EncodeError(1, ErrorReply{})
	p := msg[HeaderSize:]
	for i := 0; i < ErrorFileSize; i++ {
		p[offErrFile+i] = 'a'
	}
	got, err := DecodeError(msg)
	if err != nil || got.File != strings.Repeat("a", ErrorFileSize) {
		t.Fatalf("got %q, %v", got.File, err)
	}
	if _, err := DecodeError(EncodeStatusReply(1, StatusReply{})); !errors.Is(err, ErrProtocol) {
		t.Fatalf("status reply decoded as error: %v", err)
	}
}
