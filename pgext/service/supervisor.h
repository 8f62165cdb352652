/*-------------------------------------------------------------------------
 *
 * supervisor.h
 *		The supervisor (the "PG-Strom GPU Service" background worker) and
 *		its helpers: spawning the service, the control channel, the log
 *		relay.  core/pg_strom.c registers the supervisor; the rest is
 *		private to service/.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PGSTROM_SUPERVISOR_H
#define PGSTROM_SUPERVISOR_H

#include "postmaster/bgworker.h"
#include "utils/timestamp.h"

#include "pg_strom_control.h"

extern void pgstrom_register_supervisor(void);
extern PGDLLEXPORT void pgstrom_gpu_service_main(Datum main_arg);

/* service_spawn.c: fork of the service process (service_child_*.c) */
typedef struct PgStromServiceChild
{
	pid_t		pid;			/* 0 when no child runs */
	int			ctl_fd;			/* our end of the control socketpair */
	int			log_fd;			/* read end of the log pipe */
	TimestampTz started_at;
	bool		got_reason;		/* NO_GPU/FATAL reason came this run */
} PgStromServiceChild;

extern bool pgstrom_spawn_service(PgStromServiceChild *child);
extern void pgstrom_remove_socket_files(pid_t postmaster_pid);
extern void pgstrom_build_config(PgStromCtlConfig *config);

/* control_channel.c: messages on the control socketpair */
extern bool pgstrom_ctl_send(int fd, PgStromCtlTag tag,
							 const void *payload, size_t len);
extern bool pgstrom_ctl_receive(PgStromServiceChild *child);

/* log_relay.c: the service's log pipe into ereport */
extern bool pgstrom_log_relay_drain(int fd);
extern void pgstrom_log_relay_reset(void);

#endif							/* PGSTROM_SUPERVISOR_H */
