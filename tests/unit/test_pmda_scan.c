// SPDX-License-Identifier: GPL-2.0
/*
 * pmdakpmc's /proc scan (pmda/pmda_scan.c) on fake /proc trees: which
 * processes a selector takes (a command name only with its owner), the
 * Slurm job and step from the cgroup slurmstepd made (never the
 * environment), and which files of each process a scan opens (inotify
 * counts every open): stat always, status only when a selector needs the
 * owner, cgroup once in a process's life, environ never. Instance names and
 * labels made safe (pmda/pmda_names.c), and the attach retries of
 * pmda/pmda_attach.c against a fake kpmc.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <setjmp.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "pmda_attach.h"
#include "pmda_config.h"
#include "pmda_names.h"
#include "pmda_scan.h"

static char root[64];

static void put(const char *dir, const char *name, const char *text, size_t n)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, n, f), n);
	fclose(f);
}

/* A fake /proc/PID: stat, status, cgroup, environ, and task/ with its tids. */
static void mkproc(pid_t pid, const char *comm, unsigned long long start, unsigned int uid,
		   unsigned int euid, const char *cgroup, int nthreads)
{
	char dir[128], task[160], buf[512];
	const char env[] = "HOME=/home/x\0SLURM_JOB_ID=666\0SLURM_STEP_ID=9\0";

	snprintf(dir, sizeof(dir), "%s/%d", root, pid);
	mkdir(dir, 0755);
	snprintf(buf, sizeof(buf),
		 "%d (%s) S 1 1 1 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 %d 0 %llu 0 0\n", pid, comm,
		 nthreads, start);
	put(dir, "stat", buf, strlen(buf));
	snprintf(buf, sizeof(buf), "Name:\t%s\nState:\tS (sleeping)\nUid:\t%u\t%u\t%u\t%u\nGid:\t0\t0\t0\t0\n",
		 comm, uid, euid, euid, euid);
	put(dir, "status", buf, strlen(buf));
	put(dir, "cgroup", cgroup, strlen(cgroup));
	put(dir, "environ", env, sizeof(env) - 1);
	snprintf(task, sizeof(task), "%s/task", dir);
	mkdir(task, 0755);
	for (int i = 0; i < nthreads; i++) {
		snprintf(buf, sizeof(buf), "%s/%d", task, pid + i);
		mkdir(buf, 0755);
	}
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/kpmc-fake-proc-XXXXXX");
	assert_non_null(mkdtemp(root));
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

static struct kpmc_pmda_config cfg;
static uid_t uids[KPMC_PMDA_MAX_SELECTORS];

static void config(const char *text)
{
	char err[512];

	assert_int_equal(kpmc_pmda_config_parse(text, "kpmc.conf", &cfg, err, sizeof(err)), 0);
	for (unsigned int i = 0; i < KPMC_PMDA_MAX_SELECTORS; i++)
		uids[i] = (uid_t)-1;
}

/* What a scan called back with: pid, tid and the process's labels. */
struct seen {
	int n;
	pid_t pid[16], tid[16];
	struct kpmc_pmda_proc_info info[16];
};

static void on_thread(pid_t pid, pid_t tid, const struct kpmc_pmda_proc_info *info, void *arg)
{
	struct seen *s = arg;

	assert_true(s->n < 16);
	s->pid[s->n] = pid;
	s->tid[s->n] = tid;
	s->info[s->n++] = *info;
}

static const struct kpmc_pmda_proc_info *info_of(const struct seen *s, pid_t pid)
{
	for (int i = 0; i < s->n; i++)
		if (s->pid[i] == pid)
			return &s->info[i];
	return NULL;
}

#define SLURM_CG "0::/system.slice/slurmstepd.scope/job_42/step_0/user/task_0\n"

/* The job is the cgroup's; SLURM_JOB_ID=666 in the environment changes nothing. */
static void test_job_from_cgroup(void **state)
{
	struct kpmc_pmda_proc_info info;

	(void)state;
	mkproc(100, "loop", 5000, 1000, 1000, SLURM_CG, 1);
	assert_int_equal(kpmc_pmda_proc_info(root, 100, &info), 0);
	assert_string_equal(info.comm, "loop");
	assert_string_equal(info.job, "42");
	assert_string_equal(info.step, "0");
	assert_string_equal(info.cgroup, "/system.slice/slurmstepd.scope/job_42/step_0/user/task_0");
	assert_int_equal(info.uid, 1000);
	assert_int_equal(info.euid, 1000);
	assert_int_equal(info.start, 5000);
	/* Outside slurmstepd's scope (a user's own delegated subtree): no job. */
	mkproc(101, "loop", 5001, 1000, 1000,
	       "0::/user.slice/user-1000.slice/user@1000.service/slurmstepd.scope/job_7/step_0\n", 1);
	assert_int_equal(kpmc_pmda_proc_info(root, 101, &info), 0);
	assert_string_equal(info.job, "");
	assert_string_equal(info.step, "");
	/* No cgroup at all: no job either. */
	mkproc(102, "loop", 5002, 1000, 1000, "0::/\n", 1);
	assert_int_equal(kpmc_pmda_proc_info(root, 102, &info), 0);
	assert_string_equal(info.job, "");
	assert_string_equal(info.cgroup, "/");
	/* A process gone: -1. */
	assert_int_equal(kpmc_pmda_proc_info(root, 999, &info), -1);
}

static void test_slurm_paths(void **state)
{
	static const struct {
		const char *text, *job, *step;
	} t[] = {
		{ "0::/system.slice/slurmstepd.scope/job_42/step_0/user/task_0\n", "42", "0" },
		{ "0::/system.slice/slurmstepd.scope/job_42\n", "42", "" },
		{ "0::/slurmstepd.scope/job_9/step_batch/user/task_0\n", "9", "batch" },
		{ "0::/system.slice/node7_slurmstepd.scope/job_5/step_extern/slurm\n", "5", "extern" },
		/* cgroup v1: slurm's own hierarchy under /slurm/uid_U */
		{ "12:freezer:/slurm/uid_1000/job_77/step_3/task_0\n0::/user.slice\n", "77", "3" },
		{ "5:cpuset:/slurm_node2/uid_0/job_8/step_interactive\n", "8", "interactive" },
		/* not slurmstepd's: no job */
		{ "0::/user.slice/user-1000.slice/user@1000.service/app.slice/slurmstepd.scope/job_1\n", "", "" },
		{ "0::/system.slice/evilslurmstepd.scope/job_1/step_0\n", "", "" },
		{ "0::/system.slice/slurmstepd.scope/job_4x/step_0\n", "", "" },
		{ "0::/system.slice/slurmstepd.scope/job_/step_0\n", "", "" },
		{ "0::/job_3/step_0\n", "", "" },
		{ "12:freezer:/slurm/job_77/step_3\n", "", "" },
		{ "0::/system.slice/slurmstepd.scope/job_42/step_0$(x)\n", "42", "" },
		{ "", "", "" },
	};
	char job[64], step[32];

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int r = kpmc_pmda_slurm_job(t[i].text, job, sizeof(job), step, sizeof(step));

		if (strcmp(job, t[i].job) || strcmp(step, t[i].step) || r != !!t[i].job[0])
			fail_msg("%s: job '%s' step '%s' (%d), want '%s' '%s'", t[i].text, job, step, r,
				 t[i].job, t[i].step);
	}
}

/* comm= takes only its owner's processes, and not a setuid program the owner runs. */
static void test_comm_needs_owner(void **state)
{
	struct kpmc_pmda_scan_cache cache = { 0 };
	struct seen s = { 0 };

	(void)state;
	mkproc(200, "mysqld", 100, 27, 27, "0::/system.slice/mysql.service\n", 2);
	mkproc(210, "mysqld", 101, 1000, 1000, "0::/user.slice\n", 1);	/* a user's impostor */
	mkproc(220, "mysqld", 102, 27, 0, "0::/system.slice/mysql.service\n", 1);	/* setuid */
	config("events instr\nprocess comm=mysqld uid=27\n");
	assert_int_equal(kpmc_pmda_scan(root, &cfg, uids, 0, &cache, on_thread, &s), 1);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.pid[0], 200);
	assert_int_equal(s.pid[1], 200);
	assert_true((s.tid[0] == 200 && s.tid[1] == 201) || (s.tid[0] == 201 && s.tid[1] == 200));
	/* The same through a user name, resolved by the agent into uids[]. */
	config("events instr\nprocess comm=mysqld user=mysql\n");
	uids[0] = 27;
	memset(&s, 0, sizeof(s));
	assert_int_equal(kpmc_pmda_scan(root, &cfg, uids, 0, &cache, on_thread, &s), 1);
	assert_int_equal(s.pid[0], 200);
	/* Not resolved (no such user): nobody. */
	uids[0] = (uid_t)-1;
	memset(&s, 0, sizeof(s));
	assert_int_equal(kpmc_pmda_scan(root, &cfg, uids, 0, &cache, on_thread, &s), 0);
	/* user= alone: the setuid one is not the user's either. */
	config("events instr\nprocess uid=27\n");
	memset(&s, 0, sizeof(s));
	assert_int_equal(kpmc_pmda_scan(root, &cfg, uids, 0, &cache, on_thread, &s), 1);
	assert_int_equal(s.pid[0], 200);
	kpmc_pmda_scan_cache_free(&cache);
}

/* inotify: how often each file of each fake process is opened. */
struct opens {
	int fd;
	int wd[4];
	pid_t pid[4];
	int stat[4], status[4], cgroup[4], environ[4], comm[4], task[4];
};

static void watch(struct opens *o, int i, pid_t pid)
{
	char dir[128];

	snprintf(dir, sizeof(dir), "%s/%d", root, pid);
	o->pid[i] = pid;
	o->wd[i] = inotify_add_watch(o->fd, dir, IN_OPEN);
	assert_true(o->wd[i] >= 0);
}

static void count_opens(struct opens *o)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	while ((n = read(o->fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *e = (const struct inotify_event *)p;

			for (int i = 0; i < 4; i++) {
				if (e->wd != o->wd[i] || !e->len)
					continue;
				o->stat[i] += !strcmp(e->name, "stat");
				o->status[i] += !strcmp(e->name, "status");
				o->cgroup[i] += !strcmp(e->name, "cgroup");
				o->environ[i] += !strcmp(e->name, "environ");
				o->comm[i] += !strcmp(e->name, "comm");
				o->task[i] += !strcmp(e->name, "task");
			}
			p += sizeof(*e) + e->len;
		}
	}
}

/* Opens the test itself made (writing the fake files): not counted. */
static void discard_opens(struct opens *o)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));

	while (read(o->fd, buf, sizeof(buf)) > 0)
		;
}

static void test_scan_reads_little(void **state)
{
	struct kpmc_pmda_scan_cache cache = { 0 };
	struct opens o = { 0 };
	struct seen s = { 0 };
	const struct kpmc_pmda_proc_info *in;

	(void)state;
	mkproc(300, "loop", 700, 1000, 1000, SLURM_CG, 1);	/* selected */
	mkproc(301, "other", 701, 1000, 1000, SLURM_CG, 1);	/* another command */
	mkproc(302, "loop", 702, 1001, 1001, "0::/user.slice\n", 1);	/* another user's */
	o.fd = inotify_init1(IN_NONBLOCK);
	assert_true(o.fd >= 0);
	watch(&o, 0, 300);
	watch(&o, 1, 301);
	watch(&o, 2, 302);
	config("events instr\nprocess comm=loop uid=1000\n");
	assert_int_equal(kpmc_pmda_scan(root, &cfg, uids, 0, &cache, on_thread, &s), 1);
	assert_int_equal(kpmc_pmda_scan(root, &cfg, uids, 0, &cache, on_thread, &s), 1);
	count_opens(&o);
	/* Selected: stat and status each scan, cgroup once, its tasks listed each scan. */
	assert_int_equal(o.stat[0], 2);
	assert_int_equal(o.status[0], 2);
	assert_int_equal(o.cgroup[0], 1);
	assert_int_equal(o.task[0], 2);
	/* Another command: stat only. */
	assert_int_equal(o.stat[1], 2);
	assert_int_equal(o.status[1], 0);
	assert_int_equal(o.cgroup[1], 0);
	/* The same command, another user: stat and status, never its cgroup. */
	assert_int_equal(o.stat[2], 2);
	assert_int_equal(o.status[2], 2);
	assert_int_equal(o.cgroup[2], 0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(o.environ[i], 0);
		assert_int_equal(o.comm[i], 0);
	}
	/* The labels of both scans, the second from the cache. */
	assert_int_equal(s.n, 2);
	for (int i = 0; i < 2; i++) {
		assert_string_equal(s.info[i].job, "42");
		assert_string_equal(s.info[i].step, "0");
		assert_int_equal(s.info[i].uid, 1000);
	}
	/* The agent names a process from the cache: no cgroup read. */
	{
		struct kpmc_pmda_proc_info info;

		assert_int_equal(kpmc_pmda_scan_info(root, &cache, 300, &info), 0);
		assert_string_equal(info.job, "42");
		assert_int_equal(kpmc_pmda_scan_info(root, &cache, 301, &info), -1);
		count_opens(&o);
		assert_int_equal(o.cgroup[0], 1);
	}
	/* pid 300 reused by another process (another start time): its cgroup is read anew. */
	mkproc(300, "loop", 900, 1000, 1000, "0::/system.slice/slurmstepd.scope/job_43/step_1\n", 1);
	discard_opens(&o);
	memset(&s, 0, sizeof(s));
	assert_int_equal(kpmc_pmda_scan(root, &cfg, uids, 0, &cache, on_thread, &s), 1);
	count_opens(&o);
	assert_int_equal(o.cgroup[0], 2);
	in = info_of(&s, 300);
	assert_non_null(in);
	assert_string_equal(in->job, "43");
	assert_string_equal(in->step, "1");
	/* A cgroup selector reads every process's cgroup, once each over two scans. */
	config("events instr\nprocess cgroup=/system.slice/slurmstepd.scope/job_43\n");
	memset(&o.cgroup, 0, sizeof(o.cgroup));
	memset(&s, 0, sizeof(s));
	assert_int_equal(kpmc_pmda_scan(root, &cfg, uids, 0, &cache, on_thread, &s), 1);
	assert_int_equal(kpmc_pmda_scan(root, &cfg, uids, 0, &cache, on_thread, &s), 1);
	count_opens(&o);
	assert_int_equal(o.cgroup[0], 0);	/* still cached from before */
	assert_int_equal(o.cgroup[1], 1);
	assert_int_equal(o.cgroup[2], 1);
	assert_int_equal(o.environ[0] + o.environ[1] + o.environ[2], 0);
	close(o.fd);
	kpmc_pmda_scan_cache_free(&cache);
}

/* Command names hold any byte; instance names and labels carry printable ASCII only. */
static void test_safe_names(void **state)
{
	struct kpmc_pmda_scan_cache cache = { 0 };
	struct seen s = { 0 };
	char name[64];

	(void)state;
	kpmc_pmda_instance_name(name, sizeof(name), 42, "a\"b\\c\td\x01\x7f\xc3\xa9 e");
	assert_string_equal(name, "000042 a_b_c_d____ e");
	kpmc_pmda_instance_name(name, sizeof(name), 1234567, "ok-name.1");
	assert_string_equal(name, "1234567 ok-name.1");
	kpmc_pmda_safe_text(name, 8, "abcdefghij");
	assert_string_equal(name, "abcdefg");
	kpmc_pmda_safe_text(name, sizeof(name), "/system.slice/a\nb\"c");
	assert_string_equal(name, "/system.slice/a_b_c");
	/* The command as stat has it, parentheses and all. */
	mkproc(400, "x) (y\"", 77, 0, 0, "0::/\n", 1);
	config("events instr\nprocess pid=400\n");
	assert_int_equal(kpmc_pmda_scan(root, &cfg, uids, 0, &cache, on_thread, &s), 1);
	assert_string_equal(s.info[0].comm, "x) (y\"");
	kpmc_pmda_instance_name(name, sizeof(name), 400, s.info[0].comm);
	assert_string_equal(name, "000400 x) (y_");
	kpmc_pmda_scan_cache_free(&cache);
}

/* A fake kpmc: per tid, the answers it gives in turn (then the last one again). */
struct fake_kpmc {
	int calls[8];
	int answers[8][4];
	const char *reasons[8][4];
	int nanswers[8];
};

static int fake_attach(pid_t tid, char *why, size_t len, void *arg)
{
	struct fake_kpmc *k = arg;
	int i = tid - 500, a;

	assert_true(i >= 0 && i < 8);
	a = k->calls[i] < k->nanswers[i] ? k->calls[i] : k->nanswers[i] - 1;
	k->calls[i]++;
	snprintf(why, len, "%s", k->reasons[i][a]);
	return k->answers[i][a];
}

#define BUSY_PERF "the counters are taken by perf (cpu0: counter 0 in use)"
#define BUSY_SYS "system-wide monitoring is on: the counters are taken"
#define ALREADY "pid=501: already monitored, or configuring itself"

static enum kpmc_pmda_attach_event one(struct kpmc_pmda_attach *a, struct fake_kpmc *k, pid_t tid,
				       long long now)
{
	char why[256];

	return kpmc_pmda_attach_thread(a, 500, tid, 1, now, fake_attach, k, why, sizeof(why));
}

/* Busy counters are retried, later and less often; "already monitored" is not. */
static void test_attach_retries(void **state)
{
	struct kpmc_pmda_attach a = { .min_ms = 1000, .max_ms = 4000 };
	struct fake_kpmc k = {
		/* 500: perf holds the counters three times, then they are free. */
		.answers = { { -EBUSY, -EBUSY, -EBUSY, 0 }, { -EBUSY }, { -EPERM }, { -ESRCH } },
		.reasons = { { BUSY_PERF, BUSY_PERF, BUSY_SYS, "" }, { ALREADY },
			     { "pid=502: permission denied (the caller may not ptrace it)" },
			     { "pid=503: no such thread" } },
		.nanswers = { 4, 1, 1, 1 },
	};
	char why[256];

	(void)state;
	assert_int_equal(kpmc_pmda_attach_classify(-EBUSY, ALREADY), KPMC_ATTACH_ALREADY);
	assert_int_equal(kpmc_pmda_attach_classify(-EBUSY, BUSY_PERF), KPMC_ATTACH_TRANSIENT);
	assert_int_equal(kpmc_pmda_attach_classify(-EBUSY, BUSY_SYS), KPMC_ATTACH_TRANSIENT);
	assert_int_equal(kpmc_pmda_attach_classify(-EACCES, "perf_event_paranoid is 3"), KPMC_ATTACH_TRANSIENT);
	assert_int_equal(kpmc_pmda_attach_classify(-EPERM, ""), KPMC_ATTACH_REFUSED);
	assert_int_equal(kpmc_pmda_attach_classify(-ESRCH, ""), KPMC_ATTACH_GONE);
	assert_int_equal(kpmc_pmda_attach_classify(0, ""), KPMC_ATTACH_OK);

	/* Scan at t=0: 500 busy (logged), the others held back with it. */
	kpmc_pmda_attach_begin(&a);
	assert_int_equal(kpmc_pmda_attach_thread(&a, 500, 500, 1, 0, fake_attach, &k, why, sizeof(why)),
			 KPMC_ATTACH_EV_BLOCKED);
	assert_string_equal(why, BUSY_PERF);
	assert_int_equal(one(&a, &k, 501, 0), KPMC_ATTACH_EV_NONE);
	kpmc_pmda_attach_end(&a);
	assert_int_equal(k.calls[0], 1);
	assert_int_equal(k.calls[1], 0);
	/* t=500: before the retry time, nothing tried. */
	kpmc_pmda_attach_begin(&a);
	assert_int_equal(one(&a, &k, 500, 500), KPMC_ATTACH_EV_NONE);
	assert_int_equal(one(&a, &k, 501, 500), KPMC_ATTACH_EV_NONE);
	kpmc_pmda_attach_end(&a);
	assert_int_equal(k.calls[0], 1);
	/* t=1000: retried, busy again (not logged again); the next wait is 2000. */
	kpmc_pmda_attach_begin(&a);
	assert_int_equal(one(&a, &k, 500, 1000), KPMC_ATTACH_EV_STILL_BLOCKED);
	assert_int_equal(one(&a, &k, 501, 1000), KPMC_ATTACH_EV_NONE);
	kpmc_pmda_attach_end(&a);
	assert_int_equal(k.calls[0], 2);
	kpmc_pmda_attach_begin(&a);
	assert_int_equal(one(&a, &k, 500, 2999), KPMC_ATTACH_EV_NONE);
	assert_int_equal(one(&a, &k, 500, 3000), KPMC_ATTACH_EV_STILL_BLOCKED);
	kpmc_pmda_attach_end(&a);
	assert_int_equal(k.calls[0], 3);
	assert_int_equal(a.backoff_ms, 4000);	/* capped at max_ms */
	/* t=7000: the counters are free: 500 attached (logged as resumed), the rest tried. */
	kpmc_pmda_attach_begin(&a);
	assert_int_equal(one(&a, &k, 500, 7000), KPMC_ATTACH_EV_RESUMED);
	assert_int_equal(one(&a, &k, 501, 7000), KPMC_ATTACH_EV_ALREADY);
	assert_int_equal(one(&a, &k, 502, 7000), KPMC_ATTACH_EV_REFUSED);
	assert_int_equal(one(&a, &k, 503, 7000), KPMC_ATTACH_EV_GONE);
	kpmc_pmda_attach_end(&a);
	assert_int_equal(k.calls[0], 4);
	/* Next scans: the attached, the monitored and the refused are not tried again. */
	for (int i = 0; i < 3; i++) {
		kpmc_pmda_attach_begin(&a);
		assert_int_equal(one(&a, &k, 500, 8000 + i), KPMC_ATTACH_EV_NONE);
		assert_int_equal(one(&a, &k, 501, 8000 + i), KPMC_ATTACH_EV_NONE);
		assert_int_equal(one(&a, &k, 502, 8000 + i), KPMC_ATTACH_EV_NONE);
		kpmc_pmda_attach_end(&a);
	}
	assert_int_equal(k.calls[0], 4);
	assert_int_equal(k.calls[1], 1);
	assert_int_equal(k.calls[2], 1);
	/* Tid 501 in another process (or the same pid started anew): a new thread, tried. */
	kpmc_pmda_attach_begin(&a);
	assert_int_equal(kpmc_pmda_attach_thread(&a, 600, 501, 1, 9000, fake_attach, &k, why, sizeof(why)),
			 KPMC_ATTACH_EV_ALREADY);
	assert_int_equal(kpmc_pmda_attach_thread(&a, 500, 500, 2, 9000, fake_attach, &k, why, sizeof(why)),
			 KPMC_ATTACH_EV_ATTACHED);
	kpmc_pmda_attach_end(&a);
	assert_int_equal(k.calls[1], 2);
	assert_int_equal(k.calls[0], 5);
	/* A thread not seen by a scan is forgotten: seen again, it is tried again. */
	kpmc_pmda_attach_begin(&a);
	kpmc_pmda_attach_end(&a);
	kpmc_pmda_attach_begin(&a);
	assert_int_equal(one(&a, &k, 502, 9100), KPMC_ATTACH_EV_REFUSED);
	kpmc_pmda_attach_end(&a);
	assert_int_equal(k.calls[2], 2);
	kpmc_pmda_attach_free(&a);
	assert_int_equal(a.min_ms, 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_job_from_cgroup, setup, teardown),
		cmocka_unit_test(test_slurm_paths),
		cmocka_unit_test_setup_teardown(test_comm_needs_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scan_reads_little, setup, teardown),
		cmocka_unit_test_setup_teardown(test_safe_names, setup, teardown),
		cmocka_unit_test(test_attach_retries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
