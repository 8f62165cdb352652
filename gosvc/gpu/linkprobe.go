package gpu

import (
	"errors"
	"fmt"

	"gorgonia.org/cu"

	"github.com/pgstrom-go/pg_strom/gosvc/gpu/linktimer"
	"github.com/pgstrom-go/pg_strom/gosvc/server"
)

var _ server.LinkProber = (*Executor)(nil)

// ProbeLink measures the device's link the way chunks travel: copies
// between pinned host memory (a HostBuffer) and device memory from the
// pool, on a lane's stream.  Each direction gets one untimed warm-up copy,
// then copies timed copies queued back to back and one synchronize; the
// result is their wall time.  Probes of one executor run one at a time, so
// two probes never share the link.
func (e *Executor) ProbeLink(bytes uint64, copies int) (h2dNs, d2hNs uint64, err error) {
	if bytes == 0 || copies < 1 {
		return 0, 0, fmt.Errorf("device %d: link probe of %d bytes x %d copies", e.dev.index, bytes, copies)
	}
	e.probeMu.Lock()
	defer e.probeMu.Unlock()

	l, err := e.getLane(0)
	if err != nil {
		return 0, 0, fmt.Errorf("device %d: link probe: %w", e.dev.index, err)
	}
	defer e.putLane(l)
	mem, err := e.alloc(bytes, "link probe")
	if err != nil {
		return 0, 0, err // wraps mempool.ErrExhausted when the pool cannot spare it
	}
	defer func() {
		if ferr := e.pool.Free(mem); ferr != nil {
			err = errors.Join(err, fmt.Errorf("device %d: free link probe memory: %w", e.dev.index, ferr))
		}
	}()
	host, err := e.dev.AllocHost(bytes)
	if err != nil {
		return 0, 0, fmt.Errorf("link probe: %w", err)
	}
	defer func() {
		if ferr := host.Free(); ferr != nil {
			err = errors.Join(err, fmt.Errorf("link probe: %w", ferr))
		}
	}()

	st, dev, n := l.stream, cu.DevicePtr(mem.Ptr), int64(bytes)
	err = e.dev.Do(func() error {
		var err error
		h2dNs, err = linktimer.Time(copies, func() error { return cu.MemcpyHtoDAsync(dev, host.Pointer(), n, st) }, st.Synchronize)
		if err != nil {
			return fmt.Errorf("host to device: %w", err)
		}
		d2hNs, err = linktimer.Time(copies, func() error { return cu.MemcpyDtoHAsync(host.Pointer(), dev, n, st) }, st.Synchronize)
		if err != nil {
			return fmt.Errorf("device to host: %w", err)
		}
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("device %d: link probe of %d bytes x %d: %w", e.dev.index, bytes, copies, err)
	}
	return h2dNs, d2hNs, nil
}
