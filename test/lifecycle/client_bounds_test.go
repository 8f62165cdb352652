//go:build lifecycle

package lifecycle

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Connections to the service are bounded per role
// (pg_strom.max_connections_per_role) and per backend process
// (pg_strom.max_connections_per_backend): past either bound a node runs on
// the CPU, says why in EXPLAIN ANALYZE, and returns PostgreSQL's rows.
// Closing a cursor gives its connection back.
func TestClientConnectionBounds(t *testing.T) {
	ctx := context.Background()
	c, admin := hostExecCluster(ctx, t, "",
		"pg_strom.max_connections_per_role = 2", "pg_strom.max_connections_per_backend = 3")
	mustExec(ctx, t, admin, `CREATE TABLE cb (id int, g int);
		INSERT INTO cb SELECT i, i % 7 FROM generate_series(1, 20000) i;
		CREATE ROLE cb_user LOGIN; GRANT SELECT ON cb TO cb_user;
		CREATE ROLE cb_other LOGIN; GRANT SELECT ON cb TO cb_other`)
	mustExec(ctx, t, admin, "VACUUM ANALYZE cb")
	const query = "SELECT g, count(*) FROM cb WHERE id > 10 GROUP BY g"
	// a scan's cursor keeps its connection until it is read to the end
	// or closed (an aggregate's node is done after the first FETCH)
	const scan = "SELECT id, g FROM cb WHERE id > 10"
	mustExec(ctx, t, admin, "SET pg_strom.enabled = off")
	want := queryRows(ctx, t, admin, query)
	mustExec(ctx, t, admin, "RESET pg_strom.enabled")

	// a cursor holds its node's connection until it is closed
	holder := c.connectAs(ctx, "cb_user")
	mustExec(ctx, t, holder, gpuSettings)
	mustExec(ctx, t, holder, "BEGIN; DECLARE c1 CURSOR FOR "+scan+"; DECLARE c2 CURSOR FOR "+scan)
	mustExec(ctx, t, holder, "FETCH 1 FROM c1; FETCH 1 FROM c2")

	user := c.connectAs(ctx, "cb_user")
	mustExec(ctx, t, user, gpuSettings)
	plan := explain(ctx, t, user, query)
	if !strings.Contains(plan, "CPU Path: ") || !strings.Contains(plan, "pg_strom.max_connections_per_role") {
		t.Fatalf("a third connection of role cb_user, want the CPU path for the role bound:\n%s", plan)
	}
	if got := queryRows(ctx, t, user, query); !sameRows(got, want) {
		t.Fatalf("rows on the CPU path %v, want %v", got, want)
	}
	// another role is not bound by cb_user's connections
	other := c.connectAs(ctx, "cb_other")
	mustExec(ctx, t, other, gpuSettings)
	if plan := explain(ctx, t, other, query); strings.Contains(plan, "CPU Path") {
		t.Fatalf("role cb_other ran on the CPU:\n%s", plan)
	}

	// closing the cursors gives their connections back
	mustExec(ctx, t, holder, "COMMIT")
	if plan := explain(ctx, t, user, query); strings.Contains(plan, "CPU Path") {
		t.Fatalf("after the cursors closed, role cb_user still ran on the CPU:\n%s", plan)
	}

	// one backend: the service refuses its fourth connection (the role
	// bound lifted, so that it is the service that refuses)
	mustExec(ctx, t, admin, "ALTER SYSTEM SET pg_strom.max_connections_per_role = 0")
	mustExec(ctx, t, admin, "SELECT pg_reload_conf()")
	for i := 0; ; i++ {
		var v string
		if err := admin.QueryRow(ctx, "SHOW pg_strom.max_connections_per_role").Scan(&v); err != nil {
			t.Fatal(err)
		}
		if v == "0" {
			break
		}
		if i == 100 {
			t.Fatalf("pg_strom.max_connections_per_role is %s after the reload, want 0", v)
		}
		time.Sleep(50 * time.Millisecond)
	}
	mustExec(ctx, t, admin, gpuSettings)
	mustExec(ctx, t, admin, "BEGIN")
	for _, cur := range []string{"a1", "a2", "a3"} {
		mustExec(ctx, t, admin, "DECLARE "+cur+" CURSOR FOR "+scan+"; FETCH 1 FROM "+cur)
	}
	plan = explain(ctx, t, admin, query)
	if !strings.Contains(plan, "CPU Path: ") || !strings.Contains(plan, "max_connections_per_backend") {
		t.Fatalf("a fourth connection of one backend, want the CPU path for the backend bound:\n%s", plan)
	}
	if got := queryRows(ctx, t, admin, query); !sameRows(got, want) {
		t.Fatalf("rows on the CPU path %v, want %v", got, want)
	}
	mustExec(ctx, t, admin, "COMMIT")
}

// queryRows runs query and returns its rows, each formatted, sorted.
func queryRows(ctx context.Context, t *testing.T, conn *pgx.Conn, query string) []string {
	t.Helper()
	rows, err := conn.Query(ctx, query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprint(vals...))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	slices.Sort(out)
	return out
}

func sameRows(a, b []string) bool { return slices.Equal(a, b) }
