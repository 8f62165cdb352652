package direct

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// Files are the relation segment files one session read from, kept open
// until the session ends (Close).  Safe for concurrent use: a session's
// chunks run on several workers.
type Files struct {
	dataDir string
	odirect bool // open with O_DIRECT where the filesystem allows it

	mu    sync.Mutex
	open  map[fileKey]int // file descriptors
	plain map[fileKey]int // O_DIRECT refused: buffered descriptors
}

type fileKey struct {
	path string // relative to dataDir, built by xpu.DirectFile from numbers
}

// NewFiles returns an empty cache for the files under dataDir (PGDATA).
func NewFiles(dataDir string) *Files {
	return &Files{dataDir: dataDir, odirect: envBool("PGSTROM_DIRECT_READ_ODIRECT"),
		open: map[fileKey]int{}, plain: map[fileKey]int{}}
}

// fd returns the descriptor of segment seg of f, opening it on first use;
// aligned tells whether the destination of the read is aligned for
// O_DIRECT (otherwise a buffered descriptor is used).
func (fs *Files) fd(f xpu.DirectFile, seg uint32, aligned bool) (int, bool, error) {
	key := fileKey{path: f.SegmentPath(seg)}
	direct := fs.odirect && aligned
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.open == nil {
		return -1, false, errors.New("the session's relation files are closed")
	}
	if direct {
		if fd, ok := fs.open[key]; ok {
			return fd, true, nil
		}
	}
	if fd, ok := fs.plain[key]; ok {
		return fd, false, nil
	}
	path := filepath.Join(fs.dataDir, key.path)
	if direct {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_DIRECT, 0)
		if err == nil {
			fs.open[key] = fd
			return fd, true, nil
		}
		if !errors.Is(err, unix.EINVAL) {
			return -1, false, fmt.Errorf("open %s: %w", key.path, err)
		}
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, false, fmt.Errorf("open %s: %w", key.path, err)
	}
	fs.plain[key] = fd
	return fd, false, nil
}

// Close closes every file; later reads fail.
func (fs *Files) Close() error {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var errs []error
	for _, m := range []map[fileKey]int{fs.open, fs.plain} {
		for k, fd := range m {
			if err := unix.Close(fd); err != nil {
				errs = append(errs, fmt.Errorf("close %s: %w", k.path, err))
			}
		}
	}
	fs.open, fs.plain = nil, nil
	return errors.Join(errs...)
}

func envBool(name string) bool {
	v, err := strconv.ParseBool(os.Getenv(name))
	return err == nil && v
}

func envInt(name string, def, lo, hi int) int {
	v, err := strconv.Atoi(os.Getenv(name))
	if err != nil || v < lo || v > hi {
		return def
	}
	return v
}
