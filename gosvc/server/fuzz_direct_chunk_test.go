package server

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/direct"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/pagecache"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// fuzzChunkMaxBlocks bounds the pages of one fuzzed chunk: ParseChunk
// allows 64 MB, which would make the allocation, not the read and the
// cache, most of an input's time.  The relations have at most 10 blocks
// and the cache 8 slots, so more blocks only repeat them.
const fuzzChunkMaxBlocks = 64

// fuzzAbortBit in a TaskExec's request ID makes its Exec fail after the
// executor's work, so that the chunk's use of the cache ends in Abort
// (the seeds' IDs leave it clear: they commit).
const fuzzAbortBit = 1 << 31

// FuzzDirectChunk is FuzzSocket's direct-read and page-cache path without
// the socket, the workers and the replies, so that it runs several times
// as many inputs a second: each input is a sequence of TaskExec messages,
// each read through startDirectRead against a data directory and a small
// page cache fresh for the input, checked, handed to the fuzz executor's
// oracle as taskExec hands it, and ended in Commit or Abort.
func FuzzDirectChunk(f *testing.F) {
	session := sessionMsg(1)
	for _, seed := range directSeeds() {
		f.Add(bytes.TrimPrefix(seed, session))
	}
	f.Add(bytes.Join(stampedSequence(), nil))
	dataDir := fuzzDataDir(f)
	f.Fuzz(func(t *testing.T, stream []byte) {
		runDirectChunks(t, dataDir, stream)
	})
}

// runDirectChunks runs the TaskExec messages at the start of stream (up to
// the first that does not frame) and returns the hit count of each chunk
// read, with the executor and the cache they ran against.
func runDirectChunks(tb testing.TB, dataDir string, stream []byte) ([]int, *fuzzExecutor, *pagecache.Cache) {
	tb.Helper()
	cache, err := pagecache.New(fuzzCacheSlots)
	if err != nil {
		tb.Fatal(err)
	}
	ex := newFuzzExecutor()
	if err := ex.OpenPageStore(fuzzCacheSlots); err != nil {
		tb.Fatal(err)
	}
	files := direct.NewFiles(dataDir)
	defer func() {
		if err := files.Close(); err != nil {
			tb.Fatal(err)
		}
	}()
	var hits []int
	for len(stream) >= protocol.HeaderSize {
		h, err := protocol.DecodeHeader(stream)
		if err != nil || uint64(h.Length) > uint64(len(stream)) {
			break
		}
		msg := stream[:h.Length]
		stream = stream[h.Length:]
		req, err := protocol.ParseRequest(msg)
		if err != nil {
			continue
		}
		te, ok := req.(protocol.TaskExecRequest)
		if !ok {
			continue
		}
		chunk, err := xpu.ParseChunk(te.Msg)
		if err != nil || !chunk.Direct() || chunk.NBlocks > fuzzChunkMaxBlocks {
			continue
		}
		d, err := parseDirect(chunk, te.Msg)
		if err != nil {
			continue
		}
		body := make([]byte, chunk.PagesLen())
		before := cache.Stats().Hits
		r, err := startDirectRead(files, cache, d, body)
		if err == nil {
			n := r.hits()
			if err := checkReadReport(chunk, r.report, n); err != nil {
				tb.Fatal(err)
			}
			if got := cache.Stats().Hits - before; got != uint64(n) {
				tb.Fatalf("chunk %d: %d hits in the read report, %d in the cache's count", chunk.ChunkID, n, got)
			}
			hits = append(hits, n)
			execErr := ex.exec(asInline(chunk), nodekind.Pages{Bytes: body, Cache: r.moves()})
			if execErr == nil && h.RequestID&fuzzAbortBit != 0 {
				execErr = errExecNotReturned
			}
			r.end(execErr)
		}
		if err := ex.takeViolation(); err != nil {
			tb.Fatalf("chunk %d: the executor got unsound work: %v", chunk.ChunkID, err)
		}
		if st := cache.Stats(); st.Slots != fuzzCacheSlots || st.Used > st.Slots {
			tb.Fatalf("chunk %d: cache %+v", chunk.ChunkID, st)
		}
	}
	return hits, ex, cache
}

// checkReadReport checks the read report of chunk: a verdict per block,
// bounced positions ascending within the chunk, each with its block's
// verdict, and no more hits than blocks.
func checkReadReport(chunk xpu.Chunk, rep direct.Report, hits int) error {
	n := int(chunk.NBlocks)
	if len(rep.Verdicts) != n || hits > n {
		return fmt.Errorf("chunk %d of %d blocks: %d verdicts, %d hits", chunk.ChunkID, n, len(rep.Verdicts), hits)
	}
	last := -1
	for _, b := range rep.Bounced {
		i := int(b & xpu.BounceIndexMask)
		if i >= n || i <= last || !rep.Verdicts[i].Bounced() || uint32(rep.Verdicts[i]) != b>>xpu.BounceShift {
			return fmt.Errorf("chunk %d of %d blocks: bounced %#x after index %d, verdicts %v", chunk.ChunkID, n, b, last, rep.Verdicts)
		}
		last = i
	}
	return nil
}

// TestFuzzDirectChunkReachesTheCache guards FuzzDirectChunk's setup as
// TestFuzzSocketReachesDirectReads guards FuzzSocket's: the stamped
// sequence's first chunk is read from the files and fills the cache, the
// second is served from it, the cache-only one what the cache holds; and
// a chunk whose Exec fails leaves nothing in the cache.
func TestFuzzDirectChunkReachesTheCache(t *testing.T) {
	dataDir := fuzzDataDir(t)
	seq := bytes.Join(stampedSequence(), nil)
	hits, ex, cache := runDirectChunks(t, dataDir, seq)
	// usable without checksums: blocks 1, 4, 6, 8, 9 (and 0, under
	// stamp 0); the cache-only chunk's blocks 1 and 9 are cached, 0 and
	// 3 (new) are not
	if fmt.Sprint(hits) != "[0 5 2]" || ex.cacheChunks.Load() != 3 {
		t.Fatalf("cache hits %v, %d chunks with cache moves; want [0 5 2] and 3 (cache %s)",
			hits, ex.cacheChunks.Load(), cache.Summary())
	}
	if st := cache.Stats(); st.Used != 5 || st.Fills != 5 {
		t.Fatalf("cache %+v: want the 5 usable blocks filled", st)
	}

	// usable blocks 1 and 4: the aborted chunk fills nothing, the next
	// fills both, the last is served them
	f := fuzzFileMixed
	f.Stamps = true
	msg := func(id uint32) []byte {
		return xputest.StampedDirectChunkMessage(id, 1, f, []uint32{1, 4}, stamps(2, 7))
	}
	hits, _, cache = runDirectChunks(t, dataDir, bytes.Join([][]byte{msg(2 | fuzzAbortBit), msg(3), msg(4)}, nil))
	if st := cache.Stats(); fmt.Sprint(hits) != "[0 0 2]" || st.Used != 2 || st.Fills != 2 {
		t.Fatalf("an aborted chunk, then the same twice: hits %v, cache %+v; want [0 0 2] and 2 filled", hits, st)
	}
}

// TestFuzzDirectChunkFlagsBadReports: the report check fails on what it
// must.
func TestFuzzDirectChunkFlagsBadReports(t *testing.T) {
	c := xpu.Chunk{ChunkID: 1, NBlocks: 2}
	bounce := func(i uint32, v direct.Verdict) uint32 { return i | uint32(v)<<xpu.BounceShift }
	for _, tc := range []struct {
		name string
		rep  direct.Report
		hits int
		bad  bool
	}{
		{"sound", direct.Report{Verdicts: []direct.Verdict{0, direct.BounceChecksum}, Bounced: []uint32{bounce(1, direct.BounceChecksum)}}, 1, false},
		{"a verdict missing", direct.Report{Verdicts: []direct.Verdict{0}}, 0, true},
		{"more hits than blocks", direct.Report{Verdicts: make([]direct.Verdict, 2)}, 3, true},
		{"a bounce past the chunk", direct.Report{Verdicts: make([]direct.Verdict, 2), Bounced: []uint32{bounce(2, direct.BounceChecksum)}}, 0, true},
		{"a usable page bounced", direct.Report{Verdicts: make([]direct.Verdict, 2), Bounced: []uint32{bounce(0, direct.BounceChecksum)}}, 0, true},
	} {
		if err := checkReadReport(c, tc.rep, tc.hits); (err != nil) != tc.bad {
			t.Errorf("%s: %v; want an error: %v", tc.name, err, tc.bad)
		}
	}
}
