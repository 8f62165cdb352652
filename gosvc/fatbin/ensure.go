package fatbin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Arch is a device compute capability, e.g. {9, 0} for sm_90.
type Arch struct{ Major, Minor int }

func (a Arch) String() string { return fmt.Sprintf("%d%d", a.Major, a.Minor) }

// Runner runs a command and returns its combined output; tests replace it.
type Runner func(ctx context.Context, name string, args ...string) ([]byte, error)

// ExecRunner runs the command with os/exec.
func ExecRunner(ctx context.Context, name string, args ...string) ([]byte, error) {
	return exec.CommandContext(ctx, name, args...).CombinedOutput()
}

// Config says where things are and what to build for.
type Config struct {
	DataDir            string // PGDATA; the cache is DataDir/.pgstrom_fatbin
	KernelSourceDir    string // installed kernels/
	CudaToolkitBaseDir string // nvcc is <dir>/bin/nvcc; "" means DefaultToolkitDir
	PrebuiltFatbin     string // "" when make had no nvcc
	DriverVersion      int    // cuDriverGetVersion, e.g. 12080
	Archs              []Arch // the devices' compute capabilities
	Run                Runner // nil means ExecRunner
	// LookPath finds the host compiler on PATH; nil means exec.LookPath.
	LookPath     func(file string) (string, error)
	BuildTimeout time.Duration
}

// Defaults for Config fields left zero.
const (
	DefaultToolkitDir   = "/usr/local/cuda"
	DefaultBuildTimeout = 10 * time.Minute
	CacheDirName        = ".pgstrom_fatbin"
	KernelMainSource    = "pg_strom_kernels.cu"
)

// Origin says where the fatbin Ensure returned came from.
type Origin int

// Origins of a fatbin.
const (
	Cached   Origin = iota // already in the cache
	Prebuilt               // copied from the prebuilt fatbin
	Built                  // built with nvcc now
)

func (o Origin) String() string {
	switch o {
	case Cached:
		return "cached"
	case Prebuilt:
		return "prebuilt"
	case Built:
		return "built"
	}
	return fmt.Sprintf("Origin(%d)", int(o))
}

// Result is a fatbin ready to load.
type Result struct {
	Path       string
	Origin     Origin
	SourceHash string
	FlagsHash  string // FlagsHash of the options and archs it was built with
	SHA256     string // the fatbin's sha256 (hex), as recorded in Path's .sha256
	// Rejected says why a cached or prebuilt fatbin was found but not
	// used (its checksum was missing, unreadable or did not match, or the
	// prebuilt one's manifest names other sources or options); the caller
	// logs these.  Empty when nothing was rejected.
	Rejected []string
}

// CachePath is where the fatbin for these sources, flags and driver lives:
// <DataDir>/.pgstrom_fatbin/pg_strom-<16 hex of sourceHash>-<16 hex of
// flagsHash>-drv<version>.fatbin.
func CachePath(dataDir, sourceHash, flagsHash string, driverVersion int) string {
	return filepath.Join(dataDir, CacheDirName,
		fmt.Sprintf("pg_strom-%s-%s-drv%d.fatbin", short(sourceHash), short(flagsHash), driverVersion))
}

func short(hash string) string {
	if len(hash) > 16 {
		return hash[:16]
	}
	return hash
}

// Ensure returns a fatbin for the current sources, options and driver:
//
//  1. the cached build for the devices' architectures (cfg.Archs),
//  2. else, when the prebuilt fatbin's manifest records these sources and
//     options, the cached copy of it, or a new copy whose bytes match its
//     .sha256,
//  3. else one built with nvcc for cfg.Archs.
//
// A cached file is used only when it matches the sha256 recorded next to
// it; one that does not is replaced, and the reason is in Result.Rejected
// (or in the error, when it cannot be replaced), as is why a prebuilt
// fatbin was not used.
func Ensure(cfg Config) (Result, error) {
	hash, err := SourceHash(cfg.KernelSourceDir)
	if err != nil {
		return Result{}, err
	}
	var rejected []string
	res, err := ensure(cfg, hash, &rejected)
	if err != nil {
		if len(rejected) > 0 {
			err = fmt.Errorf("%s; then: %w", strings.Join(rejected, "; "), err)
		}
		return Result{}, err
	}
	res.Rejected = rejected
	return res, nil
}

func ensure(cfg Config, hash string, rejected *[]string) (Result, error) {
	ownFlags := FlagsHash(buildFlags.options, cfg.Archs)
	own := CachePath(cfg.DataDir, hash, ownFlags, cfg.DriverVersion)
	checked := ""
	if len(cfg.Archs) > 0 {
		if res, ok := useCached(own, hash, ownFlags, rejected); ok {
			return res, nil
		}
		checked = own
	}
	if cfg.PrebuiltFatbin != "" {
		if res, ok, err := usePrebuilt(cfg, hash, checked, rejected); ok || err != nil {
			return res, err
		}
	}
	if err := os.MkdirAll(filepath.Dir(own), 0o700); err != nil {
		return Result{}, fmt.Errorf("create fatbin cache directory: %w", err)
	}
	sum, err := build(cfg, own)
	if err != nil {
		return Result{}, err
	}
	return Result{Path: own, Origin: Built, SourceHash: hash, FlagsHash: ownFlags, SHA256: sum}, nil
}

// useCached returns the cache entry at path when it matches its checksum;
// a damaged one is listed in rejected.
func useCached(path, hash, flagsHash string, rejected *[]string) (Result, bool) {
	sum, err := Verify(path)
	if err == nil {
		return Result{Path: path, Origin: Cached, SourceHash: hash, FlagsHash: flagsHash, SHA256: sum}, true
	}
	if !errors.Is(err, errNoEntry) {
		*rejected = append(*rejected, "cached fatbin not trusted: "+err.Error())
	}
	return Result{}, false
}

// usePrebuilt returns the cached copy of the prebuilt fatbin, or copies it
// into the cache, when its manifest accepts it and its bytes match its
// .sha256; ok is false, with the reason in rejected, when it is not to be
// used.  The cache entry at checked was found wanting already (when the
// devices' architectures are make's, the copy and a build share a name).
func usePrebuilt(cfg Config, hash, checked string, rejected *[]string) (res Result, ok bool, err error) {
	if _, err := os.Stat(cfg.PrebuiltFatbin); errors.Is(err, fs.ErrNotExist) {
		return Result{}, false, nil
	}
	m, err := checkPrebuilt(cfg.PrebuiltFatbin, hash)
	if err != nil {
		*rejected = append(*rejected, "prebuilt fatbin not used: "+err.Error())
		return Result{}, false, nil
	}
	path := CachePath(cfg.DataDir, hash, m.Flags, cfg.DriverVersion)
	if path != checked {
		if res, ok := useCached(path, hash, m.Flags, rejected); ok {
			return res, true, nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return Result{}, false, fmt.Errorf("create fatbin cache directory: %w", err)
	}
	sum, err := copyAtomically(cfg.PrebuiltFatbin, path)
	if errors.Is(err, errPrebuiltUntrusted) {
		*rejected = append(*rejected, err.Error())
		return Result{}, false, nil
	}
	if err != nil {
		return Result{}, false, err
	}
	return Result{Path: path, Origin: Prebuilt, SourceHash: hash, FlagsHash: m.Flags, SHA256: sum}, true, nil
}

// Rebuild builds the fatbin with nvcc for cfg.Archs into the cache; the
// caller uses it once when a device cannot load what Ensure gave.  Ensure
// prefers that build to the prebuilt fatbin from then on.
func Rebuild(cfg Config) (Result, error) {
	hash, err := SourceHash(cfg.KernelSourceDir)
	if err != nil {
		return Result{}, err
	}
	flagsHash := FlagsHash(buildFlags.options, cfg.Archs)
	path := CachePath(cfg.DataDir, hash, flagsHash, cfg.DriverVersion)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return Result{}, fmt.Errorf("create fatbin cache directory: %w", err)
	}
	sum, err := build(cfg, path)
	if err != nil {
		return Result{}, err
	}
	return Result{Path: path, Origin: Built, SourceHash: hash, FlagsHash: flagsHash, SHA256: sum}, nil
}

// NvccPath is the nvcc that Ensure and Rebuild run.
func NvccPath(toolkitDir string) string {
	if toolkitDir == "" {
		toolkitDir = DefaultToolkitDir
	}
	return filepath.Join(toolkitDir, "bin", "nvcc")
}

// NvccArgs is nvcc's command line: the options of the flags file (as the
// Makefile passes them), real code for every distinct device architecture
// plus PTX for the highest, so a newer device can JIT it.
func NvccArgs(kernelSourceDir string, archs []Arch, output string) []string {
	args := append([]string{"-fatbin"}, buildFlags.options...)
	args = append(args, "-I"+kernelSourceDir)
	for _, a := range distinctArchs(archs) {
		args = append(args, "-gencode", fmt.Sprintf("arch=compute_%s,code=sm_%s", a, a))
	}
	if d := distinctArchs(archs); len(d) > 0 {
		hi := d[len(d)-1]
		args = append(args, "-gencode", fmt.Sprintf("arch=compute_%s,code=compute_%s", hi, hi))
	}
	return append(args, "-o", output, filepath.Join(kernelSourceDir, KernelMainSource))
}

// distinctArchs sorts and deduplicates.
func distinctArchs(archs []Arch) []Arch {
	out := append([]Arch(nil), archs...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Major != out[j].Major {
			return out[i].Major < out[j].Major
		}
		return out[i].Minor < out[j].Minor
	})
	n := 0
	for i, a := range out {
		if i == 0 || a != out[n-1] {
			out[n] = a
			n++
		}
	}
	return out[:n]
}

// build runs nvcc into a temporary file in the cache directory, renames it
// to path, so a reader never sees a partial fatbin, then records its sha256.
func build(cfg Config, path string) (string, error) {
	if len(cfg.Archs) == 0 {
		return "", errors.New("cannot build the kernels fatbin: no device architectures given")
	}
	nvcc := NvccPath(cfg.CudaToolkitBaseDir)
	if st, err := os.Stat(nvcc); err != nil || st.IsDir() {
		if err == nil {
			err = errors.New("is a directory")
		}
		return "", fmt.Errorf("cannot build the kernels fatbin: nvcc not found at %s (set pg_strom.cuda_toolkit_basedir): %w", nvcc, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".build-*.fatbin")
	if err != nil {
		return "", fmt.Errorf("create temporary fatbin: %w", err)
	}
	tmpPath := tmp.Name()
	tmp.Close()
	defer os.Remove(tmpPath) // no-op after the rename

	run := cfg.Run
	if run == nil {
		run = ExecRunner
	}
	timeout := cfg.BuildTimeout
	if timeout <= 0 {
		timeout = DefaultBuildTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	args := append(hostCompilerArgs(ctx, run, cfg.LookPath, nvcc), NvccArgs(cfg.KernelSourceDir, cfg.Archs, tmpPath)...)
	if out, err := run(ctx, nvcc, args...); err != nil {
		return "", fmt.Errorf("build the kernels fatbin: %s %s: %w\n%s", nvcc, strings.Join(args, " "), err, lastLines(out, 20))
	}
	if st, err := os.Stat(tmpPath); err != nil || st.Size() == 0 {
		return "", fmt.Errorf("build the kernels fatbin: %s produced no output in %s", nvcc, tmpPath)
	}
	sum, err := hashFile(tmpPath)
	if err != nil {
		return "", fmt.Errorf("hash the built fatbin: %w", err)
	}
	return sum, install(tmpPath, path, sum)
}

func lastLines(out []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// errPrebuiltUntrusted marks a prebuilt fatbin that does not match the
// checksum recorded next to it, or has none; Ensure then builds instead.
var errPrebuiltUntrusted = errors.New("prebuilt fatbin not trusted")

// copyAtomically copies src to a temporary file next to dst, checks the
// bytes copied against src's .sha256, installs the copy at dst and records
// its sha256; it returns that sum.
func copyAtomically(src, dst string) (string, error) {
	want, err := readChecksum(src)
	if err != nil {
		return "", fmt.Errorf("%w: %v", errPrebuiltUntrusted, err)
	}
	in, err := os.Open(src)
	if err != nil {
		return "", fmt.Errorf("open prebuilt fatbin: %w", err)
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".copy-*.fatbin")
	if err != nil {
		return "", fmt.Errorf("create temporary fatbin: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), in)
	if err != nil {
		tmp.Close()
		return "", fmt.Errorf("copy prebuilt fatbin %s: %w", src, err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("copy prebuilt fatbin %s: %w", src, err)
	}
	if n == 0 {
		return "", fmt.Errorf("%w: %s is empty", errPrebuiltUntrusted, src)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if err := compareSum(src, sum, want); err != nil {
		return "", fmt.Errorf("%w: %v", errPrebuiltUntrusted, err)
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return "", fmt.Errorf("chmod temporary fatbin: %w", err)
	}
	return sum, install(tmp.Name(), dst, sum)
}
