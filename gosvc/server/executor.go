package server

import (
	"errors"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/mempool"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// The executor of a device is a nodekind.Executor: it runs the node
// kinds whose primitives it implements.  The interfaces below are what
// else the server can use when it implements them.

// HostMemoryKeeper is implemented by an Executor that keeps host memory
// between requests (the gpu package's lent bodies); the service calls
// ReleaseIdle periodically and reports HostBytes.
type HostMemoryKeeper interface {
	// ReleaseIdle frees what has been idle for at least delay at now.
	ReleaseIdle(now time.Time, delay time.Duration) error
	// HostBytes is the host memory kept now, lent or idle.
	HostBytes() uint64
}

// BodyLender is implemented by an Executor that lends pinned host memory
// for the bodies of large TaskExec messages (the gpu package's): an inline
// chunk is then received where the device reads it by DMA, instead of into
// a fresh Go allocation that Exec copies once more into a staging buffer.
type BodyLender interface {
	// LendBody returns at least n bytes of pinned memory, or nil when none
	// can be had now; the receiver then allocates ordinary memory.
	LendBody(n int) []byte
	// ReturnBody takes back what LendBody returned, once, after the last
	// Exec that reads it has returned.
	ReturnBody(b []byte) error
}

// LinkProber is implemented by an Executor that can measure its device's
// link (the gpu package's); without it a LINK_PROBE request is answered
// ErrCodeUnsupported.
type LinkProber interface {
	// ProbeLink copies bytes (validated: 1MB..1GB, a multiple of 1MB)
	// between pinned host memory and device memory, once untimed and then
	// copies (1..64) times in each direction, and returns the wall time of
	// the timed copies of each direction.  Errors are classified as for
	// Exec (ErrNoMemory, mempool.ErrExhausted: no device memory to spare).
	ProbeLink(bytes uint64, copies int) (h2dNs, d2hNs uint64, err error)
}

// ErrNoMemory marks an executor error caused by device memory exhaustion
// (as does mempool.ErrExhausted): the reply is PGSTROM_ERR_NO_MEMORY and
// the connection stays open.
var ErrNoMemory = errors.New("out of device memory")

// ErrDeviceLost marks an executor error after which the device cannot run
// anything until the service restarts: a sticky CUDA error (an illegal
// address, a failed launch, an uncorrectable ECC error...) poisons the
// context for every later call.  The request is answered
// PGSTROM_ERR_DEVICE (the backend continues on the CPU), and the server
// reports the loss once through Config.OnDeviceLost, so that the service
// exits and its supervisor starts a fresh one.
var ErrDeviceLost = errors.New("the device cannot be used until the GPU service restarts")

// executorErrorCode classifies an executor error for the Error reply, and
// says whether the connection must be closed: only for errors that blame
// the client's data (protocol errors, e.g. xpu.ErrBadPage).
func executorErrorCode(err error) (code int32, closeConn bool) {
	switch {
	case errors.Is(err, ErrDeviceLost):
		// before the others: a lost device explains whatever else the
		// error says
		return protocol.ErrCodeDevice, false
	case errors.Is(err, protocol.ErrBadReply):
		return protocol.ErrCodeInternal, false
	case errors.Is(err, protocol.ErrUnsupported):
		return protocol.ErrCodeUnsupported, false
	case errors.Is(err, protocol.ErrProtocol):
		return protocol.ErrCodeProtocol, true
	case errors.Is(err, ErrNoMemory), errors.Is(err, mempool.ErrExhausted):
		return protocol.ErrCodeNoMemory, false
	case errors.Is(err, xpu.ErrBadProgram):
		return protocol.ErrCodeInternal, false
	}
	return protocol.ErrCodeDevice, false
}
