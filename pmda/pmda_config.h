/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmdakpmc's configuration file (/etc/pcp/kpmc/kpmc.conf): what to count and
 * whom. Pure: no I/O; the caller reads the file and hands over its text, so
 * tests/unit can drive every refusal.
 *
 * One directive a line, '#' starts a comment:
 *   events LIST            one event set, as kpmc -c takes it (names or pmcN=..)
 *   interval MS            a thread's counts reach the agent every MS ms of its
 *                          on-CPU time (the set's tbs), and at its exit
 *   process KEY=VALUE      whom: pid=N, cgroup=/PATH, user=NAME, uid=N, or
 *                          comm=NAME user=NAME / comm=NAME uid=N (a command
 *                          name alone is anyone's to take: it must come with
 *                          its owner)
 *   kernel on|off          may the events count kernel mode (:k, :uk, osN=1)?
 *                          Off by default: the counts are served to whoever
 *                          pmcd lets read them
 *   threads on|off         per-thread metrics too (off: cardinality)
 *   cpus all|LIST [noidle] system-wide, per CPU (excludes process lines)
 *   grace SECONDS          how long exited processes' final counts stay
 *   rescan MS              how often /proc is scanned for new matches
 *   save SECONDS           the totals go to the state file (and to clients)
 *                          at most this often
 *   steps DIR              serve the Slurm steps kpmc's SPANK plugin counted
 *                          on this node (its spool directory, absolute) as
 *                          kpmc.step.*; needs no events or process lines
 *   cgroups PATTERN        count every cgroup v2 directory the pattern (a
 *                          path as /proc/PID/cgroup shows it, * and ? as in
 *                          a shell) names, each as a whole (the module's
 *                          cgroup counting, tasks below it included) as
 *                          kpmc.cgroup.*; found again every rescan; a line
 *                          each, excludes process and cpus lines
 */
#ifndef KPMC_PMDA_CONFIG_H
#define KPMC_PMDA_CONFIG_H

#include <stddef.h>

#define KPMC_PMDA_MAX_SELECTORS	64
#define KPMC_PMDA_MAX_CGROUP_PATTERNS	8
#define KPMC_PMDA_CGROUP_PATH_MAX	192	/* a cgroup path served, with its NUL */
#define KPMC_PMDA_COMM_MAX	15	/* the kernel's TASK_COMM_LEN - 1 */

enum kpmc_pmda_sel_kind {
	KPMC_SEL_COMM,
	KPMC_SEL_PID,
	KPMC_SEL_CGROUP,
	KPMC_SEL_USER,
	KPMC_SEL_UID,
};

struct kpmc_pmda_selector {
	enum kpmc_pmda_sel_kind kind;
	char text[256];		/* comm, cgroup path or user name */
	char owner[33];		/* comm=: the user= given with it, or "" (then uid= in num) */
	unsigned long num;	/* pid or uid (comm=: the uid= given with it) */
	unsigned int line;
};

struct kpmc_pmda_config {
	char events[512];	/* "" when no events line */
	unsigned int events_line;
	unsigned int interval_ms;
	struct kpmc_pmda_selector sel[KPMC_PMDA_MAX_SELECTORS];
	unsigned int nsel;
	int threads;
	int system_wide;
	char cpus[128];		/* "all" or "0-3,6" */
	int noidle;
	unsigned int grace_s;
	unsigned int rescan_ms;
	int kernel;		/* events may count kernel mode */
	unsigned int save_s;
	char steps_dir[200];	/* "" when no steps line */
	char cgroup_pattern[KPMC_PMDA_MAX_CGROUP_PATTERNS][KPMC_PMDA_CGROUP_PATH_MAX];
	unsigned int ncgroup_patterns;
};

#define KPMC_PMDA_DEFAULT_INTERVAL_MS	1000
#define KPMC_PMDA_DEFAULT_GRACE_S	300
#define KPMC_PMDA_DEFAULT_RESCAN_MS	2000
#define KPMC_PMDA_DEFAULT_SAVE_S	2

/*
 * Parse text (the whole file; file names it in messages) into c. 0, or -1
 * with "FILE:LINE: token 'X': why" in err and c left in its defaults.
 */
int kpmc_pmda_config_parse(const char *text, const char *file, struct kpmc_pmda_config *c,
			   char *err, size_t len);

/*
 * Is there something to count (events and whom)? Without it the agent opens
 * no session and takes no counter.
 */
int kpmc_pmda_config_active(const struct kpmc_pmda_config *c);

/* The kernel's configuration string for c's set: raw or names, plus tbs. */
int kpmc_pmda_config_set(const struct kpmc_pmda_config *c, char *out, size_t len);

#endif
