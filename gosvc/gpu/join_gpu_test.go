//go:build gpu

package gpu

import (
	"bytes"
	"errors"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/hostexec"
	"github.com/pgstrom-go/pg_strom/gosvc/join"
	"github.com/pgstrom-go/pg_strom/gosvc/join/jointest"
	"github.com/pgstrom-go/pg_strom/gosvc/kinds"
	"github.com/pgstrom-go/pg_strom/gosvc/mempool"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind/kindtest"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// hostJoinExecutor is the TEST-ONLY host executor, the reference the
// device's records are compared with.
func hostJoinExecutor(t *testing.T) nodekind.Executor {
	t.Helper()
	b := hostexec.NewBackend()
	t.Cleanup(func() { b.Close() })
	if err := b.OpenDevice(0, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := b.LoadModule(0, nil); err != nil {
		t.Fatal(err)
	}
	alloc, err := b.Allocator(0)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := mempool.New(alloc, mempool.Config{SegmentSize: 256 << 20, MaxRatio: 0.5, ReleaseDelay: time.Second, DeviceMemory: 4 << 30})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	ex, err := b.Executor(0, pool)
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

// joinOn runs JoinProgram(t0, two) over d on ex: the inner rows in
// pieces of pieceRows, one chunk of the pages; it returns the sorted
// records and the replies' results.
func joinOn(t *testing.T, ex nodekind.Executor, planID uint64, d *jointest.Data, t0 xpu.JoinType, two bool, pieceRows int) ([][]uint32, []xpu.ChunkResult) {
	t.Helper()
	s, err := kindtest.Open(kinds.All(), ex, xputest.JoinProgram(planID, 0, t0, two).Message(1))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	l := s.(nodekind.InnerLoader)
	if _, err := jointest.Load(l, planID, 0, 16, d.Rows0(), pieceRows); err != nil {
		t.Fatalf("load depth 0: %v", err)
	}
	stride := 2
	if two {
		stride = 3
		if _, err := jointest.Load(l, planID, 1, 64, d.Rows1(), pieceRows); err != nil {
			t.Fatalf("load depth 1: %v", err)
		}
	}
	pages, nblocks := d.Pages(200)
	results, words, err := kindtest.ExecRecords(s, xpu.Chunk{NBlocks: nblocks, ChunkID: 3}, nodekind.Pages{Bytes: pages}, stride)
	if err != nil {
		t.Fatalf("%s: %v", t0, err)
	}
	return jointest.Split(words, stride), results
}

// The device's records equal the host executor's and the nested loop's
// as multisets, for every join type, with the default capacity and with
// outputs of 100 records (hundreds of resumed launches).
func TestGpuJoinMatchesHostExecutor(t *testing.T) {
	dev, _ := executorOnDevice0(t)
	host := hostJoinExecutor(t)
	rng := rand.New(rand.NewSource(21))
	for _, capacity := range []uint32{0, 100} {
		dev.(*Executor).joinCapacity = capacity
		for _, t0 := range []xpu.JoinType{xpu.JoinInner, xpu.JoinLeft, xpu.JoinSemi, xpu.JoinAnti} {
			for _, two := range []bool{false, true} {
				d := jointest.Random(rng, 6000, 400, 60)
				got, res := joinOn(t, dev, 0x61, d, t0, two, 97)
				want, _ := joinOn(t, host, 0x61, d, t0, two, 1<<20)
				if !slices.EqualFunc(got, want, slices.Equal[[]uint32]) {
					t.Fatalf("capacity %d %s two=%v: device %d records, host %d", capacity, t0, two, len(got), len(want))
				}
				if nl := d.NestedLoop(0, t0, two); !slices.EqualFunc(got, nl, slices.Equal[[]uint32]) {
					t.Fatalf("capacity %d %s two=%v: device %d records, nested loop %d", capacity, t0, two, len(got), len(nl))
				}
				var ntuples uint32
				for _, r := range res {
					ntuples += r.NTuples
				}
				if ntuples != 6000 || capacity == 100 && len(res) < len(got)/100 {
					t.Fatalf("%s: %d tuples over %d replies", t0, ntuples, len(res))
				}
				t.Logf("capacity %d %s two=%v: %d records in %d replies", capacity, t0, two, len(got), len(res))
			}
		}
	}
}

// A fan-out larger than one reply's default capacity (64K records):
// 300 outer rows each matching 1000 inner rows, 300000 records.
func TestGpuJoinFanOutPastOneReply(t *testing.T) {
	dev, _ := executorOnDevice0(t)
	host := hostJoinExecutor(t)
	d := &jointest.Data{}
	for i := 0; i < 300; i++ {
		d.Outer = append(d.Outer, jointest.Outer{A: 7})
	}
	for i := 0; i < 1000; i++ {
		v := int64(7 + i%2*100) // half match
		d.Inner0 = append(d.Inner0, &v)
	}
	for i := 0; i < 1000; i++ {
		v := int64(7)
		d.Inner0 = append(d.Inner0, &v)
	}
	got, res := joinOn(t, dev, 0x62, d, xpu.JoinInner, false, 333)
	want, _ := joinOn(t, host, 0x62, d, xpu.JoinInner, false, 1<<20)
	if len(got) != 300*1500 || !slices.EqualFunc(got, want, slices.Equal[[]uint32]) {
		t.Fatalf("device %d records, host %d, want %d", len(got), len(want), 300*1500)
	}
	if len(res) < 2 {
		t.Fatalf("%d records in %d replies: the fan-out did not go past one reply", len(got), len(res))
	}
	t.Logf("%d records in %d replies", len(got), len(res))
}

// A bad inner row fails the build on the device as on the host, and a
// second session of the plan finds the depth LOADED without sending rows.
func TestGpuJoinBuildChecksRowsAndShares(t *testing.T) {
	dev, pool := executorOnDevice0(t)
	d := jointest.Random(rand.New(rand.NewSource(22)), 100, 50, 0)
	rows := d.Rows0()
	bad := bytes.Clone(rows)
	bad[16*7] = 2
	a, err := kindtest.Open(kinds.All(), dev, xputest.JoinProgram(0x63, 0, xpu.JoinInner, false).Message(1))
	if err != nil {
		t.Fatal(err)
	}
	la := a.(nodekind.InnerLoader)
	if _, err := jointest.Load(la, 0x63, 0, 16, bad, 1000); !errors.Is(err, join.ErrBadInner) {
		t.Fatalf("bad row: %v, want ErrBadInner", err)
	}
	if rep, err := jointest.Load(la, 0x63, 0, 16, rows, 1000); err != nil || len(rep) != 1 || rep[0].BuildNs == 0 {
		t.Fatalf("reload: %+v %v", rep, err)
	}
	b, err := kindtest.Open(kinds.All(), dev, xputest.JoinProgram(0x63, 0, xpu.JoinInner, false).Message(1))
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := jointest.Load(b.(nodekind.InnerLoader), 0x63, 0, 16, rows, 10); err != nil || len(rep) != 1 || rep[0].BuildNs != 0 {
		t.Fatalf("second session: %+v %v, want LOADED at once", rep, err)
	}
	used := pool.Stats().Used
	a.Close()
	b.Close()
	if pool.Stats().Used >= used {
		t.Fatalf("pool used %d -> %d: the inner buffer outlived its last session", used, pool.Stats().Used)
	}
}
