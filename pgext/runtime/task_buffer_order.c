/*-------------------------------------------------------------------------
 *
 * task_buffer_order.c
 *		A zero-copy chunk's pages in the order of their shared buffers.
 *
 * The service moves a zero-copy chunk's pages to the device by DMA only
 * for runs of consecutive shared buffers that are also consecutive pages
 * of the chunk (gosvc/gpu/gatherplan); shorter runs go through the gather
 * kernel, whose SM loads are slower on some devices and compete with the
 * compute kernels of other queries.  In block order, a table's pages lie
 * in such runs when one backend read or extended it block after block.
 * They do not after concurrent loads on PostgreSQL 16 and later: each
 * backend that extends a relation takes its victim buffers before it takes
 * the extension lock, so the block ranges of concurrent inserters land in
 * buffer ranges in another order (runs of about four buffers after eight
 * concurrent INSERTs on 18, against thousands on 15).  Within one chunk
 * those ranges mostly form one contiguous set of buffers again, so sorting
 * the chunk's pages by buffer gives the copy engines long runs back.
 *
 * Nothing depends on a chunk's pages being in block order: every page is
 * named by its index into the chunk's parallel arrays (refs, buffers,
 * blknos), which move together, and the rows of a chunk come back in no
 * promised order.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "runtime/gpu_task.h"

/* one run of consecutive buffers, in block order within the chunk */
typedef struct BufferRun
{
	uint32		buffer;			/* its first buffer */
	uint32		first;			/* its first page index in the chunk */
	uint32		npages;
} BufferRun;

static int
compare_runs(const void *a, const void *b)
{
	uint32		x = ((const BufferRun *) a)->buffer;
	uint32		y = ((const BufferRun *) b)->buffer;

	return (x > y) - (x < y);
}

/*
 * Sorts the pages of a filled zero-copy chunk by shared buffer.  The runs
 * of consecutive buffers that block order already has are kept whole and
 * sorted among themselves, so the work is a pass over the pages plus a
 * sort of the runs; a chunk already in buffer order is left as it is.
 */
void
gpu_task_order_by_buffer(GpuTaskChunk *chunk)
{
	uint32		n = chunk->nblocks;
	BufferRun  *runs;
	uint32		nruns = 0;
	bool		sorted = true;
	XpuPageRef *refs;
	Buffer	   *buffers;
	BlockNumber *blknos;
	uint32		i,
				at;

	Assert(chunk->zero_copy);
	if (n < 2)
		return;
	runs = palloc(sizeof(BufferRun) * n);
	for (i = 0; i < n; i++)
	{
		uint32		buffer = chunk->refs[i].buffer;

		if (nruns > 0 &&
			buffer == runs[nruns - 1].buffer + runs[nruns - 1].npages)
		{
			runs[nruns - 1].npages++;
			continue;
		}
		if (nruns > 0 && buffer < runs[nruns - 1].buffer)
			sorted = false;
		runs[nruns].buffer = buffer;
		runs[nruns].first = i;
		runs[nruns].npages = 1;
		nruns++;
	}
	if (sorted)
	{
		pfree(runs);
		return;
	}
	qsort(runs, nruns, sizeof(BufferRun), compare_runs);

	refs = palloc(sizeof(XpuPageRef) * n);
	buffers = palloc(sizeof(Buffer) * n);
	blknos = palloc(sizeof(BlockNumber) * n);
	at = 0;
	for (i = 0; i < nruns; i++)
	{
		const BufferRun *r = &runs[i];

		memcpy(refs + at, chunk->refs + r->first, sizeof(XpuPageRef) * r->npages);
		memcpy(buffers + at, chunk->buffers + r->first, sizeof(Buffer) * r->npages);
		memcpy(blknos + at, chunk->blknos + r->first, sizeof(BlockNumber) * r->npages);
		at += r->npages;
	}
	Assert(at == n);
	memcpy(chunk->refs, refs, sizeof(XpuPageRef) * n);
	memcpy(chunk->buffers, buffers, sizeof(Buffer) * n);
	memcpy(chunk->blknos, blknos, sizeof(BlockNumber) * n);
	pfree(refs);
	pfree(buffers);
	pfree(blknos);
	pfree(runs);
}
