package xpu

import (
	"errors"
	"fmt"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
)

var (
	// ErrBadProgram is XPU_STATUS_BAD_PROGRAM: the kernel refused a
	// program this package accepted, i.e. the validator and the kernels
	// disagree.  It is the service's fault, not the client's.
	ErrBadProgram = errors.New("the GPU kernel rejected the xPU program (XPU_STATUS_BAD_PROGRAM)")
	// ErrBadPage is XPU_STATUS_BAD_PAGE: a heap page of the chunk is
	// malformed.  It wraps protocol.ErrProtocol: the client sent it.
	ErrBadPage = fmt.Errorf("%w: the GPU kernel found a malformed heap page in the chunk (XPU_STATUS_BAD_PAGE)", protocol.ErrProtocol)
)

// StatusError maps a kernel's counters[XPU_COUNTER_STATUS] to an error; nil
// for XPU_STATUS_OK.
func StatusError(status uint32) error {
	switch status {
	case StatusOK:
		return nil
	case StatusBadProg:
		return ErrBadProgram
	case StatusBadPage:
		return ErrBadPage
	}
	return fmt.Errorf("the GPU kernel reported unknown status %d", status)
}

// protoErr is a validation error of an OpenSession or TaskExec message.
func protoErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", protocol.ErrProtocol, fmt.Sprintf(format, args...))
}

// nodeErr names the node at fault.
func nodeErr(i int, op Opcode, format string, args ...any) error {
	return protoErr("xpu program: node %d (%s): %s", i, op, fmt.Sprintf(format, args...))
}
