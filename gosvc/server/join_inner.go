package server

import (
	"fmt"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
)

// joinInner hands one JOIN_INNER piece to the session once its Prepare
// has finished; only a session that takes inner rows (GpuJoin) accepts it.
func (s *Server) joinInner(cmd *command) ([]byte, bool) {
	id := cmd.header.RequestID
	r := cmd.req.(protocol.JoinInnerRequest)
	sess := cmd.sess
	// pieces of one load must come in order: a client may send several
	// before it reads the replies
	sess.pieceTurn(cmd.piece)
	defer sess.pieceEnd()
	<-sess.ready
	if sess.prepared == nil {
		return s.executorError(id, "join inner", fmt.Errorf("%w: %v", errSessionFailed, sess.prepErr))
	}
	what := fmt.Sprintf("join inner of depth %d, rows %d..%d of %d", r.Depth, r.FirstRow, uint64(r.FirstRow)+uint64(r.PieceRows), r.NRows)
	loader, ok := sess.prepared.(nodekind.InnerLoader)
	if !ok {
		return s.executorError(id, what, fmt.Errorf("%w: JoinInner on a session that joins nothing (only GpuJoin sessions take inner rows)", protocol.ErrProtocol))
	}
	reply, err := loader.LoadInner(r)
	if err != nil {
		return s.executorError(id, what, err)
	}
	msg, err := protocol.Frame(protocol.TagSuccess, id, reply)
	if err != nil {
		return s.executorError(id, what, err)
	}
	return msg, true
}
