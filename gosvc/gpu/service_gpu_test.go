//go:build gpu

package gpu

import (
	"net"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pgstrom-go/pg_strom/gosvc/control"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/server"
	"github.com/pgstrom-go/pg_strom/gosvc/service"
)

// TestServiceOnRealGPU runs the whole service with the real backend: CONFIG
// -> fatbin built with nvcc -> READY -> Status over the device socket ->
// STOP.
func TestServiceOnRealGPU(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[1])
	tv := unix.Timeval{Sec: 300} // the first start may build the fatbin
	unix.SetsockoptTimeval(fds[1], unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	logR, logW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		buf := make([]byte, 65536)
		for {
			n, err := logR.Read(buf)
			if n > 0 {
				t.Logf("service log:\n%s", buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	done := make(chan int, 1)
	go func() {
		done <- service.Run(fds[0], int(logW.Fd()), NewBackend())
		unix.Close(fds[0])
		logW.Close()
	}()

	dataDir := t.TempDir()
	cfg := control.Config{
		SegmentSize: 256 << 20, MaxRatio: 0.5, MinRatio: 0.05, ReleaseDelay: 5 * time.Second,
		MaxAsyncTasks: 4, CudaStackLimit: 32 << 10, PostmasterPID: os.Getpid(),
		DataDir: dataDir, CudaToolkitBaseDir: toolkitDir(), KernelSourceDir: kernelDir(t),
		PrebuiltFatbin: os.Getenv("PGSTROM_FATBIN"),
	}
	if _, err := unix.Write(fds[1], control.EncodeConfig(cfg)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, control.MaxMessage)
	n, err := unix.Read(fds[1], buf)
	if err != nil {
		t.Fatalf("waiting for READY: %v", err)
	}
	m, err := control.DecodeServiceMessage(buf[:n])
	if err != nil {
		t.Fatal(err)
	}
	ready, ok := m.(control.ReadyMessage)
	if !ok {
		t.Fatalf("got %+v, want READY", m)
	}
	t.Logf("READY: %+v", ready)

	sock := server.SocketPath(dataDir, os.Getpid(), ready.Devices[0].Index)
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	c.Write(protocol.EncodeRequest(protocol.TagStatus, 1, nil))
	reply, h, err := protocol.ReadMessage(c, 0)
	c.Close()
	if err != nil || h.Tag != protocol.TagSuccess {
		t.Fatalf("status over %s: %v %v", sock, h.Tag, err)
	}
	st, _ := protocol.DecodeStatusReply(reply)
	t.Logf("status reply: %+v", st)
	if st.Workers != 4 || st.PoolLimit != ready.Devices[0].TotalMemory/2 {
		t.Fatalf("status %+v", st)
	}

	unix.Write(fds[1], control.EncodeStop())
	select {
	case code := <-done:
		if code != control.ExitStopped {
			t.Fatalf("Run returned %d", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("service did not stop")
	}
	if _, err := os.Lstat(sock); err == nil {
		t.Fatal("socket file left after STOP")
	}
}
