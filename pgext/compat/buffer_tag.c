/*-------------------------------------------------------------------------
 *
 * buffer_tag.c
 *		The buffer mapping tag of a relation's block.
 *
 * 16 replaced the INIT_BUFFERTAG() macro, which took a RelFileNode, by
 * InitBufferTag(), which takes a RelFileLocator.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "storage/buf_internals.h"
#include "utils/rel.h"

#include "compat/pg_compat.h"

void
pgstrom_init_buffer_tag(BufferTag *tag, Relation rel, ForkNumber forknum,
						BlockNumber blkno)
{
#if PG_VERSION_NUM >= 160000
	InitBufferTag(tag, &rel->rd_locator, forknum, blkno);
#else
	INIT_BUFFERTAG(*tag, rel->rd_node, forknum, blkno);
#endif
}
