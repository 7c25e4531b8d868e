// SPDX-License-Identifier: GPL-2.0
/*
 * kpmc_cgq path=/CGROUP [config=EVENTS] [pmc=N]: kernel code counting a
 * cgroup through kpmc's in-kernel API (kpmc/cgroup_count.h). At load it has
 * the cgroup (a path below the cgroup v2 root) counted with config
 * (default pmc1=0x8: arm64's INST_RETIRED in user mode); until rmmod a 1 ms
 * hard-IRQ timer (IRQs off, may not sleep) reads the totals, the latest
 * pmcN and run time being module parameters under
 * /sys/module/kpmc_cgq/parameters/; at rmmod it stops and prints
 *   kpmc_cgq: final pmcN=COUNT run_ns=NS reads=R
 * A test module for the stock kernels' tiers (tests/guest/t_arm64_cgroup.sh).
 */
#include <linux/module.h>
#include <linux/cgroup.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include "kpmc/cgroup_count.h"
#include "kpmc/compat.h"

static char *path = "";
module_param(path, charp, 0444);
static char *config = "pmc1=0x8";
module_param(config, charp, 0444);
static int pmc = 1;
module_param(pmc, int, 0444);
static unsigned long long count, run_ns, reads;
module_param(count, ullong, 0444);
module_param(run_ns, ullong, 0444);
module_param(reads, ullong, 0444);

static struct kpmc_cgroup_count *counting;
static struct hrtimer read_timer;

static enum hrtimer_restart read_now(struct hrtimer *t)
{
	u64 counts[KPMC_MAX_COUNTERS], ns;

	kpmc_cgroup_count_read(counting, counts, &ns);
	WRITE_ONCE(count, counts[pmc]);
	WRITE_ONCE(run_ns, ns);
	WRITE_ONCE(reads, reads + 1);
	hrtimer_forward_now(t, ms_to_ktime(1));
	return HRTIMER_RESTART;
}

static int __init kpmc_cgq_init(void)
{
	struct cgroup *cgrp;
	char why[256] = "";

	if (pmc < 0 || pmc >= KPMC_MAX_COUNTERS)
		return -EINVAL;
	cgrp = cgroup_get_from_path(path);
	if (IS_ERR(cgrp)) {
		pr_err("kpmc_cgq: %s: not a cgroup v2 path (%ld)\n", path, PTR_ERR(cgrp));
		return PTR_ERR(cgrp);
	}
	counting = kpmc_cgroup_count_start(cgrp, config, why, sizeof(why));
	/* kpmc holds the cgroup while it counts it. */
	cgroup_put(cgrp);
	if (IS_ERR(counting)) {
		pr_err("kpmc_cgq: %s: refused (%ld): %s\n", path, PTR_ERR(counting), why);
		return PTR_ERR(counting);
	}
	kpmc_hrtimer_setup(&read_timer, read_now, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	hrtimer_start(&read_timer, ms_to_ktime(1), HRTIMER_MODE_REL_HARD);
	return 0;
}

static void __exit kpmc_cgq_exit(void)
{
	u64 counts[KPMC_MAX_COUNTERS], ns;

	hrtimer_cancel(&read_timer);
	kpmc_cgroup_count_stop(counting, counts, &ns);
	pr_info("kpmc_cgq: final pmc%d=%llu run_ns=%llu reads=%llu\n", pmc, counts[pmc], ns, reads);
}

module_init(kpmc_cgq_init);
module_exit(kpmc_cgq_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kpmc test: a cgroup counted through the in-kernel API");
