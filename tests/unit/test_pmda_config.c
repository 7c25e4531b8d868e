// SPDX-License-Identifier: GPL-2.0
/*
 * pmdakpmc's pure parts: the configuration parser (pmda/pmda_config.c):
 * every directive read into the exact values, bad lines refused with
 * "FILE:LINE: token 'X': why", which counter counts which configured event;
 * the totals summed from records (pmda/pmda_counts.c) and kept across the
 * agent's restarts (pmda/pmda_state.c), linked as the agent links them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <setjmp.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "pmda_config.h"
#include "common/eventspec.h"
#include "pmda_counts.h"
#include "pmda_state.h"

static struct kpmc_pmda_config cfg;
static char err[512];

static int parse(const char *text)
{
	err[0] = '\0';
	return kpmc_pmda_config_parse(text, "kpmc.conf", &cfg, err, sizeof(err));
}

static void test_full_file(void **state)
{
	(void)state;
	assert_int_equal(parse("# kpmc agent\n"
			       "events instr,cycles:u\n"
			       "\n"
			       "interval 250   # ms\n"
			       "process comm=stress user=alice\n"
			       "process\tpid=4242\n"
			       "process cgroup=/system.slice/slurmstepd.scope/job_17\n"
			       "process user=alice\n"
			       "process uid=1000\n"
			       "threads on\n"
			       "grace 60\n"
			       "rescan 500\n"
			       "process comm=mysqld uid=27\n"
			       "save 30\n"), 0);
	assert_string_equal(cfg.events, "instr,cycles:u");
	assert_int_equal(cfg.events_line, 2);
	assert_int_equal(cfg.interval_ms, 250);
	assert_int_equal(cfg.nsel, 6);
	assert_int_equal(cfg.sel[0].kind, KPMC_SEL_COMM);
	assert_string_equal(cfg.sel[0].text, "stress");
	assert_string_equal(cfg.sel[0].owner, "alice");
	assert_int_equal(cfg.sel[5].kind, KPMC_SEL_COMM);
	assert_string_equal(cfg.sel[5].text, "mysqld");
	assert_string_equal(cfg.sel[5].owner, "");
	assert_int_equal(cfg.sel[5].num, 27);
	assert_int_equal(cfg.save_s, 30);
	assert_int_equal(cfg.kernel, 0);
	assert_int_equal(cfg.sel[0].line, 5);
	assert_int_equal(cfg.sel[1].kind, KPMC_SEL_PID);
	assert_int_equal(cfg.sel[1].num, 4242);
	assert_int_equal(cfg.sel[2].kind, KPMC_SEL_CGROUP);
	assert_string_equal(cfg.sel[2].text, "/system.slice/slurmstepd.scope/job_17");
	assert_int_equal(cfg.sel[3].kind, KPMC_SEL_USER);
	assert_string_equal(cfg.sel[3].text, "alice");
	assert_int_equal(cfg.sel[4].kind, KPMC_SEL_UID);
	assert_int_equal(cfg.sel[4].num, 1000);
	assert_int_equal(cfg.threads, 1);
	assert_int_equal(cfg.system_wide, 0);
	assert_int_equal(cfg.grace_s, 60);
	assert_int_equal(cfg.rescan_ms, 500);
	assert_int_equal(kpmc_pmda_config_active(&cfg), 1);

	char set[600];

	assert_int_equal(kpmc_pmda_config_set(&cfg, set, sizeof(set)), 22);
	assert_string_equal(set, "instr,cycles:u,tbs=250");
}

static void test_defaults_and_nothing_configured(void **state)
{
	(void)state;
	/* An empty file, comments only, or events without whom: no session. */
	assert_int_equal(parse(""), 0);
	assert_int_equal(kpmc_pmda_config_active(&cfg), 0);
	assert_int_equal(cfg.interval_ms, KPMC_PMDA_DEFAULT_INTERVAL_MS);
	assert_int_equal(cfg.grace_s, KPMC_PMDA_DEFAULT_GRACE_S);
	assert_int_equal(cfg.rescan_ms, KPMC_PMDA_DEFAULT_RESCAN_MS);
	assert_int_equal(cfg.threads, 0);
	assert_int_equal(cfg.save_s, KPMC_PMDA_DEFAULT_SAVE_S);
	assert_int_equal(cfg.kernel, 0);		/* user mode only unless the file says */
	assert_int_equal(parse("# nothing\n   \t\n# process comm=x\n"), 0);
	assert_int_equal(kpmc_pmda_config_active(&cfg), 0);
	assert_int_equal(parse("events instr\n"), 0);
	assert_int_equal(kpmc_pmda_config_active(&cfg), 0);
}

static void test_system_wide_and_raw(void **state)
{
	(void)state;
	assert_int_equal(parse("events pmc0,pmc1=0x8\ncpus 0-1,3 noidle\n"), 0);
	assert_string_equal(cfg.events, "pmc0,pmc1=0x8");
	assert_int_equal(cfg.system_wide, 1);
	assert_string_equal(cfg.cpus, "0-1,3");
	assert_int_equal(cfg.noidle, 1);
	assert_int_equal(kpmc_pmda_config_active(&cfg), 1);
	assert_int_equal(parse("events instr:ebs=1000000,rnd=1000,seed=3\ncpus all\n"), 0);
	assert_int_equal(cfg.noidle, 0);
	assert_string_equal(cfg.cpus, "all");
	/* Kernel mode when the file allows it, in either order. */
	assert_int_equal(parse("events instr:uk,pmc1\nkernel on\ncpus all\n"), 0);
	assert_int_equal(cfg.kernel, 1);
	assert_int_equal(parse("kernel on\nevents pmc0,os0=1\nprocess pid=1\n"), 0);
	assert_int_equal(cfg.kernel, 1);
	assert_int_equal(parse("events pmc0,os0=0,usr0=1\nprocess pid=1\n"), 0);
	assert_int_equal(cfg.kernel, 0);
}

/* Each bad file and the exact message; the result is always the defaults. */
static const struct {
	const char *text;
	const char *msg;
} bad[] = {
	{ "events instr\nfrobnicate 3\n",
	  "kpmc.conf:2: token 'frobnicate': unknown directive (events, interval, process, threads, cpus, cgroups, grace, rescan, kernel, save, steps)" },
	{ "interval\n", "kpmc.conf:1: token 'interval': wants a value" },
	{ "interval 10ms\n", "kpmc.conf:1: token '10ms': not a number of milliseconds (1 to 3600000)" },
	{ "interval 0\n", "kpmc.conf:1: token '0': not a number of milliseconds (1 to 3600000)" },
	{ "interval -5\n", "kpmc.conf:1: token '-5': not a number of milliseconds (1 to 3600000)" },
	{ "interval 10\ninterval 20\n", "kpmc.conf:2: token 'interval': given again (first on line 1)" },
	{ "events instr\nevents cycles\n",
	  "kpmc.conf:2: token 'events': given again (first on line 1): the agent counts one event set" },
	{ "events instr;cycles\n", "kpmc.conf:1: token 'instr;cycles': one event set only: the agent does not multiplex" },
	{ "events instr,,cycles\n", "kpmc.conf:1: token 'instr,,cycles': an empty event between commas" },
	{ "events instr,tbs=10\n",
	  "kpmc.conf:1: token 'tbs=10': not for the agent (its interval sets tbs; one set, no sampling formats)" },
	{ "events instr:ebs=zero\n", "kpmc.conf:1: token 'instr:ebs=zero': 'ebs=zero': ebs= wants a period" },
	{ "events instr\nprocess comm=a_very_long_command uid=0\n",
	  "kpmc.conf:2: token 'a_very_long_command': longer than the kernel's 15-character command name" },
	{ "events instr\nprocess pid=0\n", "kpmc.conf:2: token '0': not a pid (1 to 4194304)" },
	{ "events instr\nprocess pid=12x\n", "kpmc.conf:2: token '12x': not a pid (1 to 4194304)" },
	{ "events instr\nprocess pid=4194305\n", "kpmc.conf:2: token '4194305': not a pid (1 to 4194304)" },
	{ "events instr\nprocess exe=/bin/sh\n",
	  "kpmc.conf:2: token 'exe': unknown process key (comm, pid, cgroup, user, uid)" },
	{ "events instr\nprocess stress\n",
	  "kpmc.conf:2: token 'stress': wants KEY=VALUE (comm=, pid=, cgroup=, user=, uid=)" },
	{ "events instr\nprocess comm=\n", "kpmc.conf:2: token 'comm=': empty value" },
	{ "events instr\nprocess cgroup=system.slice\n",
	  "kpmc.conf:2: token 'system.slice': not a cgroup path (absolute, as /proc/PID/cgroup shows it)" },
	{ "events instr\nprocess cgroup=/a/../b\n",
	  "kpmc.conf:2: token '/a/../b': not a cgroup path (absolute, as /proc/PID/cgroup shows it)" },
	{ "events instr\nprocess user=Root!\n", "kpmc.conf:2: token 'Root!': not a user name" },
	{ "events instr\nprocess uid=4294967295\n", "kpmc.conf:2: token '4294967295': not a uid (0 to 4294967294)" },
	{ "events instr\nprocess comm=a comm=b\n", "kpmc.conf:2: token 'comm=b': only user=NAME or uid=N may follow comm=a" },
	/* A command name alone selects anyone's process: refused without its owner. */
	{ "events instr\nprocess comm=mysqld\n",
	  "kpmc.conf:2: token 'comm=mysqld': a command name is anyone's to take: give its owner on the same line (process comm=mysqld user=NAME, or uid=N)" },
	{ "events instr\nprocess comm=mysqld user=My!\n", "kpmc.conf:2: token 'My!': not a user name" },
	{ "events instr\nprocess comm=mysqld uid=-1\n", "kpmc.conf:2: token '-1': not a uid (0 to 4294967294)" },
	{ "events instr\nprocess comm=a user=b uid=1\n", "kpmc.conf:2: token 'uid=1': unexpected after 'process comm=a user=b'" },
	{ "events instr\nprocess pid=1 user=root\n", "kpmc.conf:2: token 'user=root': unexpected after 'process pid=1'" },
	/* Kernel-mode counts only with 'kernel on'. */
	{ "events instr,cycles:k\nprocess pid=1\n",
	  "kpmc.conf:1: token 'cycles:k': counts kernel mode, which its readers may not be allowed to see: add 'kernel on' to allow it" },
	{ "events instr:uk\nprocess pid=1\nkernel off\n",
	  "kpmc.conf:1: token 'instr:uk': counts kernel mode, which its readers may not be allowed to see: add 'kernel on' to allow it" },
	{ "events pmc0,os0=0,pmc1=0x8,os1=1\nprocess pid=1\n",
	  "kpmc.conf:1: token 'os1=1': counts kernel mode, which its readers may not be allowed to see: add 'kernel on' to allow it" },
	{ "kernel yes\n", "kpmc.conf:1: token 'yes': wants on or off" },
	{ "kernel on\nkernel on\n", "kpmc.conf:2: token 'kernel': given again (first on line 1)" },
	{ "save 0\n", "kpmc.conf:1: token '0': not a number of seconds (1 to 3600)" },
	{ "threads yes\n", "kpmc.conf:1: token 'yes': wants on or off" },
	{ "grace 86401\n", "kpmc.conf:1: token '86401': not a number of seconds (0 to 86400)" },
	{ "rescan 99\n", "kpmc.conf:1: token '99': not a number of milliseconds (100 to 600000)" },
	{ "events instr\ncpus 3-1\n", "kpmc.conf:2: token '3-1': not a CPU list (all, or N and N-M joined by commas)" },
	{ "events instr\ncpus 0,\n", "kpmc.conf:2: token '0,': not a CPU list (all, or N and N-M joined by commas)" },
	{ "events instr\ncpus all idle\n", "kpmc.conf:2: token 'idle': only 'noidle' may follow the CPU list" },
	{ "events instr\nprocess comm=x uid=0\ncpus all\n",
	  "kpmc.conf:3: token 'cpus': process lines given (first on line 2): the kernel counts per thread or per CPU, not both" },
	{ "events instr\ncpus all\nprocess pid=1\n",
	  "kpmc.conf:3: token 'process': cpus (system-wide) is on: the kernel counts per CPU or per thread, not both" },
	{ "# no events\nprocess comm=stress user=root\n", "kpmc.conf:2: token 'process': nothing to count: no 'events' line" },
	{ "cpus all\n", "kpmc.conf:1: token 'cpus': nothing to count: no 'events' line" },
	{ "steps var/spool/kpmc\n", "kpmc.conf:1: token 'var/spool/kpmc': not an absolute directory (without '..', at most 199 characters)" },
	{ "steps /var/spool/../tmp\n", "kpmc.conf:1: token '/var/spool/../tmp': not an absolute directory (without '..', at most 199 characters)" },
	{ "steps /var/spool/kpmc\nsteps /x\n", "kpmc.conf:2: token 'steps': given again (first on line 1)" },
	{ "cgroups /job_*\n", "kpmc.conf:1: token 'cgroups': nothing to count: no 'events' line" },
	{ "events instr\ncgroups job_*\n",
	  "kpmc.conf:2: token 'job_*': not an absolute cgroup path (as /proc/PID/cgroup shows it, without '..', at most 191 characters)" },
	{ "events instr\ncgroups /a/../b\n",
	  "kpmc.conf:2: token '/a/../b': not an absolute cgroup path (as /proc/PID/cgroup shows it, without '..', at most 191 characters)" },
	{ "events instr\ncgroups /job_[12]\n",
	  "kpmc.conf:2: token '/job_[12]': character '[': a pattern takes letters, digits, / _ . - @ : + = and the wildcards * ?" },
	{ "events instr\nprocess pid=1\ncgroups /a\n",
	  "kpmc.conf:3: token 'cgroups': process lines given (first on line 2): the kernel counts per thread or per cgroup, not both" },
	{ "events instr\ncgroups /a\nprocess pid=1\n",
	  "kpmc.conf:3: token 'process': cgroups given (line 2): the kernel counts per cgroup or per thread, not both" },
	{ "events instr\ncgroups /a\ncpus all\n",
	  "kpmc.conf:3: token 'cpus': cgroups given (line 2): count CPUs or cgroups, not both" },
	{ "events instr\ncpus all\ncgroups /a\n",
	  "kpmc.conf:3: token 'cgroups': cpus given (line 2): count CPUs or cgroups, not both" },
	{ "events instr\x01\n", "kpmc.conf:1: token '\\x01': a control character" },
	{ "events \xc3\xa9v\n", "kpmc.conf:1: token '\\xc3': not ASCII" },
};

static void test_bad_lines(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(bad[i].text), -1);
		assert_string_equal(err, bad[i].msg);
		/* Refused as a whole: nothing half-configured. */
		assert_int_equal(kpmc_pmda_config_active(&cfg), 0);
		assert_int_equal(cfg.nsel, 0);
		assert_int_equal(cfg.events[0], '\0');
		assert_int_equal(cfg.interval_ms, KPMC_PMDA_DEFAULT_INTERVAL_MS);
	}
}

static void test_long_line_and_too_many(void **state)
{
	char text[2048 + 64 * 32];
	size_t n = 0;

	(void)state;
	memset(text, 'x', 1500);
	memcpy(text, "events ", 7);
	text[1500] = '\n';
	text[1501] = '\0';
	assert_int_equal(parse(text), -1);
	assert_string_equal(err, "kpmc.conf:1: token 'events xxxxxxxxx...': line longer than 1023 characters");

	n = (size_t)sprintf(text, "events instr\n");
	for (int i = 1; i <= KPMC_PMDA_MAX_SELECTORS + 1; i++)
		n += (size_t)sprintf(text + n, "process pid=%d\n", i);
	assert_int_equal(parse(text), -1);
	assert_string_equal(err, "kpmc.conf:66: token 'pid=65': more than 64 process lines");
}

static void test_counter_names(void **state)
{
	char names[KPMC_MAX_COUNTERS][96];

	(void)state;
	/* arm64: cycles on the fixed pmc0, instr on the first event counter. */
	assert_int_equal(kpmc_counter_names("instr,cycles:u", "pmc1=0x8,pmc0,usr0=1,os0=0,tbs=100",
						 names, KPMC_MAX_COUNTERS), 0);
	assert_string_equal(names[1], "instr");
	assert_string_equal(names[0], "cycles:u");
	assert_string_equal(names[2], "");
	/* AMD's split modifiers are not counters' events. */
	assert_int_equal(kpmc_counter_names("l1d_misses", "pmc0=0x40,umask0=0x1,cmask0=0x0",
						 names, KPMC_MAX_COUNTERS), 0);
	assert_string_equal(names[0], "l1d_misses");
	assert_string_equal(names[1], "");
	/* Raw: the token names itself. */
	assert_int_equal(kpmc_counter_names("pmc0=0x100000000,os0=1,pmc1=0x100000003",
						 "pmc0=0x100000000,os0=1,pmc1=0x100000003,tbs=100",
						 names, KPMC_MAX_COUNTERS), 0);
	assert_string_equal(names[0], "pmc0=0x100000000");
	assert_string_equal(names[1], "pmc1=0x100000003");
	/* One pmcN token per event, within the counters, or it is refused. */
	assert_int_equal(kpmc_counter_names("instr", "pmc1=0x8,pmc2=0x11", names, KPMC_MAX_COUNTERS), -1);
	assert_int_equal(kpmc_counter_names("instr,cycles", "pmc1=0x8", names, KPMC_MAX_COUNTERS), -1);
	assert_int_equal(kpmc_counter_names("instr", "pmc16=0x8", names, KPMC_MAX_COUNTERS), -1);
}

static struct kpmc_record rec(uint8_t kind, uint32_t pid, uint32_t tid, uint64_t c0, uint64_t c1)
{
	struct kpmc_record r;

	memset(&r, 0, sizeof(r));
	r.kind = kind;
	r.pid = pid;
	r.tid = tid;
	r.counter_mask = 0x3;
	r.counts[0] = c0;
	r.counts[1] = c1;
	r.run_ns = c0 * 10;
	return r;
}

/*
 * A process attached while it sleeps is an instance at once, with zero
 * totals; its first record adds to that entry (no second one, the live
 * thread counted once); a pid reused by a process of another start time,
 * attached after the first ended, is a new process with zero totals again.
 */
static void test_counts_attached(void **state)
{
	struct kpmc_pmda_counts c;
	struct kpmc_pmda_task *p, *made;
	struct kpmc_record r;

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(kpmc_pmda_counts_attached(&c, 500, 500, 77, 1, &made), 0);
	p = kpmc_pmda_counts_find(&c.procs, 500);
	assert_non_null(p);
	assert_ptr_equal(made, p);
	assert_int_equal(p->t.pmc[0], 0);
	assert_int_equal(p->t.records, 0);
	assert_int_equal(p->live_threads, 1);
	assert_int_equal(p->start, 77);
	assert_int_equal(c.procs.n, 1);
	assert_int_equal(c.threads.n, 1);
	/* Attached again (a rescan): nothing new. */
	assert_int_equal(kpmc_pmda_counts_attached(&c, 500, 500, 77, 1, &made), 0);
	assert_null(made);
	assert_int_equal(p->live_threads, 1);
	r = rec(KPMC_REC_TBS, 500, 500, 9, 1);
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 10, 1, &made), 0);
	assert_null(made);
	assert_int_equal(c.procs.n, 1);
	assert_int_equal(kpmc_pmda_counts_find(&c.procs, 500)->t.pmc[0], 9);
	assert_int_equal(kpmc_pmda_counts_find(&c.procs, 500)->live_threads, 1);
	r = rec(KPMC_REC_EXIT, 500, 500, 1, 1);
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 20, 1, NULL), 0);
	assert_int_equal(kpmc_pmda_counts_find(&c.procs, 500)->ended, 20);
	/* The pid again, another process (start 99). */
	assert_int_equal(kpmc_pmda_counts_attached(&c, 500, 500, 99, 1, &made), 0);
	p = kpmc_pmda_counts_find(&c.procs, 500);
	assert_ptr_equal(made, p);
	assert_int_equal(p->start, 99);
	assert_int_equal(p->ended, 0);
	assert_int_equal(p->t.pmc[0], 0);
	assert_int_equal(p->live_threads, 1);
	assert_int_equal(c.procs.n, 1);
	kpmc_pmda_counts_free(&c);
}

/*
 * A fork storm's worth of tasks (2,500 processes of 4 threads, pids and
 * tids dense as the kernel gives them): every one found through the index
 * with its own sums, after growth, after expiry took half of them out of
 * the middle of the table, in a copy, and when an id is reused.
 */
static void test_counts_many_tasks(void **state)
{
	struct kpmc_pmda_counts c, d;
	struct kpmc_pmda_task *t;
	struct kpmc_record r;
	uint32_t pid, k;

	(void)state;
	memset(&c, 0, sizeof(c));
	memset(&d, 0, sizeof(d));
	for (pid = 1000; pid < 1000 + 4 * 2500; pid += 4)
		for (k = 0; k < 4; k++) {
			r = rec(KPMC_REC_TBS, pid, pid + k, pid + k, 1);
			assert_int_equal(kpmc_pmda_counts_add(&c, &r, 10, 1, NULL), 0);
			r = rec(k ? KPMC_REC_EXIT : KPMC_REC_TBS, pid, pid + k, 1, 1);
			/* Every other process ends whole at 20 (its leader last). */
			if ((pid / 4) % 2 && !k)
				r.kind = KPMC_REC_EXIT;
			assert_int_equal(kpmc_pmda_counts_add(&c, &r, 20, 1, NULL), 0);
		}
	assert_int_equal(c.procs.n, 2500);
	assert_int_equal(c.threads.n, 10000);
	for (pid = 1000; pid < 1000 + 4 * 2500; pid += 4) {
		t = kpmc_pmda_counts_find(&c.procs, pid);
		assert_non_null(t);
		assert_int_equal(t->id, pid);
		assert_int_equal(t->t.pmc[0], 4 * pid + 6 + 4);
		assert_int_equal(t->ended, (pid / 4) % 2 ? 20 : 0);
		for (k = 0; k < 4; k++)
			assert_int_equal(kpmc_pmda_counts_find(&c.threads, pid + k)->t.pmc[0], pid + k + 1);
	}
	assert_null(kpmc_pmda_counts_find(&c.procs, 1001));
	assert_null(kpmc_pmda_counts_find(&c.threads, 999));
	assert_null(kpmc_pmda_counts_find(&c.threads, 1000 + 4 * 2500));
	/* Expiry takes the ended processes and every ended thread out of the middle. */
	kpmc_pmda_counts_expire(&c, 100, 30);
	assert_int_equal(c.procs.n, 1250);
	assert_int_equal(c.threads.n, 1250);
	for (pid = 1000; pid < 1000 + 4 * 2500; pid += 4) {
		t = kpmc_pmda_counts_find(&c.procs, pid);
		if ((pid / 4) % 2) {
			assert_null(t);
			assert_null(kpmc_pmda_counts_find(&c.threads, pid));
		} else {
			assert_non_null(t);
			assert_int_equal(t->t.pmc[0], 4 * pid + 6 + 4);
			assert_int_equal(kpmc_pmda_counts_find(&c.threads, pid)->t.pmc[0], pid + 1);
		}
		for (k = 1; k < 4; k++)
			assert_null(kpmc_pmda_counts_find(&c.threads, pid + k));
	}
	/* The copy has its own index: what is added to the original is not in it. */
	assert_int_equal(kpmc_pmda_counts_copy(&d, &c), 0);
	r = rec(KPMC_REC_TBS, 1001, 1001, 5, 5);
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 110, 1, NULL), 0);
	assert_non_null(kpmc_pmda_counts_find(&c.procs, 1001));
	assert_null(kpmc_pmda_counts_find(&d.procs, 1001));
	assert_int_equal(kpmc_pmda_counts_find(&d.procs, 1000)->t.pmc[0], 4 * 1000 + 6 + 4);
	/* An expired pid that comes back is a new process, counted from zero. */
	r = rec(KPMC_REC_TBS, 1004, 1004, 3, 3);
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 110, 1, NULL), 0);
	assert_int_equal(kpmc_pmda_counts_find(&c.procs, 1004)->t.pmc[0], 3);
	kpmc_pmda_counts_free(&c);
	kpmc_pmda_counts_free(&d);
}

/* Records are deltas; a process's totals are every thread's sums, kept past its exit. */
static void test_counts(void **state)
{
	struct kpmc_pmda_counts c;
	struct kpmc_pmda_task *p = NULL, *t;
	struct kpmc_record r;

	(void)state;
	memset(&c, 0, sizeof(c));
	r = rec(KPMC_REC_TBS, 100, 100, 1000, 7);
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 50, 1, &p), 0);
	assert_non_null(p);
	assert_int_equal(p->id, 100);
	r = rec(KPMC_REC_TBS, 100, 101, 500, 1);
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 51, 1, &p), 0);
	assert_null(p);		/* not a new process */
	r = rec(KPMC_REC_TBS, 100, 100, 250, 2);
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 52, 1, &p), 0);
	r = rec(KPMC_REC_EXIT, 100, 101, 4, 0);
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 53, 1, &p), 0);
	t = kpmc_pmda_counts_find(&c.procs, 100);
	assert_int_equal(t->t.pmc[0], 1754);
	assert_int_equal(t->t.pmc[1], 10);
	assert_int_equal(t->t.run_ns, 17540);
	assert_int_equal(t->t.records, 4);
	assert_int_equal(t->ended, 0);		/* thread 100 still runs */
	assert_int_equal(kpmc_pmda_counts_find(&c.threads, 101)->t.pmc[0], 504);
	assert_int_equal(kpmc_pmda_counts_find(&c.threads, 101)->ended, 53);
	assert_int_equal(kpmc_pmda_counts_find(&c.threads, 100)->t.pmc[0], 1250);
	/* A lost record and a memory record: no counts of a thread. */
	r = rec(KPMC_REC_LOST, 0, 0, 0, 0);
	r.lost = 9;
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 54, 1, &p), 0);
	r = rec(KPMC_REC_MEM, 100, 100, 123, 456);
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 54, 1, &p), 0);
	assert_int_equal(c.lost, 9);
	assert_int_equal(kpmc_pmda_counts_find(&c.procs, 100)->t.pmc[0], 1754);
	/* The last thread's exit record ends the process with its final totals. */
	r = rec(KPMC_REC_EXIT, 100, 100, 46, 3);
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 60, 1, &p), 0);
	t = kpmc_pmda_counts_find(&c.procs, 100);
	assert_int_equal(t->ended, 60);
	assert_int_equal(t->t.pmc[0], 1800);
	assert_int_equal(t->t.pmc[1], 13);
	/* Kept for the grace period (a scrape after the exit sees the final value), then gone. */
	kpmc_pmda_counts_expire(&c, 60 + 30, 30);
	assert_non_null(kpmc_pmda_counts_find(&c.procs, 100));
	c.changed = 0;
	kpmc_pmda_counts_expire(&c, 60 + 31, 30);
	assert_null(kpmc_pmda_counts_find(&c.procs, 100));
	assert_null(kpmc_pmda_counts_find(&c.threads, 101));
	assert_int_equal(c.changed, 1);
	/* A process gone from /proc without exit records (lost) ends too. */
	r = rec(KPMC_REC_TBS, 200, 200, 5, 5);
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 70, 0, &p), 0);
	kpmc_pmda_counts_gone(&c, 200, 71);
	assert_int_equal(kpmc_pmda_counts_find(&c.procs, 200)->ended, 71);
	/* Without per-thread metrics the thread entries carry no totals. */
	assert_int_equal(kpmc_pmda_counts_find(&c.threads, 200)->t.pmc[0], 0);
	/* Per-CPU records; a CPU past the table is refused. */
	r = rec(KPMC_REC_CPU, 0, 0, 300, 1);
	r.cpu = 3;
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 72, 0, &p), 0);
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 72, 0, &p), 0);
	assert_int_equal(c.cpu[3].pmc[0], 600);
	assert_int_equal(c.cpu_seen[3], 1);
	r.cpu = 256;
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 72, 0, &p), -1);
	kpmc_pmda_counts_free(&c);
}

/* Saved totals come back exactly, for the same configuration only. */
static void test_state(void **state)
{
	char path[] = "/tmp/kpmc-pmda-state-XXXXXX";
	struct kpmc_pmda_counts a, b;
	struct kpmc_pmda_task *p;
	struct kpmc_record r;
	int fd = mkstemp(path);
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	r = rec(KPMC_REC_TBS, 300, 300, 123456789012ull, 42);
	r.virt_mask = 0x4;
	r.virt[2] = 77;
	assert_int_equal(kpmc_pmda_counts_add(&a, &r, 10, 1, &p), 0);
	strcpy(p->comm, "my prog");	/* a blank in a name survives as '?' */
	strcpy(p->job, "4711");
	p->start = 987654;
	r = rec(KPMC_REC_EXIT, 300, 301, 5, 6);
	assert_int_equal(kpmc_pmda_counts_add(&a, &r, 11, 1, &p), 0);
	r = rec(KPMC_REC_LOST, 0, 0, 0, 0);
	r.lost = 3;
	assert_int_equal(kpmc_pmda_counts_add(&a, &r, 11, 1, &p), 0);
	assert_int_equal(kpmc_pmda_state_save(path, "pmc0,pmc1=0x8,tbs=100", &a), 0);

	assert_int_equal(kpmc_pmda_state_load(path, "pmc0,pmc1=0x8,tbs=100", &b), 3);
	p = kpmc_pmda_counts_find(&b.procs, 300);
	assert_non_null(p);
	assert_string_equal(p->comm, "my?prog");
	assert_string_equal(p->job, "4711");
	assert_string_equal(p->cgroup, "");
	assert_int_equal(p->start, 987654);
	assert_int_equal(p->live_threads, 1);
	assert_int_equal(p->ended, 0);
	assert_int_equal(p->t.pmc[0], 123456789017ull);
	assert_int_equal(p->t.pmc[1], 48);
	assert_int_equal(p->t.virt[2], 77);
	assert_int_equal(p->t.records, 2);
	assert_int_equal(kpmc_pmda_counts_find(&b.threads, 301)->ended, 11);
	assert_int_equal(b.lost, 3);
	assert_int_equal(b.counter_mask, 0x3);
	assert_int_equal(b.virt_mask, 0x4);
	kpmc_pmda_counts_free(&b);

	/* Another configuration's totals are not these counters': start from zero. */
	assert_int_equal(kpmc_pmda_state_load(path, "pmc0,tbs=100", &b), 0);
	assert_int_equal(b.procs.n, 0);
	/* A malformed file: refused whole. */
	f = fopen(path, "a");
	fputs("P 1 2 x\n", f);
	fclose(f);
	assert_int_equal(kpmc_pmda_state_load(path, "pmc0,pmc1=0x8,tbs=100", &b), -1);
	assert_int_equal(b.procs.n, 0);
	assert_int_equal(b.lost, 0);
	/* No file: nothing restored. */
	unlink(path);
	assert_int_equal(kpmc_pmda_state_load(path, "pmc0,pmc1=0x8,tbs=100", &b), 0);
	kpmc_pmda_counts_free(&a);
}


/* What /proc says of a pid in the next tests: its start time, or nobody. */
static uint64_t proc_start[1000];

static int fake_start_of(uint32_t pid, uint64_t *start, void *arg)
{
	(void)arg;
	if (pid >= 1000 || !proc_start[pid])
		return -1;
	*start = proc_start[pid];
	return 0;
}

/* An ended process's pid taken by a new one is a new entry, not the old one resurrected. */
static void test_reused_pid(void **state)
{
	struct kpmc_pmda_counts c;
	struct kpmc_pmda_task *p = NULL, *t;
	struct kpmc_record r;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.start_of = fake_start_of;
	memset(proc_start, 0, sizeof(proc_start));
	/* Process 700 (start 11), threads 700 and 701, both exit. */
	proc_start[700] = 11;
	r = rec(KPMC_REC_TBS, 700, 700, 10, 1);
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 10, 1, &p), 0);
	assert_non_null(p);
	strcpy(p->comm, "old");
	strcpy(p->job, "42");
	p->start = 11;
	r = rec(KPMC_REC_EXIT, 700, 701, 7, 0);
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 11, 1, &p), 0);
	r = rec(KPMC_REC_EXIT, 700, 700, 5, 0);
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 12, 1, &p), 0);
	t = kpmc_pmda_counts_find(&c.procs, 700);
	assert_int_equal(t->ended, 12);
	assert_int_equal(t->t.pmc[0], 22);
	/* pid 700 is another process now (start 99): its first record starts a new entry. */
	proc_start[700] = 99;
	c.changed = 0;
	r = rec(KPMC_REC_TBS, 700, 700, 3, 0);
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 40, 1, &p), 0);
	assert_non_null(p);		/* the caller names it anew */
	assert_int_equal(c.changed, 1);
	t = kpmc_pmda_counts_find(&c.procs, 700);
	assert_ptr_equal(t, p);
	assert_int_equal(t->t.pmc[0], 3);
	assert_int_equal(t->t.records, 1);
	assert_int_equal(t->ended, 0);
	assert_int_equal(t->live_threads, 1);
	assert_int_equal(t->start, 99);
	assert_string_equal(t->comm, "");
	assert_string_equal(t->job, "");
	assert_int_equal(c.procs.n, 1);
	/* The old process's threads went with it; the new thread 700 starts from zero. */
	assert_null(kpmc_pmda_counts_find(&c.threads, 701));
	assert_int_equal(kpmc_pmda_counts_find(&c.threads, 700)->t.pmc[0], 3);
	assert_int_equal(kpmc_pmda_counts_find(&c.threads, 700)->ended, 0);

	/* Late records of a process the scan saw gone, its pid free: still that process's. */
	proc_start[710] = 21;
	r = rec(KPMC_REC_TBS, 710, 710, 100, 0);
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 50, 1, &p), 0);
	p->start = 21;
	r = rec(KPMC_REC_TBS, 710, 711, 10, 0);
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 50, 1, &p), 0);
	proc_start[710] = 0;
	kpmc_pmda_counts_gone(&c, 710, 51);
	r = rec(KPMC_REC_EXIT, 710, 711, 1, 0);
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 52, 1, &p), 0);
	assert_null(p);
	r = rec(KPMC_REC_EXIT, 710, 710, 2, 0);
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 52, 1, &p), 0);
	t = kpmc_pmda_counts_find(&c.procs, 710);
	assert_int_equal(t->t.pmc[0], 113);
	assert_int_equal(t->ended, 52);
	assert_int_equal(kpmc_pmda_counts_find(&c.threads, 711)->t.pmc[0], 11);

	/* Ended by its records while a thread not yet seen runs on (same start): the same process. */
	proc_start[720] = 31;
	r = rec(KPMC_REC_EXIT, 720, 722, 4, 0);
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 60, 1, &p), 0);
	p->start = 31;
	assert_int_equal(kpmc_pmda_counts_find(&c.procs, 720)->ended, 60);
	r = rec(KPMC_REC_TBS, 720, 720, 6, 0);
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 61, 1, &p), 0);
	assert_null(p);
	t = kpmc_pmda_counts_find(&c.procs, 720);
	assert_int_equal(t->t.pmc[0], 10);
	assert_int_equal(t->ended, 0);
	/* A thread that ended with its own last record, its tid back: a new thread. */
	r = rec(KPMC_REC_TBS, 720, 722, 8, 0);
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 62, 1, &p), 0);
	assert_int_equal(kpmc_pmda_counts_find(&c.threads, 722)->t.pmc[0], 8);
	assert_int_equal(kpmc_pmda_counts_find(&c.threads, 722)->ended, 0);
	assert_int_equal(kpmc_pmda_counts_find(&c.procs, 720)->t.pmc[0], 18);
	assert_int_equal(kpmc_pmda_counts_find(&c.procs, 720)->live_threads, 2);
	/* The callback survives kpmc_pmda_counts_free (the agent sets it once). */
	kpmc_pmda_counts_free(&c);
	assert_ptr_equal(c.start_of, fake_start_of);
}

/* The served copy is the caller's own: counting on does not change it. */
static void test_counts_copy(void **state)
{
	struct kpmc_pmda_counts c, served;
	struct kpmc_pmda_task *p;
	struct kpmc_record r;

	(void)state;
	memset(&c, 0, sizeof(c));
	memset(&served, 0, sizeof(served));
	r = rec(KPMC_REC_TBS, 800, 800, 10, 1);
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 1, 1, &p), 0);
	assert_int_equal(kpmc_pmda_counts_copy(&served, &c), 0);
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 2, 1, &p), 0);
	r = rec(KPMC_REC_TBS, 801, 801, 10, 1);
	assert_int_equal(kpmc_pmda_counts_add(&c, &r, 2, 1, &p), 0);
	assert_int_equal(kpmc_pmda_counts_find(&served.procs, 800)->t.pmc[0], 10);
	assert_null(kpmc_pmda_counts_find(&served.procs, 801));
	assert_int_equal(kpmc_pmda_counts_copy(&served, &c), 0);
	assert_int_equal(kpmc_pmda_counts_find(&served.procs, 800)->t.pmc[0], 20);
	assert_int_equal(served.procs.n, 2);
	kpmc_pmda_counts_free(&c);
	kpmc_pmda_counts_free(&served);
}

/* Saves at most every 'save' seconds, and only of changed totals; the file flushed whole. */
static void test_state_pacing(void **state)
{
	char dir[] = "/tmp/kpmc-pmda-state-dir-XXXXXX", path[128], tmp[160];
	struct kpmc_pmda_counts a, b;
	struct kpmc_pmda_task *p;
	struct kpmc_record r;
	struct stat st;
	FILE *f;

	(void)state;
	assert_int_equal(kpmc_pmda_state_due(-1, 0, 2, 1), 1);
	assert_int_equal(kpmc_pmda_state_due(-1, 0, 2, 0), 0);
	assert_int_equal(kpmc_pmda_state_due(1000, 2999, 2, 1), 0);
	assert_int_equal(kpmc_pmda_state_due(1000, 3000, 2, 1), 1);
	assert_int_equal(kpmc_pmda_state_due(1000, 900000, 2, 0), 0);
	assert_int_equal(kpmc_pmda_state_due(0, 59999, 60, 1), 0);

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/kpmc.state", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	r = rec(KPMC_REC_TBS, 900, 900, 5, 6);
	assert_int_equal(kpmc_pmda_counts_add(&a, &r, 1, 0, &p), 0);
	strcpy(p->job, "42");
	strcpy(p->step, "batch");
	p->uid = 1000;
	umask(022);
	assert_int_equal(kpmc_pmda_state_save(path, "pmc0,tbs=100", &a), 0);
	assert_int_equal(access(tmp, F_OK), -1);
	/* Other users' process counts: readable by the agent (root) only. */
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(kpmc_pmda_state_load(path, "pmc0,tbs=100", &b), 2);
	p = kpmc_pmda_counts_find(&b.procs, 900);
	assert_string_equal(p->job, "42");
	assert_string_equal(p->step, "batch");
	assert_int_equal(p->uid, 1000);
	kpmc_pmda_counts_free(&b);
	/* A file of the version before (no uid, no step) still counts. */
	f = fopen(path, "w");
	fputs("kpmc-pmda-state 1\nsig pmc0,tbs=100\nlost 0 masks 1 0\n"
	      "P 900 900 0 77 12 old 4711 /x 1 2 30 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", f);
	fclose(f);
	assert_int_equal(kpmc_pmda_state_load(path, "pmc0,tbs=100", &b), 1);
	p = kpmc_pmda_counts_find(&b.procs, 900);
	assert_non_null(p);
	assert_string_equal(p->comm, "old");
	assert_string_equal(p->job, "4711");
	assert_string_equal(p->step, "");
	assert_string_equal(p->cgroup, "/x");
	assert_int_equal(p->t.pmc[0], 30);
	assert_int_equal(p->ended, 77);
	kpmc_pmda_counts_free(&b);
	kpmc_pmda_counts_free(&a);
	/* A directory that is not there: -1, nothing left behind. */
	snprintf(path, sizeof(path), "%s/no/kpmc.state", dir);
	assert_int_equal(kpmc_pmda_state_save(path, "pmc0,tbs=100", &a), -1);
	snprintf(path, sizeof(path), "%s/kpmc.state", dir);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_file),
		cmocka_unit_test(test_defaults_and_nothing_configured),
		cmocka_unit_test(test_system_wide_and_raw),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_long_line_and_too_many),
		cmocka_unit_test(test_counter_names),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_counts_attached),
		cmocka_unit_test(test_counts_many_tasks),
		cmocka_unit_test(test_state),
		cmocka_unit_test(test_reused_pid),
		cmocka_unit_test(test_counts_copy),
		cmocka_unit_test(test_state_pacing),
	};

	return cmocka_run_group_tests_name("pmda_config", tests, NULL, NULL);
}
