// Command pg_strom_gosvc_hostexec is the GPU service library of the
// TEST-ONLY host executor, built with -buildmode=c-shared by
// test/run_regress_hostexec.sh (never by make, never installed by make
// install).  The launcher loads it instead of pg_strom_gosvc.so only when
// PG_STROM_TEST_HOST_EXECUTOR=1 is in the postmaster's environment.  It
// runs the real service with the host backend, and links no CUDA.
package main

import "C"

import (
	"unsafe"

	"github.com/pgstrom-go/pg_strom/gosvc/hostexec"
	"github.com/pgstrom-go/pg_strom/gosvc/service"
)

// PgStromServiceMain is the same entry point as pg_strom_gosvc.so's,
// environment (envp) included.
//
//export PgStromServiceMain
func PgStromServiceMain(ctlFd, logFd C.int, envp **C.char) C.int {
	env := service.CStrings(unsafe.Pointer(envp))
	return C.int(service.RunWithEnviron(int(ctlFd), int(logFd), env, hostexec.NewBackend()))
}

// main is required by -buildmode=c-shared and never runs.
func main() {}
