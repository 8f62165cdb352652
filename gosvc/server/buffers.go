package server

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
)

// sharedBuffer is a shared memory buffer a client attached
// (ATTACH_BUFFER): its descriptor, mapped read-only, and pinned for DMA
// when the executor could.  The receiver creates it and puts it in the
// connection's table; TaskExec commands carry a pointer to it.  It is
// released after the connection's last command has finished.
type sharedBuffer struct {
	id     uint32
	fd     int
	mem    []byte // MAP_SHARED, PROT_READ
	pinned bool
	unpin  func() error
}

// Limits of ATTACH_BUFFER, from pg_strom_xpu.h.
const (
	bufferSizeAlign = 4096
	maxBufferSize   = 1 << 30
)

// attachError is an ATTACH_BUFFER failure and how to answer it.
type attachError struct {
	code int32 // ErrCodeProtocol closes the connection
	err  error
}

func (e *attachError) Error() string { return e.err.Error() }
func (e *attachError) Unwrap() error { return e.err }

func attachProtoErr(format string, args ...any) *attachError {
	return &attachError{code: protocol.ErrCodeProtocol, err: fmt.Errorf("%w: AttachBuffer: "+format, append([]any{protocol.ErrProtocol}, args...)...)}
}

// attachBuffer handles ATTACH_BUFFER on the receiver, in arrival order: it
// takes the next received descriptor, validates the request, maps the
// buffer and pins it.  A protocol error (ErrCodeProtocol) closes the
// connection; a mapping failure (ErrCodeDevice) leaves it open, and the
// client sends its pages inline.
func (s *Server) attachBuffer(c *clientConn, r protocol.AttachBufferRequest) *attachError {
	fd, ok := c.rd.popFd()
	if !ok {
		return attachProtoErr("buffer %d: no file descriptor came with the message (SCM_RIGHTS)", r.BufferID)
	}
	owned := true
	defer func() {
		if owned {
			unix.Close(fd)
		}
	}()
	switch {
	case r.BufferID == 0:
		return attachProtoErr("buffer_id 0 is reserved for inline pages")
	case c.buffers[r.BufferID] != nil:
		return attachProtoErr("buffer %d is already attached to this connection", r.BufferID)
	case len(c.buffers) >= protocol.MaxBuffersPerConnection:
		return attachProtoErr("buffer %d: this connection already has the maximum of %d buffers", r.BufferID, protocol.MaxBuffersPerConnection)
	case r.Size == 0 || r.Size%bufferSizeAlign != 0 || r.Size > maxBufferSize:
		return attachProtoErr("buffer %d: size %d, want a non-zero multiple of %d up to %d", r.BufferID, r.Size, bufferSizeAlign, maxBufferSize)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return attachProtoErr("buffer %d: fstat of the descriptor: %v", r.BufferID, err)
	}
	if st.Size < 0 || uint64(st.Size) < r.Size {
		return attachProtoErr("buffer %d: size %d, but the file has only %d bytes", r.BufferID, r.Size, st.Size)
	}
	// The client must not shrink the file under the mapping (a CPU read
	// past its end would be SIGBUS).  Seal it when the memfd allows it.
	_, _ = unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_SHRINK)

	mem, err := unix.Mmap(fd, 0, int(r.Size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return &attachError{code: protocol.ErrCodeDevice, err: fmt.Errorf("AttachBuffer: buffer %d: mmap of %d bytes: %w", r.BufferID, r.Size, err)}
	}
	b := &sharedBuffer{id: r.BufferID, fd: fd, mem: mem}
	owned = false
	if p, ok := s.cfg.Executor.(HostPinner); ok {
		unpin, err := p.PinHost(mem)
		if err == nil {
			b.pinned, b.unpin = true, unpin
		} else if s.pinFailLogged.CompareAndSwap(false, true) {
			s.log.Info().Err(err).Uint64("size", r.Size).
				Msg("cannot pin a shared chunk buffer for DMA; its pages are copied through pageable memory (logged once)")
		}
	}
	if c.buffers == nil {
		c.buffers = make(map[uint32]*sharedBuffer)
	}
	c.buffers[b.id] = b
	s.log.Debug().Uint32("buffer_id", b.id).Uint64("size", r.Size).Bool("pinned", b.pinned).Msg("shared buffer attached")
	return nil
}

// release unpins, unmaps and closes the buffer.
func (b *sharedBuffer) release() error {
	var errs []error
	if b.unpin != nil {
		if err := b.unpin(); err != nil {
			errs = append(errs, fmt.Errorf("unpin shared buffer %d: %w", b.id, err))
		}
		b.unpin = nil
	}
	if b.mem != nil {
		if err := unix.Munmap(b.mem); err != nil {
			errs = append(errs, fmt.Errorf("munmap shared buffer %d: %w", b.id, err))
		}
		b.mem = nil
	}
	if b.fd >= 0 {
		unix.Close(b.fd)
		b.fd = -1
	}
	return errors.Join(errs...)
}

// releaseBuffers runs when the receiver exits: once every command of the
// connection has finished, it releases the attached buffers and closes the
// descriptors that no ATTACH_BUFFER consumed.
func (s *Server) releaseBuffers(c *clientConn) {
	c.inflight.Wait()
	for id, b := range c.buffers {
		if err := b.release(); err != nil {
			s.log.Warn().Err(err).Msg("releasing a shared chunk buffer")
		}
		delete(c.buffers, id)
	}
	if c.rd != nil {
		c.rd.closeFds()
	}
}
