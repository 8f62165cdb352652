package service

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pgstrom-go/pg_strom/gosvc/control"
	"github.com/pgstrom-go/pg_strom/gosvc/fatbin"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/server"
)

// harness plays the supervisor: it owns the other end of the control
// socketpair and drains the log pipe.
type harness struct {
	t       *testing.T
	sup     int // supervisor's control fd
	done    chan int
	logMu   sync.Mutex
	logs    []string
	logDone chan struct{}
}

func shortTimings(t *testing.T, cfgTimeout time.Duration) {
	oldCfg, oldStatus := configTimeout, statusInterval
	configTimeout, statusInterval = cfgTimeout, 50*time.Millisecond
	t.Cleanup(func() { configTimeout, statusInterval = oldCfg, oldStatus })
}

// startRun starts Run on a goroutine with a real socketpair and a real pipe.
func startRun(t *testing.T, backend Backend) *harness {
	t.Helper()
	return startRunTimeout(t, backend, 2*time.Second)
}

func startRunTimeout(t *testing.T, backend Backend, cfgTimeout time.Duration) *harness {
	t.Helper()
	shortTimings(t, cfgTimeout)
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	tv := unix.Timeval{Sec: 10}
	if err := unix.SetsockoptTimeval(fds[1], unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		t.Fatal(err)
	}
	logR, logW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, sup: fds[1], done: make(chan int, 1), logDone: make(chan struct{})}
	go func() {
		defer close(h.logDone)
		sc := bufio.NewScanner(logR)
		for sc.Scan() {
			h.logMu.Lock()
			h.logs = append(h.logs, sc.Text())
			h.logMu.Unlock()
		}
	}()
	go func() {
		code := Run(fds[0], int(logW.Fd()), backend)
		// The launcher would exit now; close what it owned.
		unix.Close(fds[0])
		logW.Close()
		h.done <- code
	}()
	t.Cleanup(func() {
		unix.Close(h.sup)
		select {
		case <-h.done:
		case <-time.After(5 * time.Second):
			t.Error("Run did not return after the supervisor closed the channel")
		}
		logR.Close()
	})
	return h
}

func (h *harness) send(msg []byte) {
	h.t.Helper()
	if _, err := unix.Write(h.sup, msg); err != nil {
		h.t.Fatalf("supervisor send: %v", err)
	}
}

func (h *harness) recv() any {
	h.t.Helper()
	buf := make([]byte, control.MaxMessage)
	n, err := unix.Read(h.sup, buf)
	if err != nil {
		h.t.Fatalf("supervisor receive: %v\nlog:\n%s", err, h.logText())
	}
	m, err := control.DecodeServiceMessage(buf[:n])
	if err != nil {
		h.t.Fatalf("decode service message: %v", err)
	}
	return m
}

// recvStatusUntil reads messages until a STATUS satisfies ok.
func (h *harness) recvStatusUntil(what string, ok func(control.Stats) bool) control.Stats {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		m := h.recv()
		st, isStatus := m.(control.StatusMessage)
		if !isStatus {
			h.t.Fatalf("waiting for %s: got %T %+v", what, m, m)
		}
		if ok(st.Stats) {
			return st.Stats
		}
	}
	h.t.Fatalf("no STATUS with %s", what)
	return control.Stats{}
}

func (h *harness) wait() int {
	h.t.Helper()
	select {
	case code := <-h.done:
		<-h.logDone // the pipe is closed: every line is in
		h.done <- code
		return code
	case <-time.After(10 * time.Second):
		h.t.Fatal("Run did not return")
		return -1
	}
}

func (h *harness) logText() string {
	h.logMu.Lock()
	defer h.logMu.Unlock()
	return strings.Join(h.logs, "\n")
}

func (h *harness) expectLog(substr string) {
	h.t.Helper()
	if !strings.Contains(h.logText(), substr) {
		h.t.Errorf("log lacks %q; log:\n%s", substr, h.logText())
	}
}

// testConfig prepares a data directory, a kernel source directory and a
// prebuilt fatbin recorded as make records it, so no nvcc is needed.
func testConfig(t *testing.T, prebuiltImage string) control.Config {
	t.Helper()
	dataDir := t.TempDir()
	kdir := t.TempDir()
	if err := os.WriteFile(filepath.Join(kdir, "pg_strom_kernels.cu"), []byte("// kernels\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prebuilt := filepath.Join(t.TempDir(), "pg_strom_kernels.fatbin")
	if err := os.WriteFile(prebuilt, []byte(prebuiltImage), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := fatbin.WriteManifest(prebuilt, kdir, nil); err != nil {
		t.Fatal(err)
	}
	return control.Config{
		SegmentSize:        256 << 20,
		MaxRatio:           0.5,
		MinRatio:           0.05,
		ReleaseDelay:       5 * time.Second,
		MaxAsyncTasks:      4,
		CudaStackLimit:     32 << 10,
		PostmasterPID:      4242,
		DataDir:            dataDir,
		CudaToolkitBaseDir: filepath.Join(t.TempDir(), "no-cuda"),
		KernelSourceDir:    kdir,
		PrebuiltFatbin:     prebuilt,
	}
}

func statusOverSocket(t *testing.T, path string) protocol.StatusReply {
	t.Helper()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatalf("dial %s: %v", path, err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write(protocol.EncodeRequest(protocol.TagStatus, 7, nil)); err != nil {
		t.Fatal(err)
	}
	reply, h, err := protocol.ReadMessage(c, 0)
	if err != nil || h.Tag != protocol.TagSuccess {
		t.Fatalf("status reply: tag %v, %v", h.Tag, err)
	}
	st, err := protocol.DecodeStatusReply(reply)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestRunLifecycle(t *testing.T) {
	backend := newFakeBackend(2)
	h := startRun(t, backend)
	cfg := testConfig(t, "PREBUILT")
	h.send(control.EncodeConfig(cfg))

	ready, ok := h.recv().(control.ReadyMessage)
	if !ok {
		t.Fatalf("first message is not READY; log:\n%s", h.logText())
	}
	want := backend.devs[1]
	want.SharedReason = "the supervisor offered no shared buffers"
	if len(ready.Devices) != 2 || ready.Devices[1] != want {
		t.Fatalf("READY devices %+v, want the backend's", ready.Devices)
	}
	if filepath.Dir(ready.FatbinPath) != filepath.Join(cfg.DataDir, fatbin.CacheDirName) {
		t.Fatalf("READY fatbin %s is not in the cache dir", ready.FatbinPath)
	}
	loads, _, stack := backend.snapshot()
	if len(loads) != 2 || loads[0] != "PREBUILT" || stack[0] != 32<<10 || stack[1] != 32<<10 {
		t.Fatalf("loads %q, stack limits %v; want the prebuilt image on 2 devices with 32kB stacks", loads, stack)
	}
	backend.mu.Lock()
	executors := fmt.Sprint(backend.executors)
	backend.mu.Unlock()
	if executors != "[0 1]" {
		t.Fatalf("executors asked for devices %s, want [0 1]", executors)
	}

	sockets := []string{server.SocketPath(cfg.DataDir, 4242, 0), server.SocketPath(cfg.DataDir, 4242, 1)}
	for _, p := range sockets {
		if st, err := os.Stat(p); err != nil || st.Mode().Type() != os.ModeSocket {
			t.Fatalf("socket %s: %v", p, err)
		}
	}
	if st := statusOverSocket(t, sockets[1]); st.DeviceIndex != 1 || st.Workers != 4 || st.PoolLimit != 8<<30 {
		t.Fatalf("status over the socket: %+v", st)
	}

	h.recvStatusUntil("4 workers on 2 devices", func(s control.Stats) bool {
		return len(s.Devices) == 2 && s.Devices[0].Workers == 4 && s.Devices[1].PoolLimit == 8<<30
	})

	// Reload: more workers, a lower pool cap, debug on; no restart.
	cfg2 := cfg
	cfg2.MaxAsyncTasks = 7
	cfg2.MaxRatio = 0.25
	cfg2.Debug = true
	h.send(control.EncodeConfig(cfg2))
	h.recvStatusUntil("7 workers and a 4GB cap", func(s control.Stats) bool {
		return len(s.Devices) == 2 && s.Devices[0].Workers == 7 && s.Devices[1].Workers == 7 &&
			s.Devices[0].PoolLimit == 4<<30
	})
	if st := statusOverSocket(t, sockets[0]); st.Workers != 7 {
		t.Fatalf("after reload, status over the socket reports %d workers, want 7", st.Workers)
	}

	h.send(control.EncodeStop())
	if code := h.wait(); code != control.ExitStopped {
		t.Fatalf("Run returned %d, want %d", code, control.ExitStopped)
	}
	for _, p := range sockets {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("socket %s still exists after STOP: %v", p, err)
		}
	}
	if _, closed, _ := backend.snapshot(); !closed {
		t.Error("backend not closed after STOP")
	}
	h.expectLog("|LOG|")
	h.expectLog("kernels fatbin " + ready.FatbinPath + " (prebuilt)")
	h.expectLog("GPU1|LOG|")
	h.expectLog("listening on " + sockets[1])
	h.expectLog("max_async_tasks changed: 4 -> 7")
	h.expectLog("memory pool settings changed")
	h.expectLog("stop requested")
	t.Logf("service log:\n%s", h.logText())
}

func TestRunRebuildsWhenALoadFails(t *testing.T) {
	backend := newFakeBackend(2)
	backend.rejectImage = "OLD ARCH"
	var nvccArgs []string
	buildRunner = func(_ context.Context, name string, args ...string) ([]byte, error) {
		nvccArgs = append([]string{name}, args...)
		for i, a := range args {
			if a == "-o" {
				return nil, os.WriteFile(args[i+1], []byte("NEW BUILD"), 0o600)
			}
		}
		return nil, errors.New("no -o")
	}
	t.Cleanup(func() { buildRunner = nil })

	h := startRun(t, backend)
	cfg := testConfig(t, "OLD ARCH")
	cfg.CudaToolkitBaseDir = t.TempDir()
	os.MkdirAll(filepath.Join(cfg.CudaToolkitBaseDir, "bin"), 0o755)
	os.WriteFile(filepath.Join(cfg.CudaToolkitBaseDir, "bin", "nvcc"), nil, 0o755)
	h.send(control.EncodeConfig(cfg))

	ready, ok := h.recv().(control.ReadyMessage)
	if !ok {
		t.Fatalf("no READY after a rebuild; log:\n%s", h.logText())
	}
	loads, _, _ := backend.snapshot()
	if want := []string{"OLD ARCH", "NEW BUILD", "NEW BUILD"}; strings.Join(loads, ",") != strings.Join(want, ",") {
		t.Fatalf("loads %q, want %q", loads, want)
	}
	if b, _ := os.ReadFile(ready.FatbinPath); string(b) != "NEW BUILD" {
		t.Fatalf("cached fatbin holds %q, want the rebuilt one", b)
	}
	joined := strings.Join(nvccArgs, " ")
	if !strings.Contains(joined, "arch=compute_90,code=sm_90") || !strings.Contains(joined, "arch=compute_91,code=compute_91") {
		t.Fatalf("nvcc args %q lack the devices' architectures", joined)
	}
	h.send(control.EncodeStop())
	if code := h.wait(); code != control.ExitStopped {
		t.Fatalf("Run returned %d", code)
	}
	h.expectLog("rebuilding the fatbin")
}

func expectFatal(t *testing.T, h *harness, substr string) {
	t.Helper()
	fatal, ok := h.recv().(control.FatalMessage)
	if !ok || !strings.Contains(fatal.Reason, substr) {
		t.Fatalf("got %+v, want FATAL containing %q", fatal, substr)
	}
	if code := h.wait(); code != control.ExitFailed {
		t.Fatalf("Run returned %d, want %d", code, control.ExitFailed)
	}
	h.expectLog("|WARNING|")
}

func TestRunFatalWithoutConfig(t *testing.T) {
	h := startRunTimeout(t, newFakeBackend(1), 100*time.Millisecond)
	expectFatal(t, h, "no configuration")
}

func TestRunFatalWithoutDevices(t *testing.T) {
	h := startRun(t, newFakeBackend(0))
	h.send(control.EncodeConfig(testConfig(t, "PREBUILT")))
	expectFatal(t, h, "no GPU devices")
}

func TestRunFatalWhenNvccMissing(t *testing.T) {
	backend := newFakeBackend(1)
	h := startRun(t, backend)
	cfg := testConfig(t, "PREBUILT")
	cfg.PrebuiltFatbin = ""
	h.send(control.EncodeConfig(cfg))
	expectFatal(t, h, filepath.Join(cfg.CudaToolkitBaseDir, "bin", "nvcc"))
	if _, closed, _ := backend.snapshot(); !closed {
		t.Error("opened devices not released after the fatal error")
	}
	if _, err := os.Lstat(server.SocketPath(cfg.DataDir, 4242, 0)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket file exists after a failed start: %v", err)
	}
}

func TestRunStopsWhenSupervisorGoes(t *testing.T) {
	h := startRun(t, newFakeBackend(1))
	cfg := testConfig(t, "PREBUILT")
	h.send(control.EncodeConfig(cfg))
	if _, ok := h.recv().(control.ReadyMessage); !ok {
		t.Fatal("no READY")
	}
	unix.Shutdown(h.sup, unix.SHUT_WR) // the supervisor's end goes away
	if code := h.wait(); code != control.ExitStopped {
		t.Fatalf("Run returned %d, want %d", code, control.ExitStopped)
	}
	if _, err := os.Lstat(server.SocketPath(cfg.DataDir, 4242, 0)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket file exists after the supervisor went away: %v", err)
	}
}

func TestRunFatalOnBadConfig(t *testing.T) {
	h := startRun(t, newFakeBackend(1))
	cfg := testConfig(t, "PREBUILT")
	cfg.MaxAsyncTasks = 0
	h.send(control.EncodeConfig(cfg))
	expectFatal(t, h, "max_async_tasks")
}
