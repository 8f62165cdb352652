//go:build gpu

package gpu

import (
	"errors"
	"fmt"
	"testing"

	"gorgonia.org/cu"

	"github.com/pgstrom-go/pg_strom/gosvc/server"
)

// A sticky CUDA error met inside Do marks the device lost: that call's
// error and every later Do's wrap server.ErrDeviceLost and name the CUDA
// error, and later calls do not run.  Errors that leave the context usable
// (out of memory, an invalid value) do not.
func TestStickyErrorMarksDeviceLost(t *testing.T) {
	d, err := OpenDevice(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, e := range []error{cu.OutOfMemory, cu.InvalidValue} {
		if err := d.Do(func() error { return fmt.Errorf("cuMemAlloc: %w", e) }); errors.Is(err, server.ErrDeviceLost) {
			t.Fatalf("%v marked the device lost: %v", e, err)
		}
	}
	err = d.Do(func() error { return fmt.Errorf("cuStreamSynchronize: %w", cu.IllegalAddress) })
	if !errors.Is(err, server.ErrDeviceLost) || !errors.Is(err, cu.IllegalAddress) {
		t.Fatalf("sticky error: %v, want it to wrap ErrDeviceLost and the CUDA error", err)
	}
	ran := false
	err = d.Do(func() error { ran = true; return nil })
	if ran || !errors.Is(err, server.ErrDeviceLost) {
		t.Fatalf("Do after the loss ran=%v err=%v, want it refused with ErrDeviceLost", ran, err)
	}
	// the raw-call path is recognized the same way
	if !isSticky(cuError("cuLaunchKernel", 719)) || isSticky(cuError("cuMemAlloc", 2)) {
		t.Fatal("cuError: CUDA_ERROR_LAUNCH_FAILED not sticky, or OUT_OF_MEMORY sticky")
	}
}
