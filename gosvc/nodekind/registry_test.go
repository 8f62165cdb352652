package nodekind_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

type spec struct{ p *xpu.Program }

func (spec) Prepare(nodekind.Executor, []byte) (nodekind.Session, error) { return nil, nil }

func kind(id uint32, name string, parse func([]byte, *xpu.Program) (nodekind.Spec, error)) nodekind.Kind {
	if parse == nil {
		parse = func(_ []byte, p *xpu.Program) (nodekind.Spec, error) { return spec{p}, nil }
	}
	return nodekind.Kind{ID: id, Name: name, Parse: parse}
}

func session(kindID uint32) []byte {
	b := xputest.New()
	b.Kind = kindID
	b.Attr(4, 4, true, xpu.TypeInt4)
	b.Op(xpu.OpGt, xpu.TypeBool, b.Var(0, xpu.TypeInt4), b.ConstInt4(1))
	return b.Message(1)
}

func TestRegistryRejectsBadKinds(t *testing.T) {
	cases := map[string][]nodekind.Kind{
		"duplicate id":   {kind(1, "A", nil), kind(1, "B", nil)},
		"duplicate name": {kind(1, "A", nil), kind(2, "A", nil)},
		"no name":        {kind(1, "", nil)},
		"no parse":       {{ID: 1, Name: "A"}},
	}
	for name, kinds := range cases {
		if _, err := nodekind.NewRegistry(kinds...); err == nil {
			t.Errorf("%s: registered", name)
		}
	}
}

// TestParseSession: the registry routes a session to its kind's Parse,
// rejects unknown kinds naming the known ones, and makes every rejection a
// protocol error naming the kind.
func TestParseSession(t *testing.T) {
	boom := errors.New("descriptor missing")
	var parsed []uint32
	r := nodekind.MustRegistry(
		kind(7, "Seven", func(_ []byte, p *xpu.Program) (nodekind.Spec, error) {
			parsed = append(parsed, p.Kind)
			return spec{p}, nil
		}),
		kind(3, "Three", func([]byte, *xpu.Program) (nodekind.Spec, error) { return nil, boom }),
		kind(4, "Four", func([]byte, *xpu.Program) (nodekind.Spec, error) { return nil, nil }),
	)
	p, sp, err := r.ParseSession(session(7))
	if err != nil || p.Kind != 7 || sp.(spec).p != p || len(parsed) != 1 {
		t.Fatalf("kind 7: %v, %v, %v; parsed %v", p, sp, err, parsed)
	}
	_, _, err = r.ParseSession(session(5))
	if !errors.Is(err, nodekind.ErrUnknownKind) || !errors.Is(err, protocol.ErrProtocol) ||
		!strings.Contains(err.Error(), "kind 5; this service runs 3 (Three), 4 (Four), 7 (Seven)") {
		t.Fatalf("kind 5: %v", err)
	}
	_, _, err = r.ParseSession(session(3))
	if !errors.Is(err, boom) || !errors.Is(err, protocol.ErrProtocol) || !strings.Contains(err.Error(), "Three session: descriptor missing") {
		t.Fatalf("kind 3: %v", err)
	}
	if _, _, err = r.ParseSession(session(4)); !errors.Is(err, protocol.ErrProtocol) {
		t.Fatalf("kind 4 (no spec): %v", err)
	}
	if _, _, err = r.ParseSession(session(7)[:40]); !errors.Is(err, protocol.ErrProtocol) || len(parsed) != 1 {
		t.Fatalf("truncated: %v; the kind's Parse ran on it: %v", err, parsed)
	}
}

type noPrims struct{}

func (noPrims) Name() string { return "GPU9" }

func TestPrimitivesOf(t *testing.T) {
	_, err := nodekind.PrimitivesOf[interface{ PrepareJoin() }](noPrims{}, "GpuJoin")
	if !errors.Is(err, nodekind.ErrNoPrimitives) || !errors.Is(err, protocol.ErrUnsupported) ||
		!strings.Contains(err.Error(), "GPU9 cannot run GpuJoin sessions") {
		t.Fatalf("%v", err)
	}
}
