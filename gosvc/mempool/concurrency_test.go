package mempool

import (
	"math/rand"
	"sync"
	"testing"
	"time"
)

// TestConcurrentAllocFree hammers one pool from many goroutines and checks
// that no two live chunks overlap and nothing leaks.
func TestConcurrentAllocFree(t *testing.T) {
	p, fa, _ := testPool(t, Config{SegmentSize: 256 * kB, MaxRatio: 1, ReleaseDelay: time.Millisecond})
	p.now = time.Now // the idle releaser below runs on real time

	var owners sync.Map // chunkAlign slot → goroutine id
	claim := func(t *testing.T, c Chunk, id int) {
		for a := c.Ptr; a < c.Ptr+uintptr(c.Size); a += chunkAlign {
			if prev, loaded := owners.LoadOrStore(a, id); loaded {
				t.Errorf("slot %#x handed to %d while owned by %v", a, id, prev)
				return
			}
		}
	}
	unclaim := func(c Chunk) {
		for a := c.Ptr; a < c.Ptr+uintptr(c.Size); a += chunkAlign {
			owners.Delete(a)
		}
	}

	const workers, rounds = 16, 300
	var wg sync.WaitGroup
	stop := make(chan struct{})
	go func() { // a background releaser, as the service runs one
		for {
			select {
			case <-stop:
				return
			default:
				p.ReleaseIdle(time.Now())
				p.Stats()
				time.Sleep(100 * time.Microsecond)
			}
		}
	}()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(id)))
			var held []Chunk
			for i := 0; i < rounds; i++ {
				if len(held) > 0 && rng.Intn(3) == 0 {
					k := rng.Intn(len(held))
					unclaim(held[k])
					if err := p.Free(held[k]); err != nil {
						t.Errorf("Free: %v", err)
					}
					held = append(held[:k], held[k+1:]...)
					continue
				}
				c, err := p.Alloc(uint64(rng.Intn(8*int(kB)) + 1))
				if err != nil {
					t.Errorf("Alloc: %v", err)
					continue
				}
				claim(t, c, id)
				held = append(held, c)
			}
			for _, c := range held {
				unclaim(c)
				if err := p.Free(c); err != nil {
					t.Errorf("Free: %v", err)
				}
			}
		}(w)
	}
	wg.Wait()
	close(stop)

	if s := p.Stats(); s.Used != 0 {
		t.Fatalf("Used = %d after every chunk was freed", s.Used)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if n, _ := fa.liveBytes(); n != 0 {
		t.Fatalf("%d segments leaked", n)
	}
}
