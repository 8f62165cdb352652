/*
 * cuda_compat.h
 *
 * Force-included (CGO_CFLAGS="-include build/cuda_compat.h") into every cgo
 * translation unit of the Go service, so that gorgonia.org/cu v0.9.6, written
 * against the CUDA 11/12 driver API, also compiles against CUDA 13 headers.
 *
 * CUDA 13 re-pointed cuCtxCreate, cuMemPrefetchAsync, cuMemAdvise,
 * cuGraphAddDependencies and cuGraphGetEdges at new ABI versions with extra
 * parameters.  We re-point the old names at static inline shims with the old
 * signatures; the shims call the new entry points with neutral arguments.
 *
 * The runtime/cgo package also sees this file, including its assembler
 * sources (hence __ASSEMBLER__), and some of its C files define _GNU_SOURCE
 * after their first #include: defining it here first keeps their glibc
 * declarations visible once <cuda.h> has pulled in the libc headers.
 */
#ifndef PGSTROM_CUDA_COMPAT_H
#define PGSTROM_CUDA_COMPAT_H

#ifndef __ASSEMBLER__

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <cuda.h>

#if defined(CUDA_VERSION) && CUDA_VERSION >= 13000

static inline CUresult
pgstrom_compat_cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
	return cuCtxCreate_v4(pctx, NULL, flags, dev);
}
#undef cuCtxCreate
#define cuCtxCreate pgstrom_compat_cuCtxCreate

static inline CUmemLocation
pgstrom_compat_location(CUdevice dev)
{
	CUmemLocation loc;

	if (dev == CU_DEVICE_CPU)
	{
		loc.type = CU_MEM_LOCATION_TYPE_HOST;
		loc.id = 0;
	}
	else
	{
		loc.type = CU_MEM_LOCATION_TYPE_DEVICE;
		loc.id = dev;
	}
	return loc;
}

static inline CUresult
pgstrom_compat_cuMemPrefetchAsync(CUdeviceptr ptr, size_t count,
								  CUdevice dst, CUstream stream)
{
	return cuMemPrefetchAsync_v2(ptr, count, pgstrom_compat_location(dst),
								 0, stream);
}
#undef cuMemPrefetchAsync
#define cuMemPrefetchAsync pgstrom_compat_cuMemPrefetchAsync

static inline CUresult
pgstrom_compat_cuMemAdvise(CUdeviceptr ptr, size_t count,
						   CUmem_advise advice, CUdevice dev)
{
	return cuMemAdvise_v2(ptr, count, advice, pgstrom_compat_location(dev));
}
#undef cuMemAdvise
#define cuMemAdvise pgstrom_compat_cuMemAdvise

static inline CUresult
pgstrom_compat_cuGraphGetEdges(CUgraph graph, CUgraphNode *from,
							   CUgraphNode *to, size_t *num_edges)
{
	return cuGraphGetEdges_v2(graph, from, to, NULL, num_edges);
}
#undef cuGraphGetEdges
#define cuGraphGetEdges pgstrom_compat_cuGraphGetEdges

static inline CUresult
pgstrom_compat_cuGraphAddDependencies(CUgraph graph, const CUgraphNode *from,
									  const CUgraphNode *to, size_t count)
{
	return cuGraphAddDependencies_v2(graph, from, to, NULL, count);
}
#undef cuGraphAddDependencies
#define cuGraphAddDependencies pgstrom_compat_cuGraphAddDependencies

#endif							/* CUDA_VERSION >= 13000 */
#endif							/* !__ASSEMBLER__ */
#endif							/* PGSTROM_CUDA_COMPAT_H */
