// SPDX-License-Identifier: GPL-2.0
#include "memtopo.h"

#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>

struct kpmc_memtopo {
	hwloc_topology_t topo;
};

struct kpmc_memtopo *kpmc_memtopo_load(char *why, size_t len)
{
	struct kpmc_memtopo *t = calloc(1, sizeof(*t));

	if (!t) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	if (hwloc_topology_init(&t->topo)) {
		snprintf(why, len, "hwloc_topology_init failed");
		free(t);
		return NULL;
	}
	/* The CPUs the run's samples name may be outside kpmc's own cpuset. */
	hwloc_topology_set_flags(t->topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
	if (hwloc_topology_load(t->topo)) {
		snprintf(why, len, "hwloc_topology_load failed");
		hwloc_topology_destroy(t->topo);
		free(t);
		return NULL;
	}
	return t;
}

void kpmc_memtopo_free(struct kpmc_memtopo *t)
{
	if (!t)
		return;
	hwloc_topology_destroy(t->topo);
	free(t);
}

static int ancestor_index(hwloc_topology_t topo, hwloc_obj_t pu, hwloc_obj_type_t type)
{
	hwloc_obj_t o = hwloc_get_ancestor_obj_by_type(topo, type, pu);

	return o ? (int)o->logical_index : -1;
}

int kpmc_memtopo_place(struct kpmc_memtopo *t, unsigned int cpu, struct kpmc_cpu_place *p)
{
	hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(t->topo, cpu), o;
	hwloc_obj_t numa = NULL;

	p->core = p->package = p->numa = p->llc = -1;
	p->llc_depth = 0;
	if (!pu)
		return -1;
	p->core = ancestor_index(t->topo, pu, HWLOC_OBJ_CORE);
	p->package = ancestor_index(t->topo, pu, HWLOC_OBJ_PACKAGE);
	/* The outermost data or unified cache above the PU: the LLC domain. */
	for (o = pu->parent; o; o = o->parent)
		if (hwloc_obj_type_is_dcache(o->type)) {
			p->llc = (int)o->logical_index;
			p->llc_depth = (int)o->attr->cache.depth;
		}
	/* NUMA nodes hang off the tree as memory children: the first one local to the PU. */
	while ((numa = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_NUMANODE, numa)))
		if (hwloc_bitmap_isset(numa->cpuset, cpu)) {
			p->numa = (int)numa->logical_index;
			break;
		}
	return 0;
}

void kpmc_memtopo_summary(struct kpmc_memtopo *t, char *out, size_t len)
{
	int pk = hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_PACKAGE);
	int co = hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_CORE);
	int pu = hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_PU);
	int nn = hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_NUMANODE);

	snprintf(out, len, "%d package%s, %d core%s, %d PU%s, %d NUMA node%s", pk, pk == 1 ? "" : "s",
		 co, co == 1 ? "" : "s", pu, pu == 1 ? "" : "s", nn, nn == 1 ? "" : "s");
}
