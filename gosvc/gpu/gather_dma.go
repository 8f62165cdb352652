package gpu

import (
	"fmt"
	"sync/atomic"

	"github.com/pgstrom-go/pg_strom/gosvc/gpu/gatherplan"
)

// gatherCounters count, per device, how zero-copy pages reached it
// (gatherPages): whether runs of consecutive buffers are long enough for the
// DMA copies to carry most pages is what decides the DMA threshold.
type gatherCounters struct {
	dmaPages    atomic.Uint64 // copied by DMA
	dmaCopies   atomic.Uint64 // cuMemcpyHtoDAsync calls for them
	kernelPages atomic.Uint64 // read by kern_gather_pages
}

func (c *gatherCounters) add(p gatherplan.Plan) {
	c.dmaPages.Add(uint64(p.DMAPages))
	c.dmaCopies.Add(uint64(len(p.Runs)))
	c.kernelPages.Add(uint64(p.KernelPages))
}

// GatherSummary is one line on how this device's zero-copy pages reached
// it so far: the DMA threshold in force, the pages copied by DMA and in how
// many copies (their ratio is the mean run length), and the pages the
// gather kernel read.  The service logs it at its status ticks when it
// changed, and at exit.
func (e *Executor) GatherSummary() string {
	dma, copies, kern := e.gather.dmaPages.Load(), e.gather.dmaCopies.Load(), e.gather.kernelPages.Load()
	mode := fmt.Sprintf("DMA of runs of at least %d consecutive buffers", e.gatherDMAMinPages)
	if e.gatherDMAMinPages == 0 {
		mode = "DMA off"
	}
	line := fmt.Sprintf("zero-copy gather (%s, %s): %d pages by DMA in %d copies", mode, gatherplan.MinPagesEnv, dma, copies)
	if copies > 0 {
		line += fmt.Sprintf(" (%.1f pages a copy)", float64(dma)/float64(copies))
	}
	line += fmt.Sprintf(", %d pages read by %s", kern, KernelGather)
	if e.gatherDMAProblem != "" {
		line += "; " + e.gatherDMAProblem
	}
	return line
}
