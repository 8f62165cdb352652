package gpu

// #cgo LDFLAGS: -lcuda
// #include <cuda.h>
//
// /* CU_MEMHOSTREGISTER_READ_ONLY appeared in CUDA 11.1. */
// #ifdef CU_MEMHOSTREGISTER_READ_ONLY
// #define PGSTROM_HOSTREGISTER_READ_ONLY CU_MEMHOSTREGISTER_READ_ONLY
// #else
// #define PGSTROM_HOSTREGISTER_READ_ONLY 0
// #endif
//
// /* addresses travel as integers: they are not Go memory */
// static CUresult pgstrom_register_mapped(uintptr_t p, size_t size, unsigned int flags)
// { return cuMemHostRegister((void *) p, size, flags); }
// static CUresult pgstrom_mapped_device_pointer(CUdeviceptr *d, uintptr_t p)
// { return cuMemHostGetDevicePointer(d, (void *) p, 0); }
// static CUresult pgstrom_unregister_mapped(uintptr_t p)
// { return cuMemHostUnregister((void *) p); }
// static void *pgstrom_host_pointer(uintptr_t p) { return (void *) p; }
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"gorgonia.org/cu"
)

// stickyResults are the CUDA errors after which a context is unusable: the
// driver API documents that each "leaves the process in an inconsistent
// state and any further CUDA work will return the same error; to continue
// using CUDA, the process must be terminated and relaunched" (an illegal
// or misaligned address, an illegal instruction or PC, a hardware stack
// error, a failed or timed-out launch, a device-side assert, an
// uncorrectable ECC or NVLink error).  A destroyed context and an unknown
// error are treated alike: nothing says the context still works.  Each
// maps to gorgonia's value, so a cu call's error and a raw call's (cuError)
// are recognized the same way (isSticky).
var stickyResults = map[C.CUresult]error{
	C.CUDA_ERROR_ECC_UNCORRECTABLE:     cu.EccUncorrectable,
	C.CUDA_ERROR_NVLINK_UNCORRECTABLE:  cu.NvlinkUncorrectable,
	C.CUDA_ERROR_ILLEGAL_ADDRESS:       cu.IllegalAddress,
	C.CUDA_ERROR_LAUNCH_TIMEOUT:        cu.LaunchTimeout,
	C.CUDA_ERROR_CONTEXT_IS_DESTROYED:  cu.ContextIsDestroyed,
	C.CUDA_ERROR_ASSERT:                cu.Assert,
	C.CUDA_ERROR_HARDWARE_STACK_ERROR:  cu.HardwareStackError,
	C.CUDA_ERROR_ILLEGAL_INSTRUCTION:   cu.IllegalInstruction,
	C.CUDA_ERROR_MISALIGNED_ADDRESS:    cu.MisalignedAddress,
	C.CUDA_ERROR_INVALID_ADDRESS_SPACE: cu.InvalidAddressSpace,
	C.CUDA_ERROR_INVALID_PC:            cu.InvalidPc,
	C.CUDA_ERROR_LAUNCH_FAILED:         cu.LaunchFailed,
	C.CUDA_ERROR_UNKNOWN:               cu.Unknown,
}

// isSticky reports whether err carries one of stickyResults.
func isSticky(err error) bool {
	if err == nil {
		return false
	}
	for _, e := range stickyResults {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// cuError turns a raw CUresult into an error naming the call; a sticky
// result is wrapped so that isSticky finds it.
func cuError(call string, r C.CUresult) error {
	if r == C.CUDA_SUCCESS {
		return nil
	}
	what := fmt.Sprintf("CUresult %d", int(r))
	var name *C.char
	if C.cuGetErrorName(r, &name) == C.CUDA_SUCCESS && name != nil {
		what = fmt.Sprintf("%s (%d)", C.GoString(name), int(r))
	}
	if e, ok := stickyResults[r]; ok {
		return fmt.Errorf("%s: %s: %w", call, what, e)
	}
	return fmt.Errorf("%s: %s", call, what)
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

// memHostRegisterMapped registers a read-only host mapping (PostgreSQL's
// shared buffers) for every context, mapped into the devices' address
// space: cuMemHostRegister(PORTABLE | DEVICEMAP | READ_ONLY).  Without
// READ_ONLY (drivers before 11.1) a PROT_READ mapping cannot be
// registered.
func memHostRegisterMapped(p uintptr, size uint64) error {
	if C.PGSTROM_HOSTREGISTER_READ_ONLY == 0 {
		return errors.New("cuMemHostRegister: CU_MEMHOSTREGISTER_READ_ONLY needs CUDA 11.1 or later")
	}
	flags := C.uint(C.CU_MEMHOSTREGISTER_PORTABLE | C.CU_MEMHOSTREGISTER_DEVICEMAP | C.PGSTROM_HOSTREGISTER_READ_ONLY)
	return cuError("cuMemHostRegister(PORTABLE|DEVICEMAP|READ_ONLY)", C.pgstrom_register_mapped(C.uintptr_t(p), C.size_t(size), flags))
}

// mappedDevicePointer is cuMemHostGetDevicePointer in the current context.
func mappedDevicePointer(p uintptr) (cu.DevicePtr, error) {
	var d C.CUdeviceptr
	if err := cuError("cuMemHostGetDevicePointer", C.pgstrom_mapped_device_pointer(&d, C.uintptr_t(p))); err != nil {
		return 0, err
	}
	return cu.DevicePtr(d), nil
}

func memHostUnregisterMapped(p uintptr) error {
	return cuError("cuMemHostUnregister", C.pgstrom_unregister_mapped(C.uintptr_t(p)))
}

// hostPointer is address p of memory Go does not own (the registered
// shared buffers) as a pointer for the cu copy calls; converted in C, since
// Go's rules on unsafe.Pointer are about Go memory.
func hostPointer(p uintptr) unsafe.Pointer { return C.pgstrom_host_pointer(C.uintptr_t(p)) }
