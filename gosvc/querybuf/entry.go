package querybuf

import "sync"

// Entry is one shared query buffer. Its value is guarded by a read-write
// lock so that a GpuPreAgg buffer can be replaced (grown) while the other
// sessions wait.
type Entry struct {
	table *Table
	key   Key
	cond  *sync.Cond // on table.mu; signalled when setup ends
	// settled is closed when a Claim'ed entry is published or abandoned
	// (nil for an entry made by Acquire, whose waiters use cond).
	settled chan struct{}

	// Guarded by table.mu.
	refs     int
	ready    bool
	setupErr error

	rw    sync.RWMutex
	value any
}

// Key returns the entry's key.
func (e *Entry) Key() Key {
	return e.key
}

// Settled is closed once a Claim'ed entry is published or abandoned, so
// that a Busy caller can wait for the load without holding the table lock
// (nil, which never closes, for an entry made by Acquire).
func (e *Entry) Settled() <-chan struct{} {
	return e.settled
}

// Value returns the current value. Use Shared to keep it from being
// replaced while in use.
func (e *Entry) Value() any {
	e.rw.RLock()
	defer e.rw.RUnlock()
	return e.value
}

// Shared runs fn with the value while no Exclusive call can run.
func (e *Entry) Shared(fn func(v any)) {
	e.rw.RLock()
	defer e.rw.RUnlock()
	fn(e.value)
}

// Exclusive runs fn alone and stores what it returns as the new value.
func (e *Entry) Exclusive(fn func(v any) any) {
	e.rw.Lock()
	defer e.rw.Unlock()
	e.value = fn(e.value)
}
