package main

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// partJob is one part of one dataset to insert.
type partJob struct {
	d      Dataset
	part   int
	parts  int
	lo, hi int64
}

// Load creates the datasets: idempotent (a complete dataset is left alone)
// and resumable (only parts not yet committed are inserted).
func Load(ctx context.Context, cfg *Config) error {
	out := cfg.Stdout
	t0 := time.Now()
	conn, err := connect(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	fmt.Fprintf(out, "load: scale %g (W1), SSB scale factor %g, %d loader connections\n", cfg.Scale, cfg.SF, cfg.Workers)

	var jobs []partJob
	var states []DatasetState
	err = phase(out, "prepare", func() error {
		if err := ensureMeta(ctx, conn); err != nil {
			return err
		}
		if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_strom"); err != nil {
			fmt.Fprintf(out, "  warning: CREATE EXTENSION pg_strom: %v (run needs pg_strom preloaded)\n", err)
		}
		for _, d := range cfg.Tables {
			rows := d.Rows(cfg.scaleOf(d))
			st, note, err := prepareDataset(ctx, conn, d, rows)
			if err != nil {
				return fmt.Errorf("prepare %s: %w", d.Name, err)
			}
			fmt.Fprintf(out, "  %s: %d rows in %d parts: %s\n", d.Name, rows, st.Parts, note)
			states = append(states, st)
			for p := 0; p < st.Parts; p++ {
				if !st.Done[p] {
					lo, hi := d.PartRange(rows, p)
					jobs = append(jobs, partJob{d: d, part: p, parts: st.Parts, lo: lo, hi: hi})
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}

	err = phase(out, "insert", func() error { return insertParts(ctx, cfg, jobs) })
	if err != nil {
		return err
	}

	err = phase(out, "vacuum", func() error {
		var todo []Dataset
		for i, d := range cfg.Tables {
			if !states[i].Finalized {
				todo = append(todo, d)
			}
		}
		return finalizeAll(ctx, cfg, todo)
	})
	if err != nil {
		return err
	}
	for _, d := range cfg.Tables {
		n, err := heapBytes(ctx, conn, d)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "  %s: heap %.3f GB\n", d.Name, gb(n))
	}

	if cfg.Prewarm {
		if err := phase(out, "prewarm", func() error { return prewarm(ctx, conn, cfg.Tables, out) }); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "load: done in %.1f s\n", time.Since(t0).Seconds())
	return nil
}

// insertParts inserts the parts over cfg.Workers connections; every part
// and its bench_meta_parts row commit together.
func insertParts(ctx context.Context, cfg *Config, jobs []partJob) error {
	if len(jobs) == 0 {
		fmt.Fprintln(cfg.Stdout, "  nothing to insert")
		return nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	prog := newProgress(cfg.Stderr)
	bars := map[string]progressBar{}
	for _, j := range jobs {
		if _, ok := bars[j.d.Name]; !ok {
			n := 0
			for _, k := range jobs {
				if k.d.Name == j.d.Name {
					n++
				}
			}
			bars[j.d.Name] = prog.bar(j.d.Name, int64(n))
		}
	}
	logw := prog.writer()
	ch := make(chan partJob)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for w := 0; w < min(cfg.Workers, len(jobs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := insertWorker(ctx, cfg, ch, func(j partJob, secs float64) {
				mu.Lock()
				done++
				if done%max(1, len(jobs)/16) == 0 || done == len(jobs) {
					fmt.Fprintf(logw, "  [%d/%d] %s part %d/%d (%d rows) in %.1f s\n",
						done, len(jobs), j.d.Name, j.part+1, j.parts, j.hi-j.lo+1, secs)
				}
				bars[j.d.Name].increment(fmt.Sprintf("part %d/%d", j.part+1, j.parts))
				mu.Unlock()
			}); err != nil {
				cancel(err)
			}
		}()
	}
feed:
	for _, j := range jobs {
		select {
		case ch <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(ch)
	wg.Wait()
	prog.wait()
	if err := context.Cause(ctx); err != nil {
		return err
	}
	fmt.Fprintf(cfg.Stdout, "  inserted %d parts\n", len(jobs))
	return nil
}

func insertWorker(ctx context.Context, cfg *Config, jobs <-chan partJob, progress func(partJob, float64)) error {
	conn, err := connect(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	for _, s := range []string{"SET synchronous_commit = off", "SET jit = off"} {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("loader %s: %w", s, err)
		}
	}
	for j := range jobs {
		t0 := time.Now()
		tx, err := conn.Begin(ctx)
		if err != nil {
			return fmt.Errorf("%s part %d: begin: %w", j.d.Name, j.part, err)
		}
		if _, err := tx.Exec(ctx, j.d.InsertSQL(j.lo, j.hi)); err != nil {
			tx.Rollback(context.Background())
			return fmt.Errorf("%s part %d: insert rows %d..%d: %w", j.d.Name, j.part, j.lo, j.hi, err)
		}
		if _, err := tx.Exec(ctx, "INSERT INTO bench_meta_parts (dataset, part, lo, hi) VALUES ($1, $2, $3, $4)",
			j.d.Name, j.part, j.lo, j.hi); err != nil {
			tx.Rollback(context.Background())
			return fmt.Errorf("%s part %d: record part: %w", j.d.Name, j.part, err)
		}
		if err := tx.Commit(ctx); err != nil {
			return fmt.Errorf("%s part %d: commit: %w", j.d.Name, j.part, err)
		}
		progress(j, time.Since(t0).Seconds())
	}
	return nil
}

// finalizeAll vacuums (freeze, analyze) the datasets in parallel, one
// connection each, sets parallel_workers and marks them finalized.
func finalizeAll(ctx context.Context, cfg *Config, todo []Dataset) error {
	if len(todo) == 0 {
		fmt.Fprintln(cfg.Stdout, "  nothing to vacuum")
		return nil
	}
	errs := make([]error, len(todo))
	var wg sync.WaitGroup
	for i, d := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = finalize(ctx, cfg, d)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func finalize(ctx context.Context, cfg *Config, d Dataset) error {
	conn, err := connect(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	t0 := time.Now()
	// VACUUM of a partitioned table vacuums its partitions and analyzes
	// both; parallel_workers is a partition's parameter, not its parent's
	stmts := []string{"VACUUM (FREEZE, ANALYZE) " + d.ident()}
	for _, t := range d.leaves() {
		stmts = append(stmts, "ALTER TABLE "+t+" SET (parallel_workers = 16)")
	}
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	rewritten, err := rewriteNotAllVisible(ctx, conn, d)
	if err != nil {
		return err
	}
	if err := markFinalized(ctx, conn, d); err != nil {
		return err
	}
	note := ""
	if rewritten > 0 {
		note = fmt.Sprintf(", %d rewritten by VACUUM FULL (all-zero pages)", rewritten)
	}
	fmt.Fprintf(cfg.Stdout, "  %s: VACUUM FREEZE ANALYZE, parallel_workers = 16%s%s in %.1f s\n", d.Name, partitionsNote(d), note, time.Since(t0).Seconds())
	return nil
}
