package server

import (
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// JOIN_INNER is only for a GpuJoin session: without a session, on a
// GpuScan session, or malformed, it is a protocol error that closes the
// connection, and other clients go on.  (The GpuJoin session's own
// answers are tested with the host executor, in gosvc/hostexec.)
func TestJoinInnerRefusedWhereItDoesNotBelong(t *testing.T) {
	s := startExecServer(t, 2, &fakeExecutor{})
	piece := protocol.EncodeJoinInner(2, protocol.JoinInnerRequest{PlanID: 1, RowSize: 16, NRows: 1, PieceRows: 1, Rows: make([]byte, 16)})
	huge := xputest.PutU32(protocol.EncodeJoinInner(2, protocol.JoinInnerRequest{RowSize: 16}), 8, protocol.JoinInnerMaxLength+1)
	cases := []struct {
		name    string
		session bool
		msg     []byte
	}{
		{"no session", false, piece},
		{"GpuScan session", true, piece},
		{"length past the largest piece", true, huge},
		{"flags", true, xputest.PutU32(piece, protocol.HeaderSize+32, 1)},
		{"fixed part cut", true, protocol.EncodeRequest(protocol.TagJoinInner, 2, make([]byte, protocol.JoinInnerSize-4))},
	}
	for _, c := range cases {
		conn := dial(t, s)
		if c.session {
			if _, h := roundTrip(t, conn, sessionMsg(1)); h.Tag != protocol.TagSuccess {
				t.Fatalf("%s: open: %s", c.name, h.Tag)
			}
		}
		expectError(t, conn, c.msg, protocol.ErrCodeProtocol)
		expectClosed(t, conn)
	}
	_, h := roundTrip(t, dial(t, s), protocol.EncodeRequest(protocol.TagStatus, 5, nil))
	if h.Tag != protocol.TagSuccess {
		t.Fatalf("status after the refusals: %s", h.Tag)
	}
}
