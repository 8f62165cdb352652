package hostexec

import (
	"math/rand"
	"testing"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/join"
	"github.com/pgstrom-go/pg_strom/gosvc/join/jointest"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

type loadResult struct {
	reply protocol.JoinInnerReply
	err   error
	at    time.Time
}

// A first piece that finds the depth busy waits in the service and is
// answered the moment the loader ends: LOADED when it published, or the
// load itself (MORE) when it gave up.  Never after BusyWait, which is long
// here, so an answer that waited for it fails the test.
func TestGpuJoinBusyWaitsForTheLoader(t *testing.T) {
	saved := join.BusyWait
	join.BusyWait = time.Minute
	defer func() { join.BusyWait = saved }()

	e, _ := testExecutor(t)
	rows := jointest.Random(rand.New(rand.NewSource(6)), 1, 20, 0).Rows0()
	piece := func(l nodekind.InnerLoader, first, n int) (protocol.JoinInnerReply, error) {
		return l.LoadInner(protocol.JoinInnerRequest{PlanID: joinPlan, RowSize: 16, NRows: 20, FirstRow: uint32(first),
			PieceRows: uint32(n), Rows: rows[16*first : 16*(first+n)]})
	}
	waitFor := func(l nodekind.InnerLoader) <-chan loadResult {
		ch := make(chan loadResult, 1)
		go func() {
			r, err := piece(l, 0, 5)
			ch <- loadResult{r, err, time.Now()}
		}()
		return ch
	}
	for _, publish := range []bool{true, false} {
		a, la := openJoin(t, e, xpu.JoinInner, false)
		b, lb := openJoin(t, e, xpu.JoinInner, false)
		if r, err := piece(la, 0, 5); err != nil || r.State != protocol.JoinInnerMore {
			t.Fatalf("A's first piece: %+v %v", r, err)
		}
		got := waitFor(lb)
		time.Sleep(50 * time.Millisecond)
		select {
		case r := <-got:
			t.Fatalf("B answered while A still loads: %+v %v", r.reply, r.err)
		default:
		}
		ended := time.Now()
		want := protocol.JoinInnerLoaded
		if publish {
			if r, err := piece(la, 5, 15); err != nil || r.State != protocol.JoinInnerLoaded {
				t.Fatalf("A's last piece: %+v %v", r, err)
			}
		} else {
			want = protocol.JoinInnerMore // B is the loader now
			if err := a.Close(); err != nil {
				t.Fatal(err)
			}
		}
		var r loadResult
		select {
		case r = <-got:
		case <-time.After(10 * time.Second):
			t.Fatalf("publish=%v: B still waits 10 s after A ended", publish)
		}
		if r.err != nil || r.reply.State != want {
			t.Fatalf("publish=%v: B got %+v %v, want state %d", publish, r.reply, r.err, want)
		}
		if r.at.Sub(ended) > 5*time.Second {
			t.Fatalf("publish=%v: B answered %v after A ended", publish, r.at.Sub(ended))
		}
		if publish {
			a.Close()
		}
		if err := b.Close(); err != nil || e.tables.Len() != 0 {
			t.Fatalf("close: %v, %d buffers left", err, e.tables.Len())
		}
	}
}
