package querybuf

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type buffer struct{ id int }

func TestAcquireSharesOneSetup(t *testing.T) {
	tab := NewTable()
	key := Key{PlanID: 42, Device: 1}
	var setups atomic.Int32
	release := make(chan struct{})
	setup := func() (any, error) {
		setups.Add(1)
		<-release // hold setup so that the others must wait for it
		return &buffer{id: 7}, nil
	}

	const n = 32
	entries := make([]*Entry, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			e, err := tab.Acquire(key, setup)
			if err != nil {
				t.Errorf("Acquire: %v", err)
				return
			}
			entries[i] = e
		}(i)
	}
	time.Sleep(20 * time.Millisecond) // let the goroutines pile up on the entry
	close(release)
	wg.Wait()

	if got := setups.Load(); got != 1 {
		t.Fatalf("setup ran %d times, want 1", got)
	}
	first := entries[0].Value().(*buffer)
	for i, e := range entries {
		if e != entries[0] || e.Value().(*buffer) != first {
			t.Fatalf("worker %d got a different entry or value", i)
		}
	}
	if tab.Len() != 1 {
		t.Fatalf("Len = %d, want 1", tab.Len())
	}

	var teardowns atomic.Int32
	lasts := 0
	for _, e := range entries {
		last, err := tab.Release(e, func(v any) {
			if v.(*buffer) != first {
				t.Errorf("teardown got %v", v)
			}
			teardowns.Add(1)
		})
		if err != nil {
			t.Fatal(err)
		}
		if last {
			lasts++
		}
	}
	if teardowns.Load() != 1 || lasts != 1 {
		t.Fatalf("teardown ran %d times, last reported %d times; want 1 and 1", teardowns.Load(), lasts)
	}
	if tab.Len() != 0 {
		t.Fatalf("Len = %d after the last release", tab.Len())
	}
}

func TestKeysAreIndependent(t *testing.T) {
	tab := NewTable()
	mk := func(id int) func() (any, error) { return func() (any, error) { return id, nil } }
	a, _ := tab.Acquire(Key{PlanID: 1, Device: 0}, mk(1))
	b, _ := tab.Acquire(Key{PlanID: 1, Device: 1}, mk(2))
	c, _ := tab.Acquire(Key{PlanID: 2, Device: 0}, mk(3))
	if a.Value() != 1 || b.Value() != 2 || c.Value() != 3 || tab.Len() != 3 {
		t.Fatalf("values %v %v %v, Len %d", a.Value(), b.Value(), c.Value(), tab.Len())
	}
	if b.Key() != (Key{PlanID: 1, Device: 1}) {
		t.Fatalf("Key = %+v", b.Key())
	}
}

func TestSetupFailurePropagatesAndRetries(t *testing.T) {
	tab := NewTable()
	key := Key{PlanID: 9}
	boom := errors.New("shm_open failed")
	started := make(chan struct{})
	proceed := make(chan struct{})
	var setups atomic.Int32
	failing := func() (any, error) {
		setups.Add(1)
		close(started)
		<-proceed
		return nil, boom
	}

	const waiters = 8
	errs := make(chan error, waiters+1)
	go func() {
		_, err := tab.Acquire(key, failing)
		errs <- err
	}()
	<-started
	var wg sync.WaitGroup
	for i := 0; i < waiters; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := tab.Acquire(key, func() (any, error) {
				t.Error("a waiter ran setup while the first setup was in progress")
				return nil, nil
			})
			errs <- err
		}()
	}
	time.Sleep(20 * time.Millisecond)
	close(proceed)
	wg.Wait()
	for i := 0; i < waiters+1; i++ {
		if err := <-errs; !errors.Is(err, boom) {
			t.Fatalf("caller got %v, want wrapping %v", err, boom)
		}
	}
	if tab.Len() != 0 {
		t.Fatalf("failed entry still in the table (Len %d)", tab.Len())
	}

	e, err := tab.Acquire(key, func() (any, error) { return "ok", nil })
	if err != nil || e.Value() != "ok" {
		t.Fatalf("retry: %v, %v", e, err)
	}
	if setups.Load() != 1 {
		t.Fatalf("failing setup ran %d times", setups.Load())
	}
}

func TestSetupPanicBecomesError(t *testing.T) {
	tab := NewTable()
	_, err := tab.Acquire(Key{PlanID: 1}, func() (any, error) { panic("bad") })
	if err == nil || tab.Len() != 0 {
		t.Fatalf("err = %v, Len = %d", err, tab.Len())
	}
}

func TestReleaseErrors(t *testing.T) {
	tab := NewTable()
	e, err := tab.Acquire(Key{PlanID: 1}, func() (any, error) { return 1, nil })
	if err != nil {
		t.Fatal(err)
	}
	if last, err := tab.Release(e, nil); err != nil || !last {
		t.Fatalf("first release: %v, %v", last, err)
	}
	if _, err := tab.Release(e, func(any) { t.Error("teardown ran twice") }); !errors.Is(err, ErrOverRelease) {
		t.Fatalf("second release: err = %v, want ErrOverRelease", err)
	}
	if _, err := NewTable().Release(e, nil); !errors.Is(err, ErrOverRelease) {
		t.Fatalf("release into another table: err = %v", err)
	}
	if _, err := tab.Release(nil, nil); !errors.Is(err, ErrOverRelease) {
		t.Fatalf("release of nil: err = %v", err)
	}
}

func TestReacquireAfterTeardownRunsSetupAgain(t *testing.T) {
	tab := NewTable()
	key := Key{PlanID: 5}
	var setups int
	setup := func() (any, error) { setups++; return setups, nil }
	e, _ := tab.Acquire(key, setup)
	tab.Release(e, nil)
	e, _ = tab.Acquire(key, setup)
	if setups != 2 || e.Value() != 2 {
		t.Fatalf("setups %d, value %v", setups, e.Value())
	}
}

func TestExclusiveExcludesShared(t *testing.T) {
	tab := NewTable()
	e, err := tab.Acquire(Key{PlanID: 3}, func() (any, error) { return 0, nil })
	if err != nil {
		t.Fatal(err)
	}
	var readers, writers atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				e.Shared(func(v any) {
					readers.Add(1)
					if writers.Load() != 0 {
						t.Error("Shared ran during Exclusive")
					}
					readers.Add(-1)
				})
			}
		}()
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				e.Exclusive(func(v any) any {
					if writers.Add(1) != 1 || readers.Load() != 0 {
						t.Error("Exclusive overlapped another holder")
					}
					writers.Add(-1)
					return v.(int) + 1 // grow the buffer
				})
			}
		}()
	}
	wg.Wait()
	if got := e.Value(); got != 8*50 {
		t.Fatalf("value %v after 400 Exclusive updates", got)
	}
}
