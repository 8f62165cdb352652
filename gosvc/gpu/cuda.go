package gpu

// #cgo LDFLAGS: -lcuda
// #include <cuda.h>
import "C"

import (
	"fmt"
	"unsafe"

	"gorgonia.org/cu"
)

// cuError turns a raw CUresult into an error naming the call.
func cuError(call string, r C.CUresult) error {
	if r == C.CUDA_SUCCESS {
		return nil
	}
	var name *C.char
	if C.cuGetErrorName(r, &name) == C.CUDA_SUCCESS && name != nil {
		return fmt.Errorf("%s: %s (%d)", call, C.GoString(name), int(r))
	}
	return fmt.Errorf("%s: CUresult %d", call, int(r))
}

// pciBusID is cuDeviceGetPCIBusId, e.g. "0000:3B:00.0".
func pciBusID(dev cu.Device) (string, error) {
	var buf [64]C.char
	if err := cuError("cuDeviceGetPCIBusId", C.cuDeviceGetPCIBusId(&buf[0], C.int(len(buf)), C.CUdevice(dev))); err != nil {
		return "", err
	}
	return C.GoString(&buf[0]), nil
}

// memHostAlloc is cuMemHostAlloc with CU_MEMHOSTALLOC_PORTABLE, so the
// pinned buffer serves every device's context.
func memHostAlloc(size uint64) (unsafe.Pointer, error) {
	var p unsafe.Pointer
	if err := cuError("cuMemHostAlloc", C.cuMemHostAlloc(&p, C.size_t(size), C.CU_MEMHOSTALLOC_PORTABLE)); err != nil {
		return nil, err
	}
	return p, nil
}

func memFreeHost(p unsafe.Pointer) error {
	return cuError("cuMemFreeHost", C.cuMemFreeHost(p))
}
