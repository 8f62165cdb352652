package fatbin

import (
	"context"
	"os/exec"
	"regexp"
)

// HostCompiler is the host compiler passed to an nvcc of release 11.x:
// Debian's nvcc 11.8 refuses gcc newer than 11 (the system compiler is 12),
// and accepts clang 14.
const HostCompiler = "clang-14"

var nvccRelease11 = regexp.MustCompile(`(?m)\brelease 11\.`)

// hostCompilerArgs returns "-ccbin clang-14" when `nvcc --version` reports
// release 11.x and clang-14 is on PATH, else nothing (nvcc then uses its
// default host compiler, and reports it if unsupported).
func hostCompilerArgs(ctx context.Context, run Runner, lookPath func(string) (string, error), nvcc string) []string {
	out, err := run(ctx, nvcc, "--version")
	if err != nil || !nvccRelease11.Match(out) {
		return nil
	}
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	if _, err := lookPath(HostCompiler); err != nil {
		return nil
	}
	return []string{"-ccbin", HostCompiler}
}
