package gpu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/pgstrom-go/pg_strom/gosvc/gpu/gatherplan"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// chunkLayout places one task's buffers in a single pool chunk: the
// counters, the items array (nblocks * XPU_MAX_TUPLES_PER_PAGE entries),
// the pages, for GpuPreAgg the retry list (as many entries as items) and
// for a zero-copy chunk its page refs followed by kern_gather_pages's
// in_place bitmap (uploaded together), each 256-byte aligned.
type chunkLayout struct {
	itemsOff, pagesOff, retryOff, refsOff, pairsOff, total uint64
}

const devAlign = 256

func alignDev(n uint64) uint64 { return (n + devAlign - 1) / devAlign * devAlign }

func layoutFor(c xpu.Chunk, retry bool) chunkLayout {
	itemsOff := alignDev(uint64(xpu.NumCounters) * 4)
	pagesOff := itemsOff + alignDev(uint64(c.ItemsCapacity())*4)
	l := chunkLayout{itemsOff: itemsOff, pagesOff: pagesOff, total: pagesOff + uint64(c.PagesLen())}
	if retry {
		l.retryOff = alignDev(l.total)
		l.total = l.retryOff + uint64(c.ItemsCapacity())*4
	}
	if c.Shared() {
		l.refsOff = alignDev(l.total)
		l.total = l.refsOff + uint64(c.RefsLen()+gatherplan.InPlaceLen(int(c.NBlocks)))
	}
	return l
}

// withPairs adds room for the index pairs of a chunk's page cache copies
// (kern_copy_pages), n moves.
func (l chunkLayout) withPairs(n int) chunkLayout {
	if n > 0 {
		l.pairsOff = alignDev(l.total)
		l.total = l.pairsOff + uint64(8*n)
	}
	return l
}

// stagePiece is how much of the pages is copied into pinned memory before
// its DMA starts, so the host copy of the next piece overlaps it.
const stagePiece = 4 << 20

// Scan runs the GpuScan kernel over one chunk: pages host to device, kernel
// (one CUDA block per page), counters and items back.  Pinned pages (an
// inline chunk received into a lent body) go to the device by DMA straight
// from where they are; others are staged through the lane's pinned buffer;
// a zero-copy chunk's pages are gathered from PostgreSQL's shared buffers.  GpuTimeNs is
// the wall time of the copies and the kernel.
func (s *session) Scan(c xpu.Chunk, pages nodekind.Pages) (xpu.ChunkResult, []uint32, error) {
	return s.ex.runTask(s, c, pages, false, func(t *task) error {
		t.kernel = xpu.KernelGpuScan
		return s.ex.dev.Do(t.run)
	})
}

// runTask gives one chunk its device memory and a lane, and calls run with
// the task; the result is built from what run left in the task's counters
// and items.  GpuTimeNs is the wall time of run.
func (e *Executor) runTask(s *session, c xpu.Chunk, pages nodekind.Pages, retry bool, run func(t *task) error) (xpu.ChunkResult, []uint32, error) {
	if err := pages.Check(c); err != nil {
		return xpu.ChunkResult{}, nil, err
	}
	shared := e.dev.shared
	if pages.Refs != nil && shared == nil {
		return xpu.ChunkResult{}, nil, fmt.Errorf("%w: chunk %d refers to shared buffers, which GPU%d has not registered",
			protocol.ErrUnsupported, c.ChunkID, e.dev.index)
	}
	if err := e.checkCache(c, pages); err != nil {
		return xpu.ChunkResult{}, nil, err
	}
	lay := layoutFor(c, retry).withPairs(pages.Cache.Len())
	mem, err := e.alloc(lay.total, fmt.Sprintf("chunk %d", c.ChunkID))
	if err != nil {
		return xpu.ChunkResult{}, nil, err
	}
	stage := c.ItemsCapacity() * 4 // also holds the refs and in_place (under 49 bytes a block)
	if pages.Refs == nil && !pages.Pinned {
		stage = max(stage, c.PagesLen())
	}
	l, err := e.getLane(stage)
	if err != nil {
		return xpu.ChunkResult{}, nil, errors.Join(err, e.pool.Free(mem))
	}
	t := task{sess: s, lane: l, base: cu.DevicePtr(mem.Ptr), lay: lay, chunk: c, pages: pages.Bytes, pinned: pages.Pinned,
		refs: pages.Refs, shared: shared, cache: pages.Cache}
	start := time.Now()
	err = run(&t)
	elapsed := time.Since(start)
	e.putLane(l)
	if ferr := e.pool.Free(mem); ferr != nil {
		err = errors.Join(err, fmt.Errorf("device %d: free chunk memory: %w", e.dev.index, ferr))
	}
	if err != nil {
		return xpu.ChunkResult{}, nil, fmt.Errorf("chunk %d: %w", c.ChunkID, err)
	}
	return xpu.ChunkResult{
		ChunkID:   c.ChunkID,
		NItems:    uint32(len(t.items)),
		NTuples:   t.counters[xpu.CounterNTuples],
		NRecheck:  t.counters[xpu.CounterNRecheck],
		GpuTimeNs: uint64(elapsed.Nanoseconds()),
	}, t.items, nil
}

// task is one Exec on the device; run is called with the context current.
type task struct {
	sess     *session
	lane     *lane
	base     cu.DevicePtr
	lay      chunkLayout
	chunk    xpu.Chunk
	pages    []byte
	pinned   bool   // pages are registered host memory: DMA them directly
	refs     []byte // a zero-copy chunk's XpuPageRefs (pages is nil)
	shared   *sharedMapping
	cache    *nodekind.CacheMoves // the chunk's page cache copies (pagestore.go)
	kernel   string               // the kernel's name, for errors
	counters [xpu.NumCounters]uint32
	items    []uint32
}

func (t *task) run() error {
	st := t.lane.stream
	if err := t.enqueue(); err != nil {
		// Work already queued may still read the pages or write the
		// buffers: drain the stream before they are reused.
		return errors.Join(err, st.Synchronize())
	}
	if err := st.Synchronize(); err != nil {
		return fmt.Errorf("%s: cuStreamSynchronize: %w", t.kernel, err)
	}
	return t.collect()
}

// enqueue queues the pages' upload, the counters' reset, the GpuScan kernel
// and the counters' download on the lane's stream.
func (t *task) enqueue() error {
	if err := t.uploadPages(); err != nil {
		return err
	}
	// cu.Function.Launch copies 8 bytes from every argument pointer, so
	// the uint32 nblocks travels in a uint64 (little-endian: its low half).
	sessPtr := cu.DevicePtr(t.sess.mem.Ptr)
	pagesDev := t.base + cu.DevicePtr(t.lay.pagesOff)
	itemsPtr := t.base + cu.DevicePtr(t.lay.itemsOff)
	counters := t.base
	nblocks := uint64(t.chunk.NBlocks)
	args := []unsafe.Pointer{
		unsafe.Pointer(&sessPtr), unsafe.Pointer(&pagesDev), unsafe.Pointer(&nblocks),
		unsafe.Pointer(&itemsPtr), unsafe.Pointer(&counters),
	}
	return t.launch(t.sess.ex.kern.scan, int(t.chunk.NBlocks), args)
}

// uploadPages queues the copy of the chunk's pages to the device, or for a
// zero-copy chunk their gathering from the shared buffers; then the page
// cache copies (a zero-copy chunk's are fills of its stamped pages, made
// from the gathered images).
func (t *task) uploadPages() error {
	if t.refs != nil {
		if err := t.gatherPages(); err != nil {
			return err
		}
		return t.copyCachedPages()
	}
	st, host := t.lane.stream, t.lane.host
	pagesDev := t.base + cu.DevicePtr(t.lay.pagesOff)
	if t.pinned && t.cache != nil {
		if err := t.uploadMisses(); err != nil {
			return err
		}
		return t.copyCachedPages()
	}
	if t.pinned {
		if err := cu.MemcpyHtoDAsync(pagesDev, unsafe.Pointer(&t.pages[0]), int64(len(t.pages)), st); err != nil {
			return fmt.Errorf("upload pinned pages: cuMemcpyHtoDAsync: %w", err)
		}
	}
	for off := 0; !t.pinned && off < len(t.pages); off += stagePiece {
		piece := t.pages[off:min(off+stagePiece, len(t.pages))]
		src := unsafe.Pointer(&piece[0])
		if host != nil {
			staged := host.Bytes()[stageCounters+off:]
			copy(staged, piece)
			src = unsafe.Pointer(&staged[0])
		}
		if err := cu.MemcpyHtoDAsync(pagesDev+cu.DevicePtr(off), src, int64(len(piece)), st); err != nil {
			return fmt.Errorf("upload pages: cuMemcpyHtoDAsync: %w", err)
		}
	}
	return t.copyCachedPages()
}

// gatherPages queues what brings a zero-copy chunk's pages from the
// registered shared buffers into the chunk's page area: a DMA
// (cuMemcpyHtoDAsync) for each run of at least gatherDMAMinPages refs
// naming consecutive buffers, the upload of the refs and of the in_place
// bitmap of those pages (staged through the lane's pinned buffer), and
// kern_gather_pages, which reads the other pages over PCIe and applies
// every ref (one CUDA block per page).  The stream orders the copies
// before the kernel.  No CPU touches a page.
func (t *task) gatherPages() error {
	st := t.lane.stream
	ex := t.sess.ex
	nblocks := int(t.chunk.NBlocks)
	plan := gatherplan.Make(t.refs, nblocks, t.shared.nbuffers, ex.gatherDMAMinPages)
	refsDev := t.base + cu.DevicePtr(t.lay.refsOff)
	pagesDev := t.base + cu.DevicePtr(t.lay.pagesOff)
	upload := len(t.refs)
	if len(plan.Runs) > 0 {
		upload += gatherplan.InPlaceLen(nblocks)
	}
	staged := t.lane.pinned(upload)
	if staged == nil {
		staged = make([]byte, upload) // pageable: the copy is staged before it returns
	}
	copy(staged, t.refs)
	var inPlaceDev cu.DevicePtr // NULL: the kernel reads every page
	if len(plan.Runs) > 0 {
		gatherplan.MarkInPlace(staged[len(t.refs):], plan.Runs)
		inPlaceDev = refsDev + cu.DevicePtr(len(t.refs))
	}
	for _, r := range plan.Runs {
		src := unsafe.Add(t.shared.host, uintptr(r.Buffer)*uintptr(xpu.BlockSize))
		dst := pagesDev + cu.DevicePtr(r.First*xpu.BlockSize)
		if err := cu.MemcpyHtoDAsync(dst, src, int64(r.N*xpu.BlockSize), st); err != nil {
			return fmt.Errorf("copy shared buffers %d..%d by DMA: cuMemcpyHtoDAsync: %w", r.Buffer, r.Buffer+uint32(r.N)-1, err)
		}
	}
	if err := cu.MemcpyHtoDAsync(refsDev, unsafe.Pointer(&staged[0]), int64(upload), st); err != nil {
		return fmt.Errorf("upload page refs: cuMemcpyHtoDAsync: %w", err)
	}
	// Every argument travels in 8 bytes: see enqueue.
	sharedPtr := t.shared.dptr
	nbuffers := uint64(t.shared.nbuffers)
	nblocks64 := uint64(nblocks)
	args := []unsafe.Pointer{
		unsafe.Pointer(&sharedPtr), unsafe.Pointer(&nbuffers), unsafe.Pointer(&refsDev),
		unsafe.Pointer(&nblocks64), unsafe.Pointer(&inPlaceDev), unsafe.Pointer(&pagesDev),
	}
	if err := ex.kern.gather.Launch(nblocks, 1, 1, GatherThreads, 1, 1, 0, st, args); err != nil {
		return fmt.Errorf("launch %s: %w", KernelGather, err)
	}
	ex.gather.add(plan)
	return nil
}

// launch queues the counters' reset, the kernel (grid blocks of
// XPU_GPUSCAN_THREADS) and the counters' download.
func (t *task) launch(fn cu.Function, grid int, args []unsafe.Pointer) error {
	st := t.lane.stream
	if err := cu.MemsetD32Async(t.base, 0, int64(xpu.NumCounters), st); err != nil {
		return fmt.Errorf("zero counters: cuMemsetD32Async: %w", err)
	}
	if err := fn.Launch(grid, 1, 1, xpu.GpuScanThreads, 1, 1, 0, st, args); err != nil {
		return fmt.Errorf("launch %s: %w", t.kernel, err)
	}
	return t.download(t.base, xpu.NumCounters, t.counters[:], 0)
}

// download copies n uint32 from the device into dst, through the pinned
// buffer at stage (an offset into it) when there is one.  With a pinned
// buffer the copy is only queued; collect decodes it after the sync.
func (t *task) download(src cu.DevicePtr, n int, dst []uint32, stage int) error {
	bytes := int64(n) * 4
	var p unsafe.Pointer
	if host := t.lane.host; host != nil {
		p = unsafe.Pointer(&host.Bytes()[stage])
	} else {
		p = unsafe.Pointer(&dst[0]) // pageable: the copy is synchronous
	}
	if err := cu.MemcpyDtoHAsync(p, src, bytes, t.lane.stream); err != nil {
		return fmt.Errorf("cuMemcpyDtoHAsync of %d bytes: %w", bytes, err)
	}
	return nil
}

// fromStage decodes n uint32 staged at offset stage of the pinned buffer.
func (t *task) fromStage(dst []uint32, stage int) {
	if host := t.lane.host; host != nil {
		b := host.Bytes()[stage:]
		for i := range dst {
			dst[i] = binary.LittleEndian.Uint32(b[4*i:])
		}
	}
}

// collect checks the counters and downloads the items.
func (t *task) collect() error {
	t.fromStage(t.counters[:], 0)
	if err := xpu.StatusError(t.counters[xpu.CounterStatus]); err != nil {
		return err
	}
	n := int(t.counters[xpu.CounterNItems])
	if n > t.chunk.ItemsCapacity() {
		return fmt.Errorf("%s reported %d items, more than the %d it may write", t.kernel, n, t.chunk.ItemsCapacity())
	}
	t.items = make([]uint32, n)
	if n == 0 {
		return nil
	}
	if err := t.download(t.base+cu.DevicePtr(t.lay.itemsOff), n, t.items, stageCounters); err != nil {
		return fmt.Errorf("download items: %w", err)
	}
	if err := t.lane.stream.Synchronize(); err != nil {
		return fmt.Errorf("download items: cuStreamSynchronize: %w", err)
	}
	t.fromStage(t.items, stageCounters)
	return nil
}
