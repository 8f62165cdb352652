package hostexec

import (
	"encoding/binary"
	"errors"
	"io"
	"math/rand"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/pgstrom-go/pg_strom/gosvc/join/jointest"
	"github.com/pgstrom-go/pg_strom/gosvc/joinpreagg/jpatest"
	"github.com/pgstrom-go/pg_strom/gosvc/kinds"
	"github.com/pgstrom-go/pg_strom/gosvc/mempool"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/server"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu/xputest"
)

// fuzzSocketBuffers is how many shared buffers the fuzzed service
// registered; the first ones hold real heap pages.
const fuzzSocketBuffers = 8

// FuzzSocketHostExec is gosvc/server's FuzzSocket with the real executor
// behind the socket: the TEST-ONLY host executor, whose kernel code
// validates the programs and walks the pages the streams carry (inline
// and, through the registered shared buffers, zero-copy).  It lives here
// rather than in gosvc/server because this package imports that one.
// Whatever a client sends, the service must answer or close that
// connection, keep serving everyone else, and give back all the pool
// memory of the connection's sessions once it ends.
func FuzzSocketHostExec(f *testing.F) {
	for _, s := range socketSeeds(f) {
		f.Add(s)
	}
	mem := newHostMemory()
	pool, err := mempool.New(mem, mempool.Config{SegmentSize: 64 << 20, MaxRatio: 0.5, MinRatio: 0, ReleaseDelay: time.Second, DeviceMemory: 1 << 30})
	if err != nil {
		f.Fatal(err)
	}
	region, err := xputest.NewRegion(fuzzSocketBuffers)
	if err != nil {
		f.Fatal(err)
	}
	for i, p := range realPages(f) {
		if i < fuzzSocketBuffers {
			copy(region.Page(i), p)
		}
	}
	e := newExecutor(0, pool, mem, region.Shared())
	s, err := server.New(server.Config{
		SocketPath:    server.SocketPath(f.TempDir(), 4243, 0),
		Workers:       4,
		Pool:          pool,
		Executor:      e,
		Kinds:         kinds.All(),
		SharedBuffers: fuzzSocketBuffers,
		Logger:        zerolog.Nop(),
	})
	if err != nil {
		f.Fatalf("server.New: %v", err)
	}
	f.Cleanup(func() {
		s.Close()
		region.Close()
		pool.Close()
	})

	f.Fuzz(func(t *testing.T, stream []byte) {
		c, err := net.Dial("unix", s.SocketPath())
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		c.SetDeadline(time.Now().Add(3 * time.Second))
		go func() {
			// End of stream: a truncated message ends the connection.
			c.Write(stream)
			c.(*net.UnixConn).CloseWrite()
		}()
		for {
			_, _, err := protocol.ReadMessage(c, protocol.MaxLength)
			if err == io.EOF || isTimeoutErr(err) || isNetOpErr(err) {
				break
			}
			if err != nil {
				t.Fatalf("the service sent something that is not a message: %v", err)
			}
		}
		c.Close()
		// The service is still there for the next client.
		probe, err := net.Dial("unix", s.SocketPath())
		if err != nil {
			t.Fatalf("dial after the stream: %v", err)
		}
		defer probe.Close()
		probe.SetDeadline(time.Now().Add(3 * time.Second))
		if _, err := probe.Write(protocol.EncodeRequest(protocol.TagStatus, 9, nil)); err != nil {
			t.Fatalf("status write: %v", err)
		}
		if _, h, err := protocol.ReadMessage(probe, 0); err != nil || h.Tag != protocol.TagSuccess {
			t.Fatalf("status after the stream: tag %v, err %v", h.Tag, err)
		}
		// The connection's sessions close once it is gone: programs,
		// chunks and GpuPreAgg tables go back to the pool.
		// (Within Go's fuzzing, an input that runs 10s counts as a hang.)
		deadline := time.Now().Add(3 * time.Second)
		for pool.Stats().Used != 0 {
			if time.Now().After(deadline) {
				t.Fatalf("%d bytes of pool memory still in use after the connection ended", pool.Stats().Used)
			}
			time.Sleep(time.Millisecond)
		}
	})
}

func isTimeoutErr(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// isNetOpErr: the service closed the connection while we were reading.
func isNetOpErr(err error) bool {
	var op *net.OpError
	return errors.As(err, &op)
}

// corpusInputs are the committed fuzz_kernels seeds: real pages and the
// backend's programs (kernels/fuzz/make_seeds.sh), split into their flags,
// session and the rest.
type corpusInput struct {
	flags   byte
	session []byte
	rest    []byte
}

func corpusInputs(tb testing.TB) []corpusInput {
	names, err := filepath.Glob("../../kernels/fuzz/corpus/*")
	if err != nil || len(names) == 0 {
		tb.Fatalf("no seeds in kernels/fuzz/corpus: %v", err)
	}
	var out []corpusInput
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			tb.Fatal(err)
		}
		if len(b) < 5 {
			continue
		}
		l := int(binary.LittleEndian.Uint32(b[1:]))
		if 5+l > len(b) {
			continue
		}
		out = append(out, corpusInput{flags: b[0], session: b[5 : 5+l], rest: b[5+l:]})
	}
	return out
}

// realPages are the whole heap pages of the inline seeds.
func realPages(tb testing.TB) [][]byte {
	var out [][]byte
	for _, in := range corpusInputs(tb) {
		if in.flags&1 == 0 && len(in.rest) >= xpu.BlockSize && len(out) < fuzzSocketBuffers {
			out = append(out, in.rest[:xpu.BlockSize])
		}
	}
	return out
}

// socketSeeds: each seed program in a session with one chunk of real
// pages (inline, or zero-copy refs to the registered buffers) and a
// TaskFinal; a few protocol near misses.
func socketSeeds(tb testing.TB) [][]byte {
	var out [][]byte
	final := protocol.EncodeRequest(protocol.TagTaskFinal, 3, nil)
	for i, in := range corpusInputs(tb) {
		var chunk []byte
		if in.flags&1 != 0 || len(in.rest) < xpu.BlockSize {
			chunk = xputest.SharedChunkMessage(2, uint32(i), []xputest.PageRef{
				xputest.AllVisibleRef(uint32(i%fuzzSocketBuffers), 40),
				xputest.VisibleRef(uint32((i+1)%fuzzSocketBuffers), 60, 1, 2, 3, 17, 40),
			})
		} else {
			chunk = xputest.ChunkMessage(2, uint32(i), in.rest[:xpu.BlockSize])
		}
		s := append(append(append([]byte(nil), in.session...), chunk...), final...)
		out = append(out, s)
	}
	sess := corpusInputs(tb)[0].session
	out = append(out,
		append(append([]byte(nil), sess...), xputest.SharedChunkMessage(2, 1, []xputest.PageRef{xputest.AllVisibleRef(fuzzSocketBuffers, 5)})...),
		append(append([]byte(nil), sess...), xputest.ChunkMessage(2, 1, make([]byte, xpu.BlockSize))[:xpu.BlockSize/2]...),
		protocol.EncodeRequest(protocol.TagStatus, 1, nil))
	// GpuJoin: a session, its inner rows in two pieces, a chunk, TaskFinal
	d := jointest.Random(rand.New(rand.NewSource(1)), 100, 6, 0)
	pages, _ := d.Pages(100)
	rows := d.Rows0()
	join := slices.Concat(xputest.JoinProgram(9, 0, xpu.JoinLeft, false).Message(1),
		protocol.EncodeJoinInner(2, protocol.JoinInnerRequest{PlanID: 9, RowSize: 16, NRows: 6, PieceRows: 4, Rows: rows[:64]}),
		protocol.EncodeJoinInner(3, protocol.JoinInnerRequest{PlanID: 9, RowSize: 16, NRows: 6, FirstRow: 4, PieceRows: 2, Rows: rows[64:]}),
		xputest.ChunkMessage(4, 1, pages), protocol.EncodeRequest(protocol.TagTaskFinal, 5, nil))
	out = append(out, join)
	// GpuPreAgg fused over GpuJoin: a session, both depths, a chunk,
	// TaskFinal with the groups
	star := jpatest.Random(rand.New(rand.NewSource(2)), []xpu.JoinType{xpu.JoinInner, xpu.JoinLeft}, []bool{false, true}, 100, 8, true)
	fpages, _ := star.Pages(100)
	fused := star.Program(10).Message(1)
	for d := range star.Types {
		r := star.Rows(d)
		n := uint32(len(r) / jpatest.RowSize)
		fused = append(fused, protocol.EncodeJoinInner(uint32(2+d), protocol.JoinInnerRequest{PlanID: 10, Depth: uint32(d), RowSize: jpatest.RowSize,
			NRows: n, PieceRows: n, Rows: r})...)
	}
	fused = slices.Concat(fused, xputest.ChunkMessage(4, 1, fpages), protocol.EncodeRequest(protocol.TagTaskFinal, 5, nil))
	return append(out, fused)
}
