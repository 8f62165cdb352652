package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// SocketPath is where device N of the cluster with the given postmaster pid
// listens: PGDATA/.pg_strom.<pid>.gpu<N>.sock.
func SocketPath(dataDir string, postmasterPID, device int) string {
	return filepath.Join(dataDir, fmt.Sprintf(".pg_strom.%d.gpu%d.sock", postmasterPID, device))
}

// maxSunPath is the size of sockaddr_un.sun_path less the terminating NUL.
const maxSunPath = 107

// removeStaleSocket removes a socket file left by a service that died; it
// refuses to remove anything that is not a socket.
func removeStaleSocket(path string) error {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("inspect %s: %w", path, err)
	}
	if st.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("%s exists and is not a socket (%s); not removing it", path, st.Mode().Type())
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove stale socket %s: %w", path, err)
	}
	return nil
}

// listenUnix creates a non-blocking, close-on-exec listening socket at path
// with mode 0600.
func listenUnix(path string, backlog int) (int, error) {
	if len(path) > maxSunPath {
		return -1, fmt.Errorf("socket path %s is %d bytes, longer than the %d a unix socket allows", path, len(path), maxSunPath)
	}
	if err := removeStaleSocket(path); err != nil {
		return -1, err
	}
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("create socket for %s: %w", path, err)
	}
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: path}); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("bind %s: %w", path, err)
	}
	// Tighten the mode before listen(): nobody can connect before then.
	if err := os.Chmod(path, 0o600); err != nil {
		unix.Close(fd)
		os.Remove(path)
		return -1, fmt.Errorf("chmod 0600 %s: %w", path, err)
	}
	if err := unix.Listen(fd, backlog); err != nil {
		unix.Close(fd)
		os.Remove(path)
		return -1, fmt.Errorf("listen on %s: %w", path, err)
	}
	return fd, nil
}
