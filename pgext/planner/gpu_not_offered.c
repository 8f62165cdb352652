/*-------------------------------------------------------------------------
 *
 * gpu_not_offered.c
 *		Why the planner offered no GPU node, at DEBUG2.
 *
 * A DBA who expected a GPU plan and got PostgreSQL's asks why; these lines
 * answer with the relation, the clause and the code generator's reason, so
 * `SET client_min_messages = debug2` and an EXPLAIN are enough.  They cost
 * nothing unless DEBUG2 is wanted by the client or the server log.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
#include "optimizer/optimizer.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"

#include "planner/gpu_not_offered.h"

/* is anyone listening at DEBUG2 (the client or the server log)? */
static bool
gpu_not_offered_wanted(void)
{
	return message_level_is_interesting(DEBUG2);
}

/* the relation's name, quoted where SQL would need it */
static const char *
relation_label(Oid reloid)
{
	char	   *name = get_rel_name(reloid);

	if (name == NULL)
		return psprintf("%u", reloid);
	return quote_identifier(name);
}

void
gpu_report_not_offered(const char *node, Oid reloid, const char *reason)
{
	if (!gpu_not_offered_wanted())
		return;
	ereport(DEBUG2,
			(errmsg_internal("%s not offered for relation %s: %s",
							 node, relation_label(reloid), reason)));
}

/*
 * The clause's Vars name the relation by its index in the query's range
 * table, which deparse_context_for does not know: a copy renumbered to 1
 * deparses against a one-entry context for the relation.
 */
void
gpu_report_cpu_clause(const char *node, Oid reloid, Index relid,
					  Expr *clause, const char *reason)
{
	Node	   *copy;
	char	   *name;
	char	   *text;

	if (!gpu_not_offered_wanted())
		return;
	copy = copyObject((Node *) clause);
	if (relid != 1)
		ChangeVarNodes(copy, relid, 1, 0);
	name = get_rel_name(reloid);
	text = deparse_expression(copy, deparse_context_for(name ? name : "?", reloid),
							  false, false);
	ereport(DEBUG2,
			(errmsg_internal("%s on relation %s: WHERE clause %s runs on the CPU: %s",
							 node, relation_label(reloid), text, reason)));
}
