package hostexec

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/pgstrom-go/pg_strom/gosvc/server"
)

// FaultsEnv names the variable of the service's environment (the
// postmaster's, passed on by the supervisor) that injects device faults,
// for the lifecycle tests of what the service and the backends do about
// them.  Only this TEST-ONLY executor reads it: the gpu package has no
// such knob.  A comma-separated list of:
//
//	hang_after=N     every task after the first N never returns (a hung
//	                 kernel): the backend's pg_strom.gpu_task_timeout must
//	                 save the query
//	sticky_after=N   every task after the first N fails as after a sticky
//	                 CUDA error (server.ErrDeviceLost): the service must
//	                 exit and be restarted
//	device_pool=B    the device reports B bytes of memory (suffixes k, M,
//	                 G), so its pool holds gpu_mempool_max_ratio of that:
//	                 a GpuPreAgg table soon cannot grow
//
// Tasks are counted per service process, GpuScan and GpuPreAgg chunks
// alike, from 1.
const FaultsEnv = "PG_STROM_HOSTEXEC_FAULTS"

// faults are the injected faults of one service process.
type faults struct {
	hangAfter   int64  // -1: never
	stickyAfter int64  // -1: never
	devicePool  uint64 // 0: the host's figure
	tasks       atomic.Int64
	hang        chan struct{} // never closed: what a hung task waits on
}

// parseFaults reads FaultsEnv's value; an unknown or malformed entry is an
// error, so that a test never runs without the fault it asked for.
func parseFaults(spec string) (*faults, error) {
	f := &faults{hangAfter: -1, stickyAfter: -1, hang: make(chan struct{})}
	for _, kv := range strings.Split(spec, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		name, value, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("%s: %q is not name=value", FaultsEnv, kv)
		}
		var err error
		switch name {
		case "hang_after":
			f.hangAfter, err = strconv.ParseInt(value, 10, 64)
		case "sticky_after":
			f.stickyAfter, err = strconv.ParseInt(value, 10, 64)
		case "device_pool":
			f.devicePool, err = parseBytes(value)
		default:
			return nil, fmt.Errorf("%s: unknown fault %q (hang_after, sticky_after, device_pool)", FaultsEnv, name)
		}
		if err == nil && (f.hangAfter < -1 || f.stickyAfter < -1) {
			err = fmt.Errorf("negative count")
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s=%q: %w", FaultsEnv, name, value, err)
		}
	}
	return f, nil
}

func parseBytes(v string) (uint64, error) {
	mult := uint64(1)
	switch {
	case strings.HasSuffix(v, "k"):
		mult, v = 1<<10, strings.TrimSuffix(v, "k")
	case strings.HasSuffix(v, "M"):
		mult, v = 1<<20, strings.TrimSuffix(v, "M")
	case strings.HasSuffix(v, "G"):
		mult, v = 1<<30, strings.TrimSuffix(v, "G")
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("not a positive byte count")
	}
	return n * mult, nil
}

// String describes the faults for the log.
func (f *faults) String() string {
	var parts []string
	if f.hangAfter >= 0 {
		parts = append(parts, fmt.Sprintf("tasks after %d hang", f.hangAfter))
	}
	if f.stickyAfter >= 0 {
		parts = append(parts, fmt.Sprintf("tasks after %d meet a sticky device error", f.stickyAfter))
	}
	if f.devicePool > 0 {
		parts = append(parts, fmt.Sprintf("the device has %d bytes of memory", f.devicePool))
	}
	return strings.Join(parts, "; ")
}

// beforeTask counts a task and applies the faults it meets: it never
// returns for a hung one, and returns the error of a sticky one.
func (f *faults) beforeTask() error {
	if f == nil {
		return nil
	}
	n := f.tasks.Add(1)
	if f.stickyAfter >= 0 && n > f.stickyAfter {
		return fmt.Errorf("host executor: injected sticky device error at task %d (%s=sticky_after=%d), as CUDA_ERROR_ILLEGAL_ADDRESS (700): %w",
			n, FaultsEnv, f.stickyAfter, server.ErrDeviceLost)
	}
	if f.hangAfter >= 0 && n > f.hangAfter {
		<-f.hang
	}
	return nil
}
