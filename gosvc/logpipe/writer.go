package logpipe

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Writer writes log lines to the supervisor's pipe. It never blocks: a GPU
// worker must not stall because the supervisor is slow to drain its pipe, so
// a line that does not fit is dropped and counted instead.
type Writer struct {
	fd      int
	dropped atomic.Uint64
}

// linePool recycles line buffers; logging happens on hot paths.
var linePool = sync.Pool{New: func() any { b := make([]byte, 0, MaxLine); return &b }}

// NewWriter takes the write end of the log pipe and makes it non-blocking.
func NewWriter(fd int) (*Writer, error) {
	if err := unix.SetNonblock(fd, true); err != nil {
		return nil, fmt.Errorf("logpipe: set O_NONBLOCK on fd %d: %w", fd, err)
	}
	return &Writer{fd: fd}, nil
}

// WriteLine formats and writes one line. It is safe for concurrent use: each
// line is a single write() of at most PIPE_BUF bytes, which the kernel keeps
// whole.
func (w *Writer) WriteLine(source string, level Level, file string, line int, fn string, msg string) {
	bp := linePool.Get().(*[]byte)
	buf := formatLine((*bp)[:0], source, level, file, line, fn, msg)
	w.writeRaw(buf)
	*bp = buf
	linePool.Put(bp)
}

// Dropped returns how many lines could not be written.
func (w *Writer) Dropped() uint64 {
	return w.dropped.Load()
}

func (w *Writer) writeRaw(buf []byte) {
	for {
		n, err := unix.Write(w.fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		// EAGAIN means the pipe is full; any other error (EPIPE: the
		// supervisor is gone) leaves nobody to tell, so the line is lost
		// either way. Writes of at most PIPE_BUF are never partial.
		if err != nil || n != len(buf) {
			w.dropped.Add(1)
		}
		return
	}
}
