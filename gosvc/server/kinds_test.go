package server

import (
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/preagg"
	"github.com/pgstrom-go/pg_strom/gosvc/scan"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// testKindID is the test kind's XpuSession.kind, which no real kind uses.
const testKindID = 0x7e57

// testKind is a node kind whose sessions the test's executor makes
// entirely (testPrimitives): what it sends is the test's choice.
var testKind = nodekind.Kind{ID: testKindID, Name: "TestKind", Parse: func(_ []byte, p *xpu.Program) (nodekind.Spec, error) {
	return testSpec{p}, nil
}}

// testPrimitives are the test kind's primitives.
type testPrimitives interface {
	PrepareTest(msg []byte, p *xpu.Program) (nodekind.Session, error)
}

type testSpec struct{ p *xpu.Program }

func (s testSpec) Prepare(ex nodekind.Executor, msg []byte) (nodekind.Session, error) {
	prims, err := nodekind.PrimitivesOf[testPrimitives](ex, testKind.Name)
	if err != nil {
		return nil, err
	}
	return prims.PrepareTest(msg, s.p)
}

// testKinds are the real kinds and the test kind.
var testKinds = nodekind.MustRegistry(scan.Kind, preagg.Kind, testKind)

// testSessionMsg is sessionMsg's program as a session of the test kind.
func testSessionMsg(id uint32) []byte { return kindSessionMsg(id, testKindID) }
