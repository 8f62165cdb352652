package protocol

import (
	"bytes"
	"errors"
	"strings"
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
		{"retired attach buffer", EncodeRequest(TagRetiredAttachBuffer, 1, make([]byte, 16)), ErrProtocol},
		{"retired attach buffer empty", EncodeRequest(TagRetiredAttachBuffer, 1, nil), ErrProtocol},
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

// TestRetiredAttachBuffer: ATTACH_BUFFER (tag 5, shared chunk buffers) is
// no longer a request; its header is refused before any payload is read,
// with a message that names it, whatever its length.
func TestRetiredAttachBuffer(t *testing.T) {
	if TagRetiredAttachBuffer != 5 || TagRetiredAttachBuffer.IsRequest() || TagRetiredAttachBuffer.IsReply() {
		t.Fatalf("TagRetiredAttachBuffer %d: request %v, reply %v", TagRetiredAttachBuffer, TagRetiredAttachBuffer.IsRequest(), TagRetiredAttachBuffer.IsReply())
	}
	for _, n := range []int{0, 16, 1 << 20} {
		msg := EncodeRequest(TagRetiredAttachBuffer, 6, make([]byte, n))
		_, err := DecodeHeader(msg)
		if !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "AttachBuffer (tag 5) is no longer supported") {
			t.Fatalf("DecodeHeader of AttachBuffer with %d payload bytes: %v", n, err)
		}
		if len(err.Error()) >= ErrorMessageSize {
			t.Fatalf("the rejection (%d bytes) does not fit PgStromMsgError.message (%d)", len(err.Error()), ErrorMessageSize)
		}
		// Only the header is consumed.
		r := bytes.NewReader(msg)
		if _, _, err := ReadMessage(r, 0); !errors.Is(err, ErrProtocol) || r.Len() != n {
			t.Fatalf("ReadMessage of AttachBuffer: %v, %d of %d payload bytes left unread", err, r.Len(), n)
		}
	}
}
