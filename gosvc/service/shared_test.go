package service

import (
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/control"
	"github.com/pgstrom-go/pg_strom/gosvc/hostexec"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/server"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// The zero-copy path end to end without a GPU: the host executor
// registers a fake shared buffer region from the configuration, READY
// reports it, and a shared chunk over the socket is gathered by address
// with its refs applied (invisible rows and rows past nlines never match).
func TestRunZeroCopyThroughHostExecutor(t *testing.T) {
	t.Setenv(hostexec.EnvVar, "1")
	region, err := xputest.NewRegion(4)
	if err != nil {
		t.Fatal(err)
	}
	defer region.Close()
	copy(region.Page(1), xputest.Int4Page(0, 20))
	copy(region.Page(3), xputest.Int4Page(100, 110))

	h := startRun(t, hostexec.NewBackend())
	cfg := testConfig(t, "PREBUILT")
	cfg.SharedBase = uint64(region.Shared().Base)
	cfg.SharedNBuffers = 4
	cfg.SharedBlockSize = uint32(xpu.BlockSize)
	h.send(control.EncodeConfig(cfg))
	ready, ok := h.recv().(control.ReadyMessage)
	if !ok {
		t.Fatalf("first message is not READY; log:\n%s", h.logText())
	}
	if d := ready.Devices[0]; d.SharedRegistered != 4*uint64(xpu.BlockSize) || d.SharedReason != "" {
		t.Fatalf("READY device %+v, want all 4 shared buffers registered", d)
	}

	c, err := net.Dial("unix", server.SocketPath(cfg.DataDir, 4242, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	b := xputest.New()
	b.Attr(4, 4, true, xpu.TypeInt4)
	b.Op(xpu.OpGe, xpu.TypeBool, b.Var(0, xpu.TypeInt4), b.ConstInt4(5))
	request := func(msg []byte) []byte {
		t.Helper()
		if _, err := c.Write(msg); err != nil {
			t.Fatal(err)
		}
		reply, hdr, err := protocol.ReadMessage(c, 0)
		if err != nil || hdr.Tag != protocol.TagSuccess {
			e, _ := protocol.DecodeError(reply)
			t.Fatalf("reply %v %+v: %v", hdr.Tag, e, err)
		}
		return reply
	}
	request(b.Message(1))
	// block 0: buffer 3, all visible, cut at 8 of its 10 tuples;
	// block 1: buffer 1, offsets 2, 6, 7 and 20 visible (values 1, 5, 6, 19)
	refs := []xputest.PageRef{xputest.AllVisibleRef(3, 8), xputest.VisibleRef(1, 20, 2, 6, 7, 20)}
	res, items, err := xpu.DecodeChunkResult(request(xputest.SharedChunkMessage(2, 44, refs)))
	if err != nil {
		t.Fatal(err)
	}
	var want []uint32
	for off := 1; off <= 8; off++ {
		want = append(want, xputest.Item(0, off, false))
	}
	want = append(want, xputest.Item(1, 6, false), xputest.Item(1, 7, false), xputest.Item(1, 20, false))
	if res.ChunkID != 44 || res.NTuples != 12 || !slices.Equal(items, want) {
		t.Fatalf("result %+v items %v, want 12 tuples and %v", res, items, want)
	}
	request(protocol.EncodeRequest(protocol.TagTaskFinal, 3, nil))

	h.send(control.EncodeStop())
	if code := h.wait(); code != control.ExitStopped {
		t.Fatalf("Run returned %d, want %d", code, control.ExitStopped)
	}
	h.expectLog("shared buffers registered for zero-copy: 4 buffers")
}

// A backend that cannot register, or a configuration the kernels cannot
// use, is no failure: READY says why and the log has it at WARNING.
func TestRunSharedNotRegistered(t *testing.T) {
	for _, c := range []struct {
		name, reason string
		blockSize    uint32
		logged       bool
	}{
		{"not a registrar", "this backend cannot register host memory", 8192, true},
		{"block size", "shared_block_size is 16384", 16384, true},
		{"none offered", "offered no shared buffers", 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := startRun(t, newFakeBackend(1))
			cfg := testConfig(t, "PREBUILT")
			if c.blockSize != 0 {
				cfg.SharedBase, cfg.SharedNBuffers, cfg.SharedBlockSize = 1<<30, 16, c.blockSize
			}
			h.send(control.EncodeConfig(cfg))
			ready, ok := h.recv().(control.ReadyMessage)
			if !ok {
				t.Fatalf("first message is not READY; log:\n%s", h.logText())
			}
			if d := ready.Devices[0]; d.SharedRegistered != 0 || !strings.Contains(d.SharedReason, c.reason) {
				t.Fatalf("READY device %+v, want reason %q", d, c.reason)
			}
			h.send(control.EncodeStop())
			h.wait()
			logged := false
			for _, l := range strings.Split(h.logText(), "\n") {
				logged = logged || strings.Contains(l, "|WARNING|") && strings.Contains(l, "not registered")
			}
			if logged != c.logged {
				t.Errorf("WARNING logged %v, want %v; log:\n%s", logged, c.logged, h.logText())
			}
		})
	}
}
