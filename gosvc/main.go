// Command pg_strom_gosvc is the GPU service, built with -buildmode=c-shared
// and called by the launcher (pg_strom_gpuserv) through its one exported
// entry point.  It only wires the real GPU backend into the service.
package main

import "C"

import (
	"github.com/pgstrom-go/pg_strom/gosvc/gpu"
	"github.com/pgstrom-go/pg_strom/gosvc/service"
)

// PgStromServiceMain runs the service until it stops and returns a
// PGSTROM_EXIT_* code (see include/pg_strom_control.h).
//
//export PgStromServiceMain
func PgStromServiceMain(ctlFd, logFd C.int) C.int {
	return C.int(service.Run(int(ctlFd), int(logFd), gpu.NewBackend()))
}

// main is required by -buildmode=c-shared and never runs.
func main() {}
