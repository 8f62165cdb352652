package logpipe

// The line limit comes from the contract header so that the supervisor's
// read buffer and this writer can never disagree.

// #cgo CFLAGS: -I${SRCDIR}/../../include
// #include "pg_strom_control.h"
import "C"

// MaxLine is the longest line, newline included, written with one write().
// It equals PIPE_BUF, so the kernel never interleaves two lines.
const MaxLine = int(C.PGSTROM_LOG_MAX_LINE)
