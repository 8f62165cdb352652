package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// monitor watches for cluster restarts: an idle session that is lost (only
// a crash restart or a shutdown ends it), a new postmaster pid (the parent
// of the monitor's backend) or a new pg_postmaster_start_time().
type monitor struct {
	restarts         int
	pm0, pm          int
	start0, startNow string
	done             chan struct{}
	wg               sync.WaitGroup
	c                config
	conn             *pgx.Conn
	samples, ready   int // status samples, and those that saw the service ready
}

func parentPid(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

func (m *monitor) sample(ctx context.Context) (pm int, start string, err error) {
	var backend int32
	var ready bool
	err = m.conn.QueryRow(ctx, `SELECT pg_backend_pid(), pg_postmaster_start_time()::text,
		coalesce((SELECT bool_and(state = 'ready') FROM pgstrom.gpu_service_status()), false)`).Scan(&backend, &start, &ready)
	if err == nil {
		m.samples++
		if ready {
			m.ready++
		}
	}
	return parentPid(int(backend)), start, err
}

func (m *monitor) start(ctx context.Context, c config) error {
	m.c = c
	m.done = make(chan struct{})
	var err error
	if m.conn, err = connect(ctx, c, false); err != nil {
		return err
	}
	if m.pm0, m.start0, err = m.sample(ctx); err != nil {
		return err
	}
	m.pm, m.startNow = m.pm0, m.start0
	m.wg.Add(1)
	go m.loop()
	return nil
}

func (m *monitor) loop() {
	defer m.wg.Done()
	ctx := context.Background()
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-m.done:
			m.conn.Close(ctx)
			return
		case <-t.C:
		}
		pm, start, err := m.sample(ctx)
		if err != nil {
			m.restarts++
			logf("CLUSTER RESTART? the monitor session was lost: %v", err)
			m.conn.Close(ctx)
			for {
				select {
				case <-m.done:
					return
				default:
				}
				if m.conn, err = connect(ctx, m.c, false); err == nil {
					break
				}
				time.Sleep(500 * time.Millisecond)
			}
			continue
		}
		if pm != m.pm || start != m.startNow {
			if pm != m.pm && m.pm != 0 && pm != 0 || start != m.startNow {
				m.restarts++
				logf("CLUSTER RESTART: postmaster pid %d -> %d, start time %s -> %s", m.pm, pm, m.startNow, start)
			}
			m.pm, m.startNow = pm, start
		}
	}
}

func (m *monitor) stop() {
	close(m.done)
	m.wg.Wait()
}

// txnStats: read-write transactions in a pgx loop
type txnStats struct {
	committed, failed atomic.Int64
	errs              errBook
}

const txnAccounts = 1000

func loadTxn(ctx context.Context, conn *pgx.Conn) error {
	for _, s := range []string{
		`DROP TABLE IF EXISTS stress_acct`,
		`CREATE TABLE stress_acct (id int PRIMARY KEY, bal int8 NOT NULL)`,
		fmt.Sprintf(`INSERT INTO stress_acct SELECT i, 0 FROM generate_series(1, %d) i`, txnAccounts),
		`VACUUM ANALYZE stress_acct`,
	} {
		if _, err := conn.Exec(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// txnLoop runs transactions of an UPDATE and a SELECT of one account until
// ctx ends; each committed one adds 1 to the accounts' total.
func txnLoop(ctx context.Context, c config, i int, st *txnStats) {
	bg := context.Background()
	var conn *pgx.Conn
	n := i
	var pace <-chan time.Time
	if c.sideRate > 0 {
		tick := time.NewTicker(time.Second / time.Duration(c.sideRate))
		defer tick.Stop()
		pace = tick.C
	}
	for ctx.Err() == nil {
		if pace != nil {
			select {
			case <-pace:
			case <-ctx.Done():
				continue
			}
		}
		if conn == nil {
			var err error
			if conn, err = connect(bg, c, true); err != nil {
				st.failed.Add(1)
				st.errs.add("connect", err)
				time.Sleep(200 * time.Millisecond)
				continue
			}
		}
		n = (n*7919 + 17) % txnAccounts
		err := pgx.BeginFunc(bg, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(bg, `UPDATE stress_acct SET bal = bal + 1 WHERE id = $1`, n+1); err != nil {
				return err
			}
			var b int64
			return tx.QueryRow(bg, `SELECT bal FROM stress_acct WHERE id = $1`, n+1).Scan(&b)
		})
		if err != nil {
			st.failed.Add(1)
			st.errs.add("txn", err)
			if conn.IsClosed() {
				conn = nil
			}
			continue
		}
		st.committed.Add(1)
	}
	if conn != nil {
		conn.Close(bg)
	}
}

// txnVerify checks that the accounts' total equals the committed count.
func txnVerify(ctx context.Context, c config, st *txnStats) string {
	conn, err := connect(ctx, c, false)
	if err != nil {
		return "; total not checked: " + err.Error()
	}
	defer conn.Close(ctx)
	var sum int64
	if err := conn.QueryRow(ctx, `SELECT sum(bal)::int8 FROM stress_acct`).Scan(&sum); err != nil {
		return "; total not checked: " + err.Error()
	}
	if sum == st.committed.Load() {
		return fmt.Sprintf("; total balance %d = committed", sum)
	}
	if st.failed.Load() > 0 && sum-st.committed.Load() <= st.failed.Load() && sum >= st.committed.Load() {
		return fmt.Sprintf("; total balance %d (failed commits may have committed)", sum)
	}
	return fmt.Sprintf("; total balance %d MISMATCH", sum)
}

// pgbench -S alongside
type pgbenchResult struct {
	processed, failed, aborted int64
	exit                       int
	err                        string
	lines                      []string
}

func pgbenchArgs(c config) ([]string, error) {
	cfg, err := pgconn.ParseConfig(c.dsn)
	if err != nil {
		return nil, err
	}
	return []string{"-h", cfg.Host, "-p", strconv.Itoa(int(cfg.Port)), "-U", cfg.User, cfg.Database}, nil
}

func initPgbench(ctx context.Context, c config, conn *pgx.Conn) error {
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass('pgbench_accounts') IS NOT NULL`).Scan(&exists); err != nil {
		return err
	}
	if exists && c.load != "always" {
		return nil
	}
	args, err := pgbenchArgs(c)
	if err != nil {
		return err
	}
	cmd := exec.Command(c.pgbench, append([]string{"-i", "-q", "-s", strconv.Itoa(c.pgbenchScale)}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	return nil
}

var (
	reProcessed = regexp.MustCompile(`number of transactions actually processed: (\d+)`)
	reFailed    = regexp.MustCompile(`number of failed transactions: (\d+)`)
	reAborted   = regexp.MustCompile(`client \d+ aborted`)
)

func runPgbench(c config, r *pgbenchResult) {
	args, err := pgbenchArgs(c)
	if err != nil {
		r.err = "; " + err.Error()
		return
	}
	secs := int(c.duration.Seconds())
	if secs < 1 {
		secs = 1
	}
	n := strconv.Itoa(c.pgbenchClients)
	opts := []string{"-n", "-S", "-c", n, "-j", n, "-T", strconv.Itoa(secs)}
	if c.sideRate > 0 {
		opts = append(opts, "-R", strconv.Itoa(c.sideRate*c.pgbenchClients))
	}
	cmd := exec.Command(c.pgbench, append(opts, args...)...)
	cmd.Env = append(os.Environ(), "PGAPPNAME=pg_strom_stress_pgbench")
	out, err := cmd.CombinedOutput()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			r.exit = ee.ExitCode()
		} else {
			r.err = "; " + err.Error()
		}
	}
	s := string(out)
	if m := reProcessed.FindStringSubmatch(s); m != nil {
		r.processed, _ = strconv.ParseInt(m[1], 10, 64)
	} else {
		r.err += "; no transaction count in pgbench's output"
	}
	if m := reFailed.FindStringSubmatch(s); m != nil {
		r.failed, _ = strconv.ParseInt(m[1], 10, 64)
	}
	r.aborted = int64(len(reAborted.FindAllString(s, -1)))
	if r.exit != 0 {
		r.err += fmt.Sprintf("; pgbench exited %d", r.exit)
	}
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "aborted") || strings.Contains(l, "error") || strings.Contains(l, "FATAL") || strings.HasPrefix(l, "tps") {
			if len(r.lines) < 12 {
				r.lines = append(r.lines, l)
			}
		}
	}
}

// the server log: where it ended when the run started
func logSize(path string) int64 {
	if path == "" {
		return -1
	}
	fi, err := os.Stat(path)
	if err != nil {
		return -1
	}
	return fi.Size()
}

var reCrash = regexp.MustCompile(`PANIC|terminated by signal|reinitializing|terminating any other active server processes|server process .* exited with exit code`)

// scanLog returns the lines written since off that show a crash (at most
// 20), and how many say the cluster reinitialized.
func scanLog(path string, off int64) ([]string, int) {
	if path == "" {
		return nil, 0
	}
	if off < 0 {
		return []string{"(server log " + path + " was not readable at the start)"}, 0
	}
	f, err := os.Open(path)
	if err != nil {
		return []string{"(server log: " + err.Error() + ")"}, 0
	}
	defer f.Close()
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return []string{"(server log: " + err.Error() + ")"}, 0
	}
	var lines []string
	restarts := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if !reCrash.MatchString(l) {
			continue
		}
		if strings.Contains(l, "reinitializing") {
			restarts++
		}
		if len(lines) < 20 {
			lines = append(lines, l)
		}
	}
	return lines, restarts
}
