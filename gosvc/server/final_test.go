package server

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// finalExecutor prepares sessions of the test kind that scan like
// fakePrepared and send what final sends at TaskFinal, and records the
// order of Exec, Final and Close.
type finalExecutor struct {
	fakeExecutor
	final func(out nodekind.FinalSink) error

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

func (f *finalExecutor) PrepareTest(msg []byte, p *xpu.Program) (nodekind.Session, error) {
	prog, err := f.fakeExecutor.PrepareScan(msg, p)
	if err != nil {
		return nil, err
	}
	return &finalPrepared{fakePrepared: prog.(*fakePrepared), ex: f}, nil
}

func (p *finalPrepared) Exec(c xpu.Chunk, pages nodekind.Pages, _ nodekind.ChunkSink) (xpu.ChunkReply, error) {
	time.Sleep(20 * time.Millisecond) // still running when TaskFinal arrives
	p.ex.event("exec")
	res, items, err := p.fakePrepared.Scan(c, pages)
	if err != nil {
		return xpu.ChunkReply{}, err
	}
	return xpu.PositionsReply(c, res, items)
}

func (p *finalPrepared) Final(out nodekind.FinalSink) error {
	p.ex.event("final")
	return p.ex.final(out)
}

func (p *finalPrepared) Close() error {
	p.ex.event("close")
	return p.fakePrepared.Close()
}

// sendGroups sends n groups payloads, entry i holding byte i.
func sendGroups(out nodekind.FinalSink, n int) error {
	for i := 0; i < n; i++ {
		g := xpu.PreAggGroups{EntrySize: 16, NGroupsTotal: uint32(2 * n)}
		if err := out.Halfway(xpu.GroupsPayload{G: g, Entries: bytes.Repeat([]byte{byte(i)}, 32)}); err != nil {
			return err
		}
	}
	return nil
}

// TestTaskFinalWritesGroupsThenSuccess pipelines a session whose Final
// sends three groups payloads: they arrive whole, in order, with the
// TaskFinal's request id, before its Success; Final runs after the Exec
// and before Close.
func TestTaskFinalWritesGroupsThenSuccess(t *testing.T) {
	ex := &finalExecutor{}
	ex.final = func(out nodekind.FinalSink) error { return sendGroups(out, 3) }
	s := startExecServer(t, 4, ex)
	c := dial(t, s)
	batch := append(testSessionMsg(1), chunkMsg(2, 5, 2)...)
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
	if strings.Count(replies, "SuccessHalfway/3") != 3 || !strings.HasSuffix(replies, "SuccessHalfway/3 Success/3") || ngroups != 3 ||
		!strings.Contains(replies, "Success/1") || !strings.Contains(replies, "Success/2") {
		t.Fatalf("replies %s: want the three groups messages before TaskFinal's Success", replies)
	}
	if l := ex.eventLog(); l != "exec final close" {
		t.Fatalf("events %q, want exec, final, close", l)
	}
	if ex.open.Load() != 0 {
		t.Fatal("session not closed after TaskFinal")
	}
}

// TestTaskFinalErrors: a failing or malformed Final answers TaskFinal with
// an Error (after what it sent before failing), the session is still
// closed, and the connection serves a new session; a disconnect skips
// Final.
func TestTaskFinalErrors(t *testing.T) {
	ex := &finalExecutor{}
	var mode string
	var modeMu sync.Mutex
	ex.final = func(out nodekind.FinalSink) error {
		modeMu.Lock()
		defer modeMu.Unlock()
		switch mode {
		case "error":
			return errors.Join(sendGroups(out, 1), errors.New("download groups: CUDA_ERROR_ILLEGAL_ADDRESS"))
		case "oversized":
			out.Halfway(badPayload(int(protocol.MaxLength))) // the error ignored: the server remembers
			return nil
		case "negative":
			return out.Halfway(badPayload(-1))
		case "panic":
			panic("boom")
		}
		return nil
	}
	setMode := func(m string) { modeMu.Lock(); mode = m; modeMu.Unlock() }
	s := startExecServer(t, 2, ex)
	c := dial(t, s)
	cases := []errorCase{
		{"error", 1, protocol.ErrCodeDevice, "CUDA_ERROR_ILLEGAL_ADDRESS"},
		{"oversized", 0, protocol.ErrCodeInternal, "malformed reply: SuccessHalfway payload of"},
		{"negative", 0, protocol.ErrCodeInternal, "payload of -1 bytes"},
		{"panic", 0, protocol.ErrCodeDevice, "internal error in the session's Final: boom"},
	}
	for _, tc := range cases {
		setMode(tc.mode)
		expectSuccess(t, c, testSessionMsg(10))
		tc.check(t, requestReplies(t, c, protocol.EncodeRequest(protocol.TagTaskFinal, 11, nil)))
		if ex.open.Load() != 0 {
			t.Fatalf("%s: session left open", tc.mode)
		}
	}
	// No groups: a plain Success, exactly as a GpuScan session.
	setMode("")
	expectSuccess(t, c, testSessionMsg(12))
	if reply := expectSuccess(t, c, protocol.EncodeRequest(protocol.TagTaskFinal, 13, nil)); len(reply) != protocol.HeaderSize {
		t.Fatalf("TaskFinal without groups: %d bytes", len(reply))
	}
	finals := strings.Count(ex.eventLog(), "final")
	expectSuccess(t, c, testSessionMsg(14))
	c.Close()
	waitFor(t, "the disconnect to close the session", func() bool { return ex.open.Load() == 0 })
	if n := strings.Count(ex.eventLog(), "final"); n != finals {
		t.Fatalf("Final ran on a disconnect (%d calls, was %d)", n, finals)
	}
}
