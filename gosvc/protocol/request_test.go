package protocol

import (
	"errors"
	"testing"
)

func TestParseRequestStatus(t *testing.T) {
	req, err := ParseRequest(EncodeRequest(TagStatus, 5, nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := req.(StatusRequest); !ok || req.Tag() != TagStatus {
		t.Fatalf("got %#v", req)
	}
}

func TestParseRequestErrors(t *testing.T) {
	status := EncodeRequest(TagStatus, 5, nil)
	cases := []struct {
		name string
		msg  []byte
		want error
	}{
		{"status with payload", EncodeRequest(TagStatus, 1, []byte{0}), ErrProtocol},
		{"length beyond bytes", withU32(status, offHdrLength, uint32(HeaderSize+4)), ErrProtocol},
		{"bytes beyond length", append(append([]byte(nil), status...), 0), ErrProtocol},
		{"reply tag success", EncodeRequest(TagSuccess, 1, nil), ErrProtocol},
		{"reply tag error", EncodeRequest(TagError, 1, nil), ErrProtocol},
		{"bad header", status[:3], ErrProtocol},
		{"task final with payload", EncodeRequest(TagTaskFinal, 1, []byte{0}), ErrProtocol},
		{"attach buffer short", EncodeRequest(TagAttachBuffer, 1, make([]byte, AttachBufferSize-1)), ErrProtocol},
		{"attach buffer long", EncodeRequest(TagAttachBuffer, 1, make([]byte, AttachBufferSize+1)), ErrProtocol},
		{"attach buffer empty", EncodeRequest(TagAttachBuffer, 1, nil), ErrProtocol},
	}
	for _, c := range cases {
		req, err := ParseRequest(c.msg)
		if !errors.Is(err, c.want) || req != nil {
			t.Errorf("%s: got %v, %v; want error wrapping %v", c.name, req, err, c.want)
		}
	}
}

func TestParseRequestSessionTags(t *testing.T) {
	open := EncodeRequest(TagOpenSession, 1, []byte("program"))
	req, err := ParseRequest(open)
	if r, ok := req.(OpenSessionRequest); err != nil || !ok || string(r.Msg) != string(open) {
		t.Fatalf("OpenSession: %#v, %v; want the whole message passed on", req, err)
	}
	exec := EncodeRequest(TagTaskExec, 2, []byte("chunk"))
	req, err = ParseRequest(exec)
	if r, ok := req.(TaskExecRequest); err != nil || !ok || string(r.Msg) != string(exec) || r.Tag() != TagTaskExec {
		t.Fatalf("TaskExec: %#v, %v; want the whole message passed on", req, err)
	}
	req, err = ParseRequest(EncodeRequest(TagTaskFinal, 3, nil))
	if _, ok := req.(TaskFinalRequest); err != nil || !ok || req.Tag() != TagTaskFinal {
		t.Fatalf("TaskFinal: %#v, %v", req, err)
	}
}

func TestEncodeSuccessAndNewMessage(t *testing.T) {
	h, err := DecodeHeader(EncodeSuccess(9))
	if err != nil || h.Tag != TagSuccess || h.RequestID != 9 || int(h.Length) != HeaderSize {
		t.Fatalf("EncodeSuccess header %+v, %v", h, err)
	}
	msg := NewMessage(TagSuccess, 4, 12)
	if h, err := DecodeHeader(msg); err != nil || len(msg) != HeaderSize+12 || int(h.Length) != len(msg) {
		t.Fatalf("NewMessage: %d bytes, header %+v, %v", len(msg), h, err)
	}
}

func TestParseRequestAttachBuffer(t *testing.T) {
	msg := EncodeAttachBuffer(6, 3, 1<<30)
	if len(msg) != HeaderSize+AttachBufferSize || AttachBufferSize != 16 {
		t.Fatalf("AttachBuffer message of %d bytes (payload %d)", len(msg), AttachBufferSize)
	}
	req, err := ParseRequest(msg)
	r, ok := req.(AttachBufferRequest)
	if err != nil || !ok || r.Tag() != TagAttachBuffer || r.BufferID != 3 || r.Size != 1<<30 || r.Reserved != 0 {
		t.Fatalf("AttachBuffer: %#v, %v", req, err)
	}
	// buffer_id at payload offset 0, size at 8, little-endian.
	if msg[HeaderSize] != 3 || msg[HeaderSize+8+3] != 0x40 {
		t.Fatalf("AttachBuffer payload % x", msg[HeaderSize:])
	}
	if TagAttachBuffer != 5 || !TagAttachBuffer.IsRequest() || TagAttachBuffer.String() != "AttachBuffer" || MaxBuffersPerConnection != 16 {
		t.Fatalf("TagAttachBuffer %d %q, max buffers %d", TagAttachBuffer, TagAttachBuffer, MaxBuffersPerConnection)
	}
}
