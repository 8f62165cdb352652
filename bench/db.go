package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"
)

// connect opens a session with the benchmark's session settings.
func connect(ctx context.Context, cfg *Config) (*pgx.Conn, error) {
	pc, err := pgx.ParseConfig(cfg.ConnString)
	if err != nil {
		return nil, fmt.Errorf("connection settings: %w", err)
	}
	// No statement cache: a cached generic plan survives SET pg_strom.enabled
	// and jit, so every mode would run the first mode's plan. Exec mode
	// plans every statement afresh, under the session's current settings.
	pc.DefaultQueryExecMode = pgx.QueryExecModeExec
	conn, err := pgx.ConnectConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	if err := sessionSettings(ctx, conn, cfg); err != nil {
		conn.Close(context.Background())
		return nil, err
	}
	return conn, nil
}

// sessionSettings are applied at connect and again after every RESET ALL.
func sessionSettings(ctx context.Context, conn *pgx.Conn, cfg *Config) error {
	stmts := []string{
		"SET application_name = 'pgstrom-bench'",
		fmt.Sprintf("SET statement_timeout = %d", cfg.Timeout.Milliseconds()),
	}
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// heapBytes is the size of the main fork of table (of its partitions).
func heapBytes(ctx context.Context, conn *pgx.Conn, d Dataset) (int64, error) {
	var n int64
	if err := conn.QueryRow(ctx, "SELECT sum(pg_relation_size(t::regclass))::int8 FROM unnest($1::text[]) AS t", d.leaves()).Scan(&n); err != nil {
		return 0, fmt.Errorf("size of %s: %w", d.Name, err)
	}
	return n, nil
}

// prewarm loads the tables into shared buffers when they all fit in 90% of
// shared_buffers, and otherwise into the OS page cache (pg_prewarm 'read').
func prewarm(ctx context.Context, conn *pgx.Conn, tables []Dataset, out io.Writer) error {
	if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_prewarm"); err != nil {
		return fmt.Errorf("create extension pg_prewarm: %w", err)
	}
	sb, err := sharedBuffersBytes(ctx, conn)
	if err != nil {
		return err
	}
	var total int64
	for _, d := range tables {
		n, err := heapBytes(ctx, conn, d)
		if err != nil {
			return err
		}
		total += n
	}
	mode := "buffer"
	if float64(total) > 0.9*float64(sb) {
		mode = "read"
	}
	for _, d := range tables {
		t0 := time.Now()
		var blocks int64
		if err := conn.QueryRow(ctx, "SELECT sum(pg_prewarm(t::regclass, $2))::int8 FROM unnest($1::text[]) AS t", d.leaves(), mode).Scan(&blocks); err != nil {
			return fmt.Errorf("pg_prewarm(%s): %w", d.Name, err)
		}
		fmt.Fprintf(out, "  prewarm %s: %d blocks%s, mode %q (tables %.2f GB, shared_buffers %.2f GB), %.1f s\n",
			d.Name, blocks, partitionsNote(d), mode, gb(total), gb(sb), time.Since(t0).Seconds())
	}
	return nil
}

func gb(bytes int64) float64 { return float64(bytes) / 1e9 }

// sharedBuffersBytes is shared_buffers in bytes.
func sharedBuffersBytes(ctx context.Context, conn *pgx.Conn) (int64, error) {
	var sb int64
	err := conn.QueryRow(ctx, "SELECT setting::int8 * current_setting('block_size')::int8 FROM pg_settings WHERE name = 'shared_buffers'").Scan(&sb)
	if err != nil {
		return 0, fmt.Errorf("read shared_buffers: %w", err)
	}
	return sb, nil
}

// phase runs f and prints its elapsed time.
func phase(out io.Writer, name string, f func() error) error {
	t0 := time.Now()
	fmt.Fprintf(out, "phase %s ...\n", name)
	err := f()
	status := "done"
	if err != nil {
		status = "FAILED"
	}
	fmt.Fprintf(out, "phase %s: %s in %.1f s\n", name, status, time.Since(t0).Seconds())
	return err
}
