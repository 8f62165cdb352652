package control

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// Channel is the service's end of the control socketpair.
type Channel struct {
	conn    *net.UnixConn
	recvBuf []byte
	sendMu  sync.Mutex // one message per send, never interleaved
}

// Open wraps the inherited control fd.  It works on a duplicate of fd, so the
// caller keeps ownership of fd; note that the duplicate shares the file
// status flags, so fd becomes non-blocking (Go's poller needs that).
func Open(fd int) (*Channel, error) {
	typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE)
	if err != nil {
		return nil, fmt.Errorf("control fd %d is not a socket: %w", fd, err)
	}
	if typ != unix.SOCK_SEQPACKET {
		return nil, fmt.Errorf("control fd %d has socket type %d, want SOCK_SEQPACKET", fd, typ)
	}
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("duplicate control fd %d: %w", fd, err)
	}
	f := os.NewFile(uintptr(dup), "pg_strom-control")
	c, err := net.FileConn(f) // dups again; the os.File is only a vehicle
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("wrap control fd %d: %w", fd, err)
	}
	uc, ok := c.(*net.UnixConn)
	if !ok {
		c.Close()
		return nil, fmt.Errorf("control fd %d is a %T, want a unix socket", fd, c)
	}
	// One byte more than the largest legal message, so that an oversized
	// message is detected even where MSG_TRUNC is not reported.
	return &Channel{conn: uc, recvBuf: make([]byte, MaxMessage+1)}, nil
}

// Receive waits for the next supervisor message: ConfigMessage or
// StopMessage.  It returns io.EOF when the supervisor has closed its end, and
// an error wrapping ErrMalformed for a message that does not decode (the
// channel stays usable).  Receive is not safe for concurrent use.
func (c *Channel) Receive() (Message, error) {
	n, _, flags, _, err := c.conn.ReadMsgUnix(c.recvBuf, nil)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("receive control message: %w", err)
	}
	if n == 0 {
		// SOCK_SEQPACKET reports the peer's close as a zero-length read.
		return nil, io.EOF
	}
	if flags&unix.MSG_TRUNC != 0 || n > MaxMessage {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrMalformed, MaxMessage)
	}
	return DecodeSupervisorMessage(c.recvBuf[:n])
}

func (c *Channel) send(what string, msg []byte) error {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	if _, err := c.conn.Write(msg); err != nil {
		return fmt.Errorf("send %s to the supervisor: %w", what, err)
	}
	return nil
}

// SendReady reports that the service is up, with its devices and the fatbin
// it loaded.
func (c *Channel) SendReady(devs []DeviceInfo, fatbinPath string) error {
	msg, err := encodeReady(devs, fatbinPath)
	if err != nil {
		return fmt.Errorf("encode READY: %w", err)
	}
	return c.send("READY", msg)
}

// SendStatus reports the periodic statistics; devices beyond MaxDevices are
// left out.
func (c *Channel) SendStatus(s Stats) error { return c.send("STATUS", encodeStatus(s)) }

// SendFatal reports why the service is about to exit with ExitFailed; the
// reason is truncated to fit the C struct.
func (c *Channel) SendFatal(reason string) error {
	return c.send("FATAL", encodeReason(tagFatal, reason))
}

// Close closes the service's duplicate of the control fd; a blocked Receive
// returns io.EOF.
func (c *Channel) Close() error { return c.conn.Close() }
