package server

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/mempool"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
)

// probingExecutor is a fakeExecutor that also measures the link: it answers
// fixed times derived from its arguments, or err.
type probingExecutor struct {
	*fakeExecutor
	mu         sync.Mutex
	err        error
	zero       bool          // answer 0 ns
	delay      time.Duration // per probe
	calls      []string      // "bytes x copies"
	running    atomic.Int32
	maxRunning atomic.Int32
}

func (p *probingExecutor) ProbeLink(bytes uint64, copies int) (uint64, uint64, error) {
	n := p.running.Add(1)
	defer p.running.Add(-1)
	for m := p.maxRunning.Load(); n > m && !p.maxRunning.CompareAndSwap(m, n); m = p.maxRunning.Load() {
	}
	time.Sleep(p.delay)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, fmt.Sprintf("%d x %d", bytes, copies))
	if p.err != nil {
		return 0, 0, p.err
	}
	if p.zero {
		return 0, 0, nil
	}
	return bytes / 50 * uint64(copies), bytes / 40 * uint64(copies), nil
}

func (p *probingExecutor) setErr(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.err = err
}

func (p *probingExecutor) callLog() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.calls...)
}

// startProbeServer serves device 0 with ex.
func startProbeServer(t *testing.T, workers int, ex nodekind.Executor) *Server {
	t.Helper()
	return startExecServer(t, workers, ex)
}

func expectProbeReply(t *testing.T, c net.Conn, id uint32, bytes uint64, copies uint32) protocol.LinkProbeReply {
	t.Helper()
	reply, h := roundTrip(t, c, protocol.EncodeLinkProbe(id, bytes, copies))
	if h.Tag != protocol.TagSuccess || h.RequestID != id {
		e, _ := protocol.DecodeError(reply)
		t.Fatalf("reply %s for request %d (%+v), want Success for %d", h.Tag, h.RequestID, e, id)
	}
	r, err := protocol.DecodeLinkProbeReply(reply)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	want := protocol.LinkProbeReply{Copies: copies, Bytes: bytes, H2DNs: bytes / 50 * uint64(copies), D2HNs: bytes / 40 * uint64(copies)}
	if r != want {
		t.Fatalf("reply %+v, want %+v", r, want)
	}
	return r
}

func TestLinkProbeReply(t *testing.T) {
	ex := &probingExecutor{fakeExecutor: &fakeExecutor{}}
	s := startProbeServer(t, 2, ex)
	c := dial(t, s)
	expectProbeReply(t, c, 21, 256<<20, 8)
	expectProbeReply(t, c, 22, 1<<20, 1)
	expectProbeReply(t, c, 23, 1<<30, 64)
	// the connection stays usable for other requests
	if _, h := roundTrip(t, c, protocol.EncodeRequest(protocol.TagStatus, 24, nil)); h.Tag != protocol.TagSuccess {
		t.Fatalf("status after probes: %s", h.Tag)
	}
	if got := strings.Join(ex.callLog(), ", "); got != "268435456 x 8, 1048576 x 1, 1073741824 x 64" {
		t.Fatalf("executor calls: %s", got)
	}
	waitFor(t, "4 requests served", func() bool { return s.Stats().RequestsServed == 4 })
}

func TestLinkProbeBadPayloadsCloseWithProtocolError(t *testing.T) {
	ex := &probingExecutor{fakeExecutor: &fakeExecutor{}}
	s := startProbeServer(t, 2, ex)
	reserved := protocol.EncodeLinkProbe(1, 1<<20, 1)
	reserved[protocol.HeaderSize+12] = 1
	cases := map[string][]byte{
		"no payload":     protocol.EncodeRequest(protocol.TagLinkProbe, 1, nil),
		"short payload":  protocol.EncodeRequest(protocol.TagLinkProbe, 1, make([]byte, protocol.LinkProbeSize-1)),
		"long payload":   protocol.EncodeRequest(protocol.TagLinkProbe, 1, make([]byte, protocol.LinkProbeSize+8)),
		"zero bytes":     protocol.EncodeLinkProbe(1, 0, 1),
		"not 1MB steps":  protocol.EncodeLinkProbe(1, 1<<20+512, 1),
		"over 1GB":       protocol.EncodeLinkProbe(1, 2<<30, 1),
		"zero copies":    protocol.EncodeLinkProbe(1, 1<<20, 0),
		"65 copies":      protocol.EncodeLinkProbe(1, 1<<20, 65),
		"reserved not 0": reserved,
	}
	for name, msg := range cases {
		c := dial(t, s)
		e := expectError(t, c, msg, protocol.ErrCodeProtocol)
		if !strings.Contains(e.Message, "LinkProbe") {
			t.Errorf("%s: error message %q does not name the request", name, e.Message)
		}
		expectClosed(t, c)
	}
	if calls := ex.callLog(); len(calls) != 0 {
		t.Fatalf("the executor was called for bad requests: %v", calls)
	}
	// still serving
	expectProbeReply(t, dial(t, s), 5, 64<<20, 4)
}

func TestLinkProbeExecutorErrors(t *testing.T) {
	ex := &probingExecutor{fakeExecutor: &fakeExecutor{}}
	s := startProbeServer(t, 1, ex)
	c := dial(t, s)
	for _, tc := range []struct {
		err  error
		code int32
	}{
		{fmt.Errorf("device 0: link probe (1073741824 bytes): %w", mempool.ErrExhausted), protocol.ErrCodeNoMemory},
		{fmt.Errorf("link probe: %w", ErrNoMemory), protocol.ErrCodeNoMemory},
		{errors.New("cuMemcpyHtoDAsync: CUDA_ERROR_ILLEGAL_ADDRESS"), protocol.ErrCodeDevice},
	} {
		ex.setErr(tc.err)
		e := expectError(t, c, protocol.EncodeLinkProbe(7, 1<<30, 2), tc.code)
		if !strings.Contains(e.Message, "link probe") || !strings.Contains(e.Message, tc.err.Error()) {
			t.Errorf("error message %q lacks %q", e.Message, tc.err)
		}
	}
	// errors of the device keep the connection
	ex.setErr(nil)
	expectProbeReply(t, c, 8, 1<<20, 3)

	ex.mu.Lock()
	ex.zero = true
	ex.mu.Unlock()
	expectError(t, c, protocol.EncodeLinkProbe(9, 1<<20, 3), protocol.ErrCodeDevice)
}

func TestLinkProbeUnsupported(t *testing.T) {
	for name, ex := range map[string]nodekind.Executor{"no executor": nil, "executor without LinkProber": &fakeExecutor{}} {
		s := startProbeServer(t, 1, ex)
		c := dial(t, s)
		e := expectError(t, c, protocol.EncodeLinkProbe(3, 1<<20, 1), protocol.ErrCodeUnsupported)
		if !strings.Contains(e.Message, "link") {
			t.Errorf("%s: message %q", name, e.Message)
		}
		expectClosed(t, c)
	}
}

func TestLinkProbesAreSerialized(t *testing.T) {
	ex := &probingExecutor{fakeExecutor: &fakeExecutor{}, delay: 20 * time.Millisecond}
	s := startProbeServer(t, 8, ex)
	var wg sync.WaitGroup
	for i := 0; i < 6; i++ {
		c := dial(t, s)
		wg.Add(1)
		go func(id uint32) {
			defer wg.Done()
			if _, err := c.Write(protocol.EncodeLinkProbe(id, 2<<20, 2)); err != nil {
				t.Errorf("write: %v", err)
				return
			}
			reply, h, err := protocol.ReadMessage(c, 0)
			if err != nil || h.Tag != protocol.TagSuccess || h.RequestID != id {
				t.Errorf("probe %d: tag %s id %d, %v", id, h.Tag, h.RequestID, err)
				return
			}
			if _, err := protocol.DecodeLinkProbeReply(reply); err != nil {
				t.Errorf("probe %d: %v", id, err)
			}
		}(uint32(100 + i))
	}
	wg.Wait()
	if n := len(ex.callLog()); n != 6 {
		t.Fatalf("%d probes ran, want 6", n)
	}
	if m := ex.maxRunning.Load(); m != 1 {
		t.Fatalf("%d probes ran at once, want 1", m)
	}
}
