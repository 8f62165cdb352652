package server

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// startConfigServer starts a server of ex with cfg's bounds and callbacks.
func startConfigServer(t *testing.T, ex nodekind.Executor, cfg Config) *Server {
	t.Helper()
	cfg.SocketPath = SocketPath(t.TempDir(), 4242, 0)
	cfg.Workers = 2
	cfg.Pool = &fakePool{}
	cfg.Executor, cfg.Kinds = ex, testKinds
	cfg.Logger = zerolog.New(zerolog.NewTestWriter(t))
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// A chunk whose executor error wraps ErrDeviceLost is answered
// PGSTROM_ERR_DEVICE, the connection stays usable for its other replies,
// and the loss is reported once however many requests meet it.
func TestDeviceLostIsAnsweredAndReportedOnce(t *testing.T) {
	ex := &fakeExecutor{}
	ex.setErr(&ex.execErr, fmt.Errorf("GpuScan kernel: CUDA_ERROR_ILLEGAL_ADDRESS: %w", ErrDeviceLost))
	var mu sync.Mutex
	var lost []error
	s := startConfigServer(t, ex, Config{OnDeviceLost: func(err error) {
		mu.Lock()
		lost = append(lost, err)
		mu.Unlock()
	}})
	c := dial(t, s)
	expectSuccess(t, c, sessionMsg(1))
	for id := uint32(2); id <= 4; id++ {
		reply, h := roundTrip(t, c, chunkMsg(id, id, 1))
		if h.Tag != protocol.TagError {
			t.Fatalf("chunk %d answered %s, want Error", id, h.Tag)
		}
		e, err := protocol.DecodeError(reply)
		if err != nil || e.Code != protocol.ErrCodeDevice || !strings.Contains(e.Message, "ILLEGAL_ADDRESS") {
			t.Fatalf("chunk %d: error reply %+v, %v; want ErrCodeDevice naming the CUDA error", id, e, err)
		}
	}
	statusWithin(t, s, time.Second)
	if !s.FlushReplies(time.Second) {
		t.Fatal("FlushReplies: replies still unwritten to a reading client")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(lost) != 1 || !strings.Contains(lost[0].Error(), "ILLEGAL_ADDRESS") {
		t.Fatalf("OnDeviceLost called %d times (%v), want once with the CUDA error", len(lost), lost)
	}
}

// A session whose Final has far more groups messages than the outbox
// bound, for a client that never reads: Final waits for room instead of
// queueing every message, and the client is dropped after the write
// deadline, which ends Final and closes the session.
func TestUnreadGroupsAreBoundedAndDropped(t *testing.T) {
	const (
		messages = 200
		entries  = 1 << 20
		limit    = 4 << 20
	)
	ex := &finalExecutor{}
	var sent, failed atomic.Int32
	ex.final = func(out nodekind.FinalSink) error {
		for i := 0; i < messages; i++ {
			g := xpu.PreAggGroups{EntrySize: 16, NGroupsTotal: messages * entries / 16}
			if err := out.Halfway(xpu.GroupsPayload{G: g, Entries: bytes.Repeat([]byte{byte(i)}, entries)}); err != nil {
				failed.Add(1)
				return err
			}
			sent.Add(1)
		}
		return nil
	}
	s := startConfigServer(t, ex, Config{OutboxBytes: limit, WriteTimeout: 700 * time.Millisecond})
	c := dial(t, s)
	expectSuccess(t, c, testSessionMsg(1))
	start := time.Now()
	if _, err := c.Write(protocol.EncodeRequest(protocol.TagTaskFinal, 2, nil)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "Final to start sending", func() bool { return sent.Load() > 0 })
	time.Sleep(300 * time.Millisecond)
	// the outbox (4 MB), the message being written and the socket buffer
	if n := sent.Load(); n > 8 {
		t.Fatalf("%d groups messages of 1 MB queued for a client that reads nothing, want at most the 4 MB bound and one in the socket", n)
	}
	statusWithin(t, s, time.Second)
	waitFor(t, "the non-reading client to be dropped", func() bool { return failed.Load() == 1 && ex.open.Load() == 0 })
	if took := time.Since(start); took < 700*time.Millisecond {
		t.Fatalf("dropped after %v, before the write deadline", took)
	}
	// what the socket held, then EOF: never the TaskFinal's Success
	for {
		_, h, err := protocol.ReadMessage(c, 0)
		if err != nil {
			break
		}
		if h.Tag == protocol.TagSuccess && h.RequestID == 2 {
			t.Fatal("TaskFinal answered Success although its groups were not delivered")
		}
	}
}
