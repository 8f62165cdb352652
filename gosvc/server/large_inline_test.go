package server

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// The backend's default transport sends 4096-page (32 MB) chunks inline;
// several are pipelined on one connection.  Every page must reach the
// executor byte for byte, whatever the socket does to the stream.
func TestLargeInlineChunksArriveIntact(t *testing.T) {
	const nblocks = 4096
	const chunks = 3
	var mu sync.Mutex
	seen := map[uint32][32]byte{}
	ex := &fakeExecutor{onExec: func(c xpu.Chunk, pages nodekind.Pages) error {
		mu.Lock()
		defer mu.Unlock()
		seen[c.ChunkID] = sha256.Sum256(pages.Bytes)
		return nil
	}}
	s := startExecServer(t, 4, ex)
	c := dial(t, s)
	// 96 MB, hashed and checked under -race, beside a build on 2 cores
	c.SetDeadline(time.Now().Add(90 * time.Second))
	expectSuccess(t, c, sessionMsg(1))

	want := map[uint32][32]byte{}
	var batch []byte
	for i := uint32(0); i < chunks; i++ {
		pages := distinctPages(nblocks, i)
		want[100+i] = sha256.Sum256(pages)
		batch = append(batch, xputest.ChunkMessage(10+i, 100+i, pages)...)
	}
	go c.Write(batch)
	for i := 0; i < chunks; i++ {
		reply, h, err := protocol.ReadMessage(c, protocol.MaxLength)
		if err != nil || h.Tag != protocol.TagSuccess {
			t.Fatalf("reply %d: tag %v, err %v", i, h.Tag, err)
		}
		res, _, err := xpu.DecodeChunkResult(reply)
		if err != nil || res.NTuples != nblocks {
			t.Fatalf("reply %d: %+v, %v", i, res, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Fatal("the pages the executor saw differ from the pages sent")
	}
}

// distinctPages are nblocks pages that differ from one another and from
// those of another chunk: a pattern page with the chunk and page number
// at its start.  Filled by copies, not byte by byte, which -race would
// instrument one byte at a time.
func distinctPages(nblocks int, chunk uint32) []byte {
	pattern := make([]byte, xpu.BlockSize)
	for j := range pattern {
		pattern[j] = byte(j*7 + int(chunk)*13)
	}
	pages := make([]byte, nblocks*xpu.BlockSize)
	for p := 0; p < nblocks; p++ {
		page := pages[p*xpu.BlockSize : (p+1)*xpu.BlockSize]
		copy(page, pattern)
		binary.LittleEndian.PutUint32(page[0:], chunk)
		binary.LittleEndian.PutUint32(page[4:], uint32(p))
	}
	return pages
}
