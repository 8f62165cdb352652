package server

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/pgstrom-go/pg_strom/gosvc/protocol"
)

// fdReader reads a client's byte stream with recvmsg, so the descriptors
// the client passes (SCM_RIGHTS, one per ATTACH_BUFFER) are collected as
// they arrive, into a FIFO in stream order; protocol.ReadMessage frames the
// bytes on top of it.  Small reads are served from a buffer, so a burst of
// small requests costs one system call; a read at least as large as the
// buffer (the body of an inline chunk) goes straight into the caller's
// slice.
//
// Every descriptor in the FIFO is owned by the reader until popFd hands it
// on; closeFds closes the rest.  Only the connection's receiver uses it.
type fdReader struct {
	rc   syscall.RawConn
	buf  []byte
	r, w int // buf[r:w] is unread
	oob  []byte
	fds  []int // received, not yet consumed, in arrival order
	err  error // a protocol error found in the ancillary data; sticky
}

const (
	// fdReadBuffer is the size of the read buffer.
	fdReadBuffer = 64 << 10
	// fdsPerRecv is how many descriptors one recvmsg can take; a Linux
	// stream socket delivers the descriptors of at most one sendmsg per
	// recvmsg, and a well-behaved client sends one per ATTACH_BUFFER.
	fdsPerRecv = 8
	// maxPendingFds bounds the descriptors received ahead of their
	// ATTACH_BUFFER messages.
	maxPendingFds = 2 * protocol.MaxBuffersPerConnection
)

func newFdReader(f *os.File) (*fdReader, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("client socket: %w", err)
	}
	return &fdReader{rc: rc, buf: make([]byte, fdReadBuffer), oob: make([]byte, unix.CmsgSpace(4*fdsPerRecv))}, nil
}

// Read implements io.Reader.
func (r *fdReader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if r.r < r.w {
		n := copy(p, r.buf[r.r:r.w])
		r.r += n
		return n, nil
	}
	if len(p) >= len(r.buf) {
		return r.recv(p)
	}
	n, err := r.recv(r.buf)
	if n == 0 {
		return 0, err
	}
	r.r, r.w = copy(p, r.buf[:n]), n
	return r.r, nil
}

// recv is one recvmsg (waiting in Go's poller while there is nothing to
// read); it returns io.EOF when the client has shut down its side.
func (r *fdReader) recv(p []byte) (int, error) {
	var n, oobn, flags int
	var rerr error
	err := r.rc.Read(func(fd uintptr) bool {
		for {
			n, oobn, flags, _, rerr = unix.Recvmsg(int(fd), p, r.oob, unix.MSG_CMSG_CLOEXEC)
			if rerr != unix.EINTR {
				return rerr != unix.EAGAIN
			}
		}
	})
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return 0, err
		}
		// The socket was closed under us (poll's "use of closed file").
		return 0, fmt.Errorf("recvmsg: %v: %w", err, os.ErrClosed)
	}
	if rerr != nil {
		return 0, fmt.Errorf("recvmsg: %w", rerr)
	}
	if oobn > 0 {
		r.harvest(r.oob[:oobn])
	}
	if flags&unix.MSG_CTRUNC != 0 && r.err == nil {
		r.err = fmt.Errorf("%w: more than %d descriptors passed in one message (ancillary data truncated)", protocol.ErrProtocol, fdsPerRecv)
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// harvest takes ownership of the descriptors in one recvmsg's ancillary
// data.  Descriptors beyond maxPendingFds are closed and poison the reader.
func (r *fdReader) harvest(oob []byte) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		// The kernel wrote it; this cannot happen short of a kernel bug.
		r.fail(fmt.Errorf("%w: ancillary data: %v", protocol.ErrProtocol, err))
		return
	}
	for i := range msgs {
		m := &msgs[i]
		if m.Header.Level != unix.SOL_SOCKET || m.Header.Type != unix.SCM_RIGHTS {
			continue
		}
		fds, err := unix.ParseUnixRights(m)
		if err != nil {
			r.fail(fmt.Errorf("%w: SCM_RIGHTS: %v", protocol.ErrProtocol, err))
			continue
		}
		for _, fd := range fds {
			if len(r.fds) >= maxPendingFds {
				unix.Close(fd)
				r.fail(fmt.Errorf("%w: more than %d descriptors received ahead of their ATTACH_BUFFER messages", protocol.ErrProtocol, maxPendingFds))
				continue
			}
			r.fds = append(r.fds, fd)
		}
	}
}

func (r *fdReader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// popFd hands the oldest received descriptor to the caller, who then owns
// it; ok is false when none is waiting.
func (r *fdReader) popFd() (fd int, ok bool) {
	if len(r.fds) == 0 {
		return -1, false
	}
	fd = r.fds[0]
	r.fds = r.fds[1:]
	if len(r.fds) == 0 {
		r.fds = nil
	}
	return fd, true
}

// closeFds closes every descriptor not handed on.
func (r *fdReader) closeFds() {
	for _, fd := range r.fds {
		unix.Close(fd)
	}
	r.fds = nil
}
