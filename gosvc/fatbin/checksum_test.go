package fatbin

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// assertTrusted checks that path holds want and that its .sha256 records it
// in sha256sum's format, and that a further Ensure uses it without nvcc.
func assertTrusted(t *testing.T, cfg Config, nvcc *fakeNvcc, path, want string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || string(b) != want {
		t.Fatalf("cache holds %q (%v), want %q", b, err, want)
	}
	rec, err := os.ReadFile(ChecksumPath(path))
	if wantRec := sha256Hex(b) + "  " + filepath.Base(path) + "\n"; err != nil || string(rec) != wantRec {
		t.Fatalf("recorded checksum %q (%v), want %q", rec, err, wantRec)
	}
	calls := len(nvcc.calls)
	r, err := Ensure(cfg)
	if err != nil || r.Origin != Cached || r.Path != path || r.SHA256 != sha256Hex(b) || len(r.Rejected) != 0 || len(nvcc.calls) != calls {
		t.Fatalf("Ensure after install = %+v, %v (%d more nvcc calls); want a trusted cache hit", r, err, len(nvcc.calls)-calls)
	}
	if image, err := ReadVerified(path); err != nil || string(image) != want {
		t.Fatalf("ReadVerified = %q, %v", image, err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*"))
	if len(leftovers) != 0 {
		t.Fatalf("temporary files left in the cache: %v", leftovers)
	}
}

func TestGoodCacheEntryIsUsed(t *testing.T) {
	nvcc := &fakeNvcc{}
	cfg := testConfig(t, nvcc)
	r, err := Ensure(cfg)
	if err != nil || r.Origin != Built || r.SHA256 != sha256Hex([]byte("FAKE FATBIN")) {
		t.Fatalf("first Ensure = %+v, %v", r, err)
	}
	assertTrusted(t, cfg, nvcc, r.Path, "FAKE FATBIN")
}

// corruptions damage a trusted cache entry; each must cause a rebuild.
var corruptions = []struct {
	name   string
	damage func(t *testing.T, path string)
	reason string
}{
	{"truncated", func(t *testing.T, path string) {
		if err := os.Truncate(path, 4); err != nil {
			t.Fatal(err)
		}
	}, "does not match its recorded checksum"},
	{"flipped byte", func(t *testing.T, path string) {
		b, _ := os.ReadFile(path)
		b[len(b)/2] ^= 0x01
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}, "does not match its recorded checksum"},
	{"checksum missing", func(t *testing.T, path string) {
		if err := os.Remove(ChecksumPath(path)); err != nil {
			t.Fatal(err)
		}
	}, "has no recorded checksum"},
	{"checksum not hex", func(t *testing.T, path string) {
		os.WriteFile(ChecksumPath(path), []byte("not-a-checksum  x.fatbin\n"), 0o600)
	}, "not a sha256"},
	{"checksum too short", func(t *testing.T, path string) {
		os.WriteFile(ChecksumPath(path), []byte("abcdef\n"), 0o600)
	}, "not a sha256"},
	{"checksum empty", func(t *testing.T, path string) {
		os.WriteFile(ChecksumPath(path), nil, 0o600)
	}, "empty"},
	{"fatbin emptied", func(t *testing.T, path string) {
		os.WriteFile(path, nil, 0o600)
	}, "is empty"},
	{"fatbin replaced by a symlink", func(t *testing.T, path string) {
		other := filepath.Join(t.TempDir(), "other.fatbin")
		os.WriteFile(other, []byte("FAKE FATBIN"), 0o600)
		os.Remove(path)
		if err := os.Symlink(other, path); err != nil {
			t.Fatal(err)
		}
	}, "not a regular file"},
}

func TestDamagedCacheEntryIsRebuilt(t *testing.T) {
	for _, c := range corruptions {
		t.Run(c.name, func(t *testing.T) {
			nvcc := &fakeNvcc{}
			cfg := testConfig(t, nvcc)
			r, err := Ensure(cfg)
			if err != nil {
				t.Fatal(err)
			}
			c.damage(t, r.Path)
			if _, err := ReadVerified(r.Path); err == nil {
				t.Fatal("ReadVerified accepted the damaged entry")
			}
			r2, err := Ensure(cfg)
			if err != nil {
				t.Fatalf("Ensure of a damaged entry: %v", err)
			}
			if r2.Origin != Built || len(nvcc.calls) != 2 {
				t.Fatalf("damaged entry: origin %s after %d nvcc calls, want built after 2", r2.Origin, len(nvcc.calls))
			}
			if len(r2.Rejected) != 1 || !strings.Contains(r2.Rejected[0], "cached fatbin not trusted") ||
				!strings.Contains(r2.Rejected[0], c.reason) || !strings.Contains(r2.Rejected[0], r.Path) {
				t.Fatalf("Rejected = %q, want the cached path and %q", r2.Rejected, c.reason)
			}
			assertTrusted(t, cfg, nvcc, r2.Path, "FAKE FATBIN")
		})
	}
}

func TestDamagedCacheEntryIsRecopiedFromPrebuilt(t *testing.T) {
	nvcc, cfg, r := ensurePrebuilt(t)
	assertTrusted(t, cfg, nvcc, r.Path, "PREBUILT")
	os.Truncate(r.Path, 3)
	r2, err := Ensure(cfg)
	if err != nil || r2.Origin != Prebuilt || len(r2.Rejected) != 1 || len(nvcc.calls) != 0 {
		t.Fatalf("Ensure of a truncated copy = %+v, %v after %d nvcc calls; want a new copy", r2, err, len(nvcc.calls))
	}
	assertTrusted(t, cfg, nvcc, r2.Path, "PREBUILT")
}

// A crash after the fatbin is renamed into place but before its checksum
// is: the next Ensure finds a fatbin without a checksum and rebuilds.
func TestCrashBeforeChecksumLeavesUntrustedEntry(t *testing.T) {
	nvcc := &fakeNvcc{}
	cfg := testConfig(t, nvcc)
	crash := errors.New("simulated crash")
	beforeChecksum = func() error { return crash }
	_, err := Ensure(cfg)
	beforeChecksum = func() error { return nil }
	if !errors.Is(err, crash) {
		t.Fatalf("Ensure with a crash before the checksum = %v", err)
	}
	hash, _ := SourceHash(cfg.KernelSourceDir)
	path := CachePath(cfg.DataDir, hash, FlagsHash(Options(), cfg.Archs), cfg.DriverVersion)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the fatbin is not in place after the crash: %v", err)
	}
	if _, err := os.Stat(ChecksumPath(path)); err == nil {
		t.Fatal("a checksum was written despite the crash")
	}
	r, err := Ensure(cfg)
	if err != nil || r.Origin != Built || len(nvcc.calls) != 2 || len(r.Rejected) != 1 ||
		!strings.Contains(r.Rejected[0], "has no recorded checksum") {
		t.Fatalf("Ensure after the crash = %+v, %v after %d nvcc calls; want a rebuild with a reason", r, err, len(nvcc.calls))
	}
	assertTrusted(t, cfg, nvcc, path, "FAKE FATBIN")
}

// Rebuild replacing an entry drops the old checksum before the new fatbin
// lands, so a crash in between leaves an untrusted entry, not a stale sum.
func TestRebuildCrashDropsOldChecksum(t *testing.T) {
	nvcc, cfg, r := ensurePrebuilt(t)
	beforeChecksum = func() error { return errors.New("simulated crash") }
	_, err := Rebuild(cfg)
	beforeChecksum = func() error { return nil }
	if err == nil {
		t.Fatal("Rebuild with a crash before the checksum succeeded")
	}
	if _, err := Verify(r.Path); err == nil || !strings.Contains(err.Error(), "has no recorded checksum") {
		t.Fatalf("Verify after the crash = %v, want no recorded checksum", err)
	}
	r2, err := Rebuild(cfg)
	if err != nil || r2.Origin != Built {
		t.Fatalf("Rebuild = %+v, %v", r2, err)
	}
	assertTrusted(t, cfg, nvcc, r2.Path, "FAKE FATBIN")
}

func TestUntrustedEntryAndFailedBuildGiveBothReasons(t *testing.T) {
	nvcc := &fakeNvcc{}
	cfg := testConfig(t, nvcc)
	r, err := Ensure(cfg)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(ChecksumPath(r.Path))
	cfg.CudaToolkitBaseDir = filepath.Join(t.TempDir(), "no-toolkit")
	_, err = Ensure(cfg)
	if err == nil || !strings.Contains(err.Error(), "has no recorded checksum") || !strings.Contains(err.Error(), "nvcc not found") {
		t.Fatalf("Ensure = %v; want the rejection and the build failure", err)
	}
}

func writePrebuiltSum(t *testing.T, prebuilt, contents string) {
	t.Helper()
	if err := os.WriteFile(ChecksumPath(prebuilt), []byte(contents), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestPrebuiltChecksum(t *testing.T) {
	cases := []struct {
		name   string
		sum    string // the prebuilt's .sha256; "" means none
		origin Origin
		reason string
	}{
		{"matching checksum", sha256Hex([]byte("PREBUILT")) + "  kernels/pg_strom_kernels.fatbin\n", Prebuilt, ""},
		{"no checksum", "", Built, "has no recorded checksum"},
		{"other checksum", sha256Hex([]byte("PREBUILD")) + "  -\n", Built, "does not match its recorded checksum"},
		{"unparsable checksum", "garbage\n", Built, "not a sha256"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nvcc := &fakeNvcc{}
			cfg := testConfig(t, nvcc)
			cfg.PrebuiltFatbin = writePrebuilt(t, cfg.KernelSourceDir)
			if c.sum != "" {
				writePrebuiltSum(t, cfg.PrebuiltFatbin, c.sum)
			} else {
				os.Remove(ChecksumPath(cfg.PrebuiltFatbin))
			}
			r, err := Ensure(cfg)
			if err != nil || r.Origin != c.origin {
				t.Fatalf("Ensure = %+v, %v; want %s", r, err, c.origin)
			}
			if c.reason == "" && len(r.Rejected) != 0 {
				t.Fatalf("Rejected = %q, want none", r.Rejected)
			}
			if c.reason != "" && (len(r.Rejected) != 1 || !strings.Contains(r.Rejected[0], "prebuilt fatbin not trusted") ||
				!strings.Contains(r.Rejected[0], c.reason)) {
				t.Fatalf("Rejected = %q, want %q", r.Rejected, c.reason)
			}
			want := "PREBUILT"
			if c.origin == Built {
				want = "FAKE FATBIN"
			}
			assertTrusted(t, cfg, nvcc, r.Path, want)
		})
	}
}

func TestEmptyPrebuiltIsNotCopied(t *testing.T) {
	nvcc := &fakeNvcc{}
	cfg := testConfig(t, nvcc)
	cfg.PrebuiltFatbin = writePrebuilt(t, cfg.KernelSourceDir)
	os.WriteFile(cfg.PrebuiltFatbin, nil, 0o644)
	r, err := Ensure(cfg)
	if err != nil || r.Origin != Built || len(r.Rejected) != 1 || !strings.Contains(r.Rejected[0], "is empty") {
		t.Fatalf("Ensure with an empty prebuilt = %+v, %v; want built with a reason", r, err)
	}
	assertTrusted(t, cfg, nvcc, r.Path, "FAKE FATBIN")
}

func TestVerifyMissingEntryIsAPlainMiss(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.fatbin")
	if _, err := Verify(path); !errors.Is(err, errNoEntry) {
		t.Fatalf("Verify of a missing file = %v, want errNoEntry", err)
	}
	if _, err := ReadVerified(path); err == nil {
		t.Fatal("ReadVerified of a missing file succeeded")
	}
}

func TestParseSumAcceptsUpperCase(t *testing.T) {
	sum := sha256Hex([]byte("x"))
	got, err := parseSum([]byte(strings.ToUpper(sum) + " *file\n"))
	if err != nil || got != sum {
		t.Fatalf("parseSum = %q, %v; want %q", got, err, sum)
	}
}
