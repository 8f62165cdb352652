//go:build gpu

package gpu

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/fatbin"
	"github.com/pgstrom-go/pg_strom/gosvc/mempool"
	"github.com/pgstrom-go/pg_strom/gosvc/service"
)

// The real backend must satisfy the service's interface.
var _ service.Backend = (*Backend)(nil)

// kernelDir is $PGSTROM_KERNEL_DIR (an installed kernels directory), or a
// copy of the repository's kernels/*.cu, kernels/*.h and
// include/pg_strom_*.h in one directory: the layout `make install` creates,
// and the one the service's fatbin build expects.
func kernelDir(t *testing.T) string {
	if d := os.Getenv("PGSTROM_KERNEL_DIR"); d != "" {
		return d
	}
	_, file, _, _ := runtime.Caller(0)
	repo := ""
	for _, d := range []string{"../..", filepath.Join(filepath.Dir(file), "../..")} {
		if _, err := os.Stat(filepath.Join(d, "kernels", fatbin.KernelMainSource)); err == nil {
			repo = d
			break
		}
	}
	if repo == "" {
		t.Fatal("kernels/ not found; set PGSTROM_KERNEL_DIR")
	}
	stage := t.TempDir()
	var files []string
	for _, pat := range []string{"kernels/*.cu", "kernels/*.h", "include/pg_strom_*.h"} {
		m, _ := filepath.Glob(filepath.Join(repo, pat))
		files = append(files, m...)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(stage, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return stage
}

func toolkitDir() string {
	if d := os.Getenv("CUDA_HOME"); d != "" {
		return d
	}
	return fatbin.DefaultToolkitDir
}

// builtImages caches what buildFatbin built, so that one test binary runs
// nvcc once per set of architectures.
var (
	builtMu     sync.Mutex
	builtImages = map[string][]byte{}
)

// buildFatbin builds the kernels for every device with nvcc (or takes
// $PGSTROM_FATBIN) and returns the image.
func buildFatbin(t *testing.T, devs []archSource) []byte {
	t.Helper()
	builtMu.Lock()
	defer builtMu.Unlock()
	key := fmt.Sprint(devs)
	if b, ok := builtImages[key]; ok {
		return b
	}
	b := buildFatbinUncached(t, devs)
	builtImages[key] = b
	return b
}

func buildFatbinUncached(t *testing.T, devs []archSource) []byte {
	t.Helper()
	if p := os.Getenv("PGSTROM_FATBIN"); p != "" {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	drv, err := DriverVersion()
	if err != nil {
		t.Fatal(err)
	}
	cfg := fatbin.Config{
		DataDir:            t.TempDir(),
		KernelSourceDir:    kernelDir(t),
		CudaToolkitBaseDir: toolkitDir(),
		DriverVersion:      drv,
	}
	for _, d := range devs {
		cfg.Archs = append(cfg.Archs, fatbin.Arch{Major: d.major, Minor: d.minor})
	}
	start := time.Now()
	res, err := fatbin.Ensure(cfg)
	if err != nil {
		t.Fatalf("build fatbin: %v", err)
	}
	t.Logf("fatbin %s (%s) in %v", res.Path, res.Origin, time.Since(start))
	b, err := os.ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type archSource struct{ major, minor int }

func deviceArchs(t *testing.T) []archSource {
	t.Helper()
	devs, err := Devices()
	if err != nil {
		t.Fatal(err)
	}
	var out []archSource
	for _, d := range devs {
		out = append(out, archSource{d.CCMajor, d.CCMinor})
	}
	return out
}

func TestEnumerateDevices(t *testing.T) {
	drv, err := DriverVersion()
	if err != nil || drv < 11000 {
		t.Fatalf("DriverVersion = %d, %v", drv, err)
	}
	devs, err := Devices()
	if err != nil {
		t.Fatalf("Devices: %v", err)
	}
	if len(devs) < 1 {
		t.Fatal("no CUDA devices")
	}
	for _, d := range devs {
		t.Logf("driver %d: %+v", drv, d)
		if d.Name == "" || d.TotalMemory == 0 || d.CCMajor < 3 || d.Multiprocessors < 1 {
			t.Errorf("implausible device %+v", d)
		}
		if len(d.PCIBusID) != len("0000:00:00.0") || d.PCIBusID != strings.ToLower(d.PCIBusID) {
			t.Errorf("PCI bus id %q, want lower-case domain:bus:dev.fn", d.PCIBusID)
		}
		if d.PCIeLink != "unknown" && !strings.HasPrefix(d.PCIeLink, "PCIe ") {
			t.Errorf("PCIe link %q", d.PCIeLink)
		}
	}
}

func TestLoadModuleFindsCatalogAndProbeRuns(t *testing.T) {
	image := buildFatbin(t, deviceArchs(t))
	d, err := OpenDevice(0, 32<<10)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	m, err := d.LoadModule(image)
	if err != nil {
		t.Fatalf("LoadModule: %v", err)
	}
	defer m.Unload()
	t.Logf("catalog: %q", m.Catalog())
	if !strings.HasPrefix(m.Catalog(), "pg_strom kernels ") {
		t.Fatalf("catalog %q", m.Catalog())
	}
	out, err := m.Probe(64)
	if err != nil {
		t.Fatalf("Probe: %v", err)
	}
	if out[0] != ProbeMagic || out[1] != uint32('p') || out[2] != 64 {
		t.Fatalf("probe wrote %#x, want {%#x, 'p', 64}", out, ProbeMagic)
	}
}

func TestLoadModuleRejectsForeignImage(t *testing.T) {
	d, err := OpenDevice(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	// A valid PTX module without the catalog symbol.
	ptx := ".version 7.0\n.target sm_50\n.address_size 64\n.visible .entry nothing() { ret; }\n\x00"
	_, err = d.LoadModule([]byte(ptx))
	if err == nil || !strings.Contains(err.Error(), CatalogSymbol) {
		t.Fatalf("LoadModule of a foreign module = %v, want an error naming %s", err, CatalogSymbol)
	}
}

func TestBackendLoadModule(t *testing.T) {
	image := buildFatbin(t, deviceArchs(t))
	b := NewBackend()
	defer b.Close()
	if err := b.OpenDevice(0, 32<<10); err != nil {
		t.Fatal(err)
	}
	catalog, err := b.LoadModule(0, image)
	if err != nil || !strings.Contains(catalog, "pg_strom kernels") {
		t.Fatalf("Backend.LoadModule = %q, %v", catalog, err)
	}
	// Loading again replaces the module.
	if _, err := b.LoadModule(0, image); err != nil {
		t.Fatalf("second LoadModule: %v", err)
	}
}

func TestPoolOnDevice0(t *testing.T) {
	b := NewBackend()
	defer b.Close()
	if err := b.OpenDevice(0, 32<<10); err != nil {
		t.Fatal(err)
	}
	devs, err := Devices()
	if err != nil {
		t.Fatal(err)
	}
	alloc, err := b.Allocator(0)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := mempool.New(alloc, mempool.Config{
		SegmentSize:  256 << 20,
		MaxRatio:     0.5,
		MinRatio:     0,
		ReleaseDelay: 0,
		DeviceMemory: devs[0].TotalMemory,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	before := pool.Stats()
	t.Logf("before: %+v", before)

	var chunks []mempool.Chunk
	for _, size := range []uint64{1 << 20, 64 << 20, 300 << 20} {
		c, err := pool.Alloc(size)
		if err != nil {
			t.Fatalf("Alloc(%d): %v", size, err)
		}
		chunks = append(chunks, c)
	}
	during := pool.Stats()
	t.Logf("during: %+v", during)
	if during.Used < (365<<20) || during.Total < during.Used || during.Segments < 2 {
		t.Fatalf("stats with 365MB out: %+v", during)
	}
	for _, c := range chunks {
		if err := pool.Free(c); err != nil {
			t.Fatalf("Free: %v", err)
		}
	}
	freed := pool.ReleaseIdle(time.Now().Add(time.Second))
	after := pool.Stats()
	t.Logf("after (released %d segments): %+v", freed, after)
	if after.Used != before.Used || after.Total != before.Total || freed < 2 {
		t.Fatalf("stats after free and release: %+v, want back to %+v", after, before)
	}
}

func TestPinnedHostBuffer(t *testing.T) {
	d, err := OpenDevice(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	hb, err := d.AllocHost(1 << 20)
	if err != nil {
		t.Fatalf("AllocHost: %v", err)
	}
	buf := hb.Bytes()
	buf[0], buf[len(buf)-1] = 1, 2
	if len(buf) != 1<<20 || buf[0] != 1 || buf[len(buf)-1] != 2 {
		t.Fatal("pinned buffer not usable")
	}
	if err := hb.Free(); err != nil {
		t.Fatalf("Free: %v", err)
	}
	if err := hb.Free(); err != nil {
		t.Fatalf("second Free: %v", err)
	}
}
