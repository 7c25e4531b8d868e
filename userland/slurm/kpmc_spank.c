// SPDX-License-Identifier: GPL-2.0
/*
 * kpmc.so, a Slurm SPANK plugin: srun/sbatch --kpmc=EVENTS counts the job
 * step's tasks on every node through that node's kpmc module, from the
 * tasks' first instruction to the step's end, and writes each node's
 * totals (step_report.h).
 *
 * In slurmstepd (remote context):
 *   user_init       the events checked against this node's PMU, before
 *                   any task exists: a step that cannot be counted fails
 *                   here, saying why, rather than running uncounted
 *   task_post_fork  (first task) the step's cgroup, which slurmstepd just
 *                   put the task in while the task waits before its exec,
 *                   counted (common/cgroup_count.h); for the batch step, the job's
 *                   cgroup on this node: the script and every step's tasks
 *                   here, as sbatch --kpmc job.sh means (the job's steps,
 *                   which inherit --kpmc, count themselves on every node,
 *                   the batch node too: the module counts several cgroups
 *                   at once with the same events)
 *   exit            counting stopped, the totals written
 * The step is named by Slurm's own items (job id, its cgroup), never by
 * what the tasks say (their environment). Kernel-mode events are counted
 * only where perf_event_paranoid lets users count their own kernel mode.
 *
 * plugstack.conf:  optional /usr/lib/x86_64-linux-gnu/slurm/kpmc.so [spool=DIR]
 */
#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/spank.h>

#include "step_count.h"
#include "step_report.h"
#include "step_series.h"
#include "common/cgroup_count.h"
#include "common/kpmc_proc.h"
#include "common/pfm_events.h"

SPANK_PLUGIN(kpmc, 1);

#define KPMC_SPOOL_DEFAULT "/var/spool/kpmc"

static char events[KPMC_STEP_EVENTS_MAX];
static char spool[200] = KPMC_SPOOL_DEFAULT;
static struct kpmc_cgroup_count count = { .fd = -1 };
static struct kpmc_step_report report;
static int started;
/* --kpmc=...,interval=MS: counts over time, taken by a thread while the step runs. */
static unsigned int interval_ms;
static struct kpmc_step_series series;
static pthread_t drainer;
static int draining;
static volatile int drain_stop;

static int kpmc_opt(int val, const char *optarg, int remote)
{
	char err[256];

	(void)val;
	(void)remote;
	if (kpmc_step_parse_option(optarg, events, sizeof(events), err, sizeof(err)) ||
	    kpmc_step_take_interval(events, &interval_ms, err, sizeof(err))) {
		slurm_error("kpmc: %s", err);
		return -1;
	}
	return 0;
}

static struct spank_option kpmc_option = {
	"kpmc", "EVENTS",
	"Count the step's tasks on each node with kpmc: EVENTS as kpmc -c takes them "
	"(e.g. instr,cycles), and interval=MS for counts over time too; totals in "
	"kpmc-JOB.STEP.NODE.{csv,json} in the submit directory (.series.csv: over time)",
	1, 0, kpmc_opt
};

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	for (int i = 0; i < ac; i++) {
		if (!strncmp(av[i], "spool=", 6) && av[i][6] == '/' && strlen(av[i] + 6) < sizeof(spool)) {
			snprintf(spool, sizeof(spool), "%s", av[i] + 6);
		} else {
			slurm_error("kpmc: plugstack.conf argument '%s': want spool=/ABSOLUTE/DIR", av[i]);
			return -1;
		}
	}
	return spank_option_register(sp, &kpmc_option) == ESPANK_SUCCESS ? 0 : -1;
}

static int paranoid(void)
{
	char buf[16] = "";
	int fd = open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	return n > 0 ? atoi(buf) : 2;
}

/* Before any task: can this node count these events for this user? */
int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	char raw[1024], why[256];

	(void)ac;
	(void)av;
	if (!events[0] || !spank_remote(sp))
		return 0;
	if (!kpmc_proc_present()) {
		slurm_error("kpmc: --kpmc: the kpmc module is not loaded on this node (no /proc/kpmc)");
		return -1;
	}
	if (kpmc_config_to_raw(KPMC_PROC_INFO, events, raw, sizeof(raw), why, sizeof(why)) < 0) {
		slurm_error("kpmc: --kpmc=%s: %s", events, why);
		return -1;
	}
	if (kpmc_step_counts_kernel(raw) && paranoid() > 1) {
		slurm_error("kpmc: --kpmc=%s counts kernel mode, which perf_event_paranoid %d does not let users count (use :u)",
			    events, paranoid());
		return -1;
	}
	return 0;
}

/* This node's name for the files: what is safe in a file name and in JSON. */
static void node_name(char *out, size_t len)
{
	char host[64] = "";

	gethostname(host, sizeof(host) - 1);
	host[strcspn(host, ".")] = '\0';
	for (char *p = host; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_')
			*p = '_';
	snprintf(out, len, "%s", host[0] ? host : "node");
}

static void series_record(const struct kpmc_record *r, void *arg)
{
	(void)arg;
	kpmc_step_series_add(&series, r);
}

/*
 * The session's records as they come (each CPU's every interval): taken
 * while the step runs, so that the ring never fills however long it runs.
 */
static void *drain_loop(void *unused)
{
	struct pollfd p = { .fd = count.fd, .events = POLLIN };
	char err[256];

	(void)unused;
	while (!drain_stop) {
		poll(&p, 1, 200);
		if (kpmc_cgroup_count_drain(&count, err, sizeof(err))) {
			slurm_error("kpmc: job %u step %s: %s", report.job, report.step, err);
			break;
		}
	}
	return NULL;
}

/* The first task, in the step's cgroup, waits before its exec: count the cgroup. */
int slurm_spank_task_post_fork(spank_t sp, int ac, char **av)
{
	char path[512], dir[600], text[2048], err[600], config[KPMC_STEP_EVENTS_MAX + 16];
	pid_t pid;
	int fd, n, cg, e;

	(void)ac;
	(void)av;
	if (!events[0] || started)
		return 0;
	started = 1;
	if (spank_get_item(sp, S_TASK_PID, &pid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_ID, &report.job) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_NODEID, &report.nodeid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_UID, &report.uid) != ESPANK_SUCCESS) {
		slurm_error("kpmc: the step's job, node or task is unknown to Slurm here");
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : (int)read(fd, text, sizeof(text) - 1);
	if (fd >= 0)
		close(fd);
	text[n > 0 ? n : 0] = '\0';
	if (kpmc_step_cgroup_path(text, report.job, path, sizeof(path), report.step,
				  sizeof(report.step))) {
		slurm_error("kpmc: task %d is in no cgroup of job %u's steps (%s): kpmc counts a step by its cgroup, which needs ProctrackType=proctrack/cgroup with cgroup v2",
			    (int)pid, report.job, text[0] ? strtok(text, "\n") : "unreadable");
		return -1;
	}
	/* The batch step counts the job on this node: its cgroup is the step's parent. */
	if (!strcmp(report.step, "batch"))
		*strrchr(path, '/') = '\0';
	snprintf(dir, sizeof(dir), "/sys/fs/cgroup%s", path);
	cg = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (cg < 0) {
		slurm_error("kpmc: the step's cgroup %s: %m", dir);
		return -1;
	}
	/* Counts over time: each CPU sends its counts every interval (the module's tbs). */
	if (interval_ms)
		snprintf(config, sizeof(config), "%s,tbs=%u", events, interval_ms);
	else
		snprintf(config, sizeof(config), "%s", events);
	e = kpmc_cgroup_count_start(&count, config, cg, err, sizeof(err));
	close(cg);
	/*
	 * Other steps count this node with other events (a job sharing the
	 * node, or an overlapping step or the batch step asking for others;
	 * with the same events they count at once), or threads are counted
	 * per thread here: this one runs, uncounted, and says so; a job is
	 * not failed for what another job does.
	 */
	if (e == -EBUSY) {
		node_name(report.node, sizeof(report.node));
		slurm_error("kpmc: job %u step %s is not counted on %s: %s", report.job, report.step,
			    report.node, err);
		return 0;
	}
	if (e) {
		slurm_error("kpmc: --kpmc=%s: %s", events, err);
		return -1;
	}
	node_name(report.node, sizeof(report.node));
	snprintf(report.events, sizeof(report.events), "%s", events);
	report.count = &count;
	if (interval_ms) {
		series.interval_ms = interval_ms;
		count.on_record = series_record;
		draining = !pthread_create(&drainer, NULL, drain_loop, NULL);
		if (!draining)
			slurm_error("kpmc: job %u step %s: no thread to take the counts over time; totals only",
				    report.job, report.step);
	}
	slurm_info("kpmc: counting %s (job %u, step %s) on %s", path, report.job, report.step,
		   report.node);
	return 0;
}

/* The files go to the submit directory, written as the job's user. */
static void write_files(spank_t sp)
{
	char csv[4096], json[4096], name[256], dir[1024], err[600];
	gid_t gid;

	if (kpmc_step_report_csv(&report, csv, sizeof(csv)) < 0 ||
	    kpmc_step_report_json(&report, json, sizeof(json)) < 0) {
		slurm_error("kpmc: job %u step %s: the report does not fit", report.job, report.step);
		return;
	}
	if (kpmc_step_report_name(&report, ".json", name, sizeof(name)) == 0 &&
	    kpmc_step_spool(spool, name, json, err, sizeof(err)))
		slurm_error("kpmc: spool: %s", err);
	if (spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS ||
	    spank_getenv(sp, "SLURM_SUBMIT_DIR", dir, sizeof(dir)) != ESPANK_SUCCESS || dir[0] != '/') {
		slurm_error("kpmc: job %u step %s: no submit directory to write the totals to (they are in %s)",
			    report.job, report.step, spool);
		return;
	}
	if (kpmc_step_report_name(&report, ".csv", name, sizeof(name)) ||
	    kpmc_step_write_as(report.uid, gid, dir, name, csv, err, sizeof(err)))
		slurm_error("kpmc: %s", err);
	if (kpmc_step_report_name(&report, ".json", name, sizeof(name)) ||
	    kpmc_step_write_as(report.uid, gid, dir, name, json, err, sizeof(err)))
		slurm_error("kpmc: %s", err);
	if (series.interval_ms) {
		char *text = kpmc_step_series_csv(&series, count.counter_name);

		if (!text || kpmc_step_report_name(&report, ".series.csv", name, sizeof(name)) ||
		    kpmc_step_write_as(report.uid, gid, dir, name, text, err, sizeof(err)))
			slurm_error("kpmc: job %u step %s: counts over time: %s", report.job, report.step,
				    text ? err : "out of memory");
		free(text);
	}
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	char err[600];

	(void)ac;
	(void)av;
	if (!spank_remote(sp) || count.fd < 0)
		return 0;
	if (draining) {
		drain_stop = 1;
		pthread_join(drainer, NULL);
		draining = 0;
	}
	if (kpmc_cgroup_count_finish(&count, err, sizeof(err))) {
		slurm_error("kpmc: job %u step %s: %s", report.job, report.step, err);
		return -1;
	}
	write_files(sp);
	return 0;
}
