package join

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
	"github.com/pgstrom-go/pg_strom/gosvc/querybuf"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// Session is one GpuJoin session: its program, its references to the
// plan's inner buffers (one per depth, shared by the plan's sessions on
// this device through querybuf), and the loads it runs.  LoadInner and
// Exec may be called concurrently; the sessions of one plan may run at
// once.
type Session[I Inner] struct {
	tables *querybuf.Table
	ex     Executor[I]
	prog   io.Closer
	// innerKey keys the inner buffers: the descriptor's inner key, shared
	// by the leaves' sessions of a partitioned outer side, or else the
	// session's plan id.  A JoinInner piece must name it.
	innerKey uint64
	device   int
	join     *xpu.Join
	// Capacity is the records of one launch's output (one reply) for a
	// chunk; DefaultCapacity unless an executor's tests lower it.
	Capacity func(c xpu.Chunk, stride int) uint32

	mu     sync.Mutex
	depths []depthRef[I]
}

// depthRef is what a session holds of one depth: nothing, a reference to
// a loaded buffer, or the load it runs.
type depthRef[I Inner] struct {
	entry *querybuf.Entry // nil: nothing
	load  *loading[I]     // non-nil while this session loads the depth
}

// loading is the value of an entry being loaded: its size is fixed by the
// first piece, so a session that finds it busy can check its own.
type loading[I Inner] struct {
	nrows, rowSize uint32
	inner          I
	rows           uint32        // rows copied so far (loader only)
	final          atomic.Bool   // the loader runs its last piece
	took           time.Duration // copies and build (loader only)
}

// loaded is the value of an entry whose depth is built.
type loaded[I Inner] struct {
	nrows, rowSize uint32
	inner          I
}

// New is a session of the plan of program p with join descriptor j on
// device, whose program prog Close closes.
func New[I Inner](tables *querybuf.Table, ex Executor[I], prog io.Closer, p *xpu.Program, j *xpu.Join, device int) *Session[I] {
	innerKey := j.InnerKey
	if innerKey == 0 {
		innerKey = p.PlanID
	}
	return &Session[I]{tables: tables, ex: ex, prog: prog, innerKey: innerKey, device: device, join: j,
		Capacity: DefaultCapacity, depths: make([]depthRef[I], len(j.Depths))}
}

func (s *Session[I]) key(depth int) querybuf.Key {
	return querybuf.Key{PlanID: s.innerKey, Device: s.device, Kind: xpu.KindGpuJoin, Depth: depth}
}

func protoErr(format string, args ...any) error {
	return fmt.Errorf("%w: GpuJoin: %s", protocol.ErrProtocol, fmt.Sprintf(format, args...))
}

// BusyWait is how long a first piece of a depth that another session is
// loading may wait here for that load to end before it is answered BUSY.
// Waiting here wakes the participants the moment the depth is built; a
// client that polled would add up to its sleep to every depth it waits
// for (the backend used to sleep 10 ms, which staggered the sessions of a
// 3-depth join over 50 ms).
//
// A waiter holds one of the server's workers, so it waits only while the
// loader runs its last piece (the load needs no other worker then), at
// most MaxBusyWaiters at once, and for at most BusyWait: other sessions'
// requests, and a loader's later pieces, are never held up behind it.
// Others are answered BUSY at once and ask again.
var (
	BusyWait       = 20 * time.Millisecond
	MaxBusyWaiters = int32(4)
	busyWaiters    atomic.Int32
)

// LoadInner takes one JOIN_INNER piece (pg_strom_proto.h says what each
// state means).  Any error while this session loads the depth drops the
// load: the next first piece of any session of the plan starts it anew.
// A first piece that finds the depth busy may wait (BusyWait) for the
// loader, then claims again: it takes the loaded depth, or the load when
// the loader gave up.
func (s *Session[I]) LoadInner(r protocol.JoinInnerRequest) (protocol.JoinInnerReply, error) {
	deadline := time.Now().Add(BusyWait)
	for {
		reply, settled, err := s.loadInner(r)
		if err != nil || reply.State != protocol.JoinInnerBusy || settled == nil {
			return reply, err
		}
		left := time.Until(deadline)
		if left <= 0 || busyWaiters.Add(1) > MaxBusyWaiters {
			busyWaiters.Add(-1)
			return reply, nil
		}
		timer := time.NewTimer(left)
		select {
		case <-settled:
		case <-timer.C:
		}
		timer.Stop()
		busyWaiters.Add(-1)
	}
}

// loadInner is one attempt of LoadInner; with BUSY, what closes when the
// loader publishes or abandons the depth, if it runs its last piece now
// (nil otherwise: not worth a worker's wait).
func (s *Session[I]) loadInner(r protocol.JoinInnerRequest) (protocol.JoinInnerReply, <-chan struct{}, error) {
	switch {
	case r.PlanID != s.innerKey:
		return protocol.JoinInnerReply{}, nil, protoErr("JoinInner for inner key %#x on a session whose inner rows are keyed %#x", r.PlanID, s.innerKey)
	case r.Depth >= uint32(len(s.join.Depths)):
		return protocol.JoinInnerReply{}, nil, protoErr("JoinInner for depth %d of a join of %d depths", r.Depth, len(s.join.Depths))
	case r.RowSize != s.join.Depths[r.Depth].RowSize:
		return protocol.JoinInnerReply{}, nil, protoErr("JoinInner depth %d: row_size %d, the descriptor says %d", r.Depth, r.RowSize, s.join.Depths[r.Depth].RowSize)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ref := &s.depths[r.Depth]
	switch {
	case ref.load != nil:
		reply, err := s.piece(ref, r)
		return reply, nil, err
	case ref.entry != nil:
		l := ref.entry.Value().(*loaded[I])
		if r.FirstRow != 0 || r.NRows != l.nrows {
			return protocol.JoinInnerReply{}, nil, protoErr("JoinInner depth %d rows [%d, %d) of %d: the depth is loaded already (%d rows)",
				r.Depth, r.FirstRow, r.FirstRow+r.PieceRows, r.NRows, l.nrows)
		}
		return protocol.JoinInnerReply{State: protocol.JoinInnerLoaded, Bytes: l.inner.Bytes()}, nil, nil
	case r.FirstRow != 0:
		return protocol.JoinInnerReply{}, nil, protoErr("JoinInner depth %d: a piece from row %d, but this session is not loading the depth (the first piece starts at row 0)", r.Depth, r.FirstRow)
	}
	fresh := &loading[I]{nrows: r.NRows, rowSize: r.RowSize}
	fresh.final.Store(r.Last())
	entry, st := s.tables.Claim(s.key(int(r.Depth)), func() any { return fresh })
	switch st {
	case querybuf.Loaded:
		l := entry.Value().(*loaded[I])
		if l.nrows != r.NRows || l.rowSize != r.RowSize {
			err := s.release(entry)
			return protocol.JoinInnerReply{}, nil, errors.Join(protoErr("JoinInner depth %d: %d rows of %d bytes, but the plan's depth has %d of %d",
				r.Depth, r.NRows, r.RowSize, l.nrows, l.rowSize), err)
		}
		ref.entry = entry
		return protocol.JoinInnerReply{State: protocol.JoinInnerLoaded, Bytes: l.inner.Bytes()}, nil, nil
	case querybuf.Busy:
		busy := protocol.JoinInnerReply{State: protocol.JoinInnerBusy}
		l, ok := entry.Value().(*loading[I])
		switch {
		case ok && (l.nrows != r.NRows || l.rowSize != r.RowSize):
			return protocol.JoinInnerReply{}, nil, protoErr("JoinInner depth %d: %d rows of %d bytes, but another session loads %d of %d",
				r.Depth, r.NRows, r.RowSize, l.nrows, l.rowSize)
		case ok && l.final.Load():
			return busy, entry.Settled(), nil
		}
		return busy, nil, nil
	}
	*ref = depthRef[I]{entry: entry, load: fresh}
	start := time.Now()
	inner, err := s.ex.NewInner(int(r.Depth), r.NRows, r.RowSize)
	fresh.took += time.Since(start)
	if err != nil {
		return protocol.JoinInnerReply{}, nil, errors.Join(fmt.Errorf("GpuJoin depth %d: inner buffer of %d rows: %w", r.Depth, r.NRows, err), s.abandon(ref))
	}
	fresh.inner = inner
	reply, err := s.piece(ref, r)
	return reply, nil, err
}

// piece copies one piece of the depth this session loads; the last one
// builds the index and publishes the buffer.
func (s *Session[I]) piece(ref *depthRef[I], r protocol.JoinInnerRequest) (protocol.JoinInnerReply, error) {
	l := ref.load
	if r.NRows != l.nrows || r.FirstRow != l.rows {
		err := protoErr("JoinInner depth %d: rows [%d, %d) of %d, but %d rows of %d are loaded so far (pieces come in order)",
			r.Depth, r.FirstRow, r.FirstRow+r.PieceRows, r.NRows, l.rows, l.nrows)
		return protocol.JoinInnerReply{}, errors.Join(err, s.abandon(ref))
	}
	if r.Last() {
		l.final.Store(true)
	}
	start := time.Now()
	if err := s.ex.CopyRows(l.inner, r.FirstRow, r.Rows); err != nil {
		return protocol.JoinInnerReply{}, errors.Join(fmt.Errorf("GpuJoin depth %d: copy rows from %d: %w", r.Depth, r.FirstRow, err), s.abandon(ref))
	}
	l.rows += r.PieceRows
	if !r.Last() {
		l.took += time.Since(start)
		return protocol.JoinInnerReply{State: protocol.JoinInnerMore, Bytes: l.inner.Bytes()}, nil
	}
	if err := s.ex.Build(l.inner, int(r.Depth)); err != nil {
		return protocol.JoinInnerReply{}, errors.Join(fmt.Errorf("GpuJoin depth %d: build: %w", r.Depth, err), s.abandon(ref))
	}
	l.took += time.Since(start)
	if err := s.tables.Publish(ref.entry, &loaded[I]{nrows: l.nrows, rowSize: l.rowSize, inner: l.inner}); err != nil {
		return protocol.JoinInnerReply{}, errors.Join(err, s.abandon(ref))
	}
	ref.load = nil
	return protocol.JoinInnerReply{State: protocol.JoinInnerLoaded, BuildNs: uint64(l.took.Nanoseconds()), Bytes: l.inner.Bytes()}, nil
}

// abandon drops the load of ref: its buffer is freed and the entry
// removed, so another session may load the depth.
func (s *Session[I]) abandon(ref *depthRef[I]) error {
	var errs []error
	var none I
	if ref.load.inner != none {
		errs = append(errs, s.ex.FreeInner(ref.load.inner))
	}
	errs = append(errs, s.tables.Abandon(ref.entry))
	*ref = depthRef[I]{}
	return errors.Join(errs...)
}

// release drops a reference to a loaded depth; the last one frees its
// buffer.
func (s *Session[I]) release(entry *querybuf.Entry) error {
	var ferr error
	_, err := s.tables.Release(entry, func(v any) { ferr = s.ex.FreeInner(v.(*loaded[I]).inner) })
	return errors.Join(err, ferr)
}

// Inners returns every depth's buffer; an error when one is not loaded
// and referenced by this session (TaskExec before the JoinInner pieces:
// a protocol error).  The fused GpuJoin + GpuPreAgg kind runs its chunks
// over them.
func (s *Session[I]) Inners() ([]I, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	in := make([]I, len(s.depths))
	for d, ref := range s.depths {
		if ref.entry == nil || ref.load != nil {
			return nil, protoErr("TaskExec before depth %d of %d is loaded (send its JoinInner pieces until LOADED first)", d, len(s.depths))
		}
		in[d] = ref.entry.Value().(*loaded[I]).inner
	}
	return in, nil
}

// Close drops the session's loads and references (the last reference of
// a depth frees its buffer), then closes the program.
func (s *Session[I]) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for d := range s.depths {
		ref := &s.depths[d]
		switch {
		case ref.load != nil:
			errs = append(errs, s.abandon(ref))
		case ref.entry != nil:
			errs = append(errs, s.release(ref.entry))
			*ref = depthRef[I]{}
		}
	}
	errs = append(errs, s.prog.Close())
	return errors.Join(errs...)
}
