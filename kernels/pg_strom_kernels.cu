/*
 * pg_strom_kernels.cu
 *
 * The single translation unit of the GPU kernels: every kernel source is
 * #included here, so one nvcc run builds the whole fatbin and no relocatable
 * device code (-rdc) is needed.
 */
#include "pg_strom_catalog.h"
#include "pg_strom_xpu.h"
#include "pg_strom_proto.h"
#include "xpu_scan.h"
#include "xpu_preagg.h"
#include "xpu_gather.h"
#include "xpu_pagecopy.h"
#include "xpu_join.h"
#include "xpu_join_preagg.h"

/*
 * extern "C" keeps the symbol unmangled for cuModuleGetGlobal, and gives the
 * const object external linkage, so it is emitted even where unused.
 */
extern "C" __device__ const char pgstrom_kernel_catalog[] = PGSTROM_KERNEL_CATALOG;

/*
 * kern_gpuservice_probe - proves that a launch works on a device.
 * out[0] receives PGSTROM_PROBE_MAGIC, out[1] the catalog's first byte (so
 * the catalog is referenced from device code), out[2] the block size.
 */
extern "C" __global__ void
kern_gpuservice_probe(unsigned int *out)
{
	if (blockIdx.x == 0 && threadIdx.x == 0)
	{
		out[0] = PGSTROM_PROBE_MAGIC;
		out[1] = (unsigned char) pgstrom_kernel_catalog[0];
		out[2] = blockDim.x;
	}
}
