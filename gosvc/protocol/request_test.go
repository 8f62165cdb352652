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
		{"open session", EncodeRequest(TagOpenSession, 1, []byte("x")), ErrUnsupported},
		{"task exec", EncodeRequest(TagTaskExec, 1, nil), ErrUnsupported},
		{"task final", EncodeRequest(TagTaskFinal, 1, nil), ErrUnsupported},
	}
	for _, c := range cases {
		req, err := ParseRequest(c.msg)
		if !errors.Is(err, c.want) || req != nil {
			t.Errorf("%s: got %v, %v; want error wrapping %v", c.name, req, err, c.want)
		}
	}
}
