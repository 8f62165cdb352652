package logpipe

import (
	"errors"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// here returns the line it is called from.
func here() int {
	_, _, line, _ := runtime.Caller(1)
	return line
}

func TestLoggerLinesCarryCaller(t *testing.T) {
	w, br, _ := testPipe(t)
	log := NewLogger(w)

	line := here() + 1
	log.Info().Msg("hello")
	got := readLine(t, br)
	want := "SVC|LOG|logpipe/logger_test.go|" + strconv.Itoa(line) + "|logpipe.TestLoggerLinesCarryCaller|hello\n"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}

	// Msgf and Send reach the hook through different zerolog frames.
	log.Warn().Msgf("n=%d", 5)
	if got := readLine(t, br); !strings.Contains(got, "|logpipe/logger_test.go|") || !strings.Contains(got, "|logpipe.TestLoggerLinesCarryCaller|n=5\n") {
		t.Fatalf("Msgf line %q lacks the test's position", got)
	}
	log.Error().Send()
	if got := readLine(t, br); !strings.HasPrefix(got, "SVC|WARNING|logpipe/logger_test.go|") || !strings.HasSuffix(got, "|logpipe.TestLoggerLinesCarryCaller|\n") {
		t.Fatalf("Send line %q lacks the test's position", got)
	}
}

func TestLoggerDeviceAndExtraFields(t *testing.T) {
	w, br, _ := testPipe(t)
	log := WithDevice(NewLogger(w), 2)
	log.Error().Err(errors.New("cuMemAlloc failed")).Uint64("size", 1024).Msg("alloc")
	got := readLine(t, br)
	if !strings.HasPrefix(got, "GPU2|WARNING|logpipe/logger_test.go|") {
		t.Fatalf("got %q, want GPU2 WARNING line from this file", got)
	}
	if !strings.HasSuffix(got, "|alloc error=cuMemAlloc failed size=1024\n") {
		t.Fatalf("got %q, want extra fields after the message", got)
	}
}

func TestWriteMapsZerologLevels(t *testing.T) {
	cases := []struct{ level, want string }{
		{"trace", "DEBUG"}, {"debug", "DEBUG"}, {"info", "LOG"}, {"warn", "WARNING"},
		{"error", "WARNING"}, {"fatal", "WARNING"}, {"panic", "WARNING"}, {"", "LOG"},
	}
	w, br, _ := testPipe(t)
	for _, c := range cases {
		ev := `{"level":"` + c.level + `","gpu":1,"file":"a.go","line":3,"func":"f","message":"m"}` + "\n"
		n, err := w.Write([]byte(ev))
		if err != nil || n != len(ev) {
			t.Fatalf("Write = %d, %v", n, err)
		}
		want := "GPU1|" + c.want + "|a.go|3|f|m\n"
		if got := readLine(t, br); got != want {
			t.Errorf("level %q: got %q, want %q", c.level, got, want)
		}
	}
}

func TestWriteKeepsUnparsableEvent(t *testing.T) {
	w, br, _ := testPipe(t)
	if _, err := w.Write([]byte("not json\n")); err != nil {
		t.Fatal(err)
	}
	if got := readLine(t, br); got != "SVC|WARNING||0||unparsable log event: not json\n" {
		t.Fatalf("got %q", got)
	}
}

func TestSetDebugSwitchesLive(t *testing.T) {
	t.Cleanup(func() { SetDebug(false) })
	w, br, _ := testPipe(t)
	log := NewLogger(w)

	SetDebug(false)
	if DebugEnabled() {
		t.Fatal("DebugEnabled after SetDebug(false)")
	}
	log.Debug().Msg("hidden")
	log.Info().Msg("marker1")
	if got := readLine(t, br); !strings.HasSuffix(got, "|marker1\n") {
		t.Fatalf("debug line leaked while off: %q", got)
	}

	// The same logger, already handed out, must follow the switch.
	SetDebug(true)
	if !DebugEnabled() {
		t.Fatal("DebugEnabled false after SetDebug(true)")
	}
	log.Debug().Msg("shown")
	if got := readLine(t, br); !strings.HasPrefix(got, "SVC|DEBUG|logpipe/logger_test.go|") || !strings.HasSuffix(got, "|shown\n") {
		t.Fatalf("debug line while on = %q", got)
	}

	SetDebug(false)
	log.Debug().Msg("hidden again")
	log.Info().Msg("marker2")
	if got := readLine(t, br); !strings.HasSuffix(got, "|marker2\n") {
		t.Fatalf("debug line leaked after switching off: %q", got)
	}
}
