package join

import (
	"fmt"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// Inner is one depth's inner buffer on an executor (XpuJoinInner and its
// regions, laid out by xpu.NewJoinInnerLayout).
type Inner interface {
	// comparable: I's zero value (a nil pointer) means "no buffer".
	comparable
	// Bytes is the memory the buffer takes.
	Bytes() uint64
}

// Executor is what a plan's inner buffers need from the executor that
// makes them.
type Executor[I Inner] interface {
	// NewInner allocates depth's buffer for nrows rows of rowSize bytes
	// with the header written and the buckets zeroed.
	NewInner(depth int, nrows, rowSize uint32) (I, error)
	// CopyRows copies whole rows into the buffer from row index first.
	CopyRows(in I, first uint32, rows []byte) error
	// Build runs kern_gpujoin_build over every row of the buffer of
	// depth, whose rows are all copied; a bad row (XPU_STATUS_BAD_INNER)
	// is an error wrapping ErrBadInner.
	Build(in I, depth int) error
	// FreeInner frees the buffer.
	FreeInner(in I) error
}

// ErrBadInner marks inner rows that kern_gpujoin_build refused: the
// backend wrote a slot xpu_key_store could not have written.
var ErrBadInner = fmt.Errorf("%w: a GpuJoin inner row is not in the key slot encoding (XPU_STATUS_BAD_INNER)", protocol.ErrProtocol)

// KernelStatus is the error of a GpuJoin kernel's XPU_STATUS_* (nil for
// OK): BAD_INNER wraps ErrBadInner, the others as xpu.StatusError.
func KernelStatus(status uint32, kernel string) error {
	if status == xpu.StatusBadInner {
		return fmt.Errorf("%s: %w", kernel, ErrBadInner)
	}
	if err := xpu.StatusError(status); err != nil {
		return fmt.Errorf("%s: %w", kernel, err)
	}
	return nil
}

// Launch is what one launch of kern_gpujoin_block returned.
type Launch struct {
	// Records are min(nitems, capacity) records of Stride words, valid
	// until the task's next Launch.
	Records   []uint32
	NTuples   uint32 // outer tuples examined (0 when resuming)
	NRecheck  uint32 // RECHECK records among Records
	NSuspend  uint32 // rows that found the output full
	GpuTimeNs uint64
}

// Task is one chunk's work on the executor's side: its pages, an output
// buffer of capacity records and two cursor lists (one the kernel
// resumes from, one it suspends into), swapped between launches.
type Task[I Inner] interface {
	// Launch runs kern_gpujoin_block once with inners (one per depth):
	// over every tuple of the chunk when resume is false, else over the
	// cursors the previous launch suspended.
	Launch(inners []I, resume bool) (Launch, error)
}

// ExecFunc runs one chunk of a session on its executor: it sets up the
// chunk's task (pages, an output of capacity records, cursor lists),
// calls probe with it and frees it.
type ExecFunc[I Inner] func(c xpu.Chunk, pages nodekind.Pages, capacity uint32, probe func(Task[I]) error) error
