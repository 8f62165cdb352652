package hostexec

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/server"
)

func TestParseFaults(t *testing.T) {
	f, err := parseFaults(" hang_after=3, sticky_after=0 ,device_pool=64M")
	if err != nil || f.hangAfter != 3 || f.stickyAfter != 0 || f.devicePool != 64<<20 {
		t.Fatalf("parseFaults: %+v, %v", f, err)
	}
	if f, err := parseFaults(""); err != nil || f.hangAfter != -1 || f.stickyAfter != -1 || f.devicePool != 0 || f.beforeTask() != nil {
		t.Fatalf("no faults: %+v, %v", f, err)
	}
	for _, bad := range []string{"hang", "hang_after=x", "sticky_after=-2", "device_pool=0", "device_pool=12T", "slow=1"} {
		if _, err := parseFaults(bad); err == nil || !strings.Contains(err.Error(), FaultsEnv) {
			t.Errorf("parseFaults(%q): %v, want an error naming %s", bad, err, FaultsEnv)
		}
	}
}

// sticky_after=N: tasks 1..N run, every later one fails with
// server.ErrDeviceLost, as the gpu package's tasks do after a sticky CUDA
// error.
func TestInjectedStickyError(t *testing.T) {
	f, err := parseFaults("sticky_after=2")
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 4; i++ {
		err := f.beforeTask()
		if lost := errors.Is(err, server.ErrDeviceLost); lost != (i > 2) {
			t.Fatalf("task %d: %v", i, err)
		}
	}
}

// hang_after=N: task N+1 does not return.
func TestInjectedHang(t *testing.T) {
	f, err := parseFaults("hang_after=1")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.beforeTask(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- f.beforeTask() }()
	select {
	case err := <-done:
		t.Fatalf("task 2 returned (%v), want it hung", err)
	case <-time.After(200 * time.Millisecond):
	}
	close(f.hang) // let the goroutine go
	<-done
}
