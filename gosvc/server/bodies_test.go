package server

import (
	"crypto/sha256"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/hostpool"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// lendingExecutor is a fakeExecutor that lends request bodies from a real
// hostpool over Go memory, and records whether Exec saw lent pages.
type lendingExecutor struct {
	*fakeExecutor
	pool *hostpool.Pool

	lends atomic.Int32

	mu           sync.Mutex
	pinnedExecs  int
	pageableSeen int
}

func newLendingExecutor(limit uint64, onExec func(xpu.Chunk, nodekind.Pages) error) *lendingExecutor {
	alloc := func(size uint64) ([]byte, func() error, error) {
		return make([]byte, size), func() error { return nil }, nil
	}
	l := &lendingExecutor{pool: hostpool.New(alloc, 1<<20, limit)}
	l.fakeExecutor = &fakeExecutor{onExec: func(c xpu.Chunk, p nodekind.Pages) error {
		l.mu.Lock()
		if p.Pinned {
			l.pinnedExecs++
		} else {
			l.pageableSeen++
		}
		l.mu.Unlock()
		if onExec != nil {
			return onExec(c, p)
		}
		return nil
	}}
	return l
}

func (l *lendingExecutor) LendBody(n int) []byte {
	l.lends.Add(1)
	return l.pool.Lend(n)
}
func (l *lendingExecutor) ReturnBody(b []byte) error { return l.pool.Return(b) }

func bigPages(nblocks int, seed byte) []byte {
	pages := make([]byte, nblocks*xpu.BlockSize)
	for j := range pages {
		pages[j] = byte(j*31) ^ seed
	}
	return pages
}

// A large inline chunk is received into lent memory, Exec is told its
// pages are pinned and sees them byte for byte, and the body goes back to
// the lender after the reply.  Small chunks are not lent.
func TestLargeInlineChunksAreReceivedIntoLentMemory(t *testing.T) {
	var mu sync.Mutex
	seen := map[uint32][32]byte{}
	ex := newLendingExecutor(256<<20, func(c xpu.Chunk, p nodekind.Pages) error {
		mu.Lock()
		defer mu.Unlock()
		seen[c.ChunkID] = sha256.Sum256(p.Bytes)
		return nil
	})
	s := startExecServer(t, 4, ex)
	c := dial(t, s)
	// 32 MB hashed twice under -race, beside the other suites on 2 cores
	c.SetDeadline(time.Now().Add(90 * time.Second))
	expectSuccess(t, c, sessionMsg(1))

	want := map[uint32][32]byte{}
	for i := uint32(0); i < 4; i++ {
		pages := bigPages(1024, byte(i))
		want[100+i] = sha256.Sum256(pages)
		expectSuccess(t, c, xputest.ChunkMessage(10+i, 100+i, pages))
	}
	small := bigPages(2, 9) // 16 KB: below the lending threshold
	want[200] = sha256.Sum256(small)
	expectSuccess(t, c, xputest.ChunkMessage(20, 200, small))

	mu.Lock()
	if len(seen) != len(want) {
		t.Fatalf("executor saw %d chunks, want %d", len(seen), len(want))
	}
	for id, h := range want {
		if seen[id] != h {
			t.Fatalf("chunk %d: the pages the executor saw differ from those sent", id)
		}
	}
	mu.Unlock()
	ex.mu.Lock()
	pinned, pageable := ex.pinnedExecs, ex.pageableSeen
	ex.mu.Unlock()
	if pinned != 4 || pageable != 1 {
		t.Fatalf("Exec saw %d lent and %d ordinary chunks, want 4 and 1", pinned, pageable)
	}
	waitFor(t, "bodies returned", func() bool { return ex.pool.Stats().Lent == 0 })
	if st := ex.pool.Stats(); st.Idle != 1 {
		t.Fatalf("pool %+v: the four chunks in turn should have reused one buffer", st)
	}
}

// When the lender has nothing to lend, chunks still arrive, in ordinary
// memory and not marked pinned.
func TestChunksArriveWhenTheLenderIsExhausted(t *testing.T) {
	ex := newLendingExecutor(0, nil) // a limit of 0 bytes: every loan refused
	s := startExecServer(t, 2, ex)
	c := dial(t, s)
	expectSuccess(t, c, sessionMsg(1))
	expectSuccess(t, c, xputest.ChunkMessage(10, 100, bigPages(1024, 1)))
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if ex.pinnedExecs != 0 || ex.pageableSeen != 1 {
		t.Fatalf("Exec saw %d lent and %d ordinary chunks, want 0 and 1", ex.pinnedExecs, ex.pageableSeen)
	}
}

// A body cut off by a disconnect, a chunk refused at admission, and a
// chunk whose Exec fails all give their lent memory back.
func TestLentBodiesComeBackOnEveryPath(t *testing.T) {
	ex := newLendingExecutor(256<<20, nil)
	s := startExecServer(t, 2, ex)

	// Exec fails: an error reply, the body is returned.
	c := dial(t, s)
	expectSuccess(t, c, sessionMsg(1))
	ex.setErr(&ex.execErr, errors.New("device on fire"))
	if _, h := roundTrip(t, c, xputest.ChunkMessage(11, 101, bigPages(1024, 2))); h.Tag != protocol.TagError {
		t.Fatalf("reply %v to a failing Exec, want Error", h.Tag)
	}
	ex.setErr(&ex.execErr, nil)
	waitFor(t, "body of the failed chunk returned", func() bool { return ex.pool.Stats().Lent == 0 })

	// TaskExec without a session: refused at admission, connection closed.
	c2 := dial(t, s)
	expectError(t, c2, xputest.ChunkMessage(12, 102, bigPages(1024, 3)), protocol.ErrCodeProtocol)
	expectClosed(t, c2)
	waitFor(t, "body of the refused chunk returned", func() bool { return ex.pool.Stats().Lent == 0 })

	// A body cut off halfway by the client's disconnect.
	c3 := dial(t, s)
	expectSuccess(t, c3, sessionMsg(1))
	msg := xputest.ChunkMessage(13, 103, bigPages(1024, 4))
	before := ex.lends.Load()
	if _, err := c3.Write(msg[:len(msg)/2]); err != nil {
		t.Fatal(err)
	}
	c3.Close()
	waitFor(t, "body of the truncated chunk lent", func() bool { return ex.lends.Load() > before })
	waitFor(t, "body of the truncated chunk returned", func() bool { return ex.pool.Stats().Lent == 0 })
}

func (l *lendingExecutor) HostBytes() uint64 { return l.pool.Stats().Total }

func (l *lendingExecutor) ReleaseIdle(now time.Time, delay time.Duration) error {
	_, err := l.pool.ReleaseIdle(now, delay)
	return err
}

// The server passes the release delay on to an executor that keeps lent
// bodies, which then frees those idle long enough.
func TestReleaseIdleFreesLentBodies(t *testing.T) {
	ex := newLendingExecutor(256<<20, nil)
	s := startExecServer(t, 2, ex)
	c := dial(t, s)
	expectSuccess(t, c, sessionMsg(1))
	expectSuccess(t, c, xputest.ChunkMessage(10, 100, bigPages(1024, 1)))
	waitFor(t, "body returned", func() bool { return ex.pool.Stats().Idle == 1 })
	if s.HostBytes() != ex.pool.Stats().Total || s.HostBytes() == 0 {
		t.Fatalf("HostBytes %d, the pool holds %d", s.HostBytes(), ex.pool.Stats().Total)
	}
	s.ReleaseIdle(time.Now(), time.Hour)
	if st := ex.pool.Stats(); st.Idle != 1 {
		t.Fatalf("a body idle for less than the delay was freed: %+v", st)
	}
	s.ReleaseIdle(time.Now().Add(2*time.Hour), time.Hour)
	if st := ex.pool.Stats(); st.Idle != 0 || st.Total != 0 || s.HostBytes() != 0 {
		t.Fatalf("a body idle past the delay was kept: %+v, HostBytes %d", st, s.HostBytes())
	}
	expectSuccess(t, c, xputest.ChunkMessage(11, 101, bigPages(1024, 2)))
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if ex.pinnedExecs != 2 {
		t.Fatalf("after the release, the next chunk was not lent a new body (%d lent Execs)", ex.pinnedExecs)
	}
}

// A header alone does not make the server borrow the executor's (pinned)
// memory for its body: the body must begin to arrive first.
func TestHeaderAloneBorrowsNoLentMemory(t *testing.T) {
	ex := newLendingExecutor(256<<20, nil)
	s := startExecServer(t, 2, ex)
	c := dial(t, s)
	expectSuccess(t, c, sessionMsg(1))
	msg := xputest.ChunkMessage(2, 7, bigPages(256, 1)) // 2 MB: lent
	if _, err := c.Write(msg[:protocol.HeaderSize]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if n := ex.lends.Load(); n != 0 {
		t.Fatalf("%d bodies lent for a header whose body has not begun", n)
	}
	if _, err := c.Write(msg[protocol.HeaderSize:]); err != nil {
		t.Fatal(err)
	}
	if _, h, err := protocol.ReadMessage(c, 0); err != nil || h.Tag != protocol.TagSuccess {
		t.Fatalf("chunk reply %v, %v", h.Tag, err)
	}
	if n := ex.lends.Load(); n != 1 {
		t.Fatalf("%d bodies lent for the chunk, want 1", n)
	}
}
