#!/bin/sh
# Prints a short hash of the C headers the Go packages include through cgo
# from outside their own folders (include/, kernels/, build/cuda_compat.h).
# Go's build cache keys a cgo package on the files of its folder and the
# CGO_* flags, not on headers included from elsewhere, so a changed struct
# in include/ would otherwise leave a cached package with the old layout.
# The Makefile and test/run_all.sh put this hash into CGO_CFLAGS
# (-DPGSTROM_CGO_HEADERS=...), which makes a changed header rebuild them.
cd "$(dirname "$0")/.." || exit 1
cat include/*.h kernels/*.h build/cuda_compat.h | sha256sum | cut -c1-16
