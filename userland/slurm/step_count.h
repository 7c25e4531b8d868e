/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counting one Slurm job step on one node: the step's cgroup counted
 * through the node's kpmc (enable cgroup=FD: every CPU counts while a task
 * of the step's cgroup runs there, as perf's cgroup events), the totals
 * taken from the CPUs' records when counting stops. What names the step is
 * its cgroup, which slurmstepd made: never the tasks' environment.
 * Slurm's own calls are in kpmc_spank.c; the files written in step_report.c.
 */
#ifndef KPMC_STEP_COUNT_H
#define KPMC_STEP_COUNT_H

#include <stddef.h>
#include <stdint.h>
#include <uapi/linux/kpmc.h>

#define KPMC_STEP_EVENTS_MAX 512

struct kpmc_step_count {
	int fd;					/* /proc/kpmc/monitor, -1: none */
	int counting;				/* enable cgroup= was taken */
	char raw[1024];				/* the set as the kernel took it */
	char counter_name[KPMC_MAX_COUNTERS][96];	/* pmcN: its event as given */
	uint32_t counter_mask;			/* counters any record carried */
	uint64_t counts[KPMC_MAX_COUNTERS];
	uint64_t run_ns;			/* CPU time the step's tasks ran, over all CPUs */
	uint64_t records, lost;
};

/*
 * --kpmc=EVENTS: the events as kpmc -c takes them (names, with :u or :k,
 * or raw pmcN=...), one set. Checked here for what needs no module (length,
 * characters, one set); 0, or -1 with why in err.
 */
int kpmc_step_parse_option(const char *arg, char *events, size_t len, char *err, size_t elen);

/*
 * Does raw (the kernel's form) count kernel mode (an osN=1 token)? The step
 * is counted by root, on behalf of its user: kernel mode only where
 * perf_event_paranoid lets anyone count their own tasks' kernel mode (<= 1).
 */
int kpmc_step_counts_kernel(const char *raw);

/*
 * The step's cgroup from a task's /proc/PID/cgroup text (cgroup v2: the
 * "0::" line): the path below the cgroup root up to and including the
 * "step_..." directory that follows "job_JOBID" (Slurm's cgroup/v2 layout:
 * .../job_N/step_S/user/task_T). out: that path ("/system.slice/...
 * /job_N/step_S"), step: what follows "step_" ("0", "batch", "extern").
 * 0, or -1 when the text has no such directory.
 */
int kpmc_step_cgroup_path(const char *text, uint32_t jobid, char *out, size_t len, char *step,
			  size_t slen);

/*
 * Start counting cgroup_fd (an open directory of the step's cgroup) with
 * events: the session opened, the configuration written, enable cgroup=FD.
 * 0, or -errno (-1 where there is none) with why in err (the module's own
 * reason where it refused; -EBUSY: the node's counters are taken).
 */
int kpmc_step_start(struct kpmc_step_count *s, const char *events, int cgroup_fd, char *err,
		    size_t len);

/* One record of the session into the totals (CPU records; LOST counted). */
void kpmc_step_add_record(struct kpmc_step_count *s, const struct kpmc_record *r);

/*
 * Stop counting (every CPU sends what it counted since its last record),
 * take the records into the totals and close the session. 0, or -1 with
 * why in err.
 */
int kpmc_step_finish(struct kpmc_step_count *s, char *err, size_t len);

#endif
