/*
 * pg_strom_catalog.h
 *
 * What the kernels module tells the service about itself.  The service reads
 * pgstrom_kernel_catalog back with cuModuleGetGlobal after loading the
 * fatbin, to prove the module is ours and to learn which opcodes it knows.
 */
#ifndef PG_STROM_CATALOG_H
#define PG_STROM_CATALOG_H

#include "pg_strom_xpu.h"

#define PGSTROM_KERNELS_VERSION		"1.1"
/* the names of XPU_OPCODE_LIST and XPU_TYPE_LIST, each followed by a space */
#define PGSTROM_CATALOG_OP_NAME(name, nargs, sig)	#name " "
#define PGSTROM_CATALOG_TYPE_NAME(name, oid, len)	#name " "
#define PGSTROM_KERNEL_CATALOG		"pg_strom kernels " PGSTROM_KERNELS_VERSION \
	"; gpuscan; max_slots: 128" \
	"; ops: " XPU_OPCODE_LIST(PGSTROM_CATALOG_OP_NAME) \
	"; types: " XPU_TYPE_LIST(PGSTROM_CATALOG_TYPE_NAME)

/* what kern_gpuservice_probe writes to out[0]: "PSPR" */
#define PGSTROM_PROBE_MAGIC			0x50535052U

#endif							/* PG_STROM_CATALOG_H */
