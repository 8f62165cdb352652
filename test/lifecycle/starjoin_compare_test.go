//go:build lifecycle

package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// One star-join query run with pg_strom on and off and compared as
// multisets: EXCEPT ALL both ways over the columns as text (so that a
// numeric of another scale differs), floats as float8, and the rows that
// differ only in float columns paired within a relative tolerance.

// sjFloatTolerance is the relative difference allowed between two floats
// (sums and averages added up in another order), sjFloatFloor the
// absolute one near zero (the variance of equal values: PostgreSQL's
// float8 variance can give 1.2e-25 where the device's gives 0).
const (
	sjFloatTolerance = 1e-9
	sjFloatFloor     = 1e-9
)

type sjOutcome struct {
	plan        string // EXPLAIN ANALYZE with pg_strom on
	rows        int64  // PostgreSQL's row count
	floatPaired int64  // rows that matched only within the float tolerance
	problem     string // "" when the results are equal
}

// sjSession is a connection that keeps the WARNINGs the server sends it
// (a reference leak at the end of a query is one).
type sjSession struct {
	conn     *pgx.Conn
	warnings []string
}

func newSJSession(ctx context.Context, c *cluster) (*sjSession, error) {
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=%d user=%s dbname=postgres", c.dir, c.port, c.owner))
	if err != nil {
		return nil, err
	}
	s := &sjSession{}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		if n.Severity == "WARNING" {
			s.warnings = append(s.warnings, n.Message)
		}
	}
	if s.conn, err = pgx.ConnectConfig(ctx, cfg); err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	return s, nil
}

// takeWarnings returns the WARNINGs since the last call.
func (s *sjSession) takeWarnings() []string {
	w := s.warnings
	s.warnings = nil
	return w
}

// runOnOff runs q on and off. The pg_strom run is EXPLAIN ANALYZE of
// CREATE TABLE AS, which gives the plan with its counters and the rows
// from one execution. An error or a WARNING on either side is a problem.
func runOnOff(ctx context.Context, sess *sjSession, q *sjQuery) (sjOutcome, error) {
	var out sjOutcome
	conn := sess.conn
	sql := q.SQL()
	setup := append([]string{"DROP TABLE IF EXISTS sj_on, sj_off"}, q.Settings()...)
	for _, s := range setup {
		if _, err := conn.Exec(ctx, s); err != nil {
			return out, fmt.Errorf("%s: %w", s, err)
		}
	}
	sess.takeWarnings()
	plan, errOn := explainLines(ctx, conn, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) CREATE TEMP TABLE sj_on AS "+sql)
	out.plan = plan
	warnOn := sess.takeWarnings()
	// The reference answer does not depend on PostgreSQL's plan; without
	// nested loops a misestimated join key (extract(year ...) = ...) does
	// not make it a scan of the inner side per outer row, which took
	// minutes on a loaded 2-core machine.
	if _, err := conn.Exec(ctx, "SET pg_strom.enabled = off; SET enable_nestloop = off"); err != nil {
		return out, err
	}
	_, errOff := conn.Exec(ctx, "CREATE TEMP TABLE sj_off AS "+sql, pgx.QueryExecModeSimpleProtocol)
	warnOff := sess.takeWarnings()
	if _, err := conn.Exec(ctx, "RESET pg_strom.enabled; RESET enable_nestloop"); err != nil {
		return out, err
	}
	switch {
	case len(warnOn) > 0 || len(warnOff) > 0:
		out.problem = fmt.Sprintf("WARNINGs with pg_strom on: %q; off: %q", warnOn, warnOff)
		return out, nil
	case errOn != nil && errOff != nil && pgErrText(errOn) == pgErrText(errOff):
		// PostgreSQL's own error: the generator wrote a bad query
		return out, fmt.Errorf("with pg_strom on and off: %s", pgErrText(errOn))
	case errOn != nil && errOff != nil:
		out.problem = fmt.Sprintf("error with pg_strom on: %s; off: %s", pgErrText(errOn), pgErrText(errOff))
		return out, nil
	case errOn != nil:
		out.problem = "error with pg_strom on only: " + pgErrText(errOn)
		return out, nil
	case errOff != nil:
		out.problem = "error with pg_strom off only: " + pgErrText(errOff)
		return out, nil
	}
	return out, compareTables(ctx, conn, &out)
}

func pgErrText(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		s := pe.Code + ": " + pe.Message
		if pe.Detail != "" {
			s += " (" + pe.Detail + ")"
		}
		return s
	}
	return err.Error()
}

func explainLines(ctx context.Context, conn *pgx.Conn, sql string) (string, error) {
	rows, err := conn.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			return "", err
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n"), rows.Err()
}

// compareTables compares sj_on with sj_off, filling out.rows and
// out.problem.
func compareTables(ctx context.Context, conn *pgx.Conn, out *sjOutcome) error {
	rows, err := conn.Query(ctx, `SELECT attname, atttypid IN ('float4'::regtype, 'float8'::regtype)
		FROM pg_attribute WHERE attrelid = 'pg_temp.sj_off'::regclass AND attnum > 0 ORDER BY attnum`)
	if err != nil {
		return fmt.Errorf("columns of sj_off: %w", err)
	}
	var proj []string
	var isFloat []bool
	for rows.Next() {
		var name string
		var fl bool
		if err := rows.Scan(&name, &fl); err != nil {
			rows.Close()
			return err
		}
		isFloat = append(isFloat, fl)
		if fl {
			proj = append(proj, name)
		} else {
			proj = append(proj, name+"::text")
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	p := strings.Join(proj, ", ")
	missingSQL := fmt.Sprintf("SELECT %s FROM sj_off EXCEPT ALL SELECT %s FROM sj_on", p, p)
	extraSQL := fmt.Sprintf("SELECT %s FROM sj_on EXCEPT ALL SELECT %s FROM sj_off", p, p)
	var onRows, missing, extra int64
	if err := conn.QueryRow(ctx, fmt.Sprintf(`SELECT (SELECT count(*) FROM sj_off), (SELECT count(*) FROM sj_on),
		(SELECT count(*) FROM (%s) a), (SELECT count(*) FROM (%s) b)`, missingSQL, extraSQL)).
		Scan(&out.rows, &onRows, &missing, &extra); err != nil {
		return fmt.Errorf("comparing: %w", err)
	}
	if missing == 0 && extra == 0 {
		return nil
	}
	miss, err := textRows(ctx, conn, missingSQL+" LIMIT 20000")
	if err != nil {
		return err
	}
	ext, err := textRows(ctx, conn, extraSQL+" LIMIT 20000")
	if err != nil {
		return err
	}
	if missing == extra && missing <= 20000 {
		if unpaired := pairWithinTolerance(miss, ext, isFloat); unpaired == 0 {
			out.floatPaired = missing
			return nil
		}
	}
	out.problem = fmt.Sprintf("%d rows with pg_strom on, %d off: %d missing (e.g. %s), %d extra (e.g. %s)",
		onRows, out.rows, missing, firstRows(miss, 3), extra, firstRows(ext, 3))
	return nil
}

// textRows reads a query's rows in text form, NULL as "NULL".
func textRows(ctx context.Context, conn *pgx.Conn, sql string) ([][]string, error) {
	rows, err := conn.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sql, err)
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		raw := rows.RawValues()
		row := make([]string, len(raw))
		for i, v := range raw {
			if v == nil {
				row[i] = "NULL"
			} else {
				row[i] = string(v)
			}
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

func firstRows(rows [][]string, n int) string {
	var s []string
	for i := 0; i < len(rows) && i < n; i++ {
		s = append(s, "("+strings.Join(rows[i], ", ")+")")
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, " ")
}

// pairWithinTolerance pairs each row of a with a row of b equal in its
// exact columns and within the tolerance in its float columns; it returns
// how many rows of a found no partner.
func pairWithinTolerance(a, b [][]string, isFloat []bool) int {
	byKey := map[string][][]string{}
	key := func(row []string) string {
		var k strings.Builder
		for i, v := range row {
			if !isFloat[i] {
				k.WriteString(v)
				k.WriteByte(0)
			}
		}
		return k.String()
	}
	for _, row := range b {
		byKey[key(row)] = append(byKey[key(row)], row)
	}
	unpaired := 0
	for _, row := range a {
		k := key(row)
		cands := byKey[k]
		found := -1
		for j, c := range cands {
			if floatsClose(row, c, isFloat) {
				found = j
				break
			}
		}
		if found < 0 {
			unpaired++
			continue
		}
		byKey[k] = append(cands[:found], cands[found+1:]...)
	}
	return unpaired
}

func floatsClose(a, b []string, isFloat []bool) bool {
	for i := range a {
		if !isFloat[i] || a[i] == b[i] {
			continue
		}
		x, errX := strconv.ParseFloat(a[i], 64)
		y, errY := strconv.ParseFloat(b[i], 64)
		if errX != nil || errY != nil || math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
			return false
		}
		if d := math.Abs(x - y); d > sjFloatFloor && d > sjFloatTolerance*math.Max(math.Abs(x), math.Abs(y)) {
			return false
		}
	}
	return true
}
