package join

import (
	"sync"
	"testing"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/querybuf"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// gatedExecutor's Build tells building and waits for release, so a test
// can put other sessions' requests inside a loader's last piece.
type gatedExecutor struct {
	building chan struct{}
	release  chan struct{}
	once     sync.Once
}

func (g *gatedExecutor) NewInner(int, uint32, uint32) (*fakeInner, error) { return &fakeInner{}, nil }
func (g *gatedExecutor) CopyRows(*fakeInner, uint32, []byte) error        { return nil }
func (g *gatedExecutor) FreeInner(*fakeInner) error                       { return nil }
func (g *gatedExecutor) Build(*fakeInner, int) error {
	g.once.Do(func() { close(g.building) })
	<-g.release
	return nil
}

type answer struct {
	reply protocol.JoinInnerReply
	err   error
}

// A first piece that finds the depth busy waits in the service only while
// the loader runs its last piece, and is answered the moment the depth is
// published; before that, and past MaxBusyWaiters, it is answered BUSY at
// once.  BusyWait is a minute here, so an answer that waited for it fails.
func TestBusyWaitsOnlyForALastPiece(t *testing.T) {
	savedWait, savedMax := BusyWait, MaxBusyWaiters
	BusyWait, MaxBusyWaiters = time.Minute, 1
	defer func() { BusyWait, MaxBusyWaiters = savedWait, savedMax }()

	g := &gatedExecutor{building: make(chan struct{}), release: make(chan struct{})}
	tables := querybuf.NewTable()
	j := &xpu.Join{Depths: []xpu.JoinDepth{{Type: xpu.JoinInner, RowSize: 16}}}
	open := func() *Session[*fakeInner] {
		return New[*fakeInner](tables, g, nopCloser{}, &xpu.Program{PlanID: 9}, j, 0)
	}
	piece := func(s *Session[*fakeInner], first, n uint32) protocol.JoinInnerRequest {
		return protocol.JoinInnerRequest{PlanID: 9, RowSize: 16, NRows: 4, FirstRow: first, PieceRows: n, Rows: make([]byte, 16*n)}
	}
	ask := func(s *Session[*fakeInner]) <-chan answer {
		ch := make(chan answer, 1)
		go func() {
			r, err := s.LoadInner(piece(s, 0, 1))
			ch <- answer{r, err}
		}()
		return ch
	}
	within := func(ch <-chan answer, d time.Duration, what string) answer {
		t.Helper()
		select {
		case a := <-ch:
			return a
		case <-time.After(d):
			t.Fatalf("%s: no answer in %v", what, d)
		}
		return answer{}
	}
	a, b, c := open(), open(), open()
	if r, err := a.LoadInner(piece(a, 0, 1)); err != nil || r.State != protocol.JoinInnerMore {
		t.Fatalf("A's first piece: %+v %v", r, err)
	}
	if got := within(ask(b), 10*time.Second, "B before A's last piece"); got.err != nil || got.reply.State != protocol.JoinInnerBusy {
		t.Fatalf("B before A's last piece: %+v %v, want BUSY at once", got.reply, got.err)
	}

	lastDone := make(chan answer, 1)
	go func() {
		r, err := a.LoadInner(piece(a, 1, 3))
		lastDone <- answer{r, err}
	}()
	<-g.building
	waiting := ask(b)
	time.Sleep(50 * time.Millisecond)
	select {
	case got := <-waiting:
		t.Fatalf("B answered while A builds: %+v %v", got.reply, got.err)
	default:
	}
	// B waits: C is one waiter too many
	if got := within(ask(c), 10*time.Second, "C past MaxBusyWaiters"); got.err != nil || got.reply.State != protocol.JoinInnerBusy {
		t.Fatalf("C past MaxBusyWaiters: %+v %v, want BUSY at once", got.reply, got.err)
	}
	close(g.release)
	if got := within(lastDone, 10*time.Second, "A's last piece"); got.err != nil || got.reply.State != protocol.JoinInnerLoaded {
		t.Fatalf("A's last piece: %+v %v", got.reply, got.err)
	}
	if got := within(waiting, 10*time.Second, "B after A published"); got.err != nil || got.reply.State != protocol.JoinInnerLoaded {
		t.Fatalf("B after A published: %+v %v, want LOADED", got.reply, got.err)
	}
	for _, s := range []*Session[*fakeInner]{a, b, c} {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if busyWaiters.Load() != 0 || tables.Len() != 0 {
		t.Fatalf("%d waiters counted, %d buffers left", busyWaiters.Load(), tables.Len())
	}
}
