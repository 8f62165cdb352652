package logpipe

import (
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/rs/zerolog"
)

// debugOn follows pg_strom.gpuserv_debug_output, which changes live on reload.
var debugOn atomic.Bool

// SetDebug switches debug events on or off for every logger from NewLogger.
func SetDebug(on bool) {
	debugOn.Store(on)
}

// DebugEnabled reports whether debug events are written. Hot paths can check
// it before building an expensive debug event.
func DebugEnabled() bool {
	return debugOn.Load()
}

// NewLogger returns a logger whose events name the file, line and function
// that logged them, so the supervisor's ereport points at the Go source.
func NewLogger(w io.Writer) zerolog.Logger {
	return zerolog.New(w).Level(zerolog.TraceLevel).Hook(debugFilter{}, callerHook{})
}

// WithDevice returns a logger whose lines carry the source GPU<n>.
func WithDevice(l zerolog.Logger, n int) zerolog.Logger {
	return l.With().Int(FieldGPU, n).Logger()
}

// debugFilter drops debug and trace events while debug output is off. A hook
// rather than the logger's level keeps the switch live for loggers that were
// already handed out.
type debugFilter struct{}

func (debugFilter) Run(e *zerolog.Event, level zerolog.Level, _ string) {
	if level <= zerolog.DebugLevel && !debugOn.Load() {
		e.Discard()
	}
}

// callerHook adds the caller's position to the event.
type callerHook struct{}

// zerologPrefix matches zerolog and its sub-packages (zerolog/log), whose
// frames sit between the hook and the code that logged; Msg, Msgf, Send and
// MsgFunc nest differently, so frames are skipped by package, not by count.
const zerologPrefix = "github.com/rs/zerolog"

func (callerHook) Run(e *zerolog.Event, _ zerolog.Level, _ string) {
	if !e.Enabled() {
		return
	}
	var pcs [16]uintptr
	// Skip runtime.Callers and Run itself.
	n := runtime.Callers(2, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, zerologPrefix) {
			e.Str(FieldFile, shortFile(f.File)).Int(FieldLine, f.Line).Str(FieldFunc, shortFunc(f.Function))
			return
		}
		if !more {
			return
		}
	}
}

// shortFile keeps the directory and the file name ("mempool/pool.go"): enough
// to find the file, short enough for a log line.
func shortFile(path string) string {
	dir, file := filepath.Split(path)
	return filepath.Join(filepath.Base(dir), file)
}

// shortFunc drops the module path ("mempool.(*Pool).Alloc").
func shortFunc(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[i+1:]
	}
	return name
}
