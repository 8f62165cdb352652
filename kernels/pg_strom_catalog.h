/*
 * pg_strom_catalog.h
 *
 * What the kernels module tells the service about itself.  The service reads
 * pgstrom_kernel_catalog back with cuModuleGetGlobal after loading the
 * fatbin, to prove the module is ours and to learn which opcodes it knows.
 */
#ifndef PG_STROM_CATALOG_H
#define PG_STROM_CATALOG_H

#define PGSTROM_KERNELS_VERSION		"1.0"
#define PGSTROM_KERNEL_CATALOG		"pg_strom kernels " PGSTROM_KERNELS_VERSION "; opcodes: none"

/* what kern_gpuservice_probe writes to out[0]: "PSPR" */
#define PGSTROM_PROBE_MAGIC			0x50535052U

#endif							/* PG_STROM_CATALOG_H */
