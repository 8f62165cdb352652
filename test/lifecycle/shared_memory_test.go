//go:build lifecycle

package lifecycle

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The GPU service is forked from the supervisor without exec, so that it
// sees PostgreSQL's shared memory where it lies (DESIGN.md section 1).
// These tests check what that must not cost: the service cannot write
// shared memory, and after a crash-restart of the cluster no service
// process keeps the old shared memory.

// mapping is one line of /proc/<pid>/maps.
type mapping struct {
	perms string // "rw-s"
	id    string // device and inode: the same for every process mapping it
	path  string
	line  string
}

func (m mapping) sharedWritable() bool { return m.perms[1] == 'w' && m.perms[3] == 's' }

// readMaps returns nil for a process that is gone (or a zombie).
func readMaps(pid int) []mapping {
	f, err := os.Open(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []mapping
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		m := mapping{perms: fields[1], id: fields[3] + " " + fields[4], line: sc.Text()}
		if len(fields) >= 6 {
			m.path = strings.Join(fields[5:], " ")
		}
		out = append(out, m)
	}
	return out
}

// sharedMemoryIDs: the shared writable mappings of PostgreSQL processes
// (the postmaster; the supervisor as well, which may have attached more),
// which are PostgreSQL's shared memory: main segment, System V interlock,
// DSM.
func sharedMemoryIDs(t *testing.T, pids ...int) map[string]string {
	t.Helper()
	ids := map[string]string{}
	for _, pid := range pids {
		for _, m := range readMaps(pid) {
			if m.sharedWritable() {
				ids[m.id] = m.path
			}
		}
	}
	if len(ids) == 0 {
		t.Fatalf("processes %v have no shared writable mapping", pids)
	}
	return ids
}

// parentPID of a running process.
func parentPID(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatalf("stat of %d: %v", pid, err)
	}
	s := string(b)
	var state string
	var ppid int
	if _, err := fmt.Sscanf(s[strings.LastIndexByte(s, ')')+2:], "%s %d", &state, &ppid); err != nil {
		t.Fatalf("stat of %d: %v", pid, err)
	}
	return ppid
}

// processGone: no such pid, or a zombie (which maps nothing).
func processGone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

func waitGone(t *testing.T, pid int, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs %v later", pid, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// installHostExecutor puts the TEST-ONLY host executor library into
// pkglibdir for this test only, as test/run_regress_hostexec.sh does.
// PGSTROM_HOSTEXEC_SO names a prebuilt one instead of building it.
// PGSTROM_HOSTEXEC_INSTALLED=1 says that the caller (test/run_all.sh) has
// installed it for the whole run, for every suite that runs meanwhile: the
// test then only checks that it is there, and leaves it in place.
func installHostExecutor(t *testing.T) {
	t.Helper()
	out, err := exec.Command(pgConfig(), "--pkglibdir").Output()
	if err != nil {
		t.Fatalf("pg_config --pkglibdir: %v", err)
	}
	dst := filepath.Join(strings.TrimSpace(string(out)), "pg_strom_gosvc_hostexec.so")
	if os.Getenv("PGSTROM_HOSTEXEC_INSTALLED") == "1" {
		if _, err := os.Stat(dst); err != nil {
			t.Fatalf("PGSTROM_HOSTEXEC_INSTALLED=1, but the host executor is not installed: %v", err)
		}
		return
	}
	src := os.Getenv("PGSTROM_HOSTEXEC_SO")
	if src == "" {
		tmp := t.TempDir()
		src = filepath.Join(tmp, "pg_strom_gosvc_hostexec.so")
		build := exec.Command("go", "build", "-buildmode=c-shared", "-o", src,
			"./gosvc/hostexec/cmd/pg_strom_gosvc_hostexec")
		build.Dir = "../.."
		build.Env = append(os.Environ(), "CGO_ENABLED=1")
		if b, err := build.CombinedOutput(); err != nil {
			t.Fatalf("building the host executor: %v\n%s", err, b)
		}
	}
	if _, err := os.Stat(dst); err == nil {
		t.Fatalf("%s is already installed (a test script running?); not replacing it", dst)
	}
	if b, err := exec.Command("install", "-m", "755", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("install %s: %v %s", dst, err, b)
	}
	t.Cleanup(func() { os.Remove(dst) })
}

// serviceCluster starts a cluster whose service runs: the GPU service, or
// on a machine without a GPU the TEST-ONLY host executor, which is the same
// process with the same start.
func serviceCluster(ctx context.Context, t *testing.T) (*cluster, *pgx.Conn, []serviceStatus) {
	t.Helper()
	c, conn, st := startedCluster(ctx, t)
	if st[0].State == "no_gpu" {
		conn.Close(ctx)
		c.stop()
		installHostExecutor(t)
		c.env = append(c.env, "PG_STROM_TEST_HOST_EXECUTOR=1")
		c.start()
		conn = c.connect(ctx)
		st = waitFor(ctx, t, conn, 60*time.Second, settled)
	}
	if st[0].State != "ready" || st[0].PID == nil {
		t.Fatalf("service not ready: %v", describe(st))
	}
	return c, conn, st
}

func TestServiceMapsSharedMemoryReadOnly(t *testing.T) {
	ctx := context.Background()
	c, _, st := serviceCluster(ctx, t)
	pid := int(*st[0].PID)
	pg := sharedMemoryIDs(t, c.postmasterPID(), parentPID(t, pid))

	// Shared writable mappings the service made itself after the fork (the
	// CUDA driver's, of /dev/nvidia* and of anonymous memory) are its own;
	// none of PostgreSQL's may be writable.
	seen := map[string]bool{}
	for _, m := range readMaps(pid) {
		if _, ok := pg[m.id]; ok {
			seen[m.id] = true
			if m.perms != "r--s" {
				t.Errorf("PostgreSQL's shared memory is %s in the service %d: %s", m.perms, pid, m.line)
			}
		}
	}
	// it still sees every segment (the zero-copy path reads shared buffers)
	for id, path := range pg {
		if !seen[id] {
			t.Errorf("the service does not map PostgreSQL's %s (%s)", path, id)
		}
	}

	// of PostgreSQL's descriptors it keeps only stdout and stderr
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, fd := range fds {
		target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err != nil {
			continue
		}
		if fd.Name() == "0" && target != "/dev/null" {
			t.Errorf("service stdin is %s, want /dev/null", target)
		}
		if strings.HasPrefix(target, c.dir) && !strings.HasSuffix(target, "server.log") {
			t.Errorf("service keeps fd %s open on %s", fd.Name(), target)
		}
	}
	if !strings.Contains(c.serverLog(), "shared memory is read-only in the GPU service") {
		t.Error("the service did not log that shared memory is read-only")
	}
}

// crashRestart stops the service (SIGSTOP: as if hung) and kills a backend
// with SIGKILL, so that the postmaster terminates every process and
// reinitializes shared memory, and checks that the service comes back as it
// was while no process keeps the old shared memory.
func crashRestart(ctx context.Context, t *testing.T, c *cluster, conn *pgx.Conn, before []serviceStatus) {
	postmaster := c.postmasterPID()
	oldShm := sharedMemoryIDs(t, postmaster)
	var backend int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		t.Fatal(err)
	}
	if before[0].PID != nil {
		// A hung service must not outlive the crash either: a stopped one
		// cannot even notice that its control socket closed.
		old := int(*before[0].PID)
		if err := syscall.Kill(old, syscall.SIGSTOP); err != nil {
			t.Fatalf("SIGSTOP service %d: %v", old, err)
		}
		t.Cleanup(func() { syscall.Kill(old, syscall.SIGKILL) })
	}
	if err := syscall.Kill(backend, syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 backend %d: %v", backend, err)
	}

	// the postmaster reinitializes; connect again once it accepts
	const reinit = "all server processes terminated; reinitializing"
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(c.serverLog(), reinit) {
		if time.Now().After(deadline) {
			t.Fatal("the postmaster did not reinitialize shared memory")
		}
		time.Sleep(50 * time.Millisecond)
	}
	var again *pgx.Conn
	for again == nil {
		dsn := fmt.Sprintf("host=%s port=%d user=%s dbname=postgres", c.dir, c.port, c.owner)
		cn, err := pgx.Connect(ctx, dsn)
		if err == nil {
			again = cn
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no connection after the crash: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	defer again.Close(ctx)
	if c.postmasterPID() != postmaster {
		t.Fatal("postmaster changed")
	}

	after := waitFor(ctx, t, again, 60*time.Second, func(s []serviceStatus) bool {
		return s[0].State == before[0].State &&
			(before[0].PID == nil || (s[0].PID != nil && *s[0].PID != *before[0].PID))
	})
	t.Logf("service state after the crash-restart: %v (before: %v)", describe(after), describe(before))

	if before[0].PID != nil {
		old := int(*before[0].PID)
		waitGone(t, old, 5*time.Second)
		// the new service sees the new shared memory
		newShm := sharedMemoryIDs(t, postmaster)
		found := false
		for _, m := range readMaps(int(*after[0].PID)) {
			if _, ok := newShm[m.id]; ok {
				found = true
			}
		}
		if !found {
			t.Errorf("the new service %d maps none of the new shared memory", *after[0].PID)
		}
	}

	// nobody keeps the old shared memory mapped (the postmaster kept what
	// it reused, if anything)
	newShm := sharedMemoryIDs(t, postmaster)
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		var pid int
		if _, err := fmt.Sscanf(filepath.Base(p), "%d", &pid); err != nil {
			continue
		}
		for _, m := range readMaps(pid) {
			if path, ok := oldShm[m.id]; ok {
				if _, reused := newShm[m.id]; !reused {
					t.Errorf("process %d still maps the old shared memory %s: %s", pid, path, m.line)
				}
			}
		}
	}
}

func TestCrashRestartLeavesNoServiceOnOldSharedMemory(t *testing.T) {
	ctx := context.Background()
	var plainState string
	t.Run("as_configured", func(t *testing.T) {
		c, conn, st := startedCluster(ctx, t)
		plainState = st[0].State
		crashRestart(ctx, t, c, conn, st)
	})
	t.Run("service_running", func(t *testing.T) {
		if plainState == "ready" {
			t.Skip("as_configured already ran with a running service")
		}
		c, conn, st := serviceCluster(ctx, t)
		crashRestart(ctx, t, c, conn, st)
	})
}
