package gpu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// pageStore is the device memory of the service's page cache
// (pg_strom.gpu_page_cache_size): slots of 8 kB, outside the memory pool,
// allocated once at start and freed at Close.  The directory
// (gosvc/pagecache) decides which chunk copies what; the executor only
// moves pages with kern_copy_pages.
type pageStore struct {
	once  sync.Once
	base  cu.DevicePtr
	slots int
}

// OpenPageStore (nodekind.PageStore) allocates slots pages of device
// memory for the page cache.
func (e *Executor) OpenPageStore(slots int) error {
	if e.kern.copyPagesErr != nil {
		return fmt.Errorf("GPU%d: the kernels module cannot copy cached pages: %w", e.dev.index, e.kern.copyPagesErr)
	}
	if slots <= 0 {
		return fmt.Errorf("GPU%d: page store of %d slots", e.dev.index, slots)
	}
	err := errors.New("the page store is already open")
	e.store.once.Do(func() {
		var ptr uintptr
		if ptr, err = e.dev.Alloc(uint64(slots) * uint64(xpu.BlockSize)); err == nil {
			e.store.base, e.store.slots = cu.DevicePtr(ptr), slots
		}
	})
	if err != nil {
		return fmt.Errorf("GPU%d: page store of %d MB: %w", e.dev.index, uint64(slots)*uint64(xpu.BlockSize)>>20, err)
	}
	return nil
}

// closePageStore frees the store; Close calls it once no chunk runs.
func (e *Executor) closePageStore() error {
	if e.store.slots == 0 {
		return nil
	}
	base := e.store.base
	e.store.base, e.store.slots = 0, 0
	return e.dev.Free(uintptr(base))
}

// checkCache refuses page cache copies the executor cannot make.
func (e *Executor) checkCache(c xpu.Chunk, pages nodekind.Pages) error {
	if pages.Cache == nil {
		return nil
	}
	if e.store.slots == 0 {
		return fmt.Errorf("%w: chunk %d: page cache copies, but GPU%d has no page store", protocol.ErrUnsupported, c.ChunkID, e.dev.index)
	}
	if err := pages.Cache.CheckMoves(c.NBlocks, e.store.slots); err != nil {
		return fmt.Errorf("chunk %d: %w", c.ChunkID, err)
	}
	return nil
}

// uploadMisses copies by DMA the pinned pages that are not cache hits, one
// copy per run of consecutive ones: a hit's page crosses no link.
func (t *task) uploadMisses() error {
	hit := make([]bool, t.chunk.NBlocks)
	for _, h := range t.cache.Hits {
		hit[h.Index] = true
	}
	pagesDev := t.base + cu.DevicePtr(t.lay.pagesOff)
	for i := 0; i < len(hit); {
		if hit[i] {
			i++
			continue
		}
		n := 1
		for i+n < len(hit) && !hit[i+n] {
			n++
		}
		off := i * xpu.BlockSize
		if err := cu.MemcpyHtoDAsync(pagesDev+cu.DevicePtr(off), unsafe.Pointer(&t.pages[off]), int64(n*xpu.BlockSize), t.lane.stream); err != nil {
			return fmt.Errorf("upload pinned pages %d..%d: cuMemcpyHtoDAsync: %w", i, i+n-1, err)
		}
		i += n
	}
	return nil
}

// copyCachedPages queues, after the upload on the same stream, the hits'
// copies from the store into the page area and the fills' copies from the
// page area into the store (kern_copy_pages, one launch each).  Both are
// done before the node's kernel, which runs next on the stream, and before
// the stream's synchronization that ends the chunk, after which the
// directory makes the fills visible.
func (t *task) copyCachedPages() error {
	m := t.cache
	n := m.Len()
	if n == 0 {
		return nil
	}
	ex := t.sess.ex
	var staged []byte
	if t.pinned { // else the lane's pinned buffer holds the staged pages, still being copied
		staged = t.lane.pinned(8 * n)
	}
	if staged == nil {
		staged = make([]byte, 8*n) // pageable: the copy is staged before it returns
	}
	put := func(k int, src, dst uint32) {
		binary.LittleEndian.PutUint32(staged[8*k:], src)
		binary.LittleEndian.PutUint32(staged[8*k+4:], dst)
	}
	for k, h := range m.Hits {
		put(k, h.Slot, h.Index)
	}
	for k, f := range m.Fills {
		put(len(m.Hits)+k, f.Index, f.Slot)
	}
	st := t.lane.stream
	pairsDev := t.base + cu.DevicePtr(t.lay.pairsOff)
	if err := cu.MemcpyHtoDAsync(pairsDev, unsafe.Pointer(&staged[0]), int64(8*n), st); err != nil {
		return fmt.Errorf("upload page cache pairs: cuMemcpyHtoDAsync: %w", err)
	}
	pagesDev := t.base + cu.DevicePtr(t.lay.pagesOff)
	launch := func(src, dst, pairs cu.DevicePtr, count int) error {
		if count == 0 {
			return nil
		}
		npairs := uint64(count) // every argument travels in 8 bytes: see enqueue
		args := []unsafe.Pointer{unsafe.Pointer(&src), unsafe.Pointer(&dst), unsafe.Pointer(&pairs), unsafe.Pointer(&npairs)}
		if err := ex.kern.copyPages.Launch(count, 1, 1, CopyPagesThreads, 1, 1, 0, st, args); err != nil {
			return fmt.Errorf("launch %s: %w", KernelCopyPages, err)
		}
		return nil
	}
	if err := launch(ex.store.base, pagesDev, pairsDev, len(m.Hits)); err != nil {
		return err
	}
	return launch(pagesDev, ex.store.base, pairsDev+cu.DevicePtr(8*len(m.Hits)), len(m.Fills))
}
