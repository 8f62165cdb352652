package gpu

import (
	"bytes"
	"errors"
	"fmt"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// Names the kernels module must define (kernels/pg_strom_kernels.cu).
const (
	CatalogSymbol = "pgstrom_kernel_catalog"
	ProbeKernel   = "kern_gpuservice_probe"
	ProbeMagic    = 0x50535052 // PGSTROM_PROBE_MAGIC in kernels/pg_strom_catalog.h
	// KernelGather and GatherThreads are XPU_KERNEL_GATHER and
	// XPU_GATHER_THREADS of kernels/xpu_gather.h.
	KernelGather  = "kern_gather_pages"
	GatherThreads = 256
	// KernelCopyPages and CopyPagesThreads are XPU_KERNEL_COPY_PAGES and
	// XPU_PAGECOPY_THREADS of kernels/xpu_pagecopy.h.
	KernelCopyPages  = "kern_copy_pages"
	CopyPagesThreads = 256
)

// maxCatalogBytes bounds what is copied back for the catalog string.
const maxCatalogBytes = 1 << 20

// Module is the kernels module loaded on one device.
type Module struct {
	dev     *Device
	mod     cu.Module
	catalog string
	kernels kernels // looked up once per load
}

// kernels are the module's entry points an Executor launches.  A missing
// kernel disables only what needs it: its error says why.
type kernels struct {
	scan         cu.Function // xpu.KernelGpuScan
	scanErr      error
	preagg       cu.Function // xpu.KernelGpuPreAgg
	rehash       cu.Function // xpu.KernelPreAggRehash
	preaggErr    error       // why GpuPreAgg cannot run (either kernel missing)
	gather       cu.Function // KernelGather
	gatherErr    error       // why zero-copy chunks cannot run
	copyPages    cu.Function // KernelCopyPages
	copyPagesErr error       // why there is no page cache
	join         cu.Function // xpu.KernelGpuJoin
	joinBuild    cu.Function // xpu.KernelGpuJoinBld
	joinErr      error       // why GpuJoin cannot run (either kernel missing)
	// joinPreAgg is xpu.KernelGpuJoinPreAgg; joinPreAggErr says why fused
	// sessions cannot run (it, the build or the rehash kernel missing).
	joinPreAgg    cu.Function
	joinPreAggErr error
}

// LoadModule loads a fatbin image (cuModuleLoadData) on the device and reads
// its catalog back; an image without the catalog symbol is not ours and is
// rejected.
func (d *Device) LoadModule(image []byte) (*Module, error) {
	if len(image) == 0 {
		return nil, fmt.Errorf("device %d: empty fatbin image", d.index)
	}
	m := &Module{dev: d}
	err := d.Do(func() (err error) {
		m.mod, err = cu.LoadData(string(image))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("device %d: cuModuleLoadData: %w", d.index, err)
	}
	if m.catalog, err = m.readCatalog(); err != nil {
		m.Unload()
		return nil, err
	}
	// A module without the GpuScan kernel still serves Status; sessions
	// then fail with this error.  Without the GpuPreAgg kernels only
	// GpuPreAgg sessions fail.
	k := &m.kernels
	k.scan, k.scanErr = m.Function(xpu.KernelGpuScan)
	var errAgg, errRehash error
	k.preagg, errAgg = m.Function(xpu.KernelGpuPreAgg)
	k.rehash, errRehash = m.Function(xpu.KernelPreAggRehash)
	k.preaggErr = errors.Join(errAgg, errRehash)
	k.gather, k.gatherErr = m.Function(KernelGather)
	k.copyPages, k.copyPagesErr = m.Function(KernelCopyPages)
	var errJoin, errBuild error
	k.join, errJoin = m.Function(xpu.KernelGpuJoin)
	k.joinBuild, errBuild = m.Function(xpu.KernelGpuJoinBld)
	k.joinErr = errors.Join(errJoin, errBuild)
	var errFused error
	k.joinPreAgg, errFused = m.Function(xpu.KernelGpuJoinPreAgg)
	k.joinPreAggErr = errors.Join(errFused, errBuild, errRehash)
	return m, nil
}

func (m *Module) readCatalog() (string, error) {
	var buf []byte
	err := m.dev.Do(func() error {
		ptr, size, err := m.mod.Global(CatalogSymbol)
		if err != nil {
			return fmt.Errorf("the fatbin has no %s symbol (not a pg_strom kernels module?): cuModuleGetGlobal: %w", CatalogSymbol, err)
		}
		if size <= 0 || size > maxCatalogBytes {
			return fmt.Errorf("%s has size %d bytes", CatalogSymbol, size)
		}
		buf = make([]byte, size)
		return cu.MemcpyDtoH(unsafe.Pointer(&buf[0]), ptr, size)
	})
	if err != nil {
		return "", fmt.Errorf("device %d: read kernel catalog: %w", m.dev.index, err)
	}
	if i := bytes.IndexByte(buf, 0); i >= 0 {
		buf = buf[:i]
	}
	return string(buf), nil
}

// Catalog is the module's pgstrom_kernel_catalog string.
func (m *Module) Catalog() string { return m.catalog }

// GpuScan is the module's GpuScan kernel (xpu.KernelGpuScan).
func (m *Module) GpuScan() (cu.Function, error) { return m.kernels.scan, m.kernels.scanErr }

// GpuPreAggErr says why the module cannot run GpuPreAgg; nil when it can.
func (m *Module) GpuPreAggErr() error { return m.kernels.preaggErr }

// Function looks a kernel up by its extern "C" name.
func (m *Module) Function(name string) (cu.Function, error) {
	var fn cu.Function
	err := m.dev.Do(func() (err error) {
		fn, err = m.mod.Function(name)
		return err
	})
	if err != nil {
		return fn, fmt.Errorf("device %d: kernel %s: %w", m.dev.index, name, err)
	}
	return fn, nil
}

// Probe launches kern_gpuservice_probe with one block of blockDim threads
// and returns what it wrote: {ProbeMagic, first catalog byte, blockDim}.
func (m *Module) Probe(blockDim int) ([3]uint32, error) {
	var out [3]uint32
	fn, err := m.Function(ProbeKernel)
	if err != nil {
		return out, err
	}
	err = m.dev.Do(func() error {
		dptr, err := cu.MemAlloc(int64(unsafe.Sizeof(out)))
		if err != nil {
			return fmt.Errorf("cuMemAlloc: %w", err)
		}
		defer cu.MemFree(dptr)
		if err := cu.MemsetD32(dptr, 0, int64(len(out))); err != nil {
			return fmt.Errorf("cuMemsetD32: %w", err)
		}
		args := []unsafe.Pointer{unsafe.Pointer(&dptr)}
		if err := fn.Launch(1, 1, 1, blockDim, 1, 1, 0, cu.Stream{}, args); err != nil {
			return fmt.Errorf("cuLaunchKernel: %w", err)
		}
		if err := cu.Synchronize(); err != nil {
			return fmt.Errorf("cuCtxSynchronize: %w", err)
		}
		return cu.MemcpyDtoH(unsafe.Pointer(&out[0]), dptr, int64(unsafe.Sizeof(out)))
	})
	if err != nil {
		return out, fmt.Errorf("device %d: probe kernel: %w", m.dev.index, err)
	}
	return out, nil
}

// Unload unloads the module (cuModuleUnload).
func (m *Module) Unload() error {
	err := m.dev.Do(func() error { return m.mod.Unload() })
	if err != nil {
		return fmt.Errorf("device %d: cuModuleUnload: %w", m.dev.index, err)
	}
	return nil
}
