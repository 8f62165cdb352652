package main

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// rewriteNotAllVisible makes every page of d's partitions all-visible
// after its VACUUM, so that pg_strom reads none of them through the CPU's
// visibility checks, and returns how many partitions it rewrote. A loader
// that waits for a table's extension lock makes the table grow by many
// blocks at once; where the inserts stop before they fill them, all-zero
// pages stay behind, which VACUUM never marks all-visible (it leaves them
// for the free space map). Concurrent inserts into 84 partitions, each
// getting a few of every part's rows, leave some in most loads; VACUUM FULL
// rewrites such a partition without them. A plain table, which every
// insert extends at its end, is left as it is.
func rewriteNotAllVisible(ctx context.Context, conn *pgx.Conn, d Dataset) (int, error) {
	if d.Partitions == nil {
		return 0, nil
	}
	rows, err := conn.Query(ctx, `SELECT t FROM unnest($1::text[]) AS t JOIN pg_class ON oid = t::regclass
		WHERE relallvisible < relpages`, d.leaves())
	if err != nil {
		return 0, fmt.Errorf("%s: find pages not all-visible: %w", d.Name, err)
	}
	leaves, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return 0, fmt.Errorf("%s: find pages not all-visible: %w", d.Name, err)
	}
	for _, t := range leaves {
		for _, s := range []string{"VACUUM (FULL, FREEZE) " + t, "VACUUM (FREEZE, ANALYZE) " + t} {
			if _, err := conn.Exec(ctx, s); err != nil {
				return 0, fmt.Errorf("%s: %w", s, err)
			}
		}
	}
	return len(leaves), nil
}
