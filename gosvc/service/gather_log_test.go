package service

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

type fakeGatherReporter struct{ line string }

func (f *fakeGatherReporter) GatherSummary() string { return f.line }
func (f *fakeGatherReporter) Name() string          { return "fake" }

type plainExecutor struct{}

func (plainExecutor) Name() string { return "plain" }

// The first tick logs the summary (the threshold in force); later ticks
// log a changed line at most every gatherLogInterval; exit logs a change
// at once and nothing when there is none.
func TestLogGather(t *testing.T) {
	var buf bytes.Buffer
	s := &service{log: zerolog.New(&buf)}
	r := &fakeGatherReporter{line: "zero-copy gather: 0 pages"}
	s.watchGather(1, r, false)
	s.watchGather(2, plainExecutor{}, true)
	if len(s.gatherLogs) != 0 {
		t.Fatal("a device without registered shared buffers, or an executor without summary, is watched")
	}
	s.watchGather(3, r, true)
	lines := func() []string { return strings.Split(strings.TrimSpace(buf.String()), "\n") }

	t0 := time.Now()
	s.logGather(t0, false)
	if got := lines(); len(got) != 1 || !strings.Contains(got[0], "0 pages") || !strings.Contains(got[0], `"gpu":3`) {
		t.Fatalf("first tick logged %q, want the summary of GPU3", got)
	}
	r.line = "zero-copy gather: 10 pages"
	s.logGather(t0.Add(gatherLogInterval/2), false)
	if n := len(lines()); n != 1 {
		t.Fatalf("%d lines after a tick within gatherLogInterval, want 1", n)
	}
	s.logGather(t0.Add(gatherLogInterval), false)
	if got := lines(); len(got) != 2 || !strings.Contains(got[1], "10 pages") {
		t.Fatalf("lines %q, want the changed summary logged", got)
	}
	s.logGather(t0.Add(3*gatherLogInterval), false)
	if n := len(lines()); n != 2 {
		t.Fatalf("%d lines after a tick without change, want 2", n)
	}
	r.line = "zero-copy gather: 11 pages"
	s.logGather(t0.Add(3*gatherLogInterval+time.Millisecond), true)
	if got := lines(); len(got) != 3 || !strings.Contains(got[2], "11 pages") {
		t.Fatalf("lines %q, want the change logged at exit", got)
	}
}
