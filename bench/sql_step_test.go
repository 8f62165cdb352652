package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func printedSQL(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := realMain(append([]string{"sql"}, args...), &stdout, &stderr)
	if code != 0 && stderr.Len() == 0 {
		t.Fatalf("exit %d without a message", code)
	}
	return stdout.String(), code
}

func TestSQLStepPrintsTheQueriesRunTimes(t *testing.T) {
	out, code := printedSQL(t, "-tables", "tpch", "-queries", "Q9,Q21")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, name := range []string{"Q9", "Q21"} {
		var want string
		for _, q := range TPCHQueries {
			if q.Name == name {
				want = "-- " + name + " on tpch\n" + q.SQL + ";\n"
			}
		}
		if want == "" || !strings.Contains(out, want) {
			t.Errorf("the text of %s is not printed as run times it; got:\n%s", name, out)
		}
	}
	if strings.Count(out, "\n-- ") != 1 {
		t.Errorf("expected exactly two queries, got:\n%s", out)
	}
}

func TestSQLStepNamesTheW1Table(t *testing.T) {
	q := Queries[0]
	out, code := printedSQL(t, "-tables", "w1_wide", "-queries", q.Name)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if strings.Contains(out, "{t}") || !strings.Contains(out, "w1_wide") {
		t.Errorf("the W1 query's table is not substituted: %s", out)
	}
}

func TestSQLStepRefusesQueriesOfAnotherDataset(t *testing.T) {
	var stderr bytes.Buffer
	code := realMain([]string{"sql", "-tables", "tpch", "-queries", "Q1.1"}, io.Discard, &stderr)
	if code == 0 || !strings.Contains(stderr.String(), "no query") {
		t.Errorf("exit %d, stderr %q: want a failure naming the empty selection", code, stderr.String())
	}
}
