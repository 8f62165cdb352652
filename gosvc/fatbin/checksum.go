package fatbin

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ChecksumSuffix names the file that records a fatbin's sha256:
// "<fatbin>.sha256", in sha256sum's format ("<64 hex>  <file name>\n").
const ChecksumSuffix = ".sha256"

// ChecksumPath is where the sha256 of the fatbin at path is recorded.
func ChecksumPath(path string) string { return path + ChecksumSuffix }

// errNoEntry means there is no cached fatbin at all: a plain cache miss,
// not a reason to distrust anything.
var errNoEntry = errors.New("no cached fatbin")

// Verify checks the fatbin at path against the sha256 recorded next to it
// and returns that sum.  It fails when the file is missing, is not a
// regular non-empty file, has no readable checksum, or does not match it.
func Verify(path string) (string, error) {
	f, err := openEntry(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	want, err := readChecksum(path)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return want, compareSum(path, hex.EncodeToString(h.Sum(nil)), want)
}

// ReadVerified reads the fatbin at path and checks the bytes read against
// its recorded sha256, so what is loaded is exactly what was checked.
func ReadVerified(path string) ([]byte, error) {
	f, err := openEntry(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	want, err := readChecksum(path)
	if err != nil {
		return nil, err
	}
	image, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	sum := sha256.Sum256(image)
	if err := compareSum(path, hex.EncodeToString(sum[:]), want); err != nil {
		return nil, err
	}
	return image, nil
}

// openEntry opens a cached fatbin, which must be a regular, non-empty file
// (not a symbolic link); a missing one is errNoEntry.
func openEntry(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w at %s", errNoEntry, path)
	case errors.Is(err, syscall.ELOOP):
		return nil, fmt.Errorf("%s is not a regular file (a symbolic link)", path)
	case err != nil:
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file (%v)", path, st.Mode().Type())
	} else if err == nil && st.Size() == 0 {
		err = fmt.Errorf("%s is empty", path)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func compareSum(path, got, want string) error {
	if got != want {
		return fmt.Errorf("%s does not match its recorded checksum: sha256 %s, recorded %s", path, got, want)
	}
	return nil
}

// readChecksum reads "<path>.sha256": its first field must be 64 hex digits.
func readChecksum(path string) (string, error) {
	b, err := os.ReadFile(ChecksumPath(path))
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s has no recorded checksum (%s is missing)", path, filepath.Base(ChecksumPath(path)))
	}
	if err != nil {
		return "", fmt.Errorf("read the recorded checksum of %s: %w", path, err)
	}
	sum, err := parseSum(b)
	if err != nil {
		return "", fmt.Errorf("recorded checksum %s: %w", ChecksumPath(path), err)
	}
	return sum, nil
}

func parseSum(b []byte) (string, error) {
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return "", errors.New("empty")
	}
	sum := strings.ToLower(fields[0])
	if raw, err := hex.DecodeString(sum); err != nil || len(raw) != sha256.Size {
		return "", fmt.Errorf("not a sha256 (%.80q)", fields[0])
	}
	return sum, nil
}

// beforeChecksum runs between installing a fatbin and recording its
// checksum; tests make it fail to simulate a crash at that point.
var beforeChecksum = func() error { return nil }

// install moves the complete temporary fatbin tmp, whose sha256 is sum, to
// path, then records sum in path's .sha256.  The old checksum is removed
// first, so until the new one is written the entry is untrusted.
func install(tmp, path, sum string) error {
	if err := syncFile(tmp); err != nil {
		return fmt.Errorf("sync temporary fatbin: %w", err)
	}
	if err := os.Remove(ChecksumPath(path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the old checksum of %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("install fatbin %s: %w", path, err)
	}
	if err := beforeChecksum(); err != nil {
		return err
	}
	return writeChecksum(path, sum)
}

// writeChecksum writes "<sum>  <name>\n" to a temporary file, syncs it and
// renames it to path's .sha256.
func writeChecksum(path, sum string) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".sum-*.sha256")
	if err != nil {
		return fmt.Errorf("create temporary checksum: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	_, err = fmt.Fprintf(tmp, "%s  %s\n", sum, filepath.Base(path))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write checksum of %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), ChecksumPath(path)); err != nil {
		return fmt.Errorf("install checksum of %s: %w", path, err)
	}
	syncFile(dir) // best effort: make both renames durable
	return nil
}

// hashFile returns the sha256 (hex) of the file at path.
func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
