/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cgroups counted as a whole (the `cgroups PATTERN` directive): every cgroup
 * v2 directory a pattern names is counted by the module's cgroup counting
 * (enable cgroup=FD in the agent's one session: the counters run while a
 * task of it, or of one below it, runs), found again at every rescan, and
 * served as kpmc.cgroup.*, an instance a cgroup, labelled with its path and
 * the Slurm job and step the path names (slurmd makes .../job_N/step_S). No
 * process is looked at: the cgroup is what the kernel says a task is in.
 *
 * The session's CPU records carry which start counted them (their detail:
 * the session's 1, 2, ... in the order of its accepted enable writes), which
 * is how a record finds its cgroup. The module counts up to 8 of them at
 * once, all with the session's events.
 */
#ifndef KPMC_PMDA_CGROUPS_H
#define KPMC_PMDA_CGROUPS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <uapi/linux/kpmc.h>

#include "pmda_config.h"
#include "pmda_counts.h"

/* A cgroup the module refused is tried again this much later. */
#define KPMC_PMDA_CGROUP_RETRY_S	30

/* A cgroup matched: an instance once counted (id != 0). */
struct kpmc_pmda_cgroup {
	unsigned int inst;			/* instance id, kept for its life */
	char path[KPMC_PMDA_CGROUP_PATH_MAX];	/* as /proc/PID/cgroup shows it */
	char job[32], step[32];			/* Slurm's, from the path, or "" */
	uint32_t id;				/* its start in the session (records' detail); 0: refused */
	time_t retry;				/* refused: not tried again before */
	time_t ended;				/* 0 while its directory is there */
	int seen;				/* found by the current scan */
	struct kpmc_pmda_totals t;
};

/*
 * Starting and stopping in the module, through the caller (the agent's
 * session, or a test's fake): start: 0, or -errno with the module's reason
 * in why; stop: the counting of start id ends (its last records follow).
 */
struct kpmc_pmda_cgroup_ops {
	int (*start)(int dir_fd, char *why, size_t len, void *arg);
	void (*stop)(uint32_t id, void *arg);
	void *arg;
};

struct kpmc_pmda_cgroups {
	struct kpmc_pmda_cgroup *v;
	size_t n, cap;
	unsigned int next_inst;
	uint32_t starts;			/* accepted starts so far: the last id */
	int changed;				/* instances came or went since the flag was cleared */
	unsigned long refused;			/* starts the module refused */
	char refusal[KPMC_PMDA_CGROUP_PATH_MAX + 208];	/* the last refusal: "PATH: why" */
};

/*
 * Match the patterns of c below root (the cgroup v2 mount; a test's
 * directory): a directory matched for the first time is counted, one gone
 * since the last scan stops counting (its totals stay until expired). The
 * number of cgroups counted now.
 */
int kpmc_pmda_cgroups_scan(struct kpmc_pmda_cgroups *g, const char *root,
			   const struct kpmc_pmda_config *c, const struct kpmc_pmda_cgroup_ops *ops,
			   time_t now);

/* A record of the session: a CPU record of one of g's starts adds to its totals. */
void kpmc_pmda_cgroups_add(struct kpmc_pmda_cgroups *g, const struct kpmc_record *r);

/* Forget cgroups gone more than grace_s seconds before now (refused ones at once). */
void kpmc_pmda_cgroups_expire(struct kpmc_pmda_cgroups *g, time_t now, unsigned int grace_s);

const struct kpmc_pmda_cgroup *kpmc_pmda_cgroups_find(const struct kpmc_pmda_cgroups *g,
						      unsigned int inst);

/* Forget all (the session's starts end with it). */
void kpmc_pmda_cgroups_free(struct kpmc_pmda_cgroups *g);

#endif
