package logpipe

import (
	"bufio"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// testPipe returns a Writer on the write end of a fresh pipe and a reader on
// its read end.
func testPipe(t *testing.T) (*Writer, *bufio.Reader, *os.File) {
	t.Helper()
	var fds [2]int
	if err := unix.Pipe(fds[:]); err != nil {
		t.Fatalf("pipe: %v", err)
	}
	r := os.NewFile(uintptr(fds[0]), "log-read")
	t.Cleanup(func() {
		r.Close()
		unix.Close(fds[1])
	})
	w, err := NewWriter(fds[1])
	if err != nil {
		t.Fatalf("NewWriter: %v", err)
	}
	return w, bufio.NewReaderSize(r, 2*MaxLine), r
}

// readLine reads one line; the pipe must already hold it.
func readLine(t *testing.T, br *bufio.Reader) string {
	t.Helper()
	s, err := br.ReadString('\n')
	if err != nil {
		t.Fatalf("read line: %v (got %q)", err, s)
	}
	return s
}
