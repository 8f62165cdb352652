package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// pinningExecutor is a fakeExecutor that also pins host memory (or fails
// to, when told to), like the gpu package's executor.
type pinningExecutor struct {
	*fakeExecutor
	pinErr error
	pins   atomic.Int32
	unpins atomic.Int32
}

func (p *pinningExecutor) PinHost(mem []byte) (func() error, error) {
	if p.pinErr != nil {
		return nil, p.pinErr
	}
	if len(mem) == 0 || len(mem)%4096 != 0 {
		return nil, fmt.Errorf("fake: pin of %d bytes", len(mem))
	}
	p.pins.Add(1)
	var once atomic.Bool
	return func() error {
		if once.Swap(true) {
			return errors.New("fake: double unpin")
		}
		p.unpins.Add(1)
		return nil
	}, nil
}

// openFds counts this process's open descriptors.
func openFds(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents) - 1 // ReadDir's own descriptor
}

// memfdWith makes a memfd of size bytes holding data at off.
func memfdWith(t *testing.T, size, off int, data []byte) int {
	t.Helper()
	fd, err := unix.MemfdCreate("pg_strom-test", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		t.Fatalf("memfd_create: %v", err)
	}
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		t.Fatal(err)
	}
	if len(data) > 0 {
		if _, err := unix.Pwrite(fd, data, int64(off)); err != nil {
			t.Fatal(err)
		}
	}
	return fd
}

// sendWithFds writes msg with fds as SCM_RIGHTS (none when fds is empty);
// the caller keeps its own copies of the descriptors and closes them.
func sendWithFds(t *testing.T, c net.Conn, msg []byte, fds ...int) {
	t.Helper()
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	n, oobn, err := c.(*net.UnixConn).WriteMsgUnix(msg, oob, nil)
	if err != nil || n != len(msg) || oobn != len(oob) {
		t.Fatalf("sendmsg: %d/%d bytes, %d/%d ancillary, %v", n, len(msg), oobn, len(oob), err)
	}
}

// attach sends ATTACH_BUFFER with a new memfd and returns the reply.
func attach(t *testing.T, c net.Conn, reqID, bufID uint32, size, fileSize int, data []byte, dataOff int) ([]byte, protocol.Header) {
	t.Helper()
	fd := memfdWith(t, fileSize, dataOff, data)
	defer unix.Close(fd)
	sendWithFds(t, c, protocol.EncodeAttachBuffer(reqID, bufID, uint64(size)), fd)
	reply, h, err := protocol.ReadMessage(c, 0)
	if err != nil {
		t.Fatalf("AttachBuffer reply: %v", err)
	}
	return reply, h
}

func expectAttached(t *testing.T, c net.Conn, reqID, bufID uint32, size int, data []byte, dataOff int) {
	t.Helper()
	reply, h := attach(t, c, reqID, bufID, size, size, data, dataOff)
	if h.Tag != protocol.TagSuccess || h.RequestID != reqID || len(reply) != protocol.HeaderSize {
		e, _ := protocol.DecodeError(reply)
		t.Fatalf("AttachBuffer %d: %s %+v, want an empty Success", bufID, h.Tag, e)
	}
}

func expectErrorReply(t *testing.T, reply []byte, h protocol.Header, wantCode int32, substr string) {
	t.Helper()
	if h.Tag != protocol.TagError {
		t.Fatalf("reply %s, want Error %d", h.Tag, wantCode)
	}
	e, err := protocol.DecodeError(reply)
	if err != nil || e.Code != wantCode || !strings.Contains(e.Message, substr) {
		t.Fatalf("error %+v (%v), want code %d containing %q", e, err, wantCode, substr)
	}
}

// pagePattern fills n blocks with bytes that identify block and position.
func pagePattern(n int, seed byte) []byte {
	b := make([]byte, n*xpu.BlockSize)
	for i := range b {
		b[i] = byte(i/xpu.BlockSize)*31 + byte(i%251) + seed
	}
	return b
}

func TestSharedBufferTaskExec(t *testing.T) {
	for _, pinning := range []bool{true, false} {
		t.Run(fmt.Sprintf("pinning=%v", pinning), func(t *testing.T) {
			fake := &fakeExecutor{}
			var got sync.Map // chunk id -> Pages seen by Exec (bytes copied)
			fake.onExec = func(c xpu.Chunk, p nodekind.Pages) error {
				got.Store(c.ChunkID, nodekind.Pages{Bytes: append([]byte(nil), p.Bytes...), Pinned: p.Pinned})
				return nil
			}
			var ex nodekind.Executor = fake
			pex := &pinningExecutor{fakeExecutor: fake}
			if pinning {
				ex = pex
			}
			s := startExecServer(t, 4, ex)
			before := openFds(t)
			c := dial(t, s)
			const size = 1 << 20
			pages1 := pagePattern(5, 1)
			pages2 := pagePattern(3, 7)
			expectAttached(t, c, 1, 1, size, pages1, 4096+16)
			expectAttached(t, c, 2, 9, 2*size, pages2, size+8192)
			expectSuccess(t, c, sessionMsg(3))
			// Pipelined: both chunks, an inline one, then TaskFinal.
			batch := xputest.BufferChunkMessage(4, 100, 1, 4096+16, 5)
			batch = append(batch, xputest.BufferChunkMessage(5, 200, 9, size+8192, 3)...)
			inline := pagePattern(2, 3)
			batch = append(batch, xputest.ChunkMessage(6, 300, inline)...)
			batch = append(batch, protocol.EncodeRequest(protocol.TagTaskFinal, 7, nil)...)
			if _, err := c.Write(batch); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 4; i++ {
				reply, h, err := protocol.ReadMessage(c, 0)
				if err != nil {
					t.Fatal(err)
				}
				if h.Tag != protocol.TagSuccess {
					e, _ := protocol.DecodeError(reply)
					t.Fatalf("request %d: %s %+v", h.RequestID, h.Tag, e)
				}
			}
			for _, want := range []struct {
				chunk  uint32
				pages  []byte
				pinned bool
			}{{100, pages1, pinning}, {200, pages2, pinning}, {300, inline, false}} {
				v, ok := got.Load(want.chunk)
				if !ok {
					t.Fatalf("chunk %d never reached the executor", want.chunk)
				}
				p := v.(nodekind.Pages)
				if !bytes.Equal(p.Bytes, want.pages) || p.Pinned != want.pinned {
					t.Errorf("chunk %d: %d bytes (equal %v), pinned %v; want %d bytes, pinned %v",
						want.chunk, len(p.Bytes), bytes.Equal(p.Bytes, want.pages), p.Pinned, len(want.pages), want.pinned)
				}
			}
			if pinning && pex.pins.Load() != 2 {
				t.Fatalf("%d buffers pinned, want 2", pex.pins.Load())
			}
			c.Close()
			waitFor(t, "the buffers to be released", func() bool {
				return s.Stats().Connections == 0 && pex.unpins.Load() == pex.pins.Load() && openFds(t) <= before
			})
			if n := openFds(t); n != before {
				t.Fatalf("%d descriptors open after the connection closed, %d before", n, before)
			}
		})
	}
}

// TestSharedBufferReusedAcrossTasks checks the executor reads the buffer
// as it is when the TaskExec arrives, so a backend can refill it.
func TestSharedBufferReusedAcrossTasks(t *testing.T) {
	fake := &fakeExecutor{}
	var mu sync.Mutex
	var seen [][]byte
	fake.onExec = func(c xpu.Chunk, p nodekind.Pages) error {
		mu.Lock()
		seen = append(seen, append([]byte(nil), p.Bytes...))
		mu.Unlock()
		return nil
	}
	s := startExecServer(t, 2, fake)
	c := dial(t, s)
	fd := memfdWith(t, 1<<16, 0, nil)
	defer unix.Close(fd)
	sendWithFds(t, c, protocol.EncodeAttachBuffer(1, 1, 1<<16), fd)
	if _, h, err := protocol.ReadMessage(c, 0); err != nil || h.Tag != protocol.TagSuccess {
		t.Fatalf("attach: %s %v", h.Tag, err)
	}
	expectSuccess(t, c, sessionMsg(2))
	for i := 0; i < 3; i++ {
		data := pagePattern(2, byte(40*i))
		if _, err := unix.Pwrite(fd, data, 8192); err != nil {
			t.Fatal(err)
		}
		expectSuccess(t, c, xputest.BufferChunkMessage(uint32(10+i), uint32(i), 1, 8192, 2))
		mu.Lock()
		ok := len(seen) == i+1 && bytes.Equal(seen[i], data)
		mu.Unlock()
		if !ok {
			t.Fatalf("task %d did not see the buffer's current contents", i)
		}
	}
}

func TestSharedBufferPinFailureFallsBack(t *testing.T) {
	fake := &fakeExecutor{}
	var pinned atomic.Int32
	fake.onExec = func(c xpu.Chunk, p nodekind.Pages) error {
		if p.Pinned {
			pinned.Add(1)
		}
		return nil
	}
	s := startExecServer(t, 2, &pinningExecutor{fakeExecutor: fake, pinErr: errors.New("no pinning today")})
	c := dial(t, s)
	expectAttached(t, c, 1, 1, 1<<16, pagePattern(1, 0), 0)
	expectAttached(t, c, 2, 2, 1<<16, pagePattern(1, 0), 0)
	expectSuccess(t, c, sessionMsg(3))
	expectSuccess(t, c, xputest.BufferChunkMessage(4, 1, 2, 0, 1))
	if pinned.Load() != 0 || fake.execs.Load() != 1 {
		t.Fatalf("pinned %d, execs %d: want one pageable Exec", pinned.Load(), fake.execs.Load())
	}
}

func TestSharedBufferMmapFailureKeepsConnection(t *testing.T) {
	s := startExecServer(t, 2, &fakeExecutor{})
	before := openFds(t)
	c := dial(t, s)
	// A write-only regular file passes fstat but cannot be mapped for reading.
	path := filepath.Join(t.TempDir(), "wronly")
	if err := os.WriteFile(path, make([]byte, 8192), 0o600); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	sendWithFds(t, c, protocol.EncodeAttachBuffer(1, 1, 8192), fd)
	unix.Close(fd)
	reply, h, err := protocol.ReadMessage(c, 0)
	if err != nil {
		t.Fatal(err)
	}
	expectErrorReply(t, reply, h, protocol.ErrCodeDevice, "mmap")
	// The connection stays usable, and buffer 1 is not attached.
	expectSuccess(t, c, protocol.EncodeRequest(protocol.TagStatus, 2, nil))
	expectSuccess(t, c, sessionMsg(3))
	expectError(t, c, xputest.BufferChunkMessage(4, 1, 1, 0, 1), protocol.ErrCodeProtocol)
	expectClosed(t, c)
	c.Close()
	waitFor(t, "descriptors to be closed", func() bool { return s.Stats().Connections == 0 && openFds(t) <= before })
}

func TestSharedBufferBadAttach(t *testing.T) {
	const size = 1 << 16
	cases := []struct {
		name   string
		substr string
		run    func(t *testing.T, c net.Conn) ([]byte, protocol.Header)
	}{
		{"no descriptor", "no file descriptor", func(t *testing.T, c net.Conn) ([]byte, protocol.Header) {
			return roundTrip(t, c, protocol.EncodeAttachBuffer(1, 1, size))
		}},
		{"buffer id 0", "buffer_id 0", func(t *testing.T, c net.Conn) ([]byte, protocol.Header) {
			return attach(t, c, 1, 0, size, size, nil, 0)
		}},
		{"duplicate id", "already attached", func(t *testing.T, c net.Conn) ([]byte, protocol.Header) {
			expectAttached(t, c, 1, 3, size, nil, 0)
			return attach(t, c, 2, 3, size, size, nil, 0)
		}},
		{"size beyond the file", "the file has only", func(t *testing.T, c net.Conn) ([]byte, protocol.Header) {
			return attach(t, c, 1, 1, 2*size, size, nil, 0)
		}},
		{"size not a multiple of 4096", "size 4097", func(t *testing.T, c net.Conn) ([]byte, protocol.Header) {
			return attach(t, c, 1, 1, 4097, 8192, nil, 0)
		}},
		{"size 0", "size 0", func(t *testing.T, c net.Conn) ([]byte, protocol.Header) {
			return attach(t, c, 1, 1, 0, 8192, nil, 0)
		}},
		{"size over 1GB", "size 1073745920", func(t *testing.T, c net.Conn) ([]byte, protocol.Header) {
			return attach(t, c, 1, 1, 1<<30+4096, 8192, nil, 0)
		}},
		{"too many buffers", "maximum of 16", func(t *testing.T, c net.Conn) ([]byte, protocol.Header) {
			for i := 1; i <= protocol.MaxBuffersPerConnection; i++ {
				expectAttached(t, c, uint32(i), uint32(i), 4096, nil, 0)
			}
			return attach(t, c, 99, 99, 4096, 4096, nil, 0)
		}},
		{"not a file", "the file has only 0 bytes", func(t *testing.T, c net.Conn) ([]byte, protocol.Header) {
			var p [2]int
			if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
				t.Fatal(err)
			}
			defer unix.Close(p[0])
			defer unix.Close(p[1])
			sendWithFds(t, c, protocol.EncodeAttachBuffer(1, 1, 4096), p[0])
			reply, h, err := protocol.ReadMessage(c, 0)
			if err != nil {
				t.Fatal(err)
			}
			return reply, h
		}},
		{"two descriptors, one consumed, then none", "no file descriptor", func(t *testing.T, c net.Conn) ([]byte, protocol.Header) {
			// Both descriptors ride on one message: the first attach takes
			// one, the second takes the other, the third has none.
			fd1, fd2 := memfdWith(t, size, 0, nil), memfdWith(t, size, 0, nil)
			defer unix.Close(fd1)
			defer unix.Close(fd2)
			sendWithFds(t, c, protocol.EncodeAttachBuffer(1, 1, size), fd1, fd2)
			if _, h, err := protocol.ReadMessage(c, 0); err != nil || h.Tag != protocol.TagSuccess {
				t.Fatalf("first attach: %s %v", h.Tag, err)
			}
			expectSuccess(t, c, protocol.EncodeAttachBuffer(2, 2, size))
			return roundTrip(t, c, protocol.EncodeAttachBuffer(3, 3, size))
		}},
		{"unknown buffer in TaskExec", "has not attached", func(t *testing.T, c net.Conn) ([]byte, protocol.Header) {
			expectAttached(t, c, 1, 1, size, nil, 0)
			expectSuccess(t, c, sessionMsg(2))
			return roundTrip(t, c, xputest.BufferChunkMessage(3, 1, 2, 0, 1))
		}},
		{"pages beyond the buffer", "beyond the 65536 bytes", func(t *testing.T, c net.Conn) ([]byte, protocol.Header) {
			expectAttached(t, c, 1, 1, size, nil, 0)
			expectSuccess(t, c, sessionMsg(2))
			return roundTrip(t, c, xputest.BufferChunkMessage(3, 1, 1, size-8192+16, 1))
		}},
		{"buffer chunk with trailing pages", "bytes after XpuChunk", func(t *testing.T, c net.Conn) ([]byte, protocol.Header) {
			expectAttached(t, c, 1, 1, size, nil, 0)
			expectSuccess(t, c, sessionMsg(2))
			msg := xputest.PutU32(chunkMsg(3, 1, 1), xpu.OffChunkBufferID, 1)
			return roundTrip(t, c, msg)
		}},
		{"attach payload too short", "payload is 8 bytes", func(t *testing.T, c net.Conn) ([]byte, protocol.Header) {
			return roundTrip(t, c, protocol.EncodeRequest(protocol.TagAttachBuffer, 1, make([]byte, 8)))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := startExecServer(t, 2, &pinningExecutor{fakeExecutor: &fakeExecutor{}})
			before := openFds(t)
			c := dial(t, s)
			reply, h := tc.run(t, c)
			expectErrorReply(t, reply, h, protocol.ErrCodeProtocol, tc.substr)
			expectClosed(t, c)
			c.Close()
			waitFor(t, "descriptors to be closed", func() bool { return s.Stats().Connections == 0 && openFds(t) <= before })
		})
	}
}

// TestUnconsumedDescriptors: descriptors sent with other requests wait in
// the FIFO and are closed with the connection; too many of them close it.
func TestUnconsumedDescriptors(t *testing.T) {
	s := startExecServer(t, 2, &fakeExecutor{})
	fd := memfdWith(t, 4096, 0, nil)
	defer unix.Close(fd)
	before := openFds(t)
	c := dial(t, s)
	for i := 0; i < 3; i++ {
		sendWithFds(t, c, protocol.EncodeRequest(protocol.TagStatus, uint32(i), nil), fd)
		if _, h, err := protocol.ReadMessage(c, 0); err != nil || h.Tag != protocol.TagSuccess {
			t.Fatalf("status: %s %v", h.Tag, err)
		}
	}
	c.Close()
	waitFor(t, "descriptors to be closed", func() bool { return s.Stats().Connections == 0 && openFds(t) <= before })

	c = dial(t, s)
	var reply []byte
	var h protocol.Header
	for i := 0; ; i++ {
		if i > maxPendingFds+1 {
			t.Fatalf("%d unconsumed descriptors accepted", i)
		}
		// Once the limit is passed, the service answers Error and closes
		// without waiting for more, so this send may fail.
		c.(*net.UnixConn).WriteMsgUnix(protocol.EncodeRequest(protocol.TagStatus, uint32(i), nil), unix.UnixRights(fd), nil)
		var err error
		reply, h, err = protocol.ReadMessage(c, 0)
		if err != nil {
			t.Fatal(err)
		}
		if h.Tag != protocol.TagSuccess {
			break
		}
	}
	expectErrorReply(t, reply, h, protocol.ErrCodeProtocol, "descriptors")
	if _, _, err := protocol.ReadMessage(c, 0); !errors.Is(err, io.EOF) && !errors.Is(err, unix.ECONNRESET) {
		t.Fatalf("after the error reply: read = %v, want the connection closed", err)
	}
	c.Close()
	waitFor(t, "descriptors to be closed", func() bool { return s.Stats().Connections == 0 && openFds(t) <= before })
}
