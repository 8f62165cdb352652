// Command pg_strom_gosvc is the GPU service, built with -buildmode=c-shared
// and called through its one exported entry point by the service process
// the supervisor forks.  It only wires the real GPU backend into the
// service.
package main

import "C"

import (
	"unsafe"

	"github.com/pgstrom-go/pg_strom/gosvc/gpu"
	"github.com/pgstrom-go/pg_strom/gosvc/service"
)

// PgStromServiceMain runs the service until it stops and returns a
// PGSTROM_EXIT_* code (see include/pg_strom_control.h).  envp is the
// NULL-terminated "NAME=value" environment the service must use: the
// process is forked from PostgreSQL without exec and its process title has
// overwritten the area the Go runtime read its environment from, so the
// service sets it again and applies GOMAXPROCS, GOGC, GOMEMLIMIT and
// GOTRACEBACK from it (service.ApplyEnviron).  envp may be NULL.
//
//export PgStromServiceMain
func PgStromServiceMain(ctlFd, logFd C.int, envp **C.char) C.int {
	env := service.CStrings(unsafe.Pointer(envp))
	return C.int(service.RunWithEnviron(int(ctlFd), int(logFd), env, gpu.NewBackend()))
}

// main is required by -buildmode=c-shared and never runs.
func main() {}
