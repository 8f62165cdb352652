//go:build gpu

package gpu

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/joinpreagg/jpatest"
	"github.com/pgstrom-go/pg_strom/gosvc/kinds"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind/kindtest"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// fusedOn runs the star on ex over n sessions of one plan, in chunks of
// chunkBlocks blocks.
func fusedOn(t *testing.T, ex nodekind.Executor, planID uint64, s *jpatest.Star, n int, chunkBlocks uint32) jpatest.Result {
	t.Helper()
	var sessions []nodekind.Session
	for i := 0; i < n; i++ {
		sess, err := kindtest.Open(kinds.All(), ex, s.Program(planID).Message(1))
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, sess)
	}
	res, err := s.Run(sessions, planID, chunkBlocks, 997)
	if err != nil {
		t.Fatalf("%s: %v", ex.Name(), err)
	}
	return res
}

// The device's groups and RECHECK rows equal the host executor's and the
// reference's (a nested loop and an independent aggregation), for mixes
// of join types at 1 to 4 depths, with and without residual quals, in
// tables of 256 slots that grow and in tables that never fill, over one
// and three sessions of a plan.
func TestFusedJoinPreAggMatchesHostExecutor(t *testing.T) {
	dev, _ := executorOnDevice0(t)
	host := hostJoinExecutor(t)
	rng := rand.New(rand.NewSource(31))
	types := []xpu.JoinType{xpu.JoinInner, xpu.JoinLeft, xpu.JoinSemi, xpu.JoinAnti}
	var growths int
	for trial := 0; trial < 24; trial++ {
		n := 1 + trial%4
		var ts []xpu.JoinType
		var quals []bool
		for d := 0; d < n; d++ {
			ts = append(ts, types[rng.Intn(len(types))])
			quals = append(quals, trial%3 != 0 && rng.Intn(2) == 0 && (ts[d] == xpu.JoinInner || ts[d] == xpu.JoinLeft))
		}
		if trial%4 == 0 {
			ts[0] = xpu.JoinInner // a star with a depth-0 column: overflow RECHECK rows
		}
		// fan-outs of up to about 40, 7, 3 and 2 a depth: at most a few
		// million combinations for the host executor and the reference
		ninner := []int{560, 100, 40, 28}[n-1]
		s := jpatest.Random(rng, ts, quals, 20000+rng.Intn(20000), ninner/2+rng.Intn(ninner/2), true)
		name := fmt.Sprintf("trial %d %v quals %v", trial, ts, quals)
		want := fusedOn(t, host, uint64(0x70+trial), s, 1, 1000)
		refGroups, refRecheck := s.Reference()
		if err := jpatest.Compare(want.Groups, refGroups); err != nil || fmt.Sprint(want.Recheck) != fmt.Sprint(refRecheck) {
			t.Fatalf("%s: the host executor against the reference: %v, %d RECHECK rows, want %d", name, err, len(want.Recheck), len(refRecheck))
		}
		for _, slots := range []uint32{256, 1 << 16} {
			dev.(*Executor).preaggSlots = slots
			got := fusedOn(t, dev, uint64(0x70+trial), s, 1+trial%3, 40)
			if err := jpatest.Compare(got.Groups, want.Groups); err != nil {
				t.Fatalf("%s slots %d: device against host: %v", name, slots, err)
			}
			if fmt.Sprint(got.Recheck) != fmt.Sprint(want.Recheck) || got.NTuples != want.NTuples {
				t.Fatalf("%s slots %d: device %d RECHECK rows of %d tuples, host %d of %d",
					name, slots, len(got.Recheck), got.NTuples, len(want.Recheck), want.NTuples)
			}
			growths += int(got.NGrowths)
			t.Logf("%s slots %d: %d groups, %d RECHECK rows, %d growths", name, slots, len(got.Groups), len(got.Recheck), got.NGrowths)
		}
	}
	if growths == 0 {
		t.Fatal("no table grew on the device")
	}
}
