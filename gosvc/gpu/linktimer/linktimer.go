// Package linktimer times a series of asynchronous copies the way the link
// probe does.  It is pure Go (the copies and the synchronize are passed
// in), so it is tested on any machine; package gpu calls it with CUDA
// copies on a stream.
package linktimer

import (
	"errors"
	"fmt"
	"time"
)

// Time runs one untimed warm-up copy and its sync, then copies copies
// back to back and one sync, and returns the wall time of the latter (at
// least 1 ns) from the first enqueue to the end of the sync.  After a
// failed enqueue it still syncs, so no copy is in flight when the caller
// frees the buffers.
func Time(copies int, enqueue, sync func() error) (uint64, error) {
	if copies < 1 {
		return 0, fmt.Errorf("%d timed copies, want at least 1", copies)
	}
	run := func(n int) error {
		for i := 0; i < n; i++ {
			if err := enqueue(); err != nil {
				return errors.Join(fmt.Errorf("copy %d of %d: %w", i+1, n, err), sync())
			}
		}
		if err := sync(); err != nil {
			return fmt.Errorf("cuStreamSynchronize: %w", err)
		}
		return nil
	}
	if err := run(1); err != nil {
		return 0, fmt.Errorf("warm-up: %w", err)
	}
	start := time.Now()
	if err := run(copies); err != nil {
		return 0, err
	}
	return uint64(max(time.Since(start).Nanoseconds(), 1)), nil
}
