// Package hostexec is the TEST-ONLY host executor: a service.Backend whose
// one "device" runs the kernels' own host-compilable code (kernels/*.h,
// XPU_FUNC) on the CPU, so that the C backend's GPU-mode paths (sessions,
// chunks, RECHECK items, GpuPreAgg groups, the table shared by parallel
// workers) run against the real service on a machine without a GPU.
//
// It is never part of the production library: it has its own c-shared
// library (cmd/pg_strom_gosvc_hostexec), which only the test script builds
// and installs, and which the launcher loads only when the postmaster's
// environment has PG_STROM_TEST_HOST_EXECUTOR=1.  It does not import the
// gpu package, so loading it never calls cuInit.
package hostexec
