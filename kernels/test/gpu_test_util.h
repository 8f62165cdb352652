/*
 * gpu_test_util.h - what the gpu_test_*.cu need besides their host test:
 * the CUDA error check and the vectors.txt page named on the command line.
 * Include it after the host test (test_preagg.cu's vectors_page).
 */
#ifndef GPU_TEST_UTIL_H
#define GPU_TEST_UTIL_H

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); exit(2); } } while (0)

/* the page of the vectors file named by argv[1] (vectors.txt); exits 2 without one */
static std::vector<char>
gpu_test_page(int argc, char **argv)
{
	std::vector<char> page = vectors_page(argc > 1 ? argv[1] : "vectors.txt");

	if (page.size() != XPU_BLCKSZ)
	{
		fprintf(stderr, "no page\n");
		exit(2);
	}
	return page;
}

#endif							/* GPU_TEST_UTIL_H */
