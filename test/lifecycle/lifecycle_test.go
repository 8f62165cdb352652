//go:build lifecycle

package lifecycle

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
)

func TestNoGPUStateIsStableWithoutRestartLoop(t *testing.T) {
	ctx := context.Background()
	c, conn, st := startedCluster(ctx, t)
	if st[0].State != "no_gpu" {
		t.Skipf("this machine has a GPU (state %s)", st[0].State)
	}
	if st[0].Reason == nil || *st[0].Reason == "" {
		t.Fatal("no_gpu without a reason")
	}
	if st[0].PID != nil || st[0].Device != nil {
		t.Fatalf("no_gpu must have no service pid and no device rows: %v", describe(st))
	}
	// Longer than the bgworker restart interval and the first back-offs.
	time.Sleep(7 * time.Second)
	st = readStatus(ctx, t, conn)
	if st[0].State != "no_gpu" || st[0].Restarts != 0 {
		t.Fatalf("service state moved without a GPU: %v", describe(st))
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pgstrom.gpu_device_info()").Scan(&n); err != nil || n != 0 {
		t.Fatalf("gpu_device_info rows = %d, err %v; want 0", n, err)
	}
	if got := strings.Count(c.serverLog(), *st[0].Reason); got < 1 {
		t.Fatalf("reason %q not relayed to the server log", *st[0].Reason)
	}
	if files := c.socketFiles(); len(files) != 0 {
		t.Fatalf("socket files without a service: %v", files)
	}
}

func TestReloadPushesConfigWithoutRestart(t *testing.T) {
	ctx := context.Background()
	c, conn, before := serviceCluster(ctx, t)
	if _, err := conn.Exec(ctx, "ALTER SYSTEM SET pg_strom.gpu_mempool_release_delay = '4321ms'"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "SELECT pg_reload_conf()"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		var v string
		if err := conn.QueryRow(ctx, "SHOW pg_strom.gpu_mempool_release_delay").Scan(&v); err != nil {
			t.Fatal(err)
		}
		if v == "4321ms" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("reload not applied: %s", v)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The service acknowledges the new value in its log, through the relay.
	ack := regexp.MustCompile(`(GPU\d+|SVC): .*release_delay [^ ]+ -> 4\.321s`)
	deadline = time.Now().Add(10 * time.Second)
	for !ack.MatchString(c.serverLog()) {
		if time.Now().After(deadline) {
			t.Fatalf("service did not log the new release delay")
		}
		time.Sleep(100 * time.Millisecond)
	}
	after := readStatus(ctx, t, conn)
	if *after[0].PID != *before[0].PID || after[0].Restarts != before[0].Restarts {
		t.Fatalf("reload restarted the service: %v -> %v", describe(before), describe(after))
	}
}

func TestMaxAsyncTasksIsLiveAndSuperuserOnly(t *testing.T) {
	ctx := context.Background()
	c, conn, st := serviceCluster(ctx, t)
	if _, err := conn.Exec(ctx, "CREATE ROLE plain_user LOGIN"); err != nil {
		t.Fatal(err)
	}
	plain := c.connectAs(ctx, "plain_user")
	_, err := plain.Exec(ctx, "SET pg_strom.max_async_tasks = 3")
	if err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Fatalf("non-superuser SET: err = %v, want permission denied", err)
	}
	if _, err := conn.Exec(ctx, "SET pg_strom.max_async_tasks = 3"); err != nil {
		t.Fatal(err)
	}
	// The value is cluster-wide: another superuser session sees it.
	other := c.connect(ctx)
	var v string
	if err := other.QueryRow(ctx, "SHOW pg_strom.max_async_tasks").Scan(&v); err != nil || v != "3" {
		t.Fatalf("other session sees max_async_tasks = %q (err %v), want 3", v, err)
	}
	pid := *st[0].PID
	st = waitFor(ctx, t, conn, 10*time.Second, func(s []serviceStatus) bool {
		for _, d := range s {
			if d.Workers == nil || *d.Workers != 3 {
				return false
			}
		}
		return true
	})
	if *st[0].PID != pid {
		t.Fatalf("resizing the worker pool restarted the service")
	}
	if _, err := conn.Exec(ctx, "SET pg_strom.max_async_tasks = 20"); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, conn, 10*time.Second, func(s []serviceStatus) bool { return *s[0].Workers == 20 })
}

func TestFastStopIsCleanAndQuick(t *testing.T) {
	ctx := context.Background()
	c, conn, st := startedCluster(ctx, t)
	conn.Close(ctx)
	took := c.stop()
	if took > 10*time.Second {
		t.Fatalf("pg_ctl stop took %v, want < 10s", took)
	}
	if files := c.socketFiles(); len(files) != 0 {
		t.Fatalf("socket files left after stop: %v", files)
	}
	if st[0].PID != nil {
		if err := syscall.Kill(int(*st[0].PID), 0); err == nil {
			t.Fatalf("service process %d still alive after stop", *st[0].PID)
		}
	}
	t.Logf("fast stop took %v (state was %s)", took, st[0].State)
}

func TestStaleSocketFilesAreRemovedAtStart(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t)
	stale := []string{
		filepath.Join(c.dir, ".pg_strom.4242.gpu0.sock"),
		filepath.Join(c.dir, ".pg_strom.4242.gpu1.sock"),
	}
	// A real socket inode, as a crashed service leaves behind.
	l, err := net.Listen("unix", stale[0])
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	if err := os.WriteFile(stale[1], nil, 0600); err != nil {
		t.Fatal(err)
	}
	c.start()
	conn := c.connect(ctx)
	if _, err := conn.Exec(ctx, "CREATE EXTENSION pg_strom"); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, conn, 60*time.Second, settled)
	for _, f := range stale {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("stale socket file %s survived the start", f)
		}
	}
}

func TestKill9OfServiceKeepsClusterAndSessions(t *testing.T) {
	ctx := context.Background()
	c, conn, st := serviceCluster(ctx, t)
	postmaster := c.postmasterPID()
	var backend int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		t.Fatal(err)
	}
	old := *st[0].PID
	t0 := time.Now()
	if err := syscall.Kill(int(old), syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 %d: %v", old, err)
	}
	st = waitFor(ctx, t, conn, 15*time.Second, func(s []serviceStatus) bool {
		return s[0].State == "ready" && s[0].PID != nil && *s[0].PID != old
	})
	t.Logf("service back in %v (pid %d -> %d, restarts %d)", time.Since(t0), old, *st[0].PID, st[0].Restarts)
	var again int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&again); err != nil || again != backend {
		t.Fatalf("session opened before the kill: pid %d -> %d, err %v", backend, again, err)
	}
	if c.postmasterPID() != postmaster {
		t.Fatal("postmaster changed")
	}
	if strings.Contains(c.serverLog(), "terminating any other active server processes") {
		t.Fatal("the cluster went through crash recovery")
	}
	statusOverSocket(t, c.socketFiles()[0], 1)
}

func TestConcurrentSocketClients(t *testing.T) {
	ctx := context.Background()
	c, _, st := serviceCluster(ctx, t)
	files := c.socketFiles()
	if len(files) != len(st) {
		t.Fatalf("socket files %v for %d devices", files, len(st))
	}
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0600 || fi.Mode()&os.ModeSocket == 0 {
			t.Fatalf("%s: mode %v, want a 0600 socket", f, fi.Mode())
		}
	}
	var wg sync.WaitGroup
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statusOverSocket(t, files[0], 20)
		}()
	}
	wg.Wait()

	// A malformed message gets an Error reply; the service keeps serving.
	conn, err := net.Dial("unix", files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	bad := protocol.EncodeRequest(protocol.TagStatus, 7, nil)
	bad[0] ^= 0xff
	conn.Write(bad)
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	msg, hdr, err := protocol.ReadMessage(conn, protocol.MaxLength)
	if err != nil || hdr.Tag != protocol.TagError {
		t.Fatalf("malformed message: reply tag %v err %v", hdr.Tag, err)
	}
	if e, err := protocol.DecodeError(msg); err != nil || e.Code != protocol.ErrCodeProtocol {
		t.Fatalf("error reply %+v, %v", e, err)
	}
	statusOverSocket(t, files[0], 1)
}

// statusOverSocket sends n Status requests on one connection and checks the replies.
func statusOverSocket(t *testing.T, path string, n int) {
	conn, err := net.Dial("unix", path)
	if err != nil {
		t.Errorf("dial %s: %v", path, err)
		return
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	for i := 0; i < n; i++ {
		id := uint32(1000 + i)
		if _, err := conn.Write(protocol.EncodeRequest(protocol.TagStatus, id, nil)); err != nil {
			t.Errorf("write: %v", err)
			return
		}
		msg, hdr, err := protocol.ReadMessage(conn, protocol.MaxLength)
		if err != nil {
			t.Errorf("read reply: %v", err)
			return
		}
		if hdr.Tag != protocol.TagSuccess || hdr.RequestID != id {
			t.Errorf("reply tag %v id %d, want Success id %d", hdr.Tag, hdr.RequestID, id)
			return
		}
		st, err := protocol.DecodeStatusReply(msg)
		if err != nil || st.Workers == 0 || st.Connections == 0 {
			t.Errorf("status reply %+v, err %v", st, err)
			return
		}
	}
}

func TestDebugOutputSwitchesLive(t *testing.T) {
	ctx := context.Background()
	c, conn, _ := serviceCluster(ctx, t)
	debugLine := regexp.MustCompile(`(?m)^.*LOG:  GPU0: status request served`)
	statusOverSocket(t, c.socketFiles()[0], 1)
	time.Sleep(1500 * time.Millisecond)
	if debugLine.MatchString(c.serverLog()) {
		t.Fatal("debug line logged while gpuserv_debug_output is off")
	}
	if _, err := conn.Exec(ctx, "SET pg_strom.gpuserv_debug_output = on"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !debugLine.MatchString(c.serverLog()) {
		if time.Now().After(deadline) {
			t.Fatal("no debug line after turning gpuserv_debug_output on")
		}
		statusOverSocket(t, c.socketFiles()[0], 1)
		time.Sleep(200 * time.Millisecond)
	}
}

func TestLoadingWithoutPreloadIsRefused(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t, "shared_preload_libraries = ''")
	c.start()
	conn := c.connect(ctx)
	_, err := conn.Exec(ctx, "LOAD 'pg_strom'")
	if err == nil || !strings.Contains(err.Error(), "pg_strom must be loaded via shared_preload_libraries") {
		t.Fatalf("LOAD without preload: err = %v", err)
	}
	var alive int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&alive); err != nil {
		t.Fatalf("session unusable after the refused LOAD: %v", err)
	}
	if c.socketFiles() != nil {
		t.Fatal("a GPU service started without preload")
	}
}
