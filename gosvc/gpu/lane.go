package gpu

import (
	"errors"
	"fmt"

	"gorgonia.org/cu"
)

// A lane is what one task needs to talk to the device: its own stream, so
// tasks of several workers overlap, and a pinned staging buffer, so copies
// run at full PCIe speed (about 53 GB/s pinned against 7-9 GB/s pageable on
// an H200).  Lanes are reused; there are as many as tasks ever ran at once,
// i.e. at most the worker count.
type lane struct {
	stream cu.Stream
	host   *HostBuffer // nil when pinned memory could not be had
}

const (
	// stageCounters is the staging area of the kernel counters at the
	// start of the pinned buffer; data is staged after it.
	stageCounters = 256
	// pinnedGrain rounds pinned buffers up, so a lane is not regrown for
	// every slightly larger chunk.
	pinnedGrain = 8 << 20
)

// getLane returns an idle lane (or a new one) whose pinned buffer stages
// at least dataBytes.
func (e *Executor) getLane(dataBytes int) (*lane, error) {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil, errors.New("executor closed")
	}
	var l *lane
	if n := len(e.idle); n > 0 {
		l, e.idle = e.idle[n-1], e.idle[:n-1]
	}
	e.mu.Unlock()
	if l == nil {
		l = &lane{}
		err := e.dev.Do(func() (err error) {
			l.stream, err = cu.MakeStream(cu.NonBlocking)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("device %d: cuStreamCreate: %w", e.dev.index, err)
		}
		e.mu.Lock()
		e.lanes = append(e.lanes, l)
		e.mu.Unlock()
	}
	l.ensurePinned(e.dev, dataBytes)
	return l, nil
}

// ensurePinned grows the staging buffer; when pinned memory cannot be had
// the lane copies from pageable memory instead (slower, still correct).
func (l *lane) ensurePinned(d *Device, dataBytes int) {
	need := uint64(stageCounters + dataBytes)
	if l.host != nil && uint64(len(l.host.Bytes())) >= need {
		return
	}
	if l.host != nil {
		l.host.Free()
		l.host = nil
	}
	size := (need + pinnedGrain - 1) / pinnedGrain * pinnedGrain
	if h, err := d.AllocHost(size); err == nil {
		l.host = h
	}
}

func (e *Executor) putLane(l *lane) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.idle = append(e.idle, l)
}

// destroy frees the lane's stream and pinned buffer.
func (l *lane) destroy(d *Device) error {
	var errs []error
	if l.host != nil {
		errs = append(errs, l.host.Free())
	}
	errs = append(errs, d.Do(func() error { return l.stream.Destroy() }))
	return errors.Join(errs...)
}

// pinned is the first n bytes of the lane's staging area (after the
// counters' area), or nil when the lane has no pinned buffer that large.
func (l *lane) pinned(n int) []byte {
	if l.host == nil || len(l.host.Bytes()) < stageCounters+n {
		return nil
	}
	return l.host.Bytes()[stageCounters : stageCounters+n]
}
