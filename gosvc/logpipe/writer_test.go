package logpipe

import (
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

func TestMaxLineMatchesPipeBuf(t *testing.T) {
	if MaxLine != 4096 {
		t.Fatalf("MaxLine = %d, want 4096 (PIPE_BUF on Linux)", MaxLine)
	}
}

func TestNewWriterSetsNonblock(t *testing.T) {
	var fds [2]int
	if err := unix.Pipe(fds[:]); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	if _, err := NewWriter(fds[1]); err != nil {
		t.Fatal(err)
	}
	flags, err := unix.FcntlInt(uintptr(fds[1]), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	if flags&unix.O_NONBLOCK == 0 {
		t.Fatalf("O_NONBLOCK not set: flags %#x", flags)
	}
}

func TestNewWriterBadFD(t *testing.T) {
	if _, err := NewWriter(-1); err == nil {
		t.Fatal("NewWriter(-1) succeeded")
	}
}

func TestWriteLineFormat(t *testing.T) {
	w, br, _ := testPipe(t)
	w.WriteLine("GPU0", Log, "mempool/pool.go", 42, "mempool.(*Pool).Alloc", "segment allocated")
	w.WriteLine(SourceService, Warning, "f.go", 7, "fn", "a|b")
	w.WriteLine("GPU3", Debug, "d.go", 1, "d", "")
	w.WriteLine("GPU1", Notice, "n.go", 2, "n", "x")

	want := []string{
		"GPU0|LOG|mempool/pool.go|42|mempool.(*Pool).Alloc|segment allocated\n",
		"SVC|WARNING|f.go|7|fn|a|b\n",
		"GPU3|DEBUG|d.go|1|d|\n",
		"GPU1|NOTICE|n.go|2|n|x\n",
	}
	for i, wl := range want {
		if got := readLine(t, br); got != wl {
			t.Errorf("line %d = %q, want %q", i, got, wl)
		}
	}
	if w.Dropped() != 0 {
		t.Errorf("Dropped = %d, want 0", w.Dropped())
	}
}

func TestWriteLineStripsNewlines(t *testing.T) {
	w, br, _ := testPipe(t)
	w.WriteLine("SVC", Log, "a\nb.go", 1, "f|g", "one\ntwo\r\nthree\x00four")
	got := readLine(t, br)
	want := "SVC|LOG|a_b.go|1|f_g|one two  three four\n"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestWriteLineTruncates(t *testing.T) {
	w, br, _ := testPipe(t)
	long := strings.Repeat("x", 10000)
	w.WriteLine("GPU0", Warning, "f.go", 1, "f", long)
	got := readLine(t, br)
	if len(got) != MaxLine {
		t.Fatalf("line length %d, want %d", len(got), MaxLine)
	}
	if !strings.HasPrefix(got, "GPU0|WARNING|f.go|1|f|xxx") || !strings.HasSuffix(got, "x\n") {
		t.Fatalf("unexpected truncated line %q...", got[:40])
	}

	// Oversized file and func must not push the line past the limit either.
	w.WriteLine("GPU0", Log, strings.Repeat("f", 9000), 1, strings.Repeat("g", 9000), long)
	got = readLine(t, br)
	if len(got) > MaxLine {
		t.Fatalf("line length %d exceeds %d", len(got), MaxLine)
	}
	if w.Dropped() != 0 {
		t.Fatalf("Dropped = %d, want 0", w.Dropped())
	}
}

func TestWriteLineTruncatesOnRuneBoundary(t *testing.T) {
	w, br, _ := testPipe(t)
	// 3-byte runes: some cut offset must fall inside a rune.
	w.WriteLine("SVC", Log, "f.go", 1, "f", strings.Repeat("€", 3000))
	got := readLine(t, br)
	if len(got) > MaxLine {
		t.Fatalf("line length %d exceeds %d", len(got), MaxLine)
	}
	if !utf8.ValidString(got) {
		t.Fatal("truncation split a UTF-8 sequence")
	}
	if len(got) < MaxLine-3 {
		t.Fatalf("line length %d: truncated more than one rune short of %d", len(got), MaxLine)
	}
}

func TestWriteLineDropsWhenPipeFull(t *testing.T) {
	w, br, _ := testPipe(t)
	line := strings.Repeat("y", 1000)
	// Nobody reads: the pipe (64 KiB by default) fills and later lines must
	// be dropped without blocking.
	const total = 500
	for i := 0; i < total; i++ {
		w.WriteLine("SVC", Log, "f.go", i, "f", line)
	}
	dropped := w.Dropped()
	if dropped == 0 || dropped >= total {
		t.Fatalf("Dropped = %d, want between 1 and %d", dropped, total-1)
	}

	// Everything that did get in is whole lines.
	written := total - int(dropped)
	for i := 0; i < written; i++ {
		got := readLine(t, br)
		if !strings.HasSuffix(got, line+"\n") {
			t.Fatalf("line %d is not whole: %q", i, got[:40])
		}
	}

	// Once drained, the writer works again and the count does not move.
	w.WriteLine("SVC", Log, "f.go", 1, "f", "after")
	if got := readLine(t, br); got != "SVC|LOG|f.go|1|f|after\n" {
		t.Fatalf("after drain got %q", got)
	}
	if w.Dropped() != dropped {
		t.Fatalf("Dropped moved from %d to %d", dropped, w.Dropped())
	}
}

func TestWriteLineCountsBrokenPipe(t *testing.T) {
	w, _, r := testPipe(t)
	r.Close()
	w.WriteLine("SVC", Log, "f.go", 1, "f", "nobody listens")
	if w.Dropped() != 1 {
		t.Fatalf("Dropped = %d, want 1", w.Dropped())
	}
}

func TestLevelString(t *testing.T) {
	cases := map[Level]string{Debug: "DEBUG", Log: "LOG", Notice: "NOTICE", Warning: "WARNING", Level(99): "LOG"}
	for l, want := range cases {
		if got := l.String(); got != want {
			t.Errorf("Level(%d).String() = %q, want %q", int(l), got, want)
		}
	}
}
