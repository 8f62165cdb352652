package server

import (
	"fmt"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// directChunk is a direct-read chunk's validated file and block numbers.
type directChunk struct {
	file   xpu.DirectFile
	blknos []uint32
}

// parseDirect validates a direct-read chunk on the receiver: a bad file
// locator or block number is a protocol error and closes the connection.
func parseDirect(c xpu.Chunk, msg []byte) (*directChunk, error) {
	f, blknos, err := xpu.ParseDirect(c, msg)
	if err != nil {
		return nil, err
	}
	return &directChunk{file: f, blknos: blknos}, nil
}

// readDirect reads a direct-read chunk's blocks from the relation's files
// into memory the executor lends (pinned, so the device DMAs it as an
// inline chunk's pages) or, without a lender, ordinary memory, and sends
// the read report as the chunk's first SUCCESS_HALFWAY reply.  It returns
// the chunk as the executors see it (inline pages), the pages, and what
// gives the memory back once Exec returned.
func (s *Server) readDirect(sess *session, cmd *command, sink chunkHalfways) (xpu.Chunk, nodekind.Pages, func(), error) {
	d := cmd.direct
	if s.cfg.DataDir == "" {
		return xpu.Chunk{}, nodekind.Pages{}, nil,
			fmt.Errorf("%w: the service does not know the data directory; send the pages zero-copy or inline", protocol.ErrUnsupported)
	}
	inline := cmd.chunk
	inline.BufferID, inline.PagesOffset = 0, 0
	n := inline.PagesLen()
	var body []byte
	if lender, ok := s.cfg.Executor.(BodyLender); ok {
		if b := lender.LendBody(n); b != nil && len(b) >= n {
			body = b
		} else if b != nil {
			s.returnBody(b)
		}
	}
	pinned := body != nil
	if !pinned {
		body = make([]byte, n)
	}
	done := func() {
		if pinned {
			s.returnBody(body)
		}
	}
	rep, err := sess.directFiles(s.cfg.DataDir).ReadChunk(d.file, d.blknos, body[:n])
	if err == nil {
		err = sink.Halfway(xpu.ChunkReply{
			Result: xpu.ChunkResult{GpuTimeNs: uint64(rep.Elapsed.Nanoseconds())},
			Items:  xpu.Positions(rep.Bounced),
		})
	}
	if err != nil {
		done()
		return xpu.Chunk{}, nodekind.Pages{}, nil, err
	}
	return inline, nodekind.Pages{Bytes: body[:n], Pinned: pinned}, done, nil
}
