package join

import (
	"errors"
	"strings"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/querybuf"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

type fakeInner struct{}

func (*fakeInner) Bytes() uint64 { return 1 }

type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// scripted is a Task whose launches return what the test says.
type scripted struct {
	launches []Launch
	resumed  []bool
}

func (s *scripted) Launch(_ []*fakeInner, resume bool) (Launch, error) {
	s.resumed = append(s.resumed, resume)
	if len(s.launches) == 0 {
		return Launch{}, errors.New("no more launches scripted")
	}
	l := s.launches[0]
	s.launches = s.launches[1:]
	return l, nil
}

type sink struct{ replies []xpu.ChunkReply }

func (s *sink) Halfway(r xpu.ChunkReply) error {
	s.replies = append(s.replies, r)
	return nil
}

func twoDepths() *Session[*fakeInner] {
	j := &xpu.Join{Depths: []xpu.JoinDepth{{Type: xpu.JoinInner, RowSize: 16}, {Type: xpu.JoinLeft, RowSize: 16}}}
	return New[*fakeInner](querybuf.NewTable(), nil, nopCloser{}, &xpu.Program{PlanID: 1}, j, 0)
}

func TestProbeSendsEachLaunchButTheLast(t *testing.T) {
	s := twoDepths()
	task := &scripted{launches: []Launch{
		{Records: make([]uint32, 6), NTuples: 10, NSuspend: 3},
		{Records: make([]uint32, 6), NRecheck: 1, NSuspend: 1},
		{Records: make([]uint32, 3)},
	}}
	out := &sink{}
	last, err := s.probe(xpu.Chunk{ChunkID: 9}, task, nil, 2, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.replies) != 2 || out.replies[0].Result.NTuples != 10 || out.replies[1].Result.NRecheck != 1 ||
		last.Items.Count() != 1 || last.Result.ChunkID != 9 {
		t.Fatalf("replies %+v, last %+v", out.replies, last)
	}
	if len(task.resumed) != 3 || task.resumed[0] || !task.resumed[1] || !task.resumed[2] {
		t.Fatalf("resume flags %v", task.resumed)
	}
}

func TestProbeRefusesBadLaunches(t *testing.T) {
	for name, l := range map[string]Launch{
		"no progress":        {NSuspend: 2},
		"partial record":     {Records: make([]uint32, 4)},
		"more than capacity": {Records: make([]uint32, 9)},
	} {
		_, err := twoDepths().probe(xpu.Chunk{}, &scripted{launches: []Launch{l}}, nil, 2, &sink{})
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestExecBeforeLoadIsAProtocolError(t *testing.T) {
	p := twoDepths().Prepared(func(xpu.Chunk, nodekind.Pages, uint32, func(Task[*fakeInner]) error) error {
		t.Error("the chunk ran")
		return nil
	})
	_, err := p.Exec(xpu.Chunk{NBlocks: 1}, nodekind.Pages{}, &sink{})
	if !errors.Is(err, protocol.ErrProtocol) || !strings.Contains(err.Error(), "before depth 0 of 2 is loaded") {
		t.Fatalf("err = %v", err)
	}
}

func TestDefaultCapacity(t *testing.T) {
	if c := DefaultCapacity(xpu.Chunk{NBlocks: 1}, 2); c != MinCapacity {
		t.Errorf("1 block: %d", c)
	}
	if c := DefaultCapacity(xpu.Chunk{NBlocks: 4096}, 5); c != MaxReplyBytes/20 {
		t.Errorf("4096 blocks of 5-word records: %d", c)
	}
	if c := DefaultCapacity(xpu.Chunk{NBlocks: 100}, 2); c != 4*100*uint32(xpu.MaxTuplesPerPage) {
		t.Errorf("100 blocks: %d", c)
	}
}

// The last launch's records lie in the task's memory, which the executor
// frees before the server frames the reply (and a concurrent chunk may
// reuse it): the reply must hold its own copy.
func TestProbeLastReplyOwnsItsRecords(t *testing.T) {
	output := []uint32{7, 8, 9}
	task := &scripted{launches: []Launch{{Records: output}}}
	last, err := twoDepths().probe(xpu.Chunk{ChunkID: 1}, task, nil, 2, &sink{})
	if err != nil {
		t.Fatal(err)
	}
	output[0], output[1], output[2] = 0, 0, 0 // the task's memory reused
	rec, ok := last.Items.(xpu.Records)
	if !ok || len(rec.Words) != 3 || rec.Words[0] != 7 || rec.Words[1] != 8 || rec.Words[2] != 9 {
		t.Fatalf("last reply's records changed with the task's memory: %+v", last.Items)
	}
}
