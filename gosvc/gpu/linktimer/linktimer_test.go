package linktimer

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// Time is the link probe's timing without a device: the warm-up is not
// timed, the timed copies are, and a failed enqueue drains the stream.
func TestTime(t *testing.T) {
	var events []string
	enqueue := func() error {
		events = append(events, "copy")
		time.Sleep(2 * time.Millisecond)
		return nil
	}
	sync := func() error { events = append(events, "sync"); return nil }
	ns, err := Time(3, enqueue, sync)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(events, " "); got != "copy sync copy copy copy sync" {
		t.Fatalf("events %q, want a warm-up copy and its sync, then 3 copies and one sync", got)
	}
	if ns < uint64(6*time.Millisecond) || ns > uint64(time.Second) {
		t.Fatalf("timed %d ns for 3 copies of 2ms (warm-up excluded)", ns)
	}
}

func TestTimeErrors(t *testing.T) {
	boom := errors.New("CUDA_ERROR_ILLEGAL_ADDRESS")
	for _, tc := range []struct {
		name     string
		failCopy int // 1-based copy that fails, 0: none
		failSync bool
		want     string
		syncs    int
	}{
		{"warm-up copy", 1, false, "warm-up: copy 1 of 1", 1},
		{"third timed copy", 4, false, "copy 3 of 5", 2},
		{"sync", 0, true, "warm-up: cuStreamSynchronize", 1},
	} {
		copies, syncs := 0, 0
		enqueue := func() error {
			copies++
			if copies == tc.failCopy {
				return boom
			}
			return nil
		}
		sync := func() error {
			syncs++
			if tc.failSync {
				return boom
			}
			return nil
		}
		ns, err := Time(5, enqueue, sync)
		if err == nil || ns != 0 || !errors.Is(err, boom) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %d ns, %v; want an error containing %q", tc.name, ns, err, tc.want)
		}
		if syncs != tc.syncs {
			t.Errorf("%s: %d synchronizes, want %d (the stream drained after a failed copy)", tc.name, syncs, tc.syncs)
		}
	}
	if ns, err := Time(0, func() error { return nil }, func() error { return nil }); err == nil || ns != 0 {
		t.Errorf("0 copies: %d ns, %v; want an error", ns, err)
	}
}
