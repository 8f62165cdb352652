package hostexec

import (
	"errors"
	"fmt"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// taskAlign places the parts of a task's work area as the gpu package
// does (256 bytes).
const taskAlign = 256

func alignTask(n uint64) uint64 { return (n + taskAlign - 1) / taskAlign * taskAlign }

// task is one Exec: its counters, items and (GpuPreAgg) retry list lie in
// one pool chunk, sized as on the device but for the pages, which are read
// in place; the pages of a zero-copy chunk are gathered into the same pool
// chunk, as on the device.
type task struct {
	pages    []byte
	counters []uint32 // xpu.NumCounters, in pool memory
	items    []uint32 // capacity: the chunk's ItemsCapacity, in pool memory
	retry    []uint32 // GpuPreAgg only, same capacity, in pool memory
	chunk    xpu.Chunk
	result   []uint32 // the items returned, copied out of pool memory
}

// runTask gives one chunk its work area and calls run; the result is what
// run left in the task's counters and result.  GpuTimeNs is the wall time
// of run.
func (e *Executor) runTask(c xpu.Chunk, pages nodekind.Pages, retry bool, run func(t *task) error) (xpu.ChunkResult, []uint32, error) {
	if err := e.checkPages(c, pages); err != nil {
		return xpu.ChunkResult{}, nil, err
	}
	if err := e.checkPageCache(c, pages.Cache); err != nil {
		return xpu.ChunkResult{}, nil, err
	}
	if err := e.faults.beforeTask(); err != nil {
		return xpu.ChunkResult{}, nil, fmt.Errorf("chunk %d: %w", c.ChunkID, err)
	}
	ncap := c.ItemsCapacity()
	itemsOff := alignTask(uint64(xpu.NumCounters) * 4)
	total := itemsOff + uint64(ncap)*4
	retryOff := alignTask(total)
	if retry {
		total = retryOff + uint64(ncap)*4
	}
	pagesOff := alignTask(total)
	if pages.Refs != nil {
		total = pagesOff + uint64(c.PagesLen())
	}
	mem, b, err := e.alloc(total, fmt.Sprintf("chunk %d", c.ChunkID))
	if err != nil {
		return xpu.ChunkResult{}, nil, err
	}
	t := task{
		pages:    pages.Bytes,
		counters: words(b, xpu.NumCounters),
		items:    words(b[itemsOff:], ncap),
		chunk:    c,
	}
	if retry {
		t.retry = words(b[retryOff:], ncap)
	}
	start := time.Now()
	if pages.Refs != nil {
		t.pages = b[pagesOff:total]
		gather(e.shared, pages.Refs, c.NBlocks, t.pages)
	}
	e.copyPageCache(pages.Cache, t.pages)
	err = run(&t)
	elapsed := time.Since(start)
	var counters [xpu.NumCounters]uint32
	copy(counters[:], t.counters)
	err = errors.Join(err, e.free(mem, "chunk memory"))
	if err != nil {
		return xpu.ChunkResult{}, nil, fmt.Errorf("chunk %d: %w", c.ChunkID, err)
	}
	return xpu.ChunkResult{
		ChunkID:   c.ChunkID,
		NItems:    uint32(len(t.result)),
		NTuples:   counters[xpu.CounterNTuples],
		NRecheck:  counters[xpu.CounterNRecheck],
		GpuTimeNs: uint64(elapsed.Nanoseconds()),
	}, t.result, nil
}

// checkPages checks that pages are what c needs, and that shared buffers
// are registered for a zero-copy chunk.
func (e *Executor) checkPages(c xpu.Chunk, pages nodekind.Pages) error {
	if err := pages.Check(c); err != nil {
		return err
	}
	if pages.Refs != nil && e.shared.NBuffers == 0 {
		return fmt.Errorf("%w: chunk %d refers to shared buffers, which %s has not registered", protocol.ErrUnsupported, c.ChunkID, e.Name())
	}
	return nil
}

// collect checks the counters the kernel code left and copies the items
// out of pool memory.
func (t *task) collect(kernel string) error {
	if err := xpu.StatusError(t.counters[xpu.CounterStatus]); err != nil {
		return err
	}
	n := int(t.counters[xpu.CounterNItems])
	if n > len(t.items) {
		return fmt.Errorf("%s reported %d items, more than the %d it may write", kernel, n, len(t.items))
	}
	t.result = append([]uint32(nil), t.items[:n]...)
	return nil
}
