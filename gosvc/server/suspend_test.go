package server

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// floodExecutor runs GpuScan sessions as fakeExecutor does, and test-kind
// sessions whose chunks answer with parts SuccessHalfway replies of
// partPairs pairs each before their Success: a GpuJoin whose join fans
// out, as a client sees it.
type floodExecutor struct {
	*fakeExecutor
	parts, partPairs int
}

func (f *floodExecutor) PrepareTest(_ []byte, _ *xpu.Program) (nodekind.Session, error) {
	return floodSession{f}, nil
}

type floodSession struct{ ex *floodExecutor }

func (s floodSession) part(c xpu.Chunk, i int) xpu.ChunkReply {
	p := make(pairs, s.ex.partPairs)
	for j := range p {
		p[j] = [2]uint32{c.ChunkID, uint32(i*s.ex.partPairs + j)}
	}
	return xpu.ChunkReply{Result: xpu.ChunkResult{NTuples: uint32(i)}, Items: p}
}

func (s floodSession) Exec(c xpu.Chunk, _ nodekind.Pages, out nodekind.ChunkSink) (xpu.ChunkReply, error) {
	for i := 0; i < s.ex.parts; i++ {
		if err := out.Halfway(s.part(c, i)); err != nil {
			return xpu.ChunkReply{}, err
		}
	}
	return s.part(c, s.ex.parts), nil
}

func (floodSession) Final(nodekind.FinalSink) error { return nil }
func (floodSession) Close() error                   { return nil }

// startFlood opens a test-kind session on a new connection and sends one
// chunk, whose replies it does not read.
func startFlood(t *testing.T, s *Server, chunkID uint32) net.Conn {
	t.Helper()
	c := dial(t, s)
	c.SetDeadline(time.Now().Add(time.Minute))
	expectSuccess(t, c, testSessionMsg(1))
	if _, err := c.Write(chunkMsg(2, chunkID, 1)); err != nil {
		t.Fatal(err)
	}
	return c
}

// readFlood reads one flood chunk's replies and checks that every part
// arrived, in order, complete, before the Success.
func readFlood(t *testing.T, c net.Conn, ex *floodExecutor, chunkID uint32) {
	t.Helper()
	for i := 0; i <= ex.parts; i++ {
		msg, h, err := protocol.ReadMessage(c, 0)
		if err != nil {
			t.Fatalf("chunk %d: reading reply %d: %v", chunkID, i, err)
		}
		want := protocol.TagSuccessHalfway
		if i == ex.parts {
			want = protocol.TagSuccess
		}
		r, words, err := xpu.DecodeChunkRecords(msg, 2)
		if err != nil || h.Tag != want || r.ChunkID != chunkID || r.NTuples != uint32(i) || r.NItems != uint32(ex.partPairs) {
			t.Fatalf("chunk %d reply %d: %s %+v (%v), want %s of part %d with %d items", chunkID, i, h.Tag, r, err, want, i, ex.partPairs)
		}
		if n := len(words); n != 2*ex.partPairs || words[n-2] != chunkID || words[n-1] != uint32((i+1)*ex.partPairs-1) {
			t.Fatalf("chunk %d part %d: %d words ending (%d, %d), want %d ending (%d, %d)",
				chunkID, i, n, words[n-2], words[n-1], 2*ex.partPairs, chunkID, (i+1)*ex.partPairs-1)
		}
	}
}

// Sixty-four connections that never read and sixty-four that read at
// 64 kB/s, each with a chunk whose replies are far larger than the outbox
// bound, on four workers: another connection's Status and small chunks
// keep being answered, because a command waiting for its client gives its
// worker back.  A worker held by a client would hold every later request
// for as long as the client does not read (a minute here, the write
// timeout), so a bound of seconds tells the two apart on a loaded machine;
// answers past 100 ms are logged.
func TestSlowClientsDoNotHoldWorkers(t *testing.T) {
	const (
		stalled, slow = 64, 64
		workers       = 4
		readRate      = 64 << 10 // bytes per second
		slowAnswer    = 100 * time.Millisecond
		hardLimit     = 5 * time.Second
		minRequests   = 20
	)
	ex := &floodExecutor{fakeExecutor: &fakeExecutor{}, parts: 16, partPairs: 32 << 10} // 16 x 256 kB
	s := startLimitedServer(t, workers, nil, Config{
		Executor: ex, Kinds: testKinds,
		OutboxBytes: 512 << 10, WriteTimeout: time.Minute,
		MaxConnections: 4 * (stalled + slow), MaxConnsPerClient: 4 * (stalled + slow),
	})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i := 0; i < stalled; i++ {
		startFlood(t, s, uint32(1000+i))
	}
	for i := 0; i < slow; i++ {
		c := startFlood(t, s, uint32(2000+i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 4<<10)
			tick := time.NewTicker(time.Second * time.Duration(len(buf)) / readRate)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				if _, err := io.ReadFull(c, buf); err != nil {
					return
				}
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()
	waitFor(t, "the flooding chunks to wait for their clients", func() bool {
		return s.Stats().Suspended >= stalled
	})

	c := dial(t, s)
	expectSuccess(t, c, sessionMsg(1))
	id := uint32(2)
	answered, slowAnswers := 0, 0
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end) || answered < minRequests; id += 2 {
		for _, msg := range [][]byte{protocol.EncodeRequest(protocol.TagStatus, id, nil), chunkMsg(id+1, id+1, 1)} {
			start := time.Now()
			_, h := roundTrip(t, c, msg)
			took := time.Since(start)
			if h.Tag != protocol.TagSuccess || took > hardLimit {
				st := s.Stats()
				t.Fatalf("request %d answered %s after %v, want Success within %v (workers %d, busy %d, suspended %d)",
					id, h.Tag, took, hardLimit, st.Workers, st.Busy, st.Suspended)
			}
			answered++
			if took > slowAnswer {
				slowAnswers++
			}
		}
	}
	t.Logf("%d requests answered, %d after more than %v", answered, slowAnswers, slowAnswer)
	if st := s.Stats(); st.Suspended < stalled || st.Busy > st.Workers {
		t.Fatalf("after the requests: %d suspended, %d busy of %d workers; want the %d stalled chunks still suspended and no more busy than the workers",
			st.Suspended, st.Busy, st.Workers, stalled)
	}
}

// A chunk suspended on a client that stopped reading resumes when the
// client reads again: every part arrives, in order, then the Success.
func TestSuspendedChunkResumesWhenClientReads(t *testing.T) {
	ex := &floodExecutor{fakeExecutor: &fakeExecutor{}, parts: 12, partPairs: 32 << 10}
	s := startLimitedServer(t, 1, nil, Config{Executor: ex, Kinds: testKinds, OutboxBytes: 512 << 10})
	var floods []net.Conn
	for i := 0; i < 3; i++ {
		floods = append(floods, startFlood(t, s, uint32(10+i)))
	}
	waitFor(t, "the chunks to wait for their clients", func() bool { return s.Stats().Suspended == 3 })
	statusWithin(t, s, time.Second) // one worker, three chunks suspended
	for i, c := range floods {
		readFlood(t, c, ex, uint32(10+i))
		expectSuccess(t, c, protocol.EncodeRequest(protocol.TagStatus, 3, nil))
	}
	if st := s.Stats(); st.Suspended != 0 || st.Busy != 0 {
		t.Fatalf("after the reads: %d suspended, %d busy; want none", st.Suspended, st.Busy)
	}
}

// TaskFinal waits for the session's chunks without a worker: a client
// that sends TaskFinal while its chunk's replies are unread does not hold
// the only worker.
func TestTaskFinalWaitsWithoutWorker(t *testing.T) {
	ex := &floodExecutor{fakeExecutor: &fakeExecutor{}, parts: 12, partPairs: 32 << 10}
	s := startLimitedServer(t, 1, nil, Config{Executor: ex, Kinds: testKinds, OutboxBytes: 512 << 10})
	c := startFlood(t, s, 7)
	if _, err := c.Write(protocol.EncodeRequest(protocol.TagTaskFinal, 3, nil)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the chunk and the TaskFinal to wait for the client", func() bool { return s.Stats().Suspended == 2 })
	statusWithin(t, s, time.Second)
	readFlood(t, c, ex, 7)
	if _, h, err := protocol.ReadMessage(c, 0); err != nil || h.Tag != protocol.TagSuccess || h.RequestID != 3 {
		t.Fatalf("TaskFinal: %v %+v, want its Success", err, h)
	}
}
