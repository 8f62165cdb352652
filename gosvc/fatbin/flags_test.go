package fatbin

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestFlagsFile(t *testing.T) {
	if !slices.Contains(Options(), "-fmad=false") {
		t.Errorf("options %q lack -fmad=false: fused multiply-adds would round unlike PostgreSQL", Options())
	}
	if len(MakeArchs()) == 0 {
		t.Error("no archs for make")
	}
	for _, bad := range []string{
		"archs 80 90\n",                        // no options
		"options -O3\n",                        // no archs
		"options -O3\narchs 90 80\n",           // not ascending
		"options -O3\narchs 90 90\n",           // twice
		"options -O3\narchs sm_90\n",           // not a number
		"options -O3\narchs 090\n",             // not as nvcc writes it
		"options -O3\noptions -O2\narchs 90\n", // a key twice
	} {
		if _, err := parseFlags([]byte(bad)); err == nil {
			t.Errorf("parseFlags(%q) succeeded", bad)
		}
	}
	f, err := parseFlags([]byte("# comment\n\noptions -O3  -fmad=false\narchs 86 90 100 120\n"))
	want := []Arch{{8, 6}, {9, 0}, {10, 0}, {12, 0}}
	if err != nil || !slices.Equal(f.options, []string{"-O3", "-fmad=false"}) || !slices.Equal(f.archs, want) {
		t.Fatalf("parseFlags = %+v, %v", f, err)
	}
}

// The Makefile hashes the flags with printf and sha256sum.
func TestFlagsHashMatchesShell(t *testing.T) {
	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Skip("sha256sum not installed")
	}
	out, err := exec.Command("sh", "-c", `printf 'options %s\narchs %s\n' "$1" "$2" | sha256sum`, "sh", "-O3 -fmad=false", "80 90").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := FlagsHash([]string{"-O3", "-fmad=false"}, []Arch{{9, 0}, {8, 0}}), strings.Fields(string(out))[0]; got != want {
		t.Fatalf("FlagsHash = %s, the shell's %s", got, want)
	}
	if FlagsHash([]string{"-O3"}, []Arch{{9, 0}}) == FlagsHash([]string{"-O2"}, []Arch{{9, 0}}) ||
		FlagsHash([]string{"-O3"}, []Arch{{9, 0}}) == FlagsHash([]string{"-O3"}, []Arch{{8, 0}}) {
		t.Fatal("FlagsHash ignores the options or the archs")
	}
}

// manifestText is a manifest as make would write it for these options and
// archs (a consistent flags hash).
func manifestText(sources string, options []string, archs []Arch) string {
	m := Manifest{Sources: sources, Options: options, Archs: archs, Flags: FlagsHash(options, archs)}
	return string(m.encode())
}

func TestPrebuiltWithFlippedByteIsRefused(t *testing.T) {
	rejectedPrebuilt(t, func(cfg Config) {
		b, _ := os.ReadFile(cfg.PrebuiltFatbin)
		b[3] ^= 0x20
		os.WriteFile(cfg.PrebuiltFatbin, b, 0o644)
	}, "does not match its recorded checksum")
}

func TestPrebuiltWithOtherOptionsIsRefused(t *testing.T) {
	rejectedPrebuilt(t, func(cfg Config) {
		hash, _ := SourceHash(cfg.KernelSourceDir)
		os.WriteFile(ManifestPath(cfg.PrebuiltFatbin), []byte(manifestText(hash, []string{"-O3"}, MakeArchs())), 0o644)
	}, `built with nvcc options "-O3"`)
}

func TestPrebuiltManifestRefusals(t *testing.T) {
	for _, c := range []struct {
		name   string
		edit   func(text string) string
		reason string
	}{
		{"flags hash of other flags", func(text string) string {
			return text[:strings.Index(text, "flags ")] + "flags " + FlagsHash([]string{"-O0"}, MakeArchs()) + "\n"
		}, "is not that of its options and archs"},
		{"options edited, flags hash kept", func(text string) string {
			return strings.Replace(text, "\noptions ", "\noptions -G ", 1)
		}, "is not that of its options and archs"},
		{"archs edited, flags hash kept", func(text string) string {
			return strings.Replace(text, "\narchs ", "\narchs 70 ", 1)
		}, "is not that of its options and archs"},
		{"no sources", func(text string) string {
			return text[strings.Index(text, "\n")+1:]
		}, "want one sources hash"},
		{"no flags", func(text string) string {
			return text[:strings.Index(text, "flags ")]
		}, "want one flags hash"},
		{"no archs", func(text string) string {
			return strings.Replace(text, "archs", "arches", 1)
		}, "no archs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rejectedPrebuilt(t, func(cfg Config) {
				b, _ := os.ReadFile(ManifestPath(cfg.PrebuiltFatbin))
				os.WriteFile(ManifestPath(cfg.PrebuiltFatbin), []byte(c.edit(string(b))), 0o644)
			}, c.reason)
		})
	}
}

// A prebuilt fatbin of other architectures but the service's options is
// used, and cached under its own flags.
func TestPrebuiltOfOtherArchsIsCachedUnderItsFlags(t *testing.T) {
	nvcc := &fakeNvcc{}
	cfg := testConfig(t, nvcc)
	cfg.PrebuiltFatbin = filepath.Join(t.TempDir(), "pg_strom_kernels.fatbin")
	os.WriteFile(cfg.PrebuiltFatbin, []byte("PREBUILT"), 0o644)
	if err := WriteManifest(cfg.PrebuiltFatbin, cfg.KernelSourceDir, []Arch{{9, 0}}); err != nil {
		t.Fatal(err)
	}
	r, err := Ensure(cfg)
	flags := FlagsHash(Options(), []Arch{{9, 0}})
	if err != nil || r.Origin != Prebuilt || r.FlagsHash != flags || !strings.Contains(r.Path, "-"+flags[:16]+"-") {
		t.Fatalf("Ensure = %+v, %v; want the prebuilt copy under flags %s", r, err, flags)
	}
	assertTrusted(t, cfg, nvcc, r.Path, "PREBUILT")
}

// A cache entry built with other flags, intact and checksummed, is not
// used: not under the name of other options, not under the name of the
// service's options once those change.
func TestCacheEntryOfOtherFlagsIsNotUsed(t *testing.T) {
	nvcc := &fakeNvcc{}
	cfg := testConfig(t, nvcc)
	hash, _ := SourceHash(cfg.KernelSourceDir)
	other := CachePath(cfg.DataDir, hash, FlagsHash([]string{"-O0"}, cfg.Archs), cfg.DriverVersion)
	os.MkdirAll(filepath.Dir(other), 0o700)
	if err := install(writeTemp(t, filepath.Dir(other), "OTHER FLAGS"), other, sha256Hex([]byte("OTHER FLAGS"))); err != nil {
		t.Fatal(err)
	}
	r, err := Ensure(cfg)
	if err != nil || r.Origin != Built || r.Path == other {
		t.Fatalf("Ensure = %+v, %v; want a build, not %s", r, err, other)
	}

	// the same cache, once the service's options are others
	saved := buildFlags
	t.Cleanup(func() { buildFlags = saved })
	buildFlags.options = []string{"-O2", "-fmad=false"}
	r2, err := Ensure(cfg)
	if err != nil || r2.Origin != Built || r2.Path == r.Path || len(nvcc.calls) != 2 {
		t.Fatalf("Ensure with other options = %+v, %v after %d nvcc calls; want a new build beside %s", r2, err, len(nvcc.calls), r.Path)
	}
	if args := strings.Join(nvcc.calls[1], " "); !strings.Contains(args, " -O2 -fmad=false ") {
		t.Fatalf("nvcc ran with %q, want the new options", args)
	}
}

func writeTemp(t *testing.T, dir, contents string) string {
	t.Helper()
	f, err := os.CreateTemp(dir, ".test-*")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(contents)
	f.Close()
	return f.Name()
}

// TestMakefileRecordsWhatTheServiceChecks runs the Makefile's fatbin rule
// with a stand-in nvcc: it must pass the flags file's options and
// architectures, and record the fatbin so that Ensure takes it for the
// installed sources.
func TestMakefileRecordsWhatTheServiceChecks(t *testing.T) {
	for _, tool := range []string{"make", "pg_config", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	argsFile := filepath.Join(dir, "nvcc.args")
	nvcc := filepath.Join(dir, "nvcc")
	script := `#!/bin/sh
[ "$1" = --version ] && exit 0
printf '%s\n' "$@" > ` + argsFile + `
while [ $# -gt 0 ]; do
	if [ "$1" = -o ]; then printf 'MAKE FATBIN' > "$2"; fi
	shift
done
`
	if err := os.WriteFile(nvcc, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	fatbin := filepath.Join(dir, "pg_strom_kernels.fatbin")
	cmd := exec.Command("make", "-s", "-C", root, "NVCC="+nvcc, "NVCC_CCBIN=", "FATBIN="+fatbin, fatbin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make %s: %v\n%s", fatbin, err, out)
	}

	args, err := os.ReadFile(argsFile)
	if err != nil {
		t.Fatal(err)
	}
	want := append([]string{"-fatbin"}, Options()...)
	want = append(want, "-Ikernels", "-Iinclude")
	archs := MakeArchs()
	for _, a := range archs {
		want = append(want, "-gencode", "arch=compute_"+a.String()+",code=sm_"+a.String())
	}
	hi := archs[len(archs)-1].String()
	want = append(want, "-gencode", "arch=compute_"+hi+",code=compute_"+hi, "-o", fatbin+".tmp", "kernels/pg_strom_kernels.cu")
	if got := strings.Fields(string(args)); !slices.Equal(got, want) {
		t.Fatalf("make ran nvcc with\n %q\nwant (the flags file's)\n %q", got, want)
	}

	// the sources as make install lays them out
	kdir := t.TempDir()
	var sources []string
	for _, g := range []string{"kernels/*.cu", "kernels/*.h", "include/pg_strom_*.h"} {
		m, _ := filepath.Glob(filepath.Join(root, g))
		sources = append(sources, m...)
	}
	for _, s := range sources {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(kdir, filepath.Base(s)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := ReadManifest(fatbin)
	if err != nil {
		t.Fatal(err)
	}
	hash, _ := SourceHash(kdir)
	if m.Sources != hash || !slices.Equal(m.Options, Options()) || !slices.Equal(m.Archs, archs) {
		t.Fatalf("make's manifest %+v; want sources %s, the flags file's options and archs", m, hash)
	}
	cfg := Config{DataDir: t.TempDir(), KernelSourceDir: kdir, PrebuiltFatbin: fatbin, DriverVersion: 12080,
		Archs: archs, CudaToolkitBaseDir: filepath.Join(dir, "no-toolkit")}
	r, err := Ensure(cfg)
	if err != nil || r.Origin != Prebuilt || len(r.Rejected) != 0 {
		t.Fatalf("Ensure of make's fatbin = %+v, %v", r, err)
	}
	if image, err := ReadVerified(r.Path); err != nil || !bytes.Equal(image, []byte("MAKE FATBIN")) {
		t.Fatalf("ReadVerified = %q, %v", image, err)
	}
}
