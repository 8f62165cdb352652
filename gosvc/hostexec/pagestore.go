package hostexec

import (
	"fmt"
	"sync"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// pageStore is the host executor's page cache store: pages in host memory
// where the gpu executor keeps them in device memory, so the service's
// page cache (directory, protocol, backend) runs in CI as on a GPU.
type pageStore struct {
	once  sync.Once
	pages []byte
}

// OpenPageStore (nodekind.PageStore) makes room for slots pages.
func (e *Executor) OpenPageStore(slots int) error {
	if slots <= 0 {
		return fmt.Errorf("host device %d: page store of %d slots", e.index, slots)
	}
	opened := false
	e.store.once.Do(func() {
		e.store.pages = make([]byte, slots*xpu.BlockSize)
		opened = true
	})
	if !opened {
		return fmt.Errorf("host device %d: the page store is already open", e.index)
	}
	return nil
}

// checkPageCache refuses a chunk's cache copies (Pages.Cache) that the
// store cannot take.
func (e *Executor) checkPageCache(c xpu.Chunk, m *nodekind.CacheMoves) error {
	if m == nil {
		return nil
	}
	slots := len(e.store.pages) / xpu.BlockSize
	if slots == 0 {
		return fmt.Errorf("chunk %d: page cache copies, but %s has no page store", c.ChunkID, e.Name())
	}
	if err := m.CheckMoves(c.NBlocks, slots); err != nil {
		return fmt.Errorf("chunk %d: %w", c.ChunkID, err)
	}
	return nil
}

// copyPageCache makes the copies checkPageCache accepted before the
// chunk's kernels run: hits from the store into the chunk's pages, fills
// from the pages (a zero-copy chunk's as gathered) into the store.  The
// directory gives a slot to one chunk at a time, so chunks running at once
// touch different bytes.
func (e *Executor) copyPageCache(m *nodekind.CacheMoves, pages []byte) {
	if m == nil {
		return
	}
	page := func(b []byte, i uint32) []byte { return b[int(i)*xpu.BlockSize : int(i+1)*xpu.BlockSize] }
	for _, h := range m.Hits {
		copy(page(pages, h.Index), page(e.store.pages, h.Slot))
	}
	for _, f := range m.Fills {
		copy(page(e.store.pages, f.Slot), page(pages, f.Index))
	}
}
