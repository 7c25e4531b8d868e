/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a CPU sits in the machine (memtopo.c, through hwloc): its core,
 * package (socket), NUMA node and last-level-cache domain (a cluster or an
 * AMD CCX), for kpmc mem's topology view.
 */
#ifndef KPMC_MEMTOPO_H
#define KPMC_MEMTOPO_H

#include <stddef.h>

/* hwloc's logical indices (0, 1, ... in topology order); -1: the machine has no such level. */
struct kpmc_cpu_place {
	int core, package, numa, llc;
	int llc_depth;			/* the last-level cache: 3 for L3, 2 for L2... */
};

struct kpmc_memtopo;

/* This machine's topology; NULL with why if hwloc cannot read it. */
struct kpmc_memtopo *kpmc_memtopo_load(char *why, size_t len);
void kpmc_memtopo_free(struct kpmc_memtopo *t);
/* Where OS CPU number cpu is: 0, or -1 if the topology has no such CPU. */
int kpmc_memtopo_place(struct kpmc_memtopo *t, unsigned int cpu, struct kpmc_cpu_place *p);
/* hwloc's one-line summary: "1 package, 4 cores, 4 PUs, 1 NUMA node". */
void kpmc_memtopo_summary(struct kpmc_memtopo *t, char *out, size_t len);

#endif
