/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-kernel API for counting a cgroup: kernel code (a scheduling class
 * or policy, a container runtime's module) has kpmc count a cgroup v2 and
 * everything below it on every CPU, as kpmc -G counts it, and reads the
 * totals whenever it wants, without a session or records. It shares the
 * counters with kpmc's other system-wide counting (the same events, 8 at
 * once) and excludes per-thread counting meanwhile.
 * tests/kmod/kpmc_cgq.c is a user of it.
 */
#ifndef KPMC_CGROUP_COUNT_H
#define KPMC_CGROUP_COUNT_H

#include <linux/types.h>
#include <uapi/linux/kpmc.h>

struct cgroup;
struct kpmc_cgroup_count;

/**
 * kpmc_cgroup_count_start() - count a cgroup on every CPU
 * @cgrp: the cgroup (v2); kpmc takes a reference of its own
 * @config: one event set as /proc/kpmc/config takes it ("pmc1=0x8",
 *	"pmc0,pmc1=0x11,usr1=1,os1=0"); no ebs, no format
 * @why: filled with the reason when it is refused
 * @len: the size of @why
 *
 * Context: process context; it may sleep.
 * Return: a handle, or an ERR_PTR: -ENODEV (no PMU), -EINVAL (the
 * configuration), -EBUSY (the counters are taken: threads counted per
 * thread, other events counted system-wide, or 8 counting already),
 * -EOPNOTSUPP (a kernel without cgroups).
 */
struct kpmc_cgroup_count *kpmc_cgroup_count_start(struct cgroup *cgrp, const char *config,
						  char *why, size_t len);

/**
 * kpmc_cgroup_count_read() - the counts so far
 * @h: a handle of kpmc_cgroup_count_start()
 * @counts: KPMC_MAX_COUNTERS values, by pmc number
 * @run_ns: the time the cgroup's tasks ran
 *
 * Each CPU's counts as of its last fold (at a switch into or out of the
 * cgroup, or its 50 ms timer), so at most that old.
 *
 * Context: any, IRQs off included.
 * Return: the mask of the pmcN configured.
 */
u32 kpmc_cgroup_count_read(const struct kpmc_cgroup_count *h, u64 *counts, u64 *run_ns);

/**
 * kpmc_cgroup_count_stop() - stop counting and free the handle
 * @h: a handle of kpmc_cgroup_count_start()
 * @counts: the final counts (each CPU folds at the stop), or NULL
 * @run_ns: the final run time (with @counts)
 *
 * Context: process context; it may sleep.
 */
void kpmc_cgroup_count_stop(struct kpmc_cgroup_count *h, u64 *counts, u64 *run_ns);

#endif
