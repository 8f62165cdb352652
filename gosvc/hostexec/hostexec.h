/*
 * hostexec.h
 *
 * C entry points of the TEST-ONLY host executor (hostexec.cc): the device
 * kernels' work done serially on the CPU with the kernels' own
 * host-compilable helpers.  Arguments are those of the kernels of the same
 * name (pg_strom_xpu.h); counters need not be zeroed by the caller.
 */
#ifndef PGSTROM_HOSTEXEC_H
#define PGSTROM_HOSTEXEC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

extern void hostexec_gpuscan(const char *session, const char *pages,
							 uint32_t nblocks, uint32_t *items,
							 uint32_t *counters);
extern void hostexec_gpupreagg(const char *session, const char *pages,
							   uint32_t nblocks, const uint32_t *retry,
							   uint32_t nretry, void *table,
							   uint32_t *items, uint32_t *counters);
extern void hostexec_preagg_rehash(void *from, void *to);
extern void hostexec_gpujoin_build(const char *session, uint32_t depth,
								   void *inner, uint32_t *counters);
extern void hostexec_gpujoin(const char *session, const char *pages,
							 uint32_t nblocks, const void *resume,
							 uint32_t nresume, void *const *inners,
							 uint32_t *out, uint32_t capacity,
							 void *suspend, uint32_t *counters);
extern void hostexec_gpujoin_preagg(const char *session, const char *pages,
									uint32_t nblocks, const uint32_t *retry,
									uint32_t nretry, void *table,
									void *const *inners, uint32_t *items,
									uint32_t *counters);
extern uint64_t hostexec_join_inner_layout(void *hdr, uint32_t depth,
										   uint32_t nrows, uint32_t row_size,
										   uint32_t nbuckets);
extern void hostexec_gather(uint64_t shared_base, uint64_t nbuffers,
							const char *refs, uint32_t nblocks, char *pages);
extern const char *hostexec_catalog(void);

#ifdef __cplusplus
}
#endif

#endif							/* PGSTROM_HOSTEXEC_H */
