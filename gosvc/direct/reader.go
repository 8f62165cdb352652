package direct

import (
	"errors"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// maxRunBlocks bounds one pread (2 MB), so that a chunk of contiguous
// blocks is still read by several goroutines at once.  On the H200 twelve
// threads reading a page-cached file moved 17.7 GB/s with reads of 2 MB
// and 13.4 GB/s with reads of 512 kB, for 3.6 and 4.8 core-us of kernel
// time a page (test/device/probe_file_register.c).
const maxRunBlocks = 256

// directAlign is what O_DIRECT asks of the destination address.
const directAlign = 4096

// Report is a chunk's read report (XPU_BUFFER_DIRECT's first reply).
type Report struct {
	// Bounced: (block index) | (XPU_BOUNCE_* << XPU_BOUNCE_SHIFT),
	// ascending by index.
	Bounced []uint32
	NNew    int           // new (all-zero) pages, given to the kernels empty
	Elapsed time.Duration // of the reads and checks
	// Verdicts: each block's CheckPage verdict (PageUsable for a
	// skipped block, which was not read).
	Verdicts []Verdict
}

// run is blocks [first, first+n) of the chunk: consecutive block numbers
// in one segment.
type run struct {
	first, n int
}

// runs splits blknos into runs that one pread each can read, leaving out
// the blocks whose skip is set (skip nil: none).
func runs(f xpu.DirectFile, blknos []uint32, skip []bool) []run {
	var out []run
	skipped := func(i int) bool { return skip != nil && skip[i] }
	for i := 0; i < len(blknos); {
		if skipped(i) {
			i++
			continue
		}
		seg, _ := f.Locate(blknos[i])
		n := 1
		for i+n < len(blknos) && n < maxRunBlocks && !skipped(i+n) && blknos[i+n] == blknos[i+n-1]+1 {
			if s, _ := f.Locate(blknos[i+n]); s != seg {
				break
			}
			n++
		}
		out = append(out, run{first: i, n: n})
		i += n
	}
	return out
}

// Workers is how many goroutines read one chunk.
func Workers() int {
	return envInt("PGSTROM_DIRECT_READ_WORKERS", min(16, runtime.GOMAXPROCS(0)), 1, 256)
}

// readSlots can bound the preads in progress in the whole service, whatever
// the number of sessions (PGSTROM_DIRECT_READ_CONCURRENCY).  A standalone
// probe on the H200 read a page-cached file faster with 6 threads than 12,
// but in the service a bound cost time: group_8 with direct read took
// 445-460 ms unbounded, 450-490 ms with 16, 520-550 ms with 8 and 900 ms
// with 4 (test/device/bench_direct_ab.sh).  So none by default.
var readSlots = sync.OnceValue(func() chan struct{} {
	n := envInt("PGSTROM_DIRECT_READ_CONCURRENCY", 0, 0, 1024)
	if n == 0 {
		return nil
	}
	return make(chan struct{}, n)
})

// withReadSlot runs read while holding one of the service's read slots.
func withReadSlot(read func() error) error {
	slots := readSlots()
	if slots == nil {
		return read()
	}
	slots <- struct{}{}
	defer func() { <-slots }()
	return read()
}

// ReadChunk reads blocks blknos of f into dst (len(blknos) pages of
// xpu.BlockSize, in order) and checks every page (CheckPage); the pages
// that are bounced or new get their header zeroed.  An error names the
// file and block: a failed or short read (the file shorter than the
// backend said).
func (fs *Files) ReadChunk(f xpu.DirectFile, blknos []uint32, dst []byte) (Report, error) {
	return fs.ReadChunkSkipping(f, blknos, dst, nil)
}

// ReadChunkSkipping is ReadChunk that leaves out the blocks whose skip is
// set (served from the page cache): their pages in dst are not written.
func (fs *Files) ReadChunkSkipping(f xpu.DirectFile, blknos []uint32, dst []byte, skip []bool) (Report, error) {
	if len(dst) != len(blknos)*xpu.BlockSize || skip != nil && len(skip) != len(blknos) {
		return Report{}, fmt.Errorf("direct read of %d blocks into %d bytes", len(blknos), len(dst))
	}
	start := time.Now()
	rs := runs(f, blknos, skip)
	verdicts := make([]Verdict, len(blknos))
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, min(Workers(), len(rs)))
	for w := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(rs) || errs[w] != nil {
					return
				}
				errs[w] = fs.readRun(f, blknos, rs[i], dst, verdicts)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return Report{}, err
	}
	rep := Report{Elapsed: time.Since(start), Verdicts: verdicts}
	for i, v := range verdicts {
		switch {
		case v == PageNew:
			rep.NNew++
		case v.Bounced():
			rep.Bounced = append(rep.Bounced, uint32(i)|uint32(v)<<xpu.BounceShift)
		}
	}
	sort.Slice(rep.Bounced, func(a, b int) bool {
		return rep.Bounced[a]&xpu.BounceIndexMask < rep.Bounced[b]&xpu.BounceIndexMask
	})
	return rep, nil
}

// readRun reads one run with pread and checks its pages.
func (fs *Files) readRun(f xpu.DirectFile, blknos []uint32, r run, dst []byte, verdicts []Verdict) error {
	first := blknos[r.first]
	seg, off := f.Locate(first)
	buf := dst[r.first*xpu.BlockSize : (r.first+r.n)*xpu.BlockSize]
	aligned := uintptr(unsafe.Pointer(&buf[0]))%directAlign == 0
	fd, _, err := fs.fd(f, seg, aligned)
	if err != nil {
		return fmt.Errorf("direct read of block %d of relation file %s: %w", first, f.Name(), err)
	}
	if err := withReadSlot(func() error { return preadAll(fd, buf, off, f, seg, first) }); err != nil {
		return err
	}
	for i := 0; i < r.n; i++ {
		page := buf[i*xpu.BlockSize : (i+1)*xpu.BlockSize]
		v := CheckPage(page, blknos[r.first+i], f.Checksums)
		if v != PageUsable {
			hideTuples(page)
		}
		verdicts[r.first+i] = v
	}
	return nil
}

// preadAll fills buf from byte off of segment seg of f, whose first block
// is first.
func preadAll(fd int, buf []byte, off int64, f xpu.DirectFile, seg uint32, first uint32) error {
	for done := 0; done < len(buf); {
		n, err := unix.Pread(fd, buf[done:], off+int64(done))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("direct read of block %d of relation file %s (%s at byte %d): %w",
				first+uint32(done/xpu.BlockSize), f.Name(), f.SegmentPath(seg), off+int64(done), err)
		}
		if n == 0 {
			return fmt.Errorf("direct read of block %d of relation file %s: %s ends at byte %d, before the block (the file is shorter than the %d blocks the scan started with)",
				first+uint32(done/xpu.BlockSize), f.Name(), f.SegmentPath(seg), off+int64(done), f.RelNBlocks)
		}
		done += n
	}
	return nil
}
