package mempool

import (
	"fmt"
	"sort"
	"time"
)

// extent is a free range inside a segment.
type extent struct {
	off, size uint64
}

// segment is one device allocation, carved into chunks first-fit. Free
// extents are kept sorted and coalesced so that freed neighbours merge back
// into one range a later large chunk can use.
type segment struct {
	pool      *Pool
	base      uintptr
	size      uint64
	free      []extent          // sorted by off, never adjacent
	live      map[uint64]uint64 // off → size of chunks handed out
	used      uint64
	idleSince time.Time
	released  bool
}

func newSegment(p *Pool, base uintptr, size uint64, now time.Time) *segment {
	return &segment{
		pool:      p,
		base:      base,
		size:      size,
		free:      []extent{{0, size}},
		live:      map[uint64]uint64{},
		idleSince: now,
	}
}

func (s *segment) idle() bool {
	return s.used == 0
}

// take carves size bytes from the first extent large enough.
func (s *segment) take(size uint64) (off uint64, ok bool) {
	for i := range s.free {
		e := &s.free[i]
		if e.size < size {
			continue
		}
		off = e.off
		if e.size == size {
			s.free = append(s.free[:i], s.free[i+1:]...)
		} else {
			e.off += size
			e.size -= size
		}
		s.live[off] = size
		s.used += size
		return off, true
	}
	return 0, false
}

// give returns a chunk, merging it with free neighbours.
func (s *segment) give(off, size uint64) error {
	got, ok := s.live[off]
	if !ok {
		return fmt.Errorf("no live chunk at offset %d (double free?)", off)
	}
	if got != size {
		return fmt.Errorf("chunk at offset %d has size %d, not %d", off, got, size)
	}
	delete(s.live, off)
	s.used -= size

	i := sort.Search(len(s.free), func(i int) bool { return s.free[i].off > off })
	mergePrev := i > 0 && s.free[i-1].off+s.free[i-1].size == off
	mergeNext := i < len(s.free) && off+size == s.free[i].off
	switch {
	case mergePrev && mergeNext:
		s.free[i-1].size += size + s.free[i].size
		s.free = append(s.free[:i], s.free[i+1:]...)
	case mergePrev:
		s.free[i-1].size += size
	case mergeNext:
		s.free[i].off = off
		s.free[i].size += size
	default:
		s.free = append(s.free, extent{})
		copy(s.free[i+1:], s.free[i:])
		s.free[i] = extent{off, size}
	}
	return nil
}
