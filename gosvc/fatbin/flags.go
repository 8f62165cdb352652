package fatbin

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// FlagsFile is the flags file's name, in this package's directory, where
// the Makefile reads it.
const FlagsFile = "nvcc_flags"

//go:embed nvcc_flags
var flagsFile []byte

// buildFlags are the flags file's; the service is built from the tree
// whose Makefile read the same file.
var buildFlags = mustParseFlags(flagsFile)

// Options are the nvcc code-generation options every fatbin is built with,
// by make and by the service.
func Options() []string { return slices.Clone(buildFlags.options) }

// MakeArchs are the compute capabilities the Makefile builds real code for.
func MakeArchs() []Arch { return slices.Clone(buildFlags.archs) }

type flags struct {
	options []string
	archs   []Arch
}

func mustParseFlags(b []byte) flags {
	f, err := parseFlags(b)
	if err != nil {
		panic(fmt.Sprintf("gosvc/fatbin/%s: %v", FlagsFile, err))
	}
	return f
}

func parseFlags(b []byte) (flags, error) {
	kv, err := parseKeyLines(b)
	if err != nil {
		return flags{}, err
	}
	var f flags
	f.options = kv["options"]
	if len(f.options) == 0 {
		return flags{}, errors.New("no options line")
	}
	if f.archs, err = parseArchs(kv["archs"]); err != nil {
		return flags{}, err
	}
	return f, nil
}

// parseKeyLines reads "key value..." lines, skipping blank and '#' lines.
func parseKeyLines(b []byte) (map[string][]string, error) {
	kv := map[string][]string{}
	for _, line := range strings.Split(string(b), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if _, dup := kv[fields[0]]; dup {
			return nil, fmt.Errorf("%q given twice", fields[0])
		}
		kv[fields[0]] = fields[1:]
	}
	return kv, nil
}

// parseArchs reads compute capabilities as nvcc names them ("90", "100"):
// the last digit is the minor version.  They must ascend, so that the
// last one is the one PTX is built for.
func parseArchs(fields []string) ([]Arch, error) {
	if len(fields) == 0 {
		return nil, errors.New("no archs")
	}
	var out []Arch
	for _, s := range fields {
		n, err := strconv.Atoi(s)
		if err != nil || n < 10 || strconv.Itoa(n) != s {
			return nil, fmt.Errorf("arch %q is not a compute capability such as 90", s)
		}
		a := Arch{Major: n / 10, Minor: n % 10}
		if len(out) > 0 && !archLess(out[len(out)-1], a) {
			return nil, fmt.Errorf("archs %q do not ascend", strings.Join(fields, " "))
		}
		out = append(out, a)
	}
	return out, nil
}

func archLess(a, b Arch) bool {
	return a.Major < b.Major || a.Major == b.Major && a.Minor < b.Minor
}

// flagsText is the canonical text FlagsHash hashes; the Makefile prints
// the same with printf 'options %s\narchs %s\n'.
func flagsText(options []string, archs []Arch) string {
	names := make([]string, len(archs))
	for i, a := range archs {
		names[i] = a.String()
	}
	return "options " + strings.Join(options, " ") + "\narchs " + strings.Join(names, " ") + "\n"
}

// FlagsHash is the sha256 (hex) of a build's flags: the nvcc options and
// the architectures it has real code for (PTX for the highest).
func FlagsHash(options []string, archs []Arch) string {
	sum := sha256.Sum256([]byte(flagsText(options, distinctArchs(archs))))
	return hex.EncodeToString(sum[:])
}

// ManifestSuffix names the file make writes next to a prebuilt fatbin
// (besides its .sha256): what it was built from and with.
const ManifestSuffix = ".manifest"

// ManifestPath is where the manifest of the fatbin at path is.
func ManifestPath(path string) string { return path + ManifestSuffix }

// Manifest is what a prebuilt fatbin was built from and with:
//
//	sources <SourceHash of the kernel sources>
//	options <nvcc options>
//	archs <compute capabilities, ascending>
//	flags <FlagsHash of the options and archs>
type Manifest struct {
	Sources string
	Options []string
	Archs   []Arch
	Flags   string
}

func (m Manifest) encode() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "sources %s\n", m.Sources)
	b.WriteString(flagsText(m.Options, m.Archs))
	fmt.Fprintf(&b, "flags %s\n", m.Flags)
	return b.Bytes()
}

// ReadManifest reads and checks the manifest of the fatbin at path: every
// field present and well formed, and its flags hash that of its options
// and archs.
func ReadManifest(path string) (Manifest, error) {
	b, err := os.ReadFile(ManifestPath(path))
	if errors.Is(err, fs.ErrNotExist) {
		return Manifest{}, fmt.Errorf("%s has no manifest (%s is missing; make writes it with the fatbin)", path, filepath.Base(ManifestPath(path)))
	}
	if err != nil {
		return Manifest{}, fmt.Errorf("read the manifest of %s: %w", path, err)
	}
	m, err := parseManifest(b)
	if err != nil {
		return Manifest{}, fmt.Errorf("manifest %s: %w", ManifestPath(path), err)
	}
	return m, nil
}

func parseManifest(b []byte) (Manifest, error) {
	kv, err := parseKeyLines(b)
	if err != nil {
		return Manifest{}, err
	}
	one := func(key string) (string, error) {
		v := kv[key]
		if len(v) != 1 {
			return "", fmt.Errorf("want one %s hash, got %q", key, v)
		}
		return parseSum([]byte(v[0]))
	}
	var m Manifest
	if m.Sources, err = one("sources"); err != nil {
		return Manifest{}, err
	}
	if m.Flags, err = one("flags"); err != nil {
		return Manifest{}, err
	}
	if m.Options = kv["options"]; len(m.Options) == 0 {
		return Manifest{}, errors.New("no options")
	}
	if m.Archs, err = parseArchs(kv["archs"]); err != nil {
		return Manifest{}, err
	}
	if h := FlagsHash(m.Options, m.Archs); h != m.Flags {
		return Manifest{}, fmt.Errorf("flags hash %s is not that of its options and archs (%s)", m.Flags, h)
	}
	return m, nil
}

// checkPrebuilt reads the manifest of the prebuilt fatbin at path and
// accepts it for sources of sourceHash and the service's options.  (Its
// bytes are checked against its .sha256 as they are copied.)
func checkPrebuilt(path, sourceHash string) (Manifest, error) {
	m, err := ReadManifest(path)
	if err != nil {
		return Manifest{}, err
	}
	switch {
	case m.Sources != sourceHash:
		return Manifest{}, fmt.Errorf("%s was built from other kernel sources (hash %s, the installed ones %s)", path, m.Sources, sourceHash)
	case !slices.Equal(m.Options, buildFlags.options):
		return Manifest{}, fmt.Errorf("%s was built with nvcc options %q, the service builds with %q", path,
			strings.Join(m.Options, " "), strings.Join(buildFlags.options, " "))
	}
	return m, nil
}

// WriteManifest records the fatbin at path as make does: its sha256 in
// path's .sha256 and a manifest for the sources in kernelSourceDir, the
// service's options and archs (nil: MakeArchs).  For a fatbin built
// outside make from the same sources and options.
func WriteManifest(path, kernelSourceDir string, archs []Arch) error {
	hash, err := SourceHash(kernelSourceDir)
	if err != nil {
		return err
	}
	if archs == nil {
		archs = buildFlags.archs
	}
	archs = distinctArchs(archs)
	if len(archs) == 0 {
		return errors.New("write fatbin manifest: no architectures")
	}
	sum, err := hashFile(path)
	if err != nil {
		return fmt.Errorf("hash fatbin %s: %w", path, err)
	}
	if err := writeChecksum(path, sum); err != nil {
		return err
	}
	m := Manifest{Sources: hash, Options: Options(), Archs: archs, Flags: FlagsHash(buildFlags.options, archs)}
	if err := os.WriteFile(ManifestPath(path), m.encode(), 0o644); err != nil {
		return fmt.Errorf("write fatbin manifest: %w", err)
	}
	return nil
}
