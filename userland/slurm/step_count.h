/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What names and limits the counting of a Slurm job step on one node: the
 * option's events, the step's cgroup (which slurmstepd made: never the
 * tasks' environment), kernel mode. The counting itself is
 * common/cgroup_count.h's; Slurm's own calls are in kpmc_spank.c, the
 * files written in step_report.c.
 */
#ifndef KPMC_STEP_COUNT_H
#define KPMC_STEP_COUNT_H

#include <stddef.h>
#include <stdint.h>

#define KPMC_STEP_EVENTS_MAX 512

/*
 * --kpmc=EVENTS: the events as kpmc -c takes them (names, with :u or :k,
 * or raw pmcN=...), one set. Checked here for what needs no module (length,
 * characters, one set); 0, or -1 with why in err.
 */
int kpmc_step_parse_option(const char *arg, char *events, size_t len, char *err, size_t elen);

/*
 * --kpmc=EVENTS,interval=MS: counts over time too, every MS ms (10 to
 * 3600000) of each CPU's time. The interval=MS token is taken out of events
 * (*interval_ms: MS, or 0 without one); a tbs= token is refused (the
 * interval is the plugin's to set). 0, or -1 with why in err.
 */
int kpmc_step_take_interval(char *events, unsigned int *interval_ms, char *err, size_t elen);

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

#endif
