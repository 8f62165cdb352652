package fatbin

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// kernelDir writes a small kernel source tree; the names are chosen so that
// byte-wise order (upper case before lower case, '_' between) matters.
func kernelDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"pg_strom_kernels.cu": "#include \"xpu_b.h\"\n__global__ void k() {}\n",
		"xpu_b.h":             "/* b */\n",
		"Xpu_A.h":             "/* A */\n",
		"xpu_a_b.cu":          "/* a_b */\n",
		"notes.txt":           "not part of the hash\n",
		".hidden.h":           "not matched by the glob\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestSourceHashMatchesShellFormula(t *testing.T) {
	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Skip("sha256sum not installed")
	}
	dir := kernelDir(t)
	got, err := SourceHash(dir)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", "cd \"$1\" && LC_ALL=C ls *.cu *.h | xargs cat | sha256sum", "sh", dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("shell formula: %v", err)
	}
	want := strings.Fields(string(out))[0]
	if got != want {
		t.Fatalf("SourceHash = %s, shell formula = %s", got, want)
	}
}

func TestSourceHashChangesWithContent(t *testing.T) {
	dir := kernelDir(t)
	before, _ := SourceHash(dir)
	os.WriteFile(filepath.Join(dir, "xpu_b.h"), []byte("/* changed */\n"), 0o644)
	after, _ := SourceHash(dir)
	if before == after || len(after) != 64 {
		t.Fatalf("hash did not change with the sources: %s -> %s", before, after)
	}
}

func TestSourceHashEmptyDir(t *testing.T) {
	if _, err := SourceHash(t.TempDir()); err == nil {
		t.Fatal("SourceHash of a directory without sources succeeded")
	}
}

func TestCachePath(t *testing.T) {
	got := CachePath("/pgdata", strings.Repeat("ab", 32), strings.Repeat("cd", 32), 12080)
	if want := "/pgdata/.pgstrom_fatbin/pg_strom-abababababababab-cdcdcdcdcdcdcdcd-drv12080.fatbin"; got != want {
		t.Fatalf("CachePath = %s, want %s", got, want)
	}
}

// fakeNvcc records its command lines and writes a fake fatbin to -o.
type fakeNvcc struct {
	calls        [][]string // builds
	versionCalls int
	version      string // what --version prints; "" fails
	fail         bool
}

func (f *fakeNvcc) run(_ context.Context, name string, args ...string) ([]byte, error) {
	if len(args) == 1 && args[0] == "--version" {
		f.versionCalls++
		if f.version == "" {
			return nil, errors.New("exit status 1")
		}
		return []byte(f.version), nil
	}
	f.calls = append(f.calls, append([]string{name}, args...))
	if f.fail {
		return []byte("error: no kernel image\n"), errors.New("exit status 1")
	}
	for i, a := range args {
		if a == "-o" && i+1 < len(args) {
			return nil, os.WriteFile(args[i+1], []byte("FAKE FATBIN"), 0o600)
		}
	}
	return nil, errors.New("no -o")
}

// toolkit makes a toolkit directory with an (unused) bin/nvcc file.
func toolkit(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, "bin", "nvcc"), []byte("#!/bin/false\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func testConfig(t *testing.T, nvcc *fakeNvcc) Config {
	return Config{
		DataDir:            t.TempDir(),
		KernelSourceDir:    kernelDir(t),
		CudaToolkitBaseDir: toolkit(t),
		DriverVersion:      13000,
		Archs:              []Arch{{9, 0}, {8, 0}, {9, 0}},
		Run:                nvcc.run,
	}
}

func TestEnsureBuildsThenHitsCache(t *testing.T) {
	nvcc := &fakeNvcc{}
	cfg := testConfig(t, nvcc)
	r, err := Ensure(cfg)
	if err != nil {
		t.Fatalf("Ensure: %v", err)
	}
	if r.Origin != Built || len(nvcc.calls) != 1 {
		t.Fatalf("first Ensure: origin %s after %d nvcc calls, want built after 1", r.Origin, len(nvcc.calls))
	}
	if b, err := os.ReadFile(r.Path); err != nil || string(b) != "FAKE FATBIN" {
		t.Fatalf("built fatbin: %q, %v", b, err)
	}
	hash, _ := SourceHash(cfg.KernelSourceDir)
	if r.Path != CachePath(cfg.DataDir, hash, FlagsHash(Options(), cfg.Archs), 13000) || r.FlagsHash != FlagsHash(Options(), cfg.Archs) {
		t.Fatalf("path %s (flags %s) is not the cache path of the service's flags", r.Path, r.FlagsHash)
	}
	st, err := os.Stat(filepath.Dir(r.Path))
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("cache dir mode %v (%v), want 0700", st.Mode().Perm(), err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(r.Path), ".build-*"))
	if len(leftovers) != 0 {
		t.Fatalf("temporary files left in the cache: %v", leftovers)
	}

	r2, err := Ensure(cfg)
	if err != nil || r2.Origin != Cached || r2.Path != r.Path || len(nvcc.calls) != 1 {
		t.Fatalf("second Ensure: %+v, %v, %d nvcc calls; want a cache hit without nvcc", r2, err, len(nvcc.calls))
	}
}

func TestBuildCommandLine(t *testing.T) {
	nvcc := &fakeNvcc{}
	cfg := testConfig(t, nvcc)
	if _, err := Ensure(cfg); err != nil {
		t.Fatal(err)
	}
	call := nvcc.calls[0]
	if call[0] != filepath.Join(cfg.CudaToolkitBaseDir, "bin", "nvcc") {
		t.Fatalf("ran %s, want the toolkit's nvcc", call[0])
	}
	out := call[len(call)-2]
	want := append(append([]string{"-fatbin"}, Options()...), "-I"+cfg.KernelSourceDir,
		"-gencode", "arch=compute_80,code=sm_80",
		"-gencode", "arch=compute_90,code=sm_90",
		"-gencode", "arch=compute_90,code=compute_90",
		"-o", out, filepath.Join(cfg.KernelSourceDir, "pg_strom_kernels.cu"))
	if !reflect.DeepEqual(call[1:], want) {
		t.Fatalf("nvcc args:\n got %q\nwant %q", call[1:], want)
	}
	if filepath.Dir(out) != filepath.Join(cfg.DataDir, CacheDirName) || !strings.HasPrefix(filepath.Base(out), ".build-") {
		t.Fatalf("nvcc output %s is not a temporary file in the cache dir", out)
	}
}

// writePrebuilt writes a prebuilt fatbin as make would for the sources in
// kernelSourceDir: its .sha256 and its manifest.
func writePrebuilt(t *testing.T, kernelSourceDir string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "pg_strom_kernels.fatbin")
	if err := os.WriteFile(p, []byte("PREBUILT"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteManifest(p, kernelSourceDir, nil); err != nil {
		t.Fatal(err)
	}
	return p
}

// ensurePrebuilt runs Ensure with a prebuilt fatbin that make recorded
// for the sources and checks that it was copied into the cache.
func ensurePrebuilt(t *testing.T) (*fakeNvcc, Config, Result) {
	t.Helper()
	nvcc := &fakeNvcc{}
	cfg := testConfig(t, nvcc)
	cfg.PrebuiltFatbin = writePrebuilt(t, cfg.KernelSourceDir)
	r, err := Ensure(cfg)
	if err != nil || r.Origin != Prebuilt || len(r.Rejected) != 0 {
		t.Fatalf("Ensure = %+v, %v", r, err)
	}
	return nvcc, cfg, r
}

func TestEnsureUsesPrebuiltWithMatchingManifest(t *testing.T) {
	nvcc, cfg, r := ensurePrebuilt(t)
	if len(nvcc.calls) != 0 {
		t.Fatalf("%d nvcc calls, want the prebuilt without nvcc", len(nvcc.calls))
	}
	if b, _ := os.ReadFile(r.Path); string(b) != "PREBUILT" {
		t.Fatalf("cached copy holds %q, want the prebuilt contents", b)
	}
	hash, _ := SourceHash(cfg.KernelSourceDir)
	flags := FlagsHash(Options(), MakeArchs())
	if r.Path != CachePath(cfg.DataDir, hash, flags, cfg.DriverVersion) || r.FlagsHash != flags {
		t.Fatalf("copy at %s (flags %s), want the cache path of the manifest's flags", r.Path, r.FlagsHash)
	}
}

// rejectedPrebuilt runs Ensure with the prebuilt fatbin prepared by
// damage and expects a build, with why the prebuilt one was not used.
func rejectedPrebuilt(t *testing.T, damage func(cfg Config), reason string) {
	t.Helper()
	nvcc := &fakeNvcc{}
	cfg := testConfig(t, nvcc)
	cfg.PrebuiltFatbin = writePrebuilt(t, cfg.KernelSourceDir)
	damage(cfg)
	r, err := Ensure(cfg)
	if err != nil || r.Origin != Built || len(nvcc.calls) != 1 {
		t.Fatalf("Ensure = %+v, %v after %d nvcc calls; want a build", r, err, len(nvcc.calls))
	}
	if len(r.Rejected) != 1 || !strings.Contains(r.Rejected[0], "prebuilt fatbin not") ||
		!strings.Contains(r.Rejected[0], cfg.PrebuiltFatbin) || !strings.Contains(r.Rejected[0], reason) {
		t.Fatalf("Rejected = %q, want the prebuilt path and %q", r.Rejected, reason)
	}
	assertTrusted(t, cfg, nvcc, r.Path, "FAKE FATBIN")
}

func TestEnsureIgnoresPrebuiltOfOtherSources(t *testing.T) {
	rejectedPrebuilt(t, func(cfg Config) {
		os.WriteFile(filepath.Join(cfg.KernelSourceDir, "xpu_b.h"), []byte("/* changed */\n"), 0o644)
	}, "built from other kernel sources")
}

func TestEnsureIgnoresPrebuiltWithoutManifest(t *testing.T) {
	rejectedPrebuilt(t, func(cfg Config) {
		os.Remove(ManifestPath(cfg.PrebuiltFatbin))
		// what make wrote before the manifest: the hash of the sources
		hash, _ := SourceHash(cfg.KernelSourceDir)
		os.WriteFile(cfg.PrebuiltFatbin+".srchash", []byte(hash+"\n"), 0o644)
	}, "has no manifest")
}

func TestMissingNvccNamesThePath(t *testing.T) {
	cfg := testConfig(t, &fakeNvcc{})
	cfg.CudaToolkitBaseDir = filepath.Join(t.TempDir(), "no-toolkit")
	_, err := Ensure(cfg)
	want := filepath.Join(cfg.CudaToolkitBaseDir, "bin", "nvcc")
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Ensure without nvcc = %v, want an error naming %s", err, want)
	}
}

func TestNvccFailureIsReportedWithOutput(t *testing.T) {
	cfg := testConfig(t, &fakeNvcc{fail: true})
	_, err := Ensure(cfg)
	if err == nil || !strings.Contains(err.Error(), "no kernel image") {
		t.Fatalf("Ensure with failing nvcc = %v, want nvcc's output in the error", err)
	}
	entries, _ := os.ReadDir(filepath.Join(cfg.DataDir, CacheDirName))
	if len(entries) != 0 {
		t.Fatalf("cache holds %d files after a failed build, want none", len(entries))
	}
}

func TestRebuildReplacesCachedFile(t *testing.T) {
	// the devices' architectures are make's: the build replaces the copy
	nvcc, cfg, r := ensurePrebuilt(t)
	r2, err := Rebuild(cfg)
	if err != nil || r2.Origin != Built || r2.Path != r.Path || len(nvcc.calls) != 1 {
		t.Fatalf("Rebuild = %+v, %v after %d nvcc calls", r2, err, len(nvcc.calls))
	}
	if b, _ := os.ReadFile(r.Path); string(b) != "FAKE FATBIN" {
		t.Fatalf("cache holds %q after Rebuild, want the new build", b)
	}
}

func TestRebuildForOtherArchsIsPreferredToThePrebuiltCopy(t *testing.T) {
	nvcc := &fakeNvcc{}
	cfg := testConfig(t, nvcc)
	cfg.Archs = []Arch{{8, 6}}
	cfg.PrebuiltFatbin = writePrebuilt(t, cfg.KernelSourceDir)
	r, err := Ensure(cfg)
	if err != nil || r.Origin != Prebuilt {
		t.Fatalf("Ensure = %+v, %v; want the prebuilt copy", r, err)
	}
	r2, err := Rebuild(cfg)
	if err != nil || r2.Origin != Built || r2.Path == r.Path || r2.FlagsHash != FlagsHash(Options(), cfg.Archs) {
		t.Fatalf("Rebuild = %+v, %v; want a build for sm_86 beside the copy %s", r2, err, r.Path)
	}
	r3, err := Ensure(cfg)
	if err != nil || r3.Origin != Cached || r3.Path != r2.Path || len(nvcc.calls) != 1 {
		t.Fatalf("Ensure after Rebuild = %+v, %v; want the cached build %s", r3, err, r2.Path)
	}
}

func TestBuildWithoutArchs(t *testing.T) {
	cfg := testConfig(t, &fakeNvcc{})
	cfg.Archs = nil
	if _, err := Ensure(cfg); err == nil {
		t.Fatal("Ensure without architectures succeeded")
	}
}

func TestHostCompilerForNvcc11(t *testing.T) {
	const v11 = "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 11.8, V11.8.89\n"
	const v12 = "Cuda compilation tools, release 12.8, V12.8.93\n"
	found := func(string) (string, error) { return "/usr/bin/clang-14", nil }
	missing := func(string) (string, error) { return "", errors.New("not found") }
	cases := []struct {
		name    string
		version string
		look    func(string) (string, error)
		ccbin   bool
	}{
		{"11.8 with clang-14", v11, found, true},
		{"11.8 without clang-14", v11, missing, false},
		{"12.8", v12, found, false},
		{"version fails", "", found, false},
	}
	for _, c := range cases {
		nvcc := &fakeNvcc{version: c.version}
		cfg := testConfig(t, nvcc)
		cfg.LookPath = c.look
		if _, err := Ensure(cfg); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		args := strings.Join(nvcc.calls[0][1:], " ")
		if got := strings.HasPrefix(args, "-ccbin clang-14 -fatbin"); got != c.ccbin || nvcc.versionCalls != 1 {
			t.Errorf("%s: args %q after %d version queries; want -ccbin: %v", c.name, args, nvcc.versionCalls, c.ccbin)
		}
		if !strings.Contains(args, "-fmad=false") {
			t.Errorf("%s: args %q lack -fmad=false", c.name, args)
		}
	}
}
