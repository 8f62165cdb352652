/*
 * test_all.cu - every host-side kernel test in one program: the suites of
 * test_kernels.cu, test_preagg.cu, test_gather.cu, test_join.cu and
 * test_join_preagg.cu, one after another, each with its own counts.  Each
 * of those files includes the one before it, so one compile of this file
 * does the work of five compiles of the separate programs (which still
 * build on their own, for running one suite).
 *
 * Built by run.sh with nvcc as host code; no GPU is needed.  Exit status 1
 * when a suite failed; every suite runs either way.
 */
#define TEST_JOIN_PREAGG_NO_MAIN
#include "test_join_preagg.cu"
#define TEST_GATHER_NO_MAIN
#include "test_gather.cu"

/*
 * a suite's counts start from zero and its random sequence from the seed,
 * as in its own program: the suites' checks are tuned to their sequences
 */
static int
run_suite(int (*suite) (int, char **), int argc, char **argv)
{
	npassed = 0;
	nfailed = 0;
	rng_state = TEST_RNG_SEED;
	fflush(stdout);
	return suite(argc, argv);
}

int
main(int argc, char **argv)
{
	int			failed = 0;

	failed |= run_suite(test_kernels_main, argc, argv);
	failed |= run_suite(preagg_tests, argc, argv);
	failed |= run_suite(gather_tests, argc, argv);
	failed |= run_suite(join_tests, argc, argv);
	failed |= run_suite(join_preagg_tests, argc, argv);
	return failed;
}
