package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// bench_meta records, per dataset, the fingerprint of what was loaded and
// whether it was finalized (vacuumed, analyzed, parallel_workers set);
// bench_meta_parts records every part committed, in the same transaction as
// the part's rows, so an interrupted load resumes exactly where it stopped.
const metaDDL = `
CREATE TABLE IF NOT EXISTS bench_meta (
  dataset      text PRIMARY KEY,
  fingerprint  text NOT NULL,
  rows         int8 NOT NULL,
  parts        int4 NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  finalized_at timestamptz
);
CREATE TABLE IF NOT EXISTS bench_meta_parts (
  dataset text NOT NULL REFERENCES bench_meta ON DELETE CASCADE,
  part    int4 NOT NULL,
  lo      int8 NOT NULL,
  hi      int8 NOT NULL,
  done_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (dataset, part)
)`

// DatasetState is what bench_meta says about one dataset.
type DatasetState struct {
	Found       bool
	Fingerprint string
	Rows        int64
	Parts       int
	Finalized   bool
	Done        map[int]bool
}

func ensureMeta(ctx context.Context, conn *pgx.Conn) error {
	if _, err := conn.Exec(ctx, metaDDL); err != nil {
		return fmt.Errorf("create bench_meta: %w", err)
	}
	return nil
}

// readState reads the bookkeeping of d.
func readState(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
	Query(context.Context, string, ...any) (pgx.Rows, error)
}, d Dataset) (DatasetState, error) {
	st := DatasetState{Done: map[int]bool{}}
	err := q.QueryRow(ctx, "SELECT fingerprint, rows, parts, finalized_at IS NOT NULL FROM bench_meta WHERE dataset = $1", d.Name).
		Scan(&st.Fingerprint, &st.Rows, &st.Parts, &st.Finalized)
	if errors.Is(err, pgx.ErrNoRows) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("read bench_meta for %s: %w", d.Name, err)
	}
	st.Found = true
	rows, err := q.Query(ctx, "SELECT part FROM bench_meta_parts WHERE dataset = $1", d.Name)
	if err != nil {
		return st, fmt.Errorf("read bench_meta_parts for %s: %w", d.Name, err)
	}
	parts, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return st, fmt.Errorf("read bench_meta_parts for %s: %w", d.Name, err)
	}
	for _, p := range parts {
		st.Done[int(p)] = true
	}
	return st, nil
}

// tableExists says whether d's table exists, and each of its partitions.
func tableExists(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, d Dataset) (bool, error) {
	var ok bool
	if err := q.QueryRow(ctx, "SELECT bool_and(to_regclass(t) IS NOT NULL) FROM unnest($1::text[]) AS t",
		append([]string{d.ident()}, d.leaves()...)).Scan(&ok); err != nil {
		return false, fmt.Errorf("look up table %s: %w", d.Name, err)
	}
	return ok, nil
}

// prepareDataset makes sure d's table and bookkeeping match the wanted row
// count and definition, (re)creating both when they do not, and returns the
// state to resume from and a one-line description of what it found.
func prepareDataset(ctx context.Context, conn *pgx.Conn, d Dataset, rows int64) (DatasetState, string, error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return DatasetState{}, "", fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, "LOCK TABLE bench_meta IN SHARE ROW EXCLUSIVE MODE"); err != nil {
		return DatasetState{}, "", fmt.Errorf("lock bench_meta: %w", err)
	}
	st, err := readState(ctx, tx, d)
	if err != nil {
		return st, "", err
	}
	exists, err := tableExists(ctx, tx, d)
	if err != nil {
		return st, "", err
	}
	fp := d.Fingerprint(rows)
	if st.Found && st.Fingerprint == fp && exists {
		note := fmt.Sprintf("resuming: %d of %d parts loaded", len(st.Done), st.Parts)
		if st.Finalized {
			note = "complete, nothing to load"
		}
		return st, note, tx.Commit(ctx)
	}
	note := "new"
	switch {
	case st.Found && st.Fingerprint != fp:
		note = fmt.Sprintf("definition or scale changed (had %d rows): reloading", st.Rows)
	case st.Found || exists:
		note = "table or bookkeeping missing: reloading"
	}
	// a partitioned table's DROP drops its partitions
	stmts := append([]string{"DROP TABLE IF EXISTS " + d.ident()}, d.CreateStatements()...)
	for _, s := range stmts {
		if _, err := tx.Exec(ctx, s); err != nil {
			return st, "", fmt.Errorf("%s: %w", firstLine(s), err)
		}
	}
	if _, err := tx.Exec(ctx, "DELETE FROM bench_meta WHERE dataset = $1", d.Name); err != nil {
		return st, "", fmt.Errorf("reset bench_meta for %s: %w", d.Name, err)
	}
	st = DatasetState{Found: true, Fingerprint: fp, Rows: rows, Parts: d.PartCount(rows), Done: map[int]bool{}}
	if _, err := tx.Exec(ctx, "INSERT INTO bench_meta (dataset, fingerprint, rows, parts) VALUES ($1, $2, $3, $4)",
		d.Name, fp, rows, st.Parts); err != nil {
		return st, "", fmt.Errorf("insert bench_meta for %s: %w", d.Name, err)
	}
	return st, note, tx.Commit(ctx)
}

func markFinalized(ctx context.Context, conn *pgx.Conn, d Dataset) error {
	if _, err := conn.Exec(ctx, "UPDATE bench_meta SET finalized_at = now() WHERE dataset = $1", d.Name); err != nil {
		return fmt.Errorf("mark %s finalized: %w", d.Name, err)
	}
	return nil
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}
