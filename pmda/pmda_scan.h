/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which processes the configuration names, found in /proc (command name,
 * pid, cgroup v2 path, owner), and what their labels say: the Slurm job
 * (SLURM_JOB_ID in the environment) and the cgroup.
 */
#ifndef KPMC_PMDA_SCAN_H
#define KPMC_PMDA_SCAN_H

#include <stddef.h>
#include <sys/types.h>

#include "pmda_config.h"

struct kpmc_pmda_proc_info {
	char comm[16];
	char job[64];
	char cgroup[192];
	uid_t uid;
	unsigned long long start;	/* start time since boot, clock ticks */
};

/* What /proc says of pid: 0, or -1 when it is gone (or unreadable). */
int kpmc_pmda_proc_info(const char *proc, pid_t pid, struct kpmc_pmda_proc_info *info);

/* Does the process match one of c's selectors (user names resolved in uids[])? */
int kpmc_pmda_selected(const struct kpmc_pmda_config *c, const uid_t *uids, pid_t pid,
		       const struct kpmc_pmda_proc_info *info);

/*
 * Call fn for every thread (tid) of every process in proc that c selects,
 * except the process skip (the agent itself). The number of processes
 * selected.
 */
int kpmc_pmda_scan(const char *proc, const struct kpmc_pmda_config *c, const uid_t *uids,
		   pid_t skip,
		   void (*fn)(pid_t pid, pid_t tid, const struct kpmc_pmda_proc_info *info, void *arg),
		   void *arg);

#endif
