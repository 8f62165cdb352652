package server

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// finalExecutor prepares fakePrepared sessions that also implement
// Finalizer, and records the order of Exec, Final and Close.
type finalExecutor struct {
	fakeExecutor
	final func(requestID uint32) ([][]byte, error)

	evMu   sync.Mutex
	events []string
}

type finalPrepared struct {
	*fakePrepared
	ex *finalExecutor
}

func (f *finalExecutor) event(e string) {
	f.evMu.Lock()
	defer f.evMu.Unlock()
	f.events = append(f.events, e)
}

func (f *finalExecutor) eventLog() string {
	f.evMu.Lock()
	defer f.evMu.Unlock()
	return strings.Join(f.events, " ")
}

func (f *finalExecutor) Prepare(msg []byte, p *xpu.Program) (Prepared, error) {
	prep, err := f.fakeExecutor.Prepare(msg, p)
	if err != nil {
		return nil, err
	}
	return &finalPrepared{fakePrepared: prep.(*fakePrepared), ex: f}, nil
}

func (p *finalPrepared) Exec(c xpu.Chunk, pages Pages) (xpu.ChunkResult, []uint32, error) {
	time.Sleep(20 * time.Millisecond) // still running when TaskFinal arrives
	p.ex.event("exec")
	return p.fakePrepared.Exec(c, pages)
}

func (p *finalPrepared) Final(requestID uint32) ([][]byte, error) {
	p.ex.event("final")
	return p.ex.final(requestID)
}

func (p *finalPrepared) Close() error {
	p.ex.event("close")
	return p.fakePrepared.Close()
}

// groupsOf returns n groups messages of request id, entry i holding byte i.
func groupsOf(t *testing.T, id uint32, n int) [][]byte {
	var msgs [][]byte
	for i := 0; i < n; i++ {
		m, err := xpu.EncodePreAggGroups(id, xpu.PreAggGroups{EntrySize: 16, NGroupsTotal: uint32(2 * n)}, bytes.Repeat([]byte{byte(i)}, 32))
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// TestTaskFinalWritesGroupsThenSuccess pipelines a session whose Final
// returns three groups messages: they arrive whole, in order, with the
// TaskFinal's request id, right before its Success; Final runs after the
// Exec and before Close.
func TestTaskFinalWritesGroupsThenSuccess(t *testing.T) {
	ex := &finalExecutor{}
	ex.final = func(id uint32) ([][]byte, error) { return groupsOf(t, id, 3), nil }
	s := startExecServer(t, 4, ex)
	c := dial(t, s)
	batch := append(sessionMsg(1), chunkMsg(2, 5, 2)...)
	batch = append(batch, protocol.EncodeRequest(protocol.TagTaskFinal, 3, nil)...)
	batch = append(batch, protocol.EncodeRequest(protocol.TagStatus, 4, nil)...)
	if _, err := c.Write(batch); err != nil {
		t.Fatal(err)
	}
	var got []string
	ngroups := 0
	for len(got) == 0 || got[len(got)-1] != "Success/3" {
		reply, h, err := protocol.ReadMessage(c, 0)
		if err != nil {
			t.Fatalf("after %v: %v", got, err)
		}
		got = append(got, fmt.Sprintf("%s/%d", h.Tag, h.RequestID))
		if h.Tag == protocol.TagSuccessHalfway {
			g, entries, err := xpu.DecodePreAggGroups(reply)
			if err != nil || g.NEntries != 2 || g.NGroupsTotal != 6 || entries[0] != byte(ngroups) {
				t.Fatalf("groups message %d: %+v %v, %v", ngroups, g, entries, err)
			}
			ngroups++
		}
	}
	replies := strings.Join(got, " ")
	if !strings.Contains(replies, "SuccessHalfway/3 SuccessHalfway/3 SuccessHalfway/3 Success/3") || ngroups != 3 ||
		!strings.Contains(replies, "Success/1") || !strings.Contains(replies, "Success/2") {
		t.Fatalf("replies %s: want the three groups messages right before TaskFinal's Success (a Status reply never between)", replies)
	}
	if l := ex.eventLog(); l != "exec final close" {
		t.Fatalf("events %q, want exec, final, close", l)
	}
	if ex.open.Load() != 0 {
		t.Fatal("session not closed after TaskFinal")
	}
}

// TestTaskFinalErrors: a failing or malformed Final answers TaskFinal with
// an Error (and no groups), the session is still closed, and the
// connection serves a new session; a disconnect skips Final.
func TestTaskFinalErrors(t *testing.T) {
	ex := &finalExecutor{}
	var mode string
	var modeMu sync.Mutex
	ex.final = func(id uint32) ([][]byte, error) {
		modeMu.Lock()
		defer modeMu.Unlock()
		switch mode {
		case "error":
			return groupsOf(t, id, 1), errors.New("download groups: CUDA_ERROR_ILLEGAL_ADDRESS")
		case "wrong id":
			return groupsOf(t, id+1, 1), nil
		case "truncated":
			return [][]byte{groupsOf(t, id, 1)[0][:40]}, nil
		case "panic":
			panic("boom")
		}
		return nil, nil
	}
	setMode := func(m string) { modeMu.Lock(); mode = m; modeMu.Unlock() }
	s := startExecServer(t, 2, ex)
	c := dial(t, s)
	cases := []struct {
		mode   string
		code   int32
		substr string
	}{
		{"error", protocol.ErrCodeDevice, "CUDA_ERROR_ILLEGAL_ADDRESS"},
		{"wrong id", protocol.ErrCodeInternal, "want SuccessHalfway for request 11"},
		{"truncated", protocol.ErrCodeInternal, "40 bytes"},
		{"panic", protocol.ErrCodeDevice, "internal error in the session's Final: boom"},
	}
	for _, tc := range cases {
		setMode(tc.mode)
		expectSuccess(t, c, sessionMsg(10))
		e := expectError(t, c, protocol.EncodeRequest(protocol.TagTaskFinal, 11, nil), tc.code)
		if !strings.Contains(e.Message, tc.substr) {
			t.Errorf("%s: error %q lacks %q", tc.mode, e.Message, tc.substr)
		}
		if ex.open.Load() != 0 {
			t.Fatalf("%s: session left open", tc.mode)
		}
	}
	// No groups: a plain Success, exactly as a GpuScan session.
	setMode("")
	expectSuccess(t, c, sessionMsg(12))
	if reply := expectSuccess(t, c, protocol.EncodeRequest(protocol.TagTaskFinal, 13, nil)); len(reply) != protocol.HeaderSize {
		t.Fatalf("TaskFinal without groups: %d bytes", len(reply))
	}
	finals := strings.Count(ex.eventLog(), "final")
	expectSuccess(t, c, sessionMsg(14))
	c.Close()
	waitFor(t, "the disconnect to close the session", func() bool { return ex.open.Load() == 0 })
	if n := strings.Count(ex.eventLog(), "final"); n != finals {
		t.Fatalf("Final ran on a disconnect (%d calls, was %d)", n, finals)
	}
}
