//go:build gpu

package gpu

import (
	"errors"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/mempool"
	"github.com/pgstrom-go/pg_strom/gosvc/server"
)

func TestExecutorProbeLink(t *testing.T) {
	ex, pool := executorOnDevice0(t)
	prober, ok := ex.(server.LinkProber)
	if !ok {
		t.Fatal("the GPU executor does not implement server.LinkProber")
	}
	const bytes, copies = 64 << 20, 4
	before := pool.Stats().Used
	h2d, d2h, err := prober.ProbeLink(bytes, copies)
	if err != nil {
		t.Fatalf("ProbeLink: %v", err)
	}
	gbps := func(ns uint64) float64 { return float64(bytes*copies) / float64(ns) }
	t.Logf("64MB x 4: host to device %d ns (%.1f GB/s), device to host %d ns (%.1f GB/s)", h2d, gbps(h2d), d2h, gbps(d2h))
	// PCIe 3 x16 pinned reaches ~12 GB/s, PCIe 5 x16 ~55, NVLink-C2C ~450.
	for name, ns := range map[string]uint64{"host to device": h2d, "device to host": d2h} {
		if g := gbps(ns); ns == 0 || g < 1 || g > 1000 {
			t.Errorf("%s: %d ns for 256MB is %.2f GB/s, not a plausible link", name, ns, g)
		}
	}
	if after := pool.Stats().Used; after != before {
		t.Errorf("pool use %d after the probe, %d before: device memory leaked", after, before)
	}

	// more than the pool may ever hold: ErrExhausted, classified NO_MEMORY
	limit := pool.Stats().Limit
	_, _, err = prober.ProbeLink(limit+1<<20, 1)
	if !errors.Is(err, mempool.ErrExhausted) {
		t.Fatalf("probe of %d bytes over the pool limit %d: %v, want mempool.ErrExhausted", limit+1<<20, limit, err)
	}
}
