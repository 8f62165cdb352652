package xpu_test

import (
	"errors"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// FuzzParseSession: no input may panic, every rejection is a protocol
// error, and an accepted program satisfies what the kernel relies on.
func FuzzParseSession(f *testing.F) {
	good, l := scanProgram().MessageLayout(1)
	f.Add(good)
	f.Add(everyOpcode().Message(2))
	f.Add(good[:len(good)-3])
	f.Add(xputest.PutU32(good, xpu.OffSessNodesOffset, uint32(len(good)-4)))
	f.Add(xputest.PutU32(good, xpu.OffSessConstsOffset, uint32(l.ConstsOffset+1)))
	f.Add(xputest.PutU32(good, xpu.OffSessNArgs, 1<<31))
	f.Fuzz(func(t *testing.T, msg []byte) {
		p, err := xpu.ParseSession(msg)
		if err != nil {
			if !errors.Is(err, protocol.ErrProtocol) || p != nil {
				t.Fatalf("rejection %v (program %v) is not a protocol error", err, p)
			}
			return
		}
		checkAccepted(t, p)
	})
}

func checkAccepted(t *testing.T, p *xpu.Program) {
	n := len(p.Nodes)
	if n == 0 || n > xpu.MaxSlots || p.Root != n-1 || p.Nodes[p.Root].Restype != xpu.TypeBool {
		t.Fatalf("accepted %d nodes with root %d", n, p.Root)
	}
	for i, nd := range p.Nodes {
		if !nd.Opcode.Valid() || !nd.Restype.Valid() {
			t.Fatalf("node %d: opcode %d type %d", i, nd.Opcode, nd.Restype)
		}
		for _, a := range nd.Args {
			if a < 0 || int(a) >= i {
				t.Fatalf("node %d has argument %d", i, a)
			}
		}
		switch {
		case nd.Opcode == xpu.OpVar && (nd.Aux < 0 || int(nd.Aux) >= len(p.Attrs) || p.Attrs[nd.Aux].XType != nd.Restype):
			t.Fatalf("node %d: VAR of attribute %d", i, nd.Aux)
		case nd.Opcode == xpu.OpConst && nd.Flags&xpu.FlagConstNull == 0 &&
			(nd.Aux < 0 || nd.Aux%16 != 0 || int(nd.Aux) >= len(p.Consts)):
			t.Fatalf("node %d: CONST at %d of a %d-byte pool", i, nd.Aux, len(p.Consts))
		}
	}
}
