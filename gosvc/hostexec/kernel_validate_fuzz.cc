/*
 * kernel_validate_fuzz.cc
 *
 * The kernels' own session validator, for FuzzKernelValidator's
 * cross-check against the service's (Go) validator: the set-up the host
 * executor runs before any page (hostexec_gpuscan, hostexec_gpupreagg,
 * hostexec_gpujoin, hostexec_gpujoin_preagg),
 * chosen by the session's kind as the service's node kind registry
 * chooses.  Not called by the executor itself.
 */
#include "xpu_preagg.h"
#include "xpu_join.h"
#include "xpu_join_preagg.h"
#include "hostexec.h"

extern "C" uint32_t
hostexec_validate_session(const char *msg)
{
	/* heap, as in hostexec.cc: xpu_program is 2.6kB, too much for a cgo stack */
	xpu_program *prog = new xpu_program;
	xpu_preagg *pa = new xpu_preagg;
	xpu_join   *jn = new xpu_join;
	uint32_t	kind = xpu_load_u32(msg + sizeof(PgStromMsgHeader) + 4);
	int			st;

	if (kind == XPU_KIND_GPUPREAGG)
		st = xpu_preagg_setup_serial(msg, prog, pa);
	else if (kind == XPU_KIND_GPUJOIN)
		st = xpu_join_setup_serial(msg, prog, jn);
	else if (kind == XPU_KIND_GPUJOIN_PREAGG)
		st = xpu_join_preagg_setup_serial(msg, prog, jn, pa);
	else
		st = xpu_program_setup_serial(msg, prog);
	delete prog;
	delete pa;
	delete jn;
	return (uint32_t) st;
}
