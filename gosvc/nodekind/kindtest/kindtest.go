// Package kindtest runs node kind sessions without a server, for the
// tests of the kinds and the executors: the replies are framed and decoded
// as the server and the backend do.
package kindtest

import (
	"fmt"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// Open validates the OpenSession message msg with reg and prepares it on
// ex.
func Open(reg *nodekind.Registry, ex nodekind.Executor, msg []byte) (nodekind.Session, error) {
	_, spec, err := reg.ParseSession(msg)
	if err != nil {
		return nil, err
	}
	return spec.Prepare(ex, msg)
}

// Sink records what a session sends, framed for request RequestID.
type Sink struct {
	RequestID uint32
	Msgs      [][]byte // the SUCCESS_HALFWAY replies, in order
}

func (s *Sink) add(p protocol.Payload) error {
	m, err := protocol.Frame(protocol.TagSuccessHalfway, s.RequestID, p)
	if err == nil {
		s.Msgs = append(s.Msgs, m)
	}
	return err
}

// Halfway is nodekind.FinalSink's.
func (s *Sink) Halfway(p protocol.Payload) error { return s.add(p) }

// ChunkSink is a Sink as a nodekind.ChunkSink.
type ChunkSink struct{ *Sink }

func (s ChunkSink) Halfway(r xpu.ChunkReply) error { return s.add(r) }

// Exec runs chunk c of a session whose items are positions, and returns
// the last reply's result with every reply's items, in order.
func Exec(s nodekind.Session, c xpu.Chunk, pages nodekind.Pages) (xpu.ChunkResult, []uint32, error) {
	sink := &Sink{RequestID: 1}
	last, err := s.Exec(c, pages, ChunkSink{sink})
	if err != nil {
		return xpu.ChunkResult{}, nil, err
	}
	msg, err := protocol.Frame(protocol.TagSuccess, 1, last)
	if err != nil {
		return xpu.ChunkResult{}, nil, err
	}
	var items []uint32
	var res xpu.ChunkResult
	for _, m := range append(sink.Msgs, msg) {
		r, its, err := xpu.DecodeChunkResult(m)
		if err != nil {
			return xpu.ChunkResult{}, nil, fmt.Errorf("kindtest: a reply of chunk %d: %w", c.ChunkID, err)
		}
		res, items = r, append(items, its...)
	}
	res.NItems = uint32(len(items))
	return res, items, nil
}

// Finaler is a session's Final (a nodekind.Session, or the part of one a
// kind's package builds it from).
type Finaler interface {
	Final(out nodekind.FinalSink) error
}

// Final runs a session's Final and returns its replies, framed for
// request requestID.
func Final(s Finaler, requestID uint32) ([][]byte, error) {
	sink := &Sink{RequestID: requestID}
	err := s.Final(sink)
	return sink.Msgs, err
}

// ExecRecords runs chunk c of a session whose items are records of stride
// words (GpuJoin), and returns every reply's result and all records, in
// order.
func ExecRecords(s nodekind.Session, c xpu.Chunk, pages nodekind.Pages, stride int) ([]xpu.ChunkResult, []uint32, error) {
	sink := &Sink{RequestID: 1}
	last, err := s.Exec(c, pages, ChunkSink{sink})
	if err != nil {
		return nil, nil, err
	}
	msg, err := protocol.Frame(protocol.TagSuccess, 1, last)
	if err != nil {
		return nil, nil, err
	}
	var words []uint32
	var results []xpu.ChunkResult
	for _, m := range append(sink.Msgs, msg) {
		r, w, err := xpu.DecodeChunkRecords(m, stride)
		if err != nil {
			return nil, nil, fmt.Errorf("kindtest: a reply of chunk %d: %w", c.ChunkID, err)
		}
		results, words = append(results, r), append(words, w...)
	}
	return results, words, nil
}
