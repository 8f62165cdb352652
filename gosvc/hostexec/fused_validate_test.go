package hostexec

import (
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/kinds"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// The fused seeds: the session, without its quals and without depth 1's
// are accepted by the service and the kernels, every other near miss is
// refused by both (FuzzKernelValidator explores from them).
func TestFusedSessionValidatorsAgree(t *testing.T) {
	valid := map[int]bool{0: true, 6: true, 15: true}
	for i, msg := range fusedSeeds() {
		_, _, goErr := kinds.All().ParseSession(msg)
		st := kernelValidate(msg)
		if valid[i] != (goErr == nil) || valid[i] != (st == xpu.StatusOK) {
			t.Errorf("fused seed %d: service %v, kernels status %d", i, goErr, st)
		} else if testing.Verbose() {
			t.Logf("fused seed %d: %v", i, goErr)
		}
	}
}
