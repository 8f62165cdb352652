//go:build gpu

package gpu

import (
	"net"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/pgstrom-go/pg_strom/gosvc/kinds"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/server"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// sharedPages puts pages at offset off of a new memfd of size bytes, as a
// backend does, and returns the descriptor.
func sharedPages(t *testing.T, size, off int, pages []byte) int {
	t.Helper()
	fd, err := unix.MemfdCreate("pg_strom-test-chunk", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		t.Fatalf("memfd_create: %v", err)
	}
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		t.Fatal(err)
	}
	if _, err := unix.Pwrite(fd, pages, int64(off)); err != nil {
		t.Fatal(err)
	}
	return fd
}

// TestExecutorSharedBuffer runs the chunk of TestExecutorGpuScan from a
// read-only memfd mapping pinned with PinHost: the pages go to the device
// by DMA from the mapping, and every result must match the inline path's.
func TestExecutorSharedBuffer(t *testing.T) {
	ex, pool := executorOnDevice0(t)
	pages, ntuples := scanPages()
	const size, off = 1 << 20, 3 * 8192
	fd := sharedPages(t, size, off, pages)
	defer unix.Close(fd)
	mem, err := unix.Mmap(fd, 0, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(mem)
	unpin, err := ex.(server.HostPinner).PinHost(mem)
	if err != nil {
		t.Fatalf("PinHost of a read-only shared mapping: %v", err)
	}
	chunk, err := xpu.ParseChunk(xputest.BufferChunkMessage(2, 77, 1, off, len(pages)/xpu.BlockSize))
	if err != nil {
		t.Fatal(err)
	}
	runScanCases(t, ex, pool, chunk, nodekind.Pages{Bytes: chunk.Pages(mem), Pinned: true}, ntuples)
	// Unpinned (pageable) use of the same mapping: the fallback.
	runScanCases(t, ex, pool, chunk, nodekind.Pages{Bytes: chunk.Pages(mem)}, ntuples)
	if err := unpin(); err != nil {
		t.Fatalf("unpin: %v", err)
	}
}

// TestServerSharedBufferOnGPU attaches a memfd over the device socket
// (SCM_RIGHTS) and runs a TaskExec whose pages are in it.
func TestServerSharedBufferOnGPU(t *testing.T) {
	ex, pool := executorOnDevice0(t)
	srv, err := server.New(server.Config{
		SocketPath: server.SocketPath(t.TempDir(), 1, 0), Workers: 4, Pool: pool, Executor: ex, Kinds: kinds.All(),
		Logger: zerolog.New(zerolog.NewTestWriter(t)),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c, err := net.Dial("unix", srv.SocketPath())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	uc := c.(*net.UnixConn)
	uc.SetDeadline(time.Now().Add(30 * time.Second))
	pages, _ := scanPages()
	const size, off = 32 << 20, 8192
	fd := sharedPages(t, size, off, pages)
	attach := protocol.EncodeAttachBuffer(1, 4, size)
	if _, _, err := uc.WriteMsgUnix(attach, unix.UnixRights(fd), nil); err != nil {
		t.Fatal(err)
	}
	unix.Close(fd) // the service holds its own descriptor now
	if reply, h, err := protocol.ReadMessage(uc, 0); err != nil || h.Tag != protocol.TagSuccess {
		e, _ := protocol.DecodeError(reply)
		t.Fatalf("AttachBuffer: %s %+v %v", h.Tag, e, err)
	}
	batch := append(programDiv(), xputest.BufferChunkMessage(2, 8, 4, off, len(pages)/xpu.BlockSize)...)
	batch = append(batch, protocol.EncodeRequest(protocol.TagTaskFinal, 3, nil)...)
	if _, err := uc.Write(batch); err != nil {
		t.Fatal(err)
	}
	expectDivSessionReplies(t, uc, "from a shared buffer", pool)
}
