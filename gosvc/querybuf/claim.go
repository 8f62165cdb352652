package querybuf

import (
	"errors"
	"fmt"
	"sync"
)

// ClaimState is what Claim found.
type ClaimState int

const (
	// Loaded: the entry is ready and the caller holds a reference.
	Loaded ClaimState = iota
	// Busy: another caller is loading the entry; nothing was taken.
	Busy
	// Loading: the entry is new and the caller loads it, over as many
	// calls as it takes; it holds a reference and must Publish or
	// Abandon the entry.
	Loading
)

func (s ClaimState) String() string {
	switch s {
	case Loaded:
		return "loaded"
	case Busy:
		return "busy"
	case Loading:
		return "loading"
	}
	return fmt.Sprintf("ClaimState(%d)", int(s))
}

// ErrAbandoned is the setup error of an entry whose loader gave up.
var ErrAbandoned = errors.New("the loader abandoned the query buffer")

// Claim is Acquire for a buffer loaded by several requests of one session
// (GpuJoin's inner rows arrive in pieces), which must not block the
// others: instead of waiting for an entry being loaded it answers Busy.
// A new entry gets loading() as its value until Publish replaces it, so
// that a Busy caller can read what the loader loads (Value).
func (t *Table) Claim(key Key, loading func() any) (*Entry, ClaimState) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e, ok := t.entries[key]; ok {
		if !e.ready {
			return e, Busy
		}
		e.refs++
		return e, Loaded
	}
	e := &Entry{table: t, key: key, refs: 1, value: loading(), settled: make(chan struct{})}
	e.cond = sync.NewCond(&t.mu)
	t.entries[key] = e
	return e, Loading
}

// Publish makes a Loading entry ready with value v; the loader keeps its
// reference.
func (t *Table) Publish(e *Entry, v any) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e.table != t || e.ready || t.entries[e.key] != e {
		return fmt.Errorf("querybuf: publish %+v: the entry is not being loaded", e.key)
	}
	e.rw.Lock()
	e.value = v
	e.rw.Unlock()
	e.ready = true
	e.cond.Broadcast()
	e.settle()
	return nil
}

// Abandon drops a Loading entry: the loader's reference goes with it, and
// the next Claim of its key starts a new load.  Anything waiting for the
// entry in Acquire gets ErrAbandoned.
func (t *Table) Abandon(e *Entry) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e.table != t || e.ready || t.entries[e.key] != e {
		return fmt.Errorf("querybuf: abandon %+v: the entry is not being loaded", e.key)
	}
	e.ready, e.setupErr, e.refs = true, ErrAbandoned, 0
	delete(t.entries, e.key)
	e.cond.Broadcast()
	e.settle()
	return nil
}

// settle closes settled, for a Claim'ed entry (Publish and Abandon refuse
// an entry that is ready, so it runs once).
func (e *Entry) settle() {
	if e.settled != nil {
		close(e.settled)
	}
}
