package server

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// A zero-copy chunk on a device that registered no shared buffers is
// answered Unsupported (the backend then runs it on the CPU), and the
// connection stays open for the next chunk.
func TestSharedChunkUnsupportedWithoutRegistration(t *testing.T) {
	ex := &fakeExecutor{}
	s := startExecServer(t, 2, ex)
	c := dial(t, s)
	expectSuccess(t, c, sessionMsg(1))
	e := expectError(t, c, xputest.SharedChunkMessage(2, 7, []xputest.PageRef{xputest.AllVisibleRef(0, 1)}), protocol.ErrCodeUnsupported)
	if !strings.Contains(e.Message, "shared buffers") {
		t.Errorf("error %q does not say why", e.Message)
	}
	expectSuccess(t, c, chunkMsg(3, 8, 1))
	if n := ex.execs.Load(); n != 1 {
		t.Errorf("%d Exec calls, want 1 (the inline chunk only)", n)
	}
}

// With shared buffers registered, the refs reach the executor as they
// were sent (in nodekind.Pages.Refs, no page bytes), and a ref past the
// registered buffers is a protocol error that closes the connection before
// any executor sees it.
func TestSharedChunkRefsReachExecutor(t *testing.T) {
	var mu sync.Mutex
	var got []byte
	ex := &fakeExecutor{onExec: func(c xpu.Chunk, p nodekind.Pages) error {
		mu.Lock()
		defer mu.Unlock()
		if p.Bytes != nil || !c.Shared() {
			t.Errorf("shared chunk %+v with %d page bytes", c, len(p.Bytes))
		}
		got = bytes.Clone(p.Refs)
		return nil
	}}
	s := startSharedServer(t, 2, ex, 8)
	c := dial(t, s)
	expectSuccess(t, c, sessionMsg(1))
	refs := []xputest.PageRef{xputest.VisibleRef(7, 12, 2, 12), xputest.AllVisibleRef(0, 291)}
	msg := xputest.SharedChunkMessage(2, 7, refs)
	reply := expectSuccess(t, c, msg)
	res, items, err := xpu.DecodeChunkResult(reply)
	if err != nil || res.ChunkID != 7 || len(items) != 2 {
		t.Fatalf("result %+v items %v: %v", res, items, err)
	}
	mu.Lock()
	if want := msg[xputest.ChunkPagesOffset:]; !bytes.Equal(got, want) {
		t.Errorf("executor got refs % x, want % x", got, want)
	}
	mu.Unlock()

	bad := xputest.SharedChunkMessage(3, 8, []xputest.PageRef{xputest.AllVisibleRef(8, 1)})
	e := expectError(t, c, bad, protocol.ErrCodeProtocol)
	if !strings.Contains(e.Message, "names shared buffer 8, but there are 8") {
		t.Errorf("error %q", e.Message)
	}
	expectClosed(t, c)
	if n := ex.execs.Load(); n != 1 {
		t.Errorf("%d Exec calls, want 1", n)
	}
}
