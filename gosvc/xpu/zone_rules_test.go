package xpu_test

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

type zoneTransition struct {
	at     int64
	gmtoff int32
}

// zonePool encodes XpuZoneRules at offset 16 of a pool (after 16 bytes of
// another constant).
func zonePool(lo, hi int64, first int32, trans []zoneTransition) []byte {
	b := make([]byte, 16+xpu.ZoneRulesSize+len(trans)*xpu.ZoneTransitionSize)
	z := b[16:]
	binary.LittleEndian.PutUint64(z, uint64(lo))
	binary.LittleEndian.PutUint64(z[8:], uint64(hi))
	binary.LittleEndian.PutUint32(z[16:], uint32(len(trans)))
	binary.LittleEndian.PutUint32(z[20:], uint32(first))
	for i, t := range trans {
		e := z[xpu.ZoneRulesSize+i*xpu.ZoneTransitionSize:]
		binary.LittleEndian.PutUint64(e, uint64(t.at))
		binary.LittleEndian.PutUint32(e[8:], uint32(t.gmtoff))
	}
	return b
}

func TestCheckZoneRules(t *testing.T) {
	paris := []zoneTransition{{1711846800, 7200}, {1729990800, 3600}, {1743296400, 7200}}
	if err := xpu.CheckZoneRules(zonePool(0, 7258118400, 3600, paris), 16); err != nil {
		t.Fatalf("valid rules: %v", err)
	}
	if err := xpu.CheckZoneRules(zonePool(0, 1<<62, -12600, nil), 16); err != nil {
		t.Fatalf("rules without transitions: %v", err)
	}
	good := zonePool(0, 7258118400, 3600, paris)
	cases := []struct {
		name, substr string
		pool         []byte
		off          int32
	}{
		{"unaligned", "16-byte aligned", good, 8},
		{"negative offset", "16-byte aligned", good, -16},
		{"past the pool", "inside the", good[:30], 16},
		{"transitions cut", "transitions end at byte", good[:len(good)-1], 16},
		{"empty span", "is empty", zonePool(5, 5, 0, nil), 16},
		{"out of order", "not after the previous", zonePool(0, 1<<40, 0, []zoneTransition{{100, 3600}, {50, 0}}), 16},
		{"repeated", "not after the previous", zonePool(0, 1<<40, 0, []zoneTransition{{100, 3600}, {100, 0}}), 16},
		{"before lo", "not after the previous", zonePool(1000, 1<<40, 0, []zoneTransition{{999, 3600}}), 16},
		{"at hi", "before 2000", zonePool(0, 2000, 0, []zoneTransition{{2000, 3600}}), 16},
		{"a day east", "a day or more", zonePool(0, 1<<40, 0, []zoneTransition{{100, 86400}}), 16},
		{"first a day west", "a day or more", zonePool(0, 1<<40, -86400, nil), 16},
	}
	for _, c := range cases {
		err := xpu.CheckZoneRules(c.pool, c.off)
		if err == nil || !strings.Contains(err.Error(), c.substr) {
			t.Errorf("%s: err = %v, want one containing %q", c.name, err, c.substr)
		}
	}
	many := make([]zoneTransition, xpu.ZoneMaxTransitions+1)
	for i := range many {
		many[i] = zoneTransition{int64(i + 1), 0}
	}
	if err := xpu.CheckZoneRules(zonePool(0, 1<<40, 0, many), 16); err == nil || !strings.Contains(err.Error(), "want 0..") {
		t.Errorf("too many transitions: err = %v", err)
	}
}
