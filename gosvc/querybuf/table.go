// Package querybuf shares per-query device buffers (the GpuJoin inner
// buffer, the GpuPreAgg final buffer) among all sessions of one query:
// parallel workers of a query open their own sessions but must see one
// buffer.
package querybuf

import (
	"errors"
	"fmt"
	"sync"
)

// ErrOverRelease is returned by Release for an entry released more times
// than it was acquired.
var ErrOverRelease = errors.New("query buffer released more times than acquired")

// Key names a query buffer: the plan of one query on one device, and
// which of the plan's buffers (GpuJoin keeps one per inner depth; a
// GpuPreAgg plan has one, Kind 0 and Depth 0).
type Key struct {
	PlanID uint64
	Device int
	Kind   uint32 // the XPU_KIND_* of a kind with several buffers, else 0
	Depth  int    // GpuJoin: the inner depth
}

// Table holds the live query buffers. It is safe for concurrent use.
type Table struct {
	mu      sync.Mutex
	entries map[Key]*Entry
}

// NewTable returns an empty table.
func NewTable() *Table {
	return &Table{entries: map[Key]*Entry{}}
}

// Acquire returns the entry for key, taking a reference. The first caller
// runs setup, outside the table lock so other keys are not held up; callers
// that arrive meanwhile wait and then share its value. If setup fails, every
// waiter gets the error and the entry is dropped, so a later Acquire tries
// again.
func (t *Table) Acquire(key Key, setup func() (any, error)) (*Entry, error) {
	t.mu.Lock()
	if e, ok := t.entries[key]; ok {
		e.refs++
		for !e.ready {
			e.cond.Wait()
		}
		err := e.setupErr
		t.mu.Unlock()
		if err != nil {
			return nil, fmt.Errorf("querybuf: set up %+v (by another session): %w", key, err)
		}
		return e, nil
	}
	e := &Entry{table: t, key: key, refs: 1}
	e.cond = sync.NewCond(&t.mu)
	t.entries[key] = e
	t.mu.Unlock()

	v, err := runSetup(setup)

	t.mu.Lock()
	defer t.mu.Unlock()
	e.ready = true
	e.cond.Broadcast()
	if err != nil {
		e.setupErr = err
		e.refs = 0
		delete(t.entries, key)
		return nil, fmt.Errorf("querybuf: set up %+v: %w", key, err)
	}
	e.value = v
	return e, nil
}

// runSetup turns a panic in setup into an error: waiters blocked on the
// entry must be woken whatever setup does.
func runSetup(setup func() (any, error)) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("setup panicked: %v", r)
		}
	}()
	return setup()
}

// Release drops one reference. The last releaser removes the entry and runs
// teardown (if not nil) on its value, outside the table lock; last reports
// whether this call did so.
func (t *Table) Release(e *Entry, teardown func(any)) (last bool, err error) {
	if e == nil {
		return false, fmt.Errorf("querybuf: release of nil entry: %w", ErrOverRelease)
	}
	t.mu.Lock()
	if e.table != t || e.refs <= 0 || !e.ready || e.setupErr != nil {
		t.mu.Unlock()
		return false, fmt.Errorf("querybuf: release %+v: %w", e.key, ErrOverRelease)
	}
	e.refs--
	if e.refs > 0 {
		t.mu.Unlock()
		return false, nil
	}
	delete(t.entries, e.key)
	t.mu.Unlock()

	if teardown != nil {
		// No reference is left, but Exclusive may still be running in a
		// caller that broke the rules; the lock keeps teardown from
		// racing with it.
		e.rw.Lock()
		defer e.rw.Unlock()
		teardown(e.value)
	}
	return true, nil
}

// Len returns how many entries are live or being set up.
func (t *Table) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.entries)
}
