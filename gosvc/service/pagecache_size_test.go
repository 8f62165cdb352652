package service

import "testing"

func TestAutoPageCacheBytes(t *testing.T) {
	const gb = uint64(1) << 30
	for _, c := range []struct {
		name                     string
		total, free, limit, held uint64
		want                     uint64
	}{
		// 141 GB device, pool limit half, 5 % held, 0.5 GB taken by the context
		{"large device", 141 * gb, 134 * gb, 70 * gb, 7 * gb, 134*gb - 63*gb - 141*gb/16},
		// the reserve is at least 2 GB
		{"reserve floor", 16 * gb, 11 * gb, 8 * gb, 0, 1 * gb},
		{"under 1 GB after the reserve", 16 * gb, 10*gb + gb/2, 8 * gb, 0, 0},
		{"pool may grow into all that is free", 16 * gb, 8 * gb, 8 * gb, 0, 0},
		{"another process holds the memory", 80 * gb, 4 * gb, 40 * gb, 4 * gb, 0},
		{"pool held beyond its limit after a lower ratio", 32 * gb, 20 * gb, 8 * gb, 12 * gb, 18 * gb},
	} {
		got := autoPageCacheBytes(c.total, c.free, c.limit, c.held)
		if got != c.want&^(1<<20-1) {
			t.Errorf("%s: autoPageCacheBytes(%d, %d, %d, %d) = %d MB, want %d MB",
				c.name, c.total>>30, c.free>>30, c.limit>>30, c.held>>30, got>>20, c.want>>20)
		}
		if got%(1<<20) != 0 {
			t.Errorf("%s: %d is not whole megabytes", c.name, got)
		}
	}
}
