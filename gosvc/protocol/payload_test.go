package protocol_test

import (
	"errors"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
)

type sized int

func (s sized) Len() int     { return int(s) }
func (s sized) Put(_ []byte) {}

func TestFrame(t *testing.T) {
	msg, err := protocol.Frame(protocol.TagSuccessHalfway, 42, protocol.Bytes("abc"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := protocol.DecodeHeader(msg)
	if err != nil || h.Tag != protocol.TagSuccessHalfway || h.RequestID != 42 || int(h.Length) != len(msg) ||
		string(msg[protocol.HeaderSize:]) != "abc" {
		t.Fatalf("framed %+v %q, %v", h, msg, err)
	}
	for _, n := range []int{-1, int(protocol.MaxLength) - protocol.HeaderSize + 1} {
		if _, err := protocol.Frame(protocol.TagSuccess, 1, sized(n)); !errors.Is(err, protocol.ErrBadReply) {
			t.Errorf("payload of %d bytes: %v, want ErrBadReply", n, err)
		}
	}
}
