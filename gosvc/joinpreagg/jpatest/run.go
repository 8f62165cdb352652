package jpatest

import (
	"fmt"
	"slices"

	"github.com/pgstrom-go/pg_strom/gosvc/join/jointest"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind/kindtest"
	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// Result is what a run of the star left: the groups Final returned, the
// RECHECK items of every chunk (sorted, the chunk's first block added to
// each block number so that they are the star's items), and the table's
// growths.
type Result struct {
	Groups   map[string]Group
	Recheck  []uint32
	NGrowths uint32
	NTuples  uint32
}

// Run runs the star through sessions (one plan; each loads the depths,
// the first one loading, the others finding them LOADED), the pages cut
// into chunks of chunkBlocks blocks dealt round-robin to the sessions;
// then every session's Final, the last one returning the groups; then
// Close.
func (s *Star) Run(sessions []nodekind.Session, planID uint64, chunkBlocks uint32, pieceRows int) (Result, error) {
	var res Result
	for i, sess := range sessions {
		l, ok := sess.(nodekind.InnerLoader)
		if !ok {
			return res, fmt.Errorf("jpatest: a fused session is not an InnerLoader: %T", sess)
		}
		for d := range s.Types {
			rep, err := jointest.Load(l, planID, uint32(d), RowSize, s.Rows(d), pieceRows)
			if err != nil {
				return res, fmt.Errorf("session %d depth %d: %w", i, d, err)
			}
			if st := rep[len(rep)-1].State; st != protocol.JoinInnerLoaded {
				return res, fmt.Errorf("session %d depth %d: state %d after the load, want LOADED", i, d, st)
			}
		}
	}
	pages, nblocks := s.Pages(70)
	for b0, n := uint32(0), 0; b0 < nblocks; b0, n = b0+chunkBlocks, n+1 {
		nb := min(chunkBlocks, nblocks-b0)
		c := xpu.Chunk{NBlocks: nb, ChunkID: uint32(n)}
		r, items, err := kindtest.Exec(sessions[n%len(sessions)], c, nodekind.Pages{Bytes: pages[int(b0)*xpu.BlockSize : int(b0+nb)*xpu.BlockSize]})
		if err != nil {
			return res, fmt.Errorf("chunk %d: %w", n, err)
		}
		if int(r.NRecheck) != len(items) {
			return res, fmt.Errorf("chunk %d: NRecheck %d but %d items", n, r.NRecheck, len(items))
		}
		res.NTuples += r.NTuples
		for _, it := range items {
			if it&xpu.ItemRecheck == 0 {
				return res, fmt.Errorf("chunk %d: item %#x is not RECHECK", n, it)
			}
			it &^= xpu.ItemRecheck
			res.Recheck = append(res.Recheck, it+b0<<xpu.ItemBlockShift)
		}
	}
	slices.Sort(res.Recheck)
	res.Groups = map[string]Group{}
	for i, sess := range sessions {
		msgs, err := kindtest.Final(sess, uint32(i+1))
		if err != nil {
			return res, fmt.Errorf("session %d Final: %w", i, err)
		}
		if i < len(sessions)-1 && len(msgs) > 0 {
			return res, fmt.Errorf("session %d of %d sent %d groups messages before the last Final", i, len(sessions), len(msgs))
		}
		for _, m := range msgs {
			g, entries, err := xpu.DecodePreAggGroups(m)
			if err != nil {
				return res, err
			}
			res.NGrowths = g.NGrowths
			part, err := s.Decode(entries, g.EntrySize)
			if err != nil {
				return res, err
			}
			for k, v := range part {
				if _, dup := res.Groups[k]; dup {
					return res, fmt.Errorf("group %s in two messages", k)
				}
				res.Groups[k] = v
			}
		}
	}
	for i, sess := range sessions {
		if err := sess.Close(); err != nil {
			return res, fmt.Errorf("session %d Close: %w", i, err)
		}
	}
	return res, nil
}

// Check runs the star and compares it with the reference.
func (s *Star) Check(sessions []nodekind.Session, planID uint64, chunkBlocks uint32, pieceRows int) (Result, error) {
	res, err := s.Run(sessions, planID, chunkBlocks, pieceRows)
	if err != nil {
		return res, err
	}
	want, recheck := s.Reference()
	if !slices.Equal(res.Recheck, recheck) {
		return res, fmt.Errorf("RECHECK rows %x, want %x", res.Recheck, recheck)
	}
	return res, Compare(res.Groups, want)
}
