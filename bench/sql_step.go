package main

import (
	"fmt"
	"io"
)

// PrintSQL writes the text of every query Run would time, each after a
// "-- NAME on TARGET" comment line and ending in ";", so that a script can
// run one query by hand (EXPLAIN ANALYZE, psql's \timing) as the bench runs
// it: pgstrom-bench sql -tables tpch -queries Q9.
func PrintSQL(w io.Writer, cfg *Config) error {
	n := 0
	for _, t := range runTargets(cfg) {
		for _, q := range t.Queries {
			if _, err := fmt.Fprintf(w, "-- %s on %s\n%s;\n\n", q.Name, t.Name, t.sql(q)); err != nil {
				return fmt.Errorf("writing the text of %s: %w", q.Name, err)
			}
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("no query of -queries runs on -tables")
	}
	return nil
}
