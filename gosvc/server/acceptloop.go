package server

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// acceptLoop waits on epoll for new clients on the listening socket and for
// the shutdown eventfd.  Both fds are registered in one epoll set so that
// Close can wake the loop without closing the listening fd under it.
type acceptLoop struct {
	epfd     int
	listenFd int
	wakeFd   int // eventfd
}

func newAcceptLoop(listenFd int) (*acceptLoop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll_create1: %w", err)
	}
	wakeFd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(epfd)
		return nil, fmt.Errorf("eventfd: %w", err)
	}
	l := &acceptLoop{epfd: epfd, listenFd: listenFd, wakeFd: wakeFd}
	for _, fd := range []int{listenFd, wakeFd} {
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
		if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			l.closeFds()
			return nil, fmt.Errorf("epoll_ctl add fd %d: %w", fd, err)
		}
	}
	return l, nil
}

// run calls onConn with each accepted client (a non-blocking, close-on-exec
// fd wrapped as an *os.File so Go's poller drives its reads and writes) until
// wake is called.  onError reports accept failures that do not stop the loop.
func (l *acceptLoop) run(onConn func(*os.File), onError func(error)) {
	events := make([]unix.EpollEvent, 8)
	for {
		n, err := unix.EpollWait(l.epfd, events, -1)
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			onError(fmt.Errorf("epoll_wait: %w", err))
			return
		}
		for _, ev := range events[:n] {
			if int(ev.Fd) == l.wakeFd {
				return
			}
		}
		if !l.acceptAll(onConn, onError) {
			// Out of fds or similar: the level-triggered listen fd would
			// wake us at once, so pause instead of spinning.
			time.Sleep(acceptBackoff)
		}
	}
}

// acceptBackoff is the pause after an accept error such as EMFILE.
const acceptBackoff = 100 * time.Millisecond

// acceptAll drains the listen backlog; the fd is non-blocking, so EAGAIN
// means it is empty.  It returns false after an accept error.
func (l *acceptLoop) acceptAll(onConn func(*os.File), onError func(error)) bool {
	for {
		nfd, _, err := unix.Accept4(l.listenFd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
		switch {
		case err == nil:
			onConn(os.NewFile(uintptr(nfd), "pg_strom-client"))
		case errors.Is(err, unix.EAGAIN), errors.Is(err, unix.EWOULDBLOCK):
			return true
		case errors.Is(err, unix.EINTR), errors.Is(err, unix.ECONNABORTED):
			continue
		default:
			// EMFILE and friends: report and let epoll wake us again.
			onError(fmt.Errorf("accept4: %w", err))
			return false
		}
	}
}

// wake makes run return.
func (l *acceptLoop) wake() error {
	one := []byte{1, 0, 0, 0, 0, 0, 0, 0}
	if _, err := unix.Write(l.wakeFd, one); err != nil {
		return fmt.Errorf("wake accept loop: %w", err)
	}
	return nil
}

// closeFds closes the epoll and eventfd (not the listening fd); call it only
// after run has returned.
func (l *acceptLoop) closeFds() {
	unix.Close(l.wakeFd)
	unix.Close(l.epfd)
}
