/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which processes the configuration names, found in /proc (command name,
 * pid, cgroup v2 path, owner), and what their labels say: the Slurm job and
 * step, from the cgroup slurmstepd put the process in.
 *
 * Nothing a monitored process can write decides its labels: the process's
 * environment is never read (any process could claim any job in it), and a
 * job is taken only from a cgroup path under slurmstepd's own scope, which
 * only root (slurmd) creates.
 *
 * The scan is cheap per process: stat (command name, start time) always;
 * status (uids) only when a selector needs the owner; cgroup only when a
 * selector needs it or the process is selected, and then once in the
 * process's life (cached by pid and start time).
 */
#ifndef KPMC_PMDA_SCAN_H
#define KPMC_PMDA_SCAN_H

#include <stddef.h>
#include <sys/types.h>

#include "pmda_config.h"

struct kpmc_pmda_proc_info {
	char comm[16];
	char job[64];		/* Slurm job id ("42"), or "" */
	char step[32];		/* Slurm step ("0", "batch", "extern"), or "" */
	char cgroup[192];	/* the cgroup v2 path ("0::" line), or "" */
	uid_t uid, euid;	/* real and effective */
	unsigned long long start;	/* start time since boot, clock ticks */
};

/* What a scan remembers of a process (pid, start time): its cgroup and job. */
struct kpmc_pmda_scan_entry {
	pid_t pid;
	unsigned long long start;
	char job[64];
	char step[32];
	char cgroup[192];
	unsigned int seen;	/* the scan generation that last saw it */
};

struct kpmc_pmda_scan_cache {
	struct kpmc_pmda_scan_entry *v;	/* sorted by pid */
	unsigned int n;
	size_t cap;
	unsigned int gen;
};

/*
 * What /proc says of pid (stat, status, cgroup; never environ): 0, or -1
 * when it is gone (or unreadable).
 */
int kpmc_pmda_proc_info(const char *proc, pid_t pid, struct kpmc_pmda_proc_info *info);

/* The start time of pid (/proc/PID/stat): 0, or -1 when it is gone. */
int kpmc_pmda_proc_start(const char *proc, pid_t pid, unsigned long long *start);

/*
 * The Slurm job and step of a process from its /proc/PID/cgroup text: a
 * "job_N" component (N decimal) directly below slurmstepd's scope in cgroup
 * v2 (/system.slice/slurmstepd.scope/job_N/step_S/..., or
 * /slurmstepd.scope/... when slurmd runs outside systemd, with any
 * "NODE_slurmstepd.scope" of a multiple-slurmd node), or below
 * /slurm/uid_U/ (or /slurm_NODE/uid_U/) in a cgroup v1 hierarchy. A path
 * elsewhere (a user's delegated subtree, say) names no job. 1 with job and
 * step set (step "" when none), else 0 with both "".
 */
int kpmc_pmda_slurm_job(const char *cgroup_text, char *job, size_t jlen, char *step, size_t slen);

/*
 * Does the process match one of c's selectors (user names resolved in
 * uids[])? info must be complete. A process is a user's when its real and
 * effective uids are both that user's (a setuid program a user runs is not
 * the user's).
 */
int kpmc_pmda_selected(const struct kpmc_pmda_config *c, const uid_t *uids, pid_t pid,
		       const struct kpmc_pmda_proc_info *info);

/*
 * Call fn for every thread (tid) of every process in proc that c selects,
 * except the process skip (the agent itself). cache (zeroed at first)
 * carries what earlier scans read; entries of processes gone are dropped.
 * The number of processes selected.
 */
int kpmc_pmda_scan(const char *proc, const struct kpmc_pmda_config *c, const uid_t *uids,
		   pid_t skip, struct kpmc_pmda_scan_cache *cache,
		   void (*fn)(pid_t pid, pid_t tid, const struct kpmc_pmda_proc_info *info, void *arg),
		   void *arg);

/*
 * pid's info as the last scan found it, start time checked against /proc
 * (stat; status for the uids): 0, or -1 when the scan has not seen that
 * process (then kpmc_pmda_proc_info, which reads its cgroup).
 */
int kpmc_pmda_scan_info(const char *proc, const struct kpmc_pmda_scan_cache *cache, pid_t pid,
			struct kpmc_pmda_proc_info *info);

/*
 * Did the last scan see the process pid alive with start time start (0:
 * any)? True of every process it selected (and of those whose cgroup it
 * read); then /proc need not be asked again whether it lives.
 */
int kpmc_pmda_scan_saw(const struct kpmc_pmda_scan_cache *cache, pid_t pid, unsigned long long start);

void kpmc_pmda_scan_cache_free(struct kpmc_pmda_scan_cache *cache);

#endif
