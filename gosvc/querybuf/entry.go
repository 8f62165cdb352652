package querybuf

import "sync"

// Entry is one shared query buffer. Its value is guarded by a read-write
// lock so that a GpuPreAgg buffer can be replaced (grown) while the other
// sessions wait.
type Entry struct {
	table *Table
	key   Key
	cond  *sync.Cond // on table.mu; signalled when setup ends

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
