package server

import (
	"errors"
	"fmt"
	"sync"

	"github.com/pgstrom-go/pg_strom/gosvc/direct"
	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
)

// session is the open xPU session of a connection.
//
// Tasks of one connection run concurrently on several workers, so a session
// is reference counted: the connection holds one reference while the
// session is open (from OpenSession until TaskFinal or disconnect), and every
// queued or running command of the session holds one.  The device memory is
// released when the last reference goes.  The receiver decides, in the order
// requests arrive, which session a command belongs to; workers then wait on
// ready for the OpenSession's Prepare.  The command queue is FIFO, so by
// the time a worker takes a command, every earlier command of its session is
// already running on some worker: waiting on ready or released cannot
// deadlock.
type session struct {
	ready    chan struct{}    // closed once Prepare has returned
	prepared nodekind.Session // valid after ready; nil if Prepare failed
	prepErr  error            // valid after ready

	mu       sync.Mutex
	refs     int
	released chan struct{} // closed once refs reached 0 and Close ran
	closeErr error         // the session's Close error, valid after released

	// TaskFinal asks for Final with the sink of its replies; the last
	// release runs it.  finalErr is valid after released.
	finalOut     *halfways // nil: no TaskFinal (a disconnect)
	finalCollect bool      // TaskFinal with PGSTROM_FINAL_COLLECT
	finalErr     error

	// JOIN_INNER pieces run in the order they arrived, although a
	// connection's commands run on several workers: the receiver numbers
	// them (nextPiece, only it touches it), and each waits until the
	// pieces before it are done (donePieces, under mu).
	nextPiece  uint64
	donePieces uint64
	pieceDone  *sync.Cond

	files *direct.Files // direct-read chunks' open files, closed at release
}

// directFiles returns the session's open relation files, made on first use.
func (s *session) directFiles(dataDir string) *direct.Files {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files == nil {
		s.files = direct.NewFiles(dataDir)
	}
	return s.files
}

// newSession returns a session with refs references.
func newSession(refs int) *session {
	s := &session{ready: make(chan struct{}), released: make(chan struct{}), refs: refs}
	s.pieceDone = sync.NewCond(&s.mu)
	return s
}

// pieceTurn waits until every JOIN_INNER piece numbered before seq is
// done.  The queue is FIFO, so those are running on other workers: the
// wait ends.
func (s *session) pieceTurn(seq uint64) {
	s.mu.Lock()
	for s.donePieces != seq {
		s.pieceDone.Wait()
	}
	s.mu.Unlock()
}

// pieceEnd lets the next piece run.
func (s *session) pieceEnd() {
	s.mu.Lock()
	s.donePieces++
	s.pieceDone.Broadcast()
	s.mu.Unlock()
}

// setPrepared records Prepare's outcome and wakes the session's tasks.
func (s *session) setPrepared(p nodekind.Session, err error) {
	s.prepared, s.prepErr = p, err
	close(s.ready)
}

// failed reports whether Prepare is known to have failed; a session whose
// Prepare is still running counts as open.
func (s *session) failed() bool {
	select {
	case <-s.ready:
		return s.prepared == nil
	default:
		return false
	}
}

// acquire adds a reference; the caller must already hold one (the
// connection's), so refs cannot be 0 here.
func (s *session) acquire() {
	s.mu.Lock()
	s.refs++
	s.mu.Unlock()
}

// release drops a reference; the last one closes the prepared program.
func (s *session) release() {
	s.mu.Lock()
	s.refs--
	last := s.refs == 0
	s.mu.Unlock()
	if !last {
		return
	}
	// The OpenSession command holds a reference until it has called
	// setPrepared, so ready is closed here.
	<-s.ready
	if s.prepared != nil {
		s.runFinal()
		s.closeErr = s.prepared.Close()
	}
	if s.files != nil { // no task of the session runs any more
		s.closeErr = errors.Join(s.closeErr, s.files.Close())
	}
	close(s.released)
}

// requestFinal makes the last release call Final (or, to collect the
// plan's kept results, Collect), which sends through out.
func (s *session) requestFinal(out *halfways, collect bool) {
	s.mu.Lock()
	s.finalOut = out
	s.finalCollect = collect
	s.mu.Unlock()
}

// runFinal calls Final when TaskFinal asked for it.  A panic becomes the
// error: the last release may run on any worker, outside the recovery of
// the command that caused it, and Close must still run.
func (s *session) runFinal() {
	s.mu.Lock()
	out, collect := s.finalOut, s.finalCollect
	s.mu.Unlock()
	if out == nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			s.finalErr = fmt.Errorf("internal error in the session's Final: %v", r)
		}
	}()
	if c, ok := s.prepared.(nodekind.Collector); ok && collect {
		s.finalErr = c.Collect(out)
		return
	}
	s.finalErr = s.prepared.Final(out)
}

// errSessionFailed answers tasks of a session whose Prepare failed.
var errSessionFailed = errors.New("the session could not be opened on the device")
