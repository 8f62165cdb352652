/*-------------------------------------------------------------------------
 *
 * gpupreagg_device.c
 *		The device's groups of GpuPreAgg, as the collecting participant
 *		receives them: every groups message is kept until the TaskFinal
 *		reply ended, then emitted entry by entry.
 *
 * Nothing may be emitted before the reply ended: if the service is lost
 * midway, the participants evaluate their blocks again on the CPU
 * (runtime/task_kept.c), and groups already emitted would be counted
 * twice.  The messages are kept as they came, in memory up to hash_mem and
 * in a temporary file past it, so a large result costs no per-group work
 * until it is emitted.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/nodeHash.h"
#include "miscadmin.h"
#include "storage/buffile.h"
#include "utils/memutils.h"

#include "gpupreagg/gpupreagg_internal.h"

/* keeps one validated groups message; takes msg */
void
gpa_device_keep(GpuPreAggState *pas, PgStromMsgHeader *msg)
{
	GpaDeviceGroups *d = &pas->device;
	MemoryContext oldcxt;

	if (d->file == NULL &&
		d->mem_bytes + msg->length <= (uint64) get_hash_memory_limit())
	{
		oldcxt = MemoryContextSwitchTo(pas->gts.css.ss.ps.state->es_query_cxt);
		d->msgs = lappend(d->msgs, msg);
		MemoryContextSwitchTo(oldcxt);
		d->mem_bytes += msg->length;
		return;
	}
	if (d->file == NULL)
	{
		oldcxt = MemoryContextSwitchTo(pas->gts.css.ss.ps.state->es_query_cxt);
		d->file = BufFileCreateTemp(false);
		MemoryContextSwitchTo(oldcxt);
	}
	/* the header holds the length: the file is messages back to back */
	BufFileWrite(d->file, msg, msg->length);
	pfree(msg);
}

/* the next message to emit, NULL after the last */
static PgStromMsgHeader *
next_message(GpuPreAggState *pas)
{
	GpaDeviceGroups *d = &pas->device;
	PgStromMsgHeader hdr;
	PgStromMsgHeader *msg;
	size_t		n;

	if (d->msgs != NIL)
	{
		msg = linitial(d->msgs);
		d->msgs = list_delete_first(d->msgs);
		return msg;
	}
	if (d->file == NULL)
		return NULL;
	if (!d->file_reading)
	{
		if (BufFileSeek(d->file, 0, 0, SEEK_SET) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not rewind the GpuPreAgg groups temporary file: %m")));
		d->file_reading = true;
	}
	n = BufFileRead(d->file, &hdr, sizeof(hdr));
	if (n == 0)
		return NULL;
	/* written by this backend from checked messages: a short read is I/O */
	if (n != sizeof(hdr) || hdr.length < sizeof(hdr))
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read the GpuPreAgg groups temporary file")));
	msg = MemoryContextAllocHuge(pas->gts.css.ss.ps.state->es_query_cxt, hdr.length);
	memcpy(msg, &hdr, sizeof(hdr));
	if (BufFileRead(d->file, (char *) msg + sizeof(hdr), hdr.length - sizeof(hdr)) !=
		hdr.length - sizeof(hdr))
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read the GpuPreAgg groups temporary file")));
	return msg;
}

/* the next device group as a partial tuple in slot; NULL after the last */
TupleTableSlot *
gpa_device_next(GpuPreAggState *pas, TupleTableSlot *slot)
{
	GpaDeviceGroups *d = &pas->device;

	for (;;)
	{
		XpuPreAggGroups *g;

		if (d->cur == NULL)
		{
			d->cur = next_message(pas);
			d->next_entry = 0;
			if (d->cur == NULL)
				return NULL;
		}
		g = (XpuPreAggGroups *) ((char *) d->cur + sizeof(PgStromMsgHeader));
		if (d->next_entry < g->nentries)
		{
			const char *entry = (char *) g + sizeof(XpuPreAggGroups) +
				(Size) d->next_entry * g->entry_size;

			d->next_entry++;
			return gpa_form_tuple(pas, slot, entry, NULL);
		}
		/* the tuples made from it hold copies, not pointers into it */
		pfree(d->cur);
		d->cur = NULL;
	}
}

/* forgets every device group (lost, or a new run) */
void
gpa_device_discard(GpuPreAggState *pas)
{
	GpaDeviceGroups *d = &pas->device;

	list_free_deep(d->msgs);
	d->msgs = NIL;
	if (d->cur)
		pfree(d->cur);
	d->cur = NULL;
	if (d->file)
		BufFileClose(d->file);
	d->file = NULL;
	d->file_reading = false;
	d->mem_bytes = 0;
	d->ngroups = 0;
	d->next_entry = 0;
}
