/*-------------------------------------------------------------------------
 *
 * gpujoin_inner_group.c
 *		One build of the inner rows for all the leaves' nodes of a
 *		partitioned outer side.
 *
 * gpujoin_partition.c gives every leaf's node of one Append the same inner
 * plans (copies of the template's), keys and payload, and the same nonzero
 * inner_group.  Building the inner rows once per leaf ran every inner plan
 * once per partition: 84 times for a table partitioned by month over seven
 * years, which made the planner keep all but the smallest dimension on the
 * CPU.  So the leaves of a group build once per query:
 *
 *	serial plan		the first leaf's node that builds keeps its rows (in its
 *					inner_cxt, which lives as long as the query); the others
 *					point at them and run no inner plan;
 *	parallel plan	each leaf's node is run whole by one participant; the
 *					leader names the first leaf's node of the group as its
 *					owner in every leaf's GpuJoinShared, and every
 *					participant builds through the owner's GpuJoinShared,
 *					found in the parallel query's table of contents.  The
 *					build runs once, by whichever participants come to it,
 *					and its blocks in the query's DSA serve every leaf.
 *					A partial depth (a leaf's copy under a Parallel Append
 *					has partial inner plans where the inner relations
 *					have them) is run by every participant that builds,
 *					from the owner's copy of the plan, which every
 *					participant initialized with the Append; any other
 *					depth is run whole by one participant.
 *
 * In every process only the first node of a group to start (the first in
 * the Append's order, the same in every participant) starts the inner
 * plans; the group's other nodes run its planstates
 * (gpujoin_group_plans_host), so a partial depth's copy is one plan node,
 * whose parallel scan all participants share, whichever the owner.
 *
 * The group's rows have one key on the device (XpuJoinDesc.inner_key, a
 * random secret of the execution like a plan_id), so a leaf's session
 * finds them loaded when another leaf's session of the same device still
 * holds them, and does not send them again.
 *
 * Only inner plans that take no parameter from outside are shared, so a
 * rescan never needs to rebuild them; a node whose layout differs from the
 * owner's (which the planner does not make) builds its own.
 *
 * The range of each inner key, by which every leaf decides whether its
 * partition can join at all (gpujoin_prune.c), is taken once per build of
 * the group's rows in each process, not once per leaf.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/bitmapset.h"
#include "utils/memutils.h"

#include "core/pg_strom.h"
#include "gpujoin/gpujoin.h"

/* one inner group of one execution (EState) in this process */
typedef struct InnerGroup
{
	struct InnerGroup *next;
	EState	   *estate;
	int			group;
	int			owner_node_id;	/* parallel: the leader's choice */
	GpuJoinState *owner;		/* serial: the node whose rows are lent */
	List	   *members;		/* parallel: the group's nodes in this
								 * process (GpuJoinState *) */
	uint64		inner_key;		/* serial: the rows' key on the device */
	GpuJoinState *plans_host;	/* the node whose inner planstates the
								 * group's nodes in this process use */
	bool		plans_ran;		/* serial: a build ran them */
	uint64		ranges_key;		/* the inner key of the rows ranged */
	GpuJoinKeyRange ranges[GPUJOIN_MAX_DEPTHS][GPUJOIN_MAX_KEYS];
	MemoryContextCallback forget;
} InnerGroup;

static InnerGroup *inner_groups = NULL;

/* a new inner_group for the leaves of one template (planner) */
int
gpujoin_next_inner_group(void)
{
	static int	last_group = 0;

	if (last_group == PG_INT32_MAX)
		last_group = 0;
	return ++last_group;
}

/* the execution's state is going away: so is the entry */
static void
forget_group(void *arg)
{
	InnerGroup **p;

	for (p = &inner_groups; *p != NULL; p = &(*p)->next)
	{
		if (*p == (InnerGroup *) arg)
		{
			*p = (*p)->next;
			break;
		}
	}
}

static InnerGroup *
find_group(GpuJoinState *gjs, bool create)
{
	EState	   *estate = gjs->task->css.ss.ps.state;
	InnerGroup *g;

	for (g = inner_groups; g != NULL; g = g->next)
	{
		if (g->estate == estate && g->group == gjs->info->inner_group)
			return g;
	}
	if (!create)
		return NULL;
	g = MemoryContextAllocZero(estate->es_query_cxt, sizeof(InnerGroup));
	g->estate = estate;
	g->group = gjs->info->inner_group;
	g->forget.func = forget_group;
	g->forget.arg = g;
	MemoryContextRegisterResetCallback(estate->es_query_cxt, &g->forget);
	g->next = inner_groups;
	inner_groups = g;
	return g;
}

/*
 * Does the inner plan take a parameter from outside?  In a parallel plan a
 * partial inner plan depends on the Gather's rescan signal, a parameter
 * without a type that no expression reads; it changes only when the Gather
 * is rescanned, which builds the rows again anyway (gpujoin_reset_shared).
 */
static bool
takes_outside_params(GpuJoinState *gjs, Plan *plan, bool parallel)
{
	List	   *types = gjs->task->css.ss.ps.state->es_plannedstmt->paramExecTypes;
	int			x = -1;

	if (!parallel)
		return !bms_is_empty(plan->extParam);
	while ((x = bms_next_member(plan->extParam, x)) >= 0)
	{
		if (x >= list_length(types) || OidIsValid(list_nth_oid(types, x)))
			return true;
	}
	return false;
}

/* one of the node's inner plans takes a parameter a rescan could change */
static bool
plans_take_outside_params(GpuJoinState *gjs, bool parallel)
{
	ListCell   *lc;

	foreach(lc, gjs->inner_plans)
	{
		if (takes_outside_params(gjs, lfirst(lc), parallel))
			return true;
	}
	return false;
}

static bool
shareable(GpuJoinState *gjs)
{
	return gjs->info->inner_group != 0 &&
		!plans_take_outside_params(gjs, gjs->jshared != NULL);
}

/*
 * The plans are copies of the host's (the same paths made them): a node
 * may run the host's planstates in its place.
 */
static bool
same_plans(GpuJoinState *host, GpuJoinState *gjs)
{
	ListCell   *lc;
	int			d = 0;

	if (host->info->ndepths != list_length(gjs->inner_plans))
		return false;
	foreach(lc, gjs->inner_plans)
	{
		Plan	   *mine = lfirst(lc);
		Plan	   *theirs;

		if (host->inner_ps[d] == NULL)
			return false;
		theirs = host->inner_ps[d]->plan;
		if (nodeTag(mine) != nodeTag(theirs) ||
			mine->parallel_aware != theirs->parallel_aware ||
			mine->plan_rows != theirs->plan_rows ||
			list_length(mine->targetlist) != list_length(theirs->targetlist) ||
			!bms_equal(mine->extParam, theirs->extParam) ||
			gjs->info->depths[d].inner_partial != host->info->depths[d].inner_partial)
			return false;
		d++;
	}
	return true;
}

/*
 * ExecInit, before the node starts its inner plans: the node of its group
 * in this process whose inner planstates it uses, or NULL to start its
 * own.  The first node of a group to start starts them; the others' plans
 * are copies of the same paths and their group builds its rows once per
 * query, so starting 84 copies of every inner plan in every participant
 * (one per leaf of a table partitioned by month) would only cost time.
 * Each node keeps its own key expressions and slots.
 */
GpuJoinState *
gpujoin_group_plans_host(GpuJoinState *gjs)
{
	InnerGroup *g;

	if (gjs->info->inner_group == 0 ||
		plans_take_outside_params(gjs, gjs->task->css.ss.ps.plan->parallel_aware))
		return NULL;
	g = find_group(gjs, true);
	if (g->plans_host == NULL)
	{
		g->plans_host = gjs;
		return NULL;
	}
	if (g->plans_host == gjs || !same_plans(g->plans_host, gjs))
		return NULL;
	return g->plans_host;
}

/*
 * A serial build is about to run the node's inner plans: when they are
 * its group's shared planstates and another build ran them (a node that
 * builds rows of its own), they start over.
 */
void
gpujoin_group_rewind_plans(GpuJoinState *gjs)
{
	InnerGroup *g;
	int			d;

	if (gjs->info->inner_group == 0)
		return;
	g = find_group(gjs, false);
	if (g == NULL || (g->plans_host != gjs && gjs->inner_plans_host == NULL))
		return;
	if (g->plans_ran)
	{
		for (d = 0; d < gjs->info->ndepths; d++)
			ExecReScan(gjs->inner_ps[d]);
	}
	g->plans_ran = true;
}

static int
node_id(GpuJoinState *gjs)
{
	return gjs->task->css.ss.ps.plan->plan_node_id;
}

/*
 * The leader, as it sets up a leaf's GpuJoinShared (zeroed: no group): the
 * group's owner is the first of its nodes set up.
 */
void
gpujoin_group_initialize_dsm(GpuJoinState *gjs)
{
	InnerGroup *g;

	if (!shareable(gjs))
		return;
	g = find_group(gjs, true);
	if (g->owner_node_id == 0)
	{
		g->owner_node_id = node_id(gjs);
		gjs->jshared->group_inner_key = gpu_task_random_plan_id();
	}
	gjs->jshared->group_owner = g->owner_node_id;
}

/*
 * A parallel plan, in every participant as the node attaches to its
 * GpuJoinShared: the node is one of its group's in this process.
 */
void
gpujoin_group_attach(GpuJoinState *gjs)
{
	InnerGroup *g;
	MemoryContext oldcxt;

	if (!shareable(gjs))
		return;
	g = find_group(gjs, true);
	oldcxt = MemoryContextSwitchTo(gjs->task->css.ss.ps.state->es_query_cxt);
	g->members = lappend(g->members, gjs);
	MemoryContextSwitchTo(oldcxt);
}

/*
 * The owner's copy of depth d's inner plan in this process, which a
 * grouped build runs for a partial depth.
 */
PlanState *
gpujoin_group_owner_inner(GpuJoinState *gjs, int d)
{
	int			owner_id = gjs->build_js->group_owner;
	InnerGroup *g;
	ListCell   *lc;

	if (owner_id == node_id(gjs))
		return gjs->inner_ps[d];
	g = find_group(gjs, false);
	if (g != NULL)
	{
		foreach(lc, g->members)
		{
			GpuJoinState *member = lfirst(lc);

			if (node_id(member) == owner_id)
				return member->inner_ps[d];
		}
	}
	elog(ERROR, "GpuJoin: plan node %d, whose inner plans build this node's inner rows, is not set up in this process",
		 owner_id);
	return NULL;				/* keep compiler quiet */
}

/*
 * A rescan of the parallel plan (the DSM reinitialized): the owner's rows
 * are built again, under a new key.
 */
void
gpujoin_group_reset(GpuJoinState *gjs)
{
	GpuJoinShared *js = gjs->jshared;

	if (js != NULL && js->group_owner != 0 && js->group_owner == node_id(gjs))
		js->group_inner_key = gpu_task_random_plan_id();
}

/*
 * The GpuJoinShared whose build makes this node's inner rows: the group
 * owner's (GpuJoin and the fused GpuPreAgg both start their DSM with it),
 * or the node's own.
 */
GpuJoinShared *
gpujoin_group_build_shared(GpuJoinState *gjs)
{
	GpuJoinShared *js = gjs->jshared;
	void	   *owner;

	if (js == NULL || js->group_owner == 0 || js->group_owner == node_id(gjs) ||
		gjs->toc == NULL)
		return js;
	owner = shm_toc_lookup(gjs->toc, js->group_owner, true);
	if (owner == NULL)
		elog(ERROR, "GpuJoin: the shared state of plan node %d, which builds this node's inner rows, is missing",
			 js->group_owner);
	return (GpuJoinShared *) owner;
}

/* the slots of every depth are laid out as the owner's */
static bool
same_layout(GpuJoinState *gjs, GpuJoinState *owner)
{
	int			d;

	if (owner->info->ndepths != gjs->info->ndepths)
		return false;
	for (d = 0; d < gjs->info->ndepths; d++)
	{
		GpuJoinInner *mine = &gjs->inner[d];
		GpuJoinInner *theirs = &owner->inner[d];

		gpujoin_init_inner(gjs, d);
		if (mine->nkeys != theirs->nkeys || mine->nslots != theirs->nslots ||
			memcmp(mine->key_xtype, theirs->key_xtype,
				   sizeof(int16) * mine->nslots) != 0 ||
			gjs->npayload[d] != owner->npayload[d] ||
			memcmp(gjs->payload_resno[d], owner->payload_resno[d],
				   sizeof(AttrNumber) * gjs->npayload[d]) != 0)
			return false;
	}
	return true;
}

/*
 * A serial plan: points the node at the rows another leaf's node of its
 * group built in this execution; false when it must build its own.
 */
bool
gpujoin_group_borrow(GpuJoinState *gjs)
{
	InnerGroup *g;

	if (gjs->jshared != NULL || !shareable(gjs))
		return false;
	g = find_group(gjs, false);
	if (g == NULL || g->owner == NULL || g->owner == gjs ||
		!g->owner->inner_built)
		return false;
	if (!same_layout(gjs, g->owner))
	{
		memset(gjs->inner, 0, sizeof(gjs->inner));
		return false;
	}
	memcpy(gjs->inner, g->owner->inner, sizeof(gjs->inner));
	return true;
}

/* a serial plan: the node built its rows; the others of its group may use them */
void
gpujoin_group_lend(GpuJoinState *gjs)
{
	InnerGroup *g;

	if (gjs->jshared != NULL || !shareable(gjs))
		return;
	g = find_group(gjs, true);
	if (g->owner == NULL)
	{
		g->owner = gjs;
		g->inner_key = gpu_task_random_plan_id();
	}
}

/*
 * The key of the node's inner rows on the device once they are built: the
 * group's when the node builds or borrows them with its group, else 0.
 */
uint64
gpujoin_group_inner_key(GpuJoinState *gjs)
{
	InnerGroup *g;

	if (gjs->jshared != NULL)
	{
		GpuJoinShared *bjs = gjs->build_js ? gjs->build_js : gjs->jshared;

		return bjs->group_owner != 0 ? bjs->group_inner_key : 0;
	}
	if (!shareable(gjs))
		return 0;
	g = find_group(gjs, false);
	if (g == NULL || g->owner == NULL)
		return 0;
	/* a node that built its own rows (a layout of its own) keys them so */
	if (g->owner != gjs &&
		gjs->inner[0].tuple_offsets != g->owner->inner[0].tuple_offsets)
		return 0;
	return g->inner_key;
}

/*
 * The group's record of depth d's key k over the rows the node uses, to be
 * filled (inner_key NULL) or read; NULL when the node's rows are not its
 * group's.  The key of the rows on the device names one build of them, so
 * a rebuild (a rescan) starts a new record.
 */
GpuJoinKeyRange *
gpujoin_group_key_range(GpuJoinState *gjs, int d, int k)
{
	InnerGroup *g;

	if (gjs->inner_key == 0 || gjs->info->inner_group == 0)
		return NULL;
	g = find_group(gjs, true);
	if (g->ranges_key != gjs->inner_key)
	{
		memset(g->ranges, 0, sizeof(g->ranges));
		g->ranges_key = gjs->inner_key;
	}
	return &g->ranges[d][k];
}
