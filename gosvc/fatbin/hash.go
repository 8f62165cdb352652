package fatbin

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// SourceHash is the sha256 (hex) of the concatenated contents of every *.cu
// and *.h file in dir, taken in byte-wise order of their names.  The Makefile
// computes the same value with
//
//	cd dir && LC_ALL=C ls *.cu *.h | xargs cat | sha256sum
//
// so a fatbin built by make can be matched to the installed sources.
func SourceHash(dir string) (string, error) {
	names, err := sourceFiles(dir)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, name := range names {
		if err := appendFile(h, filepath.Join(dir, name)); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func sourceFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read kernel source directory: %w", err)
	}
	var names []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") { // the shell glob skips dot files
			continue
		}
		if strings.HasSuffix(name, ".cu") || strings.HasSuffix(name, ".h") {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no *.cu or *.h files in kernel source directory %s", dir)
	}
	sort.Strings(names) // byte-wise, like LC_ALL=C ls
	return names, nil
}

func appendFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("hash kernel source: %w", err)
	}
	defer f.Close()
	if _, err := io.Copy(w, f); err != nil {
		return fmt.Errorf("hash kernel source %s: %w", path, err)
	}
	return nil
}
