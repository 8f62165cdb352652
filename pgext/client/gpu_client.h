/*-------------------------------------------------------------------------
 *
 * gpu_client.h
 *		The backend's socket client of the GPU service of one device.
 *
 * Every GPU node (through the runtime in runtime/) and the SQL functions
 * that talk to the service use this; it knows the wire framing of
 * pg_strom_proto.h and nothing of any node.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGSTROM_GPU_CLIENT_H
#define PGSTROM_GPU_CLIENT_H

#include "utils/palloc.h"

#include "pg_strom_proto.h"

/* one connection to the GPU service of one device */
typedef struct GpuServiceConn GpuServiceConn;

extern GpuServiceConn *pgstrom_gpu_connect(int device_index,
										   MemoryContext msg_cxt,
										   char *errbuf, size_t errlen);
extern bool pgstrom_gpu_send(GpuServiceConn *conn, const void *msg,
							 size_t len, char *errbuf, size_t errlen);
extern PgStromMsgHeader *pgstrom_gpu_recv(GpuServiceConn *conn,
										  char *errbuf, size_t errlen);
extern void pgstrom_gpu_close(GpuServiceConn *conn);
extern const char *pgstrom_gpu_conn_path(GpuServiceConn *conn);
extern int	pgstrom_gpu_conn_service_pid(GpuServiceConn *conn);
extern void pgstrom_init_gpu_client(void);

/* the SQLSTATE of a PgStromMsgError code */
extern int	pgstrom_service_errcode(int32 code);

#endif							/* PGSTROM_GPU_CLIENT_H */
