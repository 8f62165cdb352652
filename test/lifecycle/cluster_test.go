//go:build lifecycle

// Package lifecycle tests the extension, its supervisor and the GPU service
// against real PostgreSQL clusters. Run as root (clusters run as an
// unprivileged user through runuser) or as an ordinary user.
package lifecycle

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

var (
	nextPort atomic.Int32
	portBase int32 = 55460
	portSpan int32 // 0: no limit
)

// Clusters take ports from 55461 up, or from PGSTROM_LIFECYCLE_PORT_BASE+1
// when it is set, so that two runs on one machine need not collide; with
// PGSTROM_LIFECYCLE_PORT_SPAN=N they cycle through N ports (tests run one
// at a time and stop their clusters when they end).
func init() {
	if v := os.Getenv("PGSTROM_LIFECYCLE_PORT_BASE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1024 || n > 65000 {
			panic(fmt.Sprintf("PGSTROM_LIFECYCLE_PORT_BASE=%q is not a port between 1024 and 65000", v))
		}
		portBase = int32(n)
	}
	if v := os.Getenv("PGSTROM_LIFECYCLE_PORT_SPAN"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			panic(fmt.Sprintf("PGSTROM_LIFECYCLE_PORT_SPAN=%q is not a positive count", v))
		}
		portSpan = int32(n)
	}
}

// newPort is the port of the next cluster.
func newPort() int {
	n := nextPort.Add(1) - 1
	if portSpan > 0 {
		n %= portSpan
	}
	return int(portBase + 1 + n)
}

type cluster struct {
	t      *testing.T
	dir    string
	port   int
	bindir string
	owner  string
	env    []string // added to the environment of the cluster's commands
}

func pgConfig() string {
	if p := os.Getenv("PG_CONFIG"); p != "" {
		return p
	}
	return "pg_config"
}

func pgBindir(t *testing.T) string {
	out, err := exec.Command(pgConfig(), "--bindir").Output()
	if err != nil {
		t.Fatalf("pg_config --bindir: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// ownerName is the unprivileged account that runs clusters when we are root.
func ownerName(t *testing.T) string {
	if os.Geteuid() != 0 {
		u, err := user.Current()
		if err != nil {
			t.Fatalf("current user: %v", err)
		}
		return u.Username
	}
	name := os.Getenv("PGSTROM_TEST_USER")
	if name == "" {
		name = "pgstrom_test"
	}
	if _, err := user.Lookup(name); err != nil {
		if out, err := exec.Command("useradd", "-m", name).CombinedOutput(); err != nil {
			t.Fatalf("useradd %s: %v: %s", name, err, out)
		}
	}
	return name
}

func (c *cluster) asOwner(args ...string) *exec.Cmd {
	var cmd *exec.Cmd
	if os.Geteuid() == 0 {
		cmd = exec.Command("runuser", append([]string{"-u", c.owner, "--"}, args...)...)
	} else {
		cmd = exec.Command(args[0], args[1:]...)
	}
	if len(c.env) > 0 {
		cmd.Env = append(os.Environ(), c.env...)
	}
	return cmd
}

func (c *cluster) run(args ...string) {
	c.t.Helper()
	if out, err := c.asOwner(args...).CombinedOutput(); err != nil {
		c.t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// newCluster initdb's a cluster with pg_strom preloaded; it is not started.
func newCluster(t *testing.T, extraConf ...string) *cluster {
	t.Helper()
	c := &cluster{t: t, bindir: pgBindir(t), owner: ownerName(t), port: newPort()}
	dir, err := os.MkdirTemp("", "pg_strom_lifecycle.")
	if err != nil {
		t.Fatal(err)
	}
	c.dir = dir
	if os.Geteuid() == 0 {
		c.run("true")
		if out, err := exec.Command("chown", c.owner, dir).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v %s", err, out)
		}
	}
	if tmpl := os.Getenv("PGSTROM_INITDB_TEMPLATE"); tmpl != "" {
		// a data directory that this same initdb command made, owned by
		// the cluster's owner (test/run_all.sh makes one per run): a copy
		// of it is what initdb would have written, in a fraction of the time
		c.run("cp", "-a", tmpl+"/.", dir)
	} else {
		c.run(filepath.Join(c.bindir, "initdb"), "-D", dir, "-A", "trust", "-E", "UTF8", "--locale=C")
	}
	// fsync and full-page writes off: the cluster is thrown away, and a
	// killed PostgreSQL process loses nothing without them
	conf := fmt.Sprintf(`
shared_preload_libraries = 'pg_strom'
port = %d
unix_socket_directories = '%s'
listen_addresses = ''
max_worker_processes = 16
log_line_prefix = '%%m [%%p] '
fsync = off
full_page_writes = off
%s
`, c.port, dir, strings.Join(extraConf, "\n"))
	f, err := os.OpenFile(filepath.Join(dir, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(conf); err != nil {
		t.Fatal(err)
	}
	f.Close()
	t.Cleanup(func() {
		c.stopQuietly()
		if t.Failed() {
			c.keepServerLog()
		}
		os.RemoveAll(dir)
	})
	return c
}

func (c *cluster) start() {
	c.t.Helper()
	c.run(filepath.Join(c.bindir, "pg_ctl"), "-D", c.dir, "-l", filepath.Join(c.dir, "server.log"), "-w", "-t", "60", "start")
}

// stop returns how long a fast shutdown took.
func (c *cluster) stop() time.Duration {
	c.t.Helper()
	t0 := time.Now()
	c.run(filepath.Join(c.bindir, "pg_ctl"), "-D", c.dir, "-m", "fast", "-w", "-t", "60", "stop")
	return time.Since(t0)
}

func (c *cluster) stopQuietly() {
	if _, err := os.Stat(filepath.Join(c.dir, "postmaster.pid")); err == nil {
		c.asOwner(filepath.Join(c.bindir, "pg_ctl"), "-D", c.dir, "-m", "immediate", "-w", "stop").Run()
	}
}

// keepServerLog saves the failed test's server log (PGSTROM_TEST_LOGDIR,
// else the temporary directory) and prints only its last few errors: a
// whole log printed here would push the failure's own message out of the
// tail that a CI report shows.
func (c *cluster) keepServerLog() {
	dir := os.Getenv("PGSTROM_TEST_LOGDIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "pg_strom_test_logs")
	}
	name := filepath.Join(dir, strings.ReplaceAll(c.t.Name(), "/", "_")+"."+filepath.Base(c.dir)+".log")
	log := c.serverLog()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		c.t.Logf("cannot keep the server log: %v", err)
	} else if err := os.WriteFile(name, []byte(log), 0o644); err != nil {
		c.t.Logf("cannot keep the server log: %v", err)
	}
	var errs []string
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "ERROR:") || strings.Contains(line, "FATAL:") || strings.Contains(line, "PANIC:") {
			errs = append(errs, line)
		}
	}
	if len(errs) > 4 {
		errs = errs[len(errs)-4:]
	}
	c.t.Logf("server log kept in %s; its last errors:\n%s", name, strings.Join(errs, "\n"))
}

func (c *cluster) serverLog() string {
	b, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
	return string(b)
}

func (c *cluster) connect(ctx context.Context) *pgx.Conn {
	c.t.Helper()
	return c.connectAs(ctx, c.owner)
}

func (c *cluster) connectAs(ctx context.Context, role string) *pgx.Conn {
	c.t.Helper()
	dsn := fmt.Sprintf("host=%s port=%d user=%s dbname=postgres", c.dir, c.port, role)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		c.t.Fatalf("connect: %v", err)
	}
	c.t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func (c *cluster) postmasterPID() int {
	c.t.Helper()
	b, err := os.ReadFile(filepath.Join(c.dir, "postmaster.pid"))
	if err != nil {
		c.t.Fatalf("postmaster.pid: %v", err)
	}
	var pid int
	fmt.Sscanf(string(bytes.SplitN(b, []byte("\n"), 2)[0]), "%d", &pid)
	return pid
}

func (c *cluster) socketFiles() []string {
	m, _ := filepath.Glob(filepath.Join(c.dir, ".pg_strom.*.gpu*.sock"))
	return m
}
