package xpu_test

import (
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

func TestMaxSlotsMatchesKernels(t *testing.T) {
	src, err := os.ReadFile("../../kernels/xpu_common.h")
	if os.IsNotExist(err) {
		t.Skip("kernels/xpu_common.h not present")
	}
	if err != nil {
		t.Fatal(err)
	}
	// The kernels size their slot arrays with XPU_GPUSCAN_MAX_SLOTS; it must
	// be the header's XPU_GPUSCAN_MAX_NODES (which MaxSlots is) or equal it.
	m := regexp.MustCompile(`(?m)^#define\s+XPU_GPUSCAN_MAX_SLOTS\s+(\w+)`).FindSubmatch(src)
	if m == nil {
		t.Fatal("kernels/xpu_common.h does not #define XPU_GPUSCAN_MAX_SLOTS")
	}
	if v := string(m[1]); v != "XPU_GPUSCAN_MAX_NODES" {
		if n, err := strconv.Atoi(v); err != nil || n != xpu.MaxSlots {
			t.Fatalf("kernels define XPU_GPUSCAN_MAX_SLOTS %s, xpu.MaxSlots is %d", v, xpu.MaxSlots)
		}
	}
	if xpu.MaxSlots != 128 {
		t.Fatalf("MaxSlots = %d, the header documents 128", xpu.MaxSlots)
	}
}
