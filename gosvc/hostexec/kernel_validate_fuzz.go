package hostexec

/*
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern uint32_t hostexec_validate_session(const char *msg);
*/
import "C"

import "unsafe"

// kernelValidate runs the kernels' own validation of an OpenSession
// message (kernel_validate_fuzz.cc) and returns its XPU_STATUS_*.  It is
// for FuzzKernelValidator only: the caller guarantees what the service
// does before a kernel sees a message, that its header's length is
// len(msg) and that it holds at least xpu.SessionEnd bytes.  The message
// is copied into C memory of exactly its size.
func kernelValidate(msg []byte) uint32 {
	p := C.malloc(C.size_t(len(msg)))
	defer C.free(p)
	C.memcpy(p, unsafe.Pointer(&msg[0]), C.size_t(len(msg)))
	return uint32(C.hostexec_validate_session((*C.char)(p)))
}
