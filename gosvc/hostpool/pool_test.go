package hostpool

import (
	"errors"
	"sync"
	"testing"
	"time"
)

// countingAlloc hands out Go memory and counts what is live.
type countingAlloc struct {
	mu          sync.Mutex
	live, made  int
	failNext    bool
	doubleFrees int
}

func (a *countingAlloc) alloc(size uint64) ([]byte, func() error, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.failNext {
		a.failNext = false
		return nil, nil, errors.New("out of pinned memory")
	}
	a.live++
	a.made++
	freed := false
	return make([]byte, size), func() error {
		a.mu.Lock()
		defer a.mu.Unlock()
		if freed {
			a.doubleFrees++
		}
		freed = true
		a.live--
		return nil
	}, nil
}

func TestLendReusesTheSmallestIdleBufferThatFits(t *testing.T) {
	a := &countingAlloc{}
	p := New(a.alloc, 1<<20, 64<<20)
	small := p.Lend(1 << 20)
	big := p.Lend(5 << 20)
	if len(small) != 1<<20 || len(big) != 5<<20 {
		t.Fatalf("lent %d and %d bytes, want 1MB and 5MB (rounded to the grain)", len(small), len(big))
	}
	if err := p.Return(small); err != nil {
		t.Fatal(err)
	}
	if err := p.Return(big[:100]); err != nil { // a prefix, as ReadMessageInto slices it
		t.Fatal(err)
	}
	again := p.Lend(3 << 20)
	if &again[0] != &big[0] {
		t.Fatalf("a 3MB request did not reuse the idle 5MB buffer")
	}
	tiny := p.Lend(10)
	if &tiny[0] != &small[0] {
		t.Fatalf("a 10-byte request did not reuse the idle 1MB buffer")
	}
	if a.made != 2 {
		t.Fatalf("made %d buffers, want 2", a.made)
	}
	if st := p.Stats(); st.Lent != 2 || st.Idle != 0 || st.Total != 6<<20 {
		t.Fatalf("stats %+v", st)
	}
}

func TestLendStaysWithinTheLimit(t *testing.T) {
	a := &countingAlloc{}
	p := New(a.alloc, 1<<20, 4<<20)
	b1 := p.Lend(3 << 20)
	if b1 == nil {
		t.Fatal("first loan refused")
	}
	if b := p.Lend(2 << 20); b != nil {
		t.Fatalf("lent %d bytes past the 4MB limit", len(b))
	}
	if b := p.Lend(1 << 20); b == nil {
		t.Fatal("a loan within the limit was refused")
	}
	if st := p.Stats(); st.Total != 4<<20 {
		t.Fatalf("total %d, want 4MB", st.Total)
	}
}

func TestFailedAllocationLendsNothingAndFreesItsReservation(t *testing.T) {
	a := &countingAlloc{failNext: true}
	p := New(a.alloc, 1<<20, 2<<20)
	if b := p.Lend(2 << 20); b != nil {
		t.Fatal("lent memory although the allocation failed")
	}
	if b := p.Lend(2 << 20); b == nil {
		t.Fatal("the failed allocation's reservation was not given back")
	}
}

func TestReturnOfForeignMemoryIsAnError(t *testing.T) {
	p := New((&countingAlloc{}).alloc, 1<<20, 8<<20)
	if err := p.Return(make([]byte, 10)); err == nil {
		t.Fatal("returning memory the pool never lent was accepted")
	}
	b := p.Lend(1)
	if err := p.Return(b); err != nil {
		t.Fatal(err)
	}
	if err := p.Return(b); err == nil {
		t.Fatal("returning the same buffer twice was accepted")
	}
}

func TestCloseFreesIdleNowAndLentOnReturn(t *testing.T) {
	a := &countingAlloc{}
	p := New(a.alloc, 1<<20, 8<<20)
	idle, lent := p.Lend(1), p.Lend(1)
	if err := p.Return(idle); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if a.live != 1 {
		t.Fatalf("%d buffers live after Close, want 1 (the lent one)", a.live)
	}
	if b := p.Lend(1); b != nil {
		t.Fatal("a closed pool lent memory")
	}
	if err := p.Return(lent); err != nil {
		t.Fatal(err)
	}
	if a.live != 0 || a.doubleFrees != 0 || p.Stats().Total != 0 {
		t.Fatalf("live %d, double frees %d, total %d after the last return", a.live, a.doubleFrees, p.Stats().Total)
	}
}

func TestConcurrentLendAndReturn(t *testing.T) {
	a := &countingAlloc{}
	p := New(a.alloc, 1<<20, 16<<20)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				b := p.Lend(1 + (g*i)%(3<<20))
				if b == nil {
					continue
				}
				b[0], b[len(b)-1] = byte(g), byte(g) // the buffer is this goroutine's alone
				if b[0] != byte(g) || b[len(b)-1] != byte(g) {
					t.Errorf("buffer shared between goroutines")
				}
				if err := p.Return(b); err != nil {
					t.Error(err)
				}
			}
		}(g)
	}
	wg.Wait()
	if st := p.Stats(); st.Lent != 0 || st.Total > 16<<20 {
		t.Fatalf("after the storm: %+v", st)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if a.live != 0 {
		t.Fatalf("%d buffers leaked", a.live)
	}
}

func TestReleaseIdleFreesOnlyBuffersIdleLongEnough(t *testing.T) {
	a := &countingAlloc{}
	p := New(a.alloc, 1<<20, 8<<20)
	early, late, busy := p.Lend(1), p.Lend(1), p.Lend(1)
	if err := p.Return(early); err != nil {
		t.Fatal(err)
	}
	returnedEarly := time.Now()
	time.Sleep(20 * time.Millisecond)
	if err := p.Return(late); err != nil {
		t.Fatal(err)
	}
	// At returnedEarly+15ms only the first buffer has been idle 10ms.
	n, err := p.ReleaseIdle(returnedEarly.Add(15*time.Millisecond), 10*time.Millisecond)
	if err != nil || n != 1 {
		t.Fatalf("ReleaseIdle freed %d (%v), want 1", n, err)
	}
	if st := p.Stats(); st.Idle != 1 || st.Lent != 1 || st.Total != 2<<20 || a.live != 2 {
		t.Fatalf("after the first release: %+v, %d live", st, a.live)
	}
	n, err = p.ReleaseIdle(time.Now().Add(time.Hour), 10*time.Millisecond)
	if err != nil || n != 1 {
		t.Fatalf("second ReleaseIdle freed %d (%v), want 1 (the lent buffer stays)", n, err)
	}
	if a.live != 1 || p.Stats().Total != 1<<20 {
		t.Fatalf("%d live, total %d: the lent buffer must be all that is left", a.live, p.Stats().Total)
	}
	if err := p.Return(busy); err != nil {
		t.Fatal(err)
	}
	if b := p.Lend(1); &b[0] != &busy[0] {
		t.Fatal("the buffer returned after the release was not reused")
	}
}
