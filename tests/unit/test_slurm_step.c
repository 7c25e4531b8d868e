// SPDX-License-Identifier: GPL-2.0
/*
 * The Slurm plugin's parts without Slurm (userland/slurm/step_count.c,
 * step_report.c): --kpmc's events checked, the step's cgroup found in
 * /proc/PID/cgroup texts of Slurm's cgroup/v2 layout (and nothing found in
 * others), kernel-mode tokens told apart, the totals summed from CPU
 * records, the report's exact CSV and JSON, a file written as another user
 * (refused where that user could not write, and through a symbolic link),
 * the spool refused when others can write it; the spool read back as
 * pmdakpmc serves it (pmda/pmda_steps.c): the plugin's own reports, stable
 * instances, and nothing from files root does not own or from a spool
 * others can write.
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

#include "step_count.h"
#include "step_report.h"
#include "step_series.h"
#include "common/cgroup_count.h"
#include "pmda_steps.h"

static char err[600];

static void test_option(void **state)
{
	char ev[KPMC_STEP_EVENTS_MAX];
	char big[KPMC_STEP_EVENTS_MAX + 8];

	(void)state;
	assert_int_equal(kpmc_step_parse_option("instr,cycles:u", ev, sizeof(ev), err, sizeof(err)), 0);
	assert_string_equal(ev, "instr,cycles:u");
	assert_int_equal(kpmc_step_parse_option("pmc0=0x8,usr0=1", ev, sizeof(ev), err, sizeof(err)), 0);
	assert_int_equal(kpmc_step_parse_option("", ev, sizeof(ev), err, sizeof(err)), -1);
	assert_int_equal(kpmc_step_parse_option("instr;cycles", ev, sizeof(ev), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "character ';'"));
	assert_int_equal(kpmc_step_parse_option("instr\",\"x", ev, sizeof(ev), err, sizeof(err)), -1);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(kpmc_step_parse_option(big, ev, sizeof(ev), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "at most 511"));
}

/* interval=MS taken out of the events wherever it stands; tbs= the plugin's own. */
static void test_interval(void **state)
{
	static const struct {
		const char *in, *events;
		unsigned int ms;
		const char *err;
	} c[] = {
		{ "instr,cycles", "instr,cycles", 0, NULL },
		{ "instr,cycles,interval=100", "instr,cycles", 100, NULL },
		{ "interval=1000,instr", "instr", 1000, NULL },
		{ "instr,interval=10,cycles:u", "instr,cycles:u", 10, NULL },
		{ "instr,interval=9", NULL, 0, "'interval=9': want interval=MS, 10 to 3600000 ms" },
		{ "instr,interval=1s", NULL, 0, "'interval=1s': want interval=MS, 10 to 3600000 ms" },
		{ "instr,interval=", NULL, 0, "'interval=': want interval=MS, 10 to 3600000 ms" },
		{ "instr,interval=3600001", NULL, 0, "'interval=3600001': want interval=MS" },
		{ "interval=100,interval=200,instr", NULL, 0, "interval= given twice" },
		{ "interval=100", NULL, 0, "interval= and no events" },
		{ "instr,tbs=100", NULL, 0, "tbs= is the plugin's to set" },
	};
	char ev[KPMC_STEP_EVENTS_MAX];
	unsigned int ms;

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		snprintf(ev, sizeof(ev), "%s", c[i].in);
		if (c[i].events) {
			assert_int_equal(kpmc_step_take_interval(ev, &ms, err, sizeof(err)), 0);
			assert_string_equal(ev, c[i].events);
			assert_int_equal(ms, c[i].ms);
		} else {
			assert_int_equal(kpmc_step_take_interval(ev, &ms, err, sizeof(err)), -1);
			assert_non_null(strstr(err, c[i].err));
		}
	}
}

/* Each CPU's k-th record is interval k: the series sums them; other records are not in it. */
static void test_series(void **state)
{
	struct kpmc_step_series s = { .interval_ms = 100 };
	char names[KPMC_MAX_COUNTERS][96] = { [0] = "instr", [2] = "cycles" };
	struct kpmc_record r = { .kind = KPMC_REC_CPU, .counter_mask = 5 };
	char *csv;

	(void)state;
	for (unsigned int cpu = 0; cpu < 2; cpu++) {
		for (uint64_t k = 1; k <= 3; k++) {
			r.cpu = (uint16_t)cpu;
			r.nsample = k;
			r.counts[0] = 10 * k + cpu;
			r.counts[2] = 1000;
			r.run_ns = 7;
			kpmc_step_series_add(&s, &r);
		}
	}
	r.kind = KPMC_REC_LOST;
	r.nsample = 9;
	kpmc_step_series_add(&s, &r);
	assert_int_equal(s.n, 3);
	csv = kpmc_step_series_csv(&s, (const char (*)[96])names);
	assert_non_null(csv);
	assert_string_equal(csv, "interval,end_ms,run_ns,instr,cycles\n"
				 "1,100,14,21,2000\n"
				 "2,200,14,41,2000\n"
				 "3,300,14,61,2000\n");
	free(csv);
	kpmc_step_series_free(&s);
}

static void test_kernel_tokens(void **state)
{
	(void)state;
	assert_int_equal(kpmc_step_counts_kernel("pmc0=0x8,usr0=1,os0=0"), 0);
	assert_int_equal(kpmc_step_counts_kernel("pmc0=0x8,usr0=1,os0=1"), 1);
	assert_int_equal(kpmc_step_counts_kernel("pmc0=0x100000000,os0=1,pmc1=0x11"), 1);
	assert_int_equal(kpmc_step_counts_kernel("pmc1=0x11,os1=10"), 0);
	assert_int_equal(kpmc_step_counts_kernel("pmc0=0x8,xos0=1"), 0);
	assert_int_equal(kpmc_step_counts_kernel("pmc12=0x8,os12=1"), 1);
}

static void test_cgroup_path(void **state)
{
	char path[256], step[32];

	(void)state;
	assert_int_equal(kpmc_step_cgroup_path(
		"0::/system.slice/slurmstepd.scope/job_42/step_0/user/task_0\n",
		42, path, sizeof(path), step, sizeof(step)), 0);
	assert_string_equal(path, "/system.slice/slurmstepd.scope/job_42/step_0");
	assert_string_equal(step, "0");
	assert_int_equal(kpmc_step_cgroup_path(
		"12:pids:/x\n0::/system.slice/slurmstepd.scope/job_7/step_batch/user/task_0\n",
		7, path, sizeof(path), step, sizeof(step)), 0);
	assert_string_equal(step, "batch");
	assert_string_equal(path, "/system.slice/slurmstepd.scope/job_7/step_batch");
	/* Another job's cgroup, a job id that only begins the same, no unified line. */
	assert_int_equal(kpmc_step_cgroup_path("0::/system.slice/slurmstepd.scope/job_8/step_0/user/task_0\n",
					       7, path, sizeof(path), step, sizeof(step)), -1);
	assert_int_equal(kpmc_step_cgroup_path("0::/system.slice/slurmstepd.scope/job_77/step_0\n",
					       7, path, sizeof(path), step, sizeof(step)), -1);
	assert_int_equal(kpmc_step_cgroup_path("1:name=systemd:/job_7/step_0\n",
					       7, path, sizeof(path), step, sizeof(step)), -1);
	assert_int_equal(kpmc_step_cgroup_path("0::/user.slice/job_7/step_\n",
					       7, path, sizeof(path), step, sizeof(step)), -1);
	assert_int_equal(kpmc_step_cgroup_path("", 7, path, sizeof(path), step, sizeof(step)), -1);
}

static void fill(struct kpmc_cgroup_count *c)
{
	struct kpmc_record r;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	strcpy(c->counter_name[0], "instr");
	strcpy(c->counter_name[1], "cycles:u");
	for (int cpu = 0; cpu < 2; cpu++) {
		memset(&r, 0, sizeof(r));
		r.kind = cpu ? KPMC_REC_CPU_OFFLINE : KPMC_REC_CPU;
		r.cpu = cpu;
		r.counter_mask = 3;
		r.counts[0] = 1000 + cpu;
		r.counts[1] = 2000;
		r.run_ns = 500;
		kpmc_cgroup_count_add(c, &r);
	}
	memset(&r, 0, sizeof(r));
	r.kind = KPMC_REC_LOST;
	r.lost = 3;
	kpmc_cgroup_count_add(c, &r);
	/* A thread's record has no place in a step's totals. */
	memset(&r, 0, sizeof(r));
	r.kind = KPMC_REC_TBS;
	r.counter_mask = 1;
	r.counts[0] = 99;
	kpmc_cgroup_count_add(c, &r);
}

static void test_totals_and_report(void **state)
{
	struct kpmc_cgroup_count c;
	struct kpmc_step_report r = { .job = 42, .step = "0", .node = "node1", .nodeid = 0,
				      .uid = 1000, .events = "instr,cycles:u" };
	char buf[1024], name[64];

	(void)state;
	fill(&c);
	assert_int_equal(c.counts[0], 2001);
	assert_int_equal(c.counts[1], 4000);
	assert_int_equal(c.run_ns, 1000);
	assert_int_equal(c.lost, 3);
	assert_int_equal(c.records, 4);
	r.count = &c;
	assert_true(kpmc_step_report_csv(&r, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "job,step,node,event,count\n42,0,node1,instr,2001\n"
			    "42,0,node1,cycles:u,4000\n42,0,node1,run_ns,1000\n");
	assert_true(kpmc_step_report_json(&r, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "{\"job\":42,\"step\":\"0\",\"node\":\"node1\",\"nodeid\":0,\"uid\":1000,"
			    "\"events\":\"instr,cycles:u\",\"counts\":{\"instr\":2001,\"cycles:u\":4000},"
			    "\"run_ns\":1000,\"records\":4,\"lost\":3}\n");
	assert_int_equal(kpmc_step_report_json(&r, buf, 40), -1);
	assert_int_equal(kpmc_step_report_name(&r, ".json", name, sizeof(name)), 0);
	assert_string_equal(name, "kpmc-42.0.node1.json");
}

/* A fresh directory of root's that only root can write (these tests run as root). */
static void root_tmpdir(char *dir)
{
	if (geteuid() != 0)
		skip();
	assert_non_null(mkdtemp(dir));
	chmod(dir, 0755);
}

static void test_files(void **state)
{
	char dir[] = "/tmp/kpmc-step-XXXXXX", p[256], buf[64] = "";
	struct stat st;
	FILE *f;

	(void)state;
	root_tmpdir(dir);
	/* As uid 65534 in a directory only root may write: refused. */
	assert_int_equal(kpmc_step_write_as(65534, 65534, dir, "a.csv", "x\n", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "Permission denied"));
	/* Where it may write: its file, its owner. */
	chmod(dir, 01777);
	assert_int_equal(kpmc_step_write_as(65534, 65534, dir, "a.csv", "x,1\n", err, sizeof(err)), 0);
	snprintf(p, sizeof(p), "%s/a.csv", dir);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_uid, 65534);
	f = fopen(p, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "x,1\n");
	/* A symbolic link at the name is not followed. */
	snprintf(p, sizeof(p), "%s/b.csv", dir);
	assert_int_equal(symlink("/etc/kpmc-should-not-exist", p), 0);
	assert_int_equal(kpmc_step_write_as(65534, 65534, dir, "b.csv", "x\n", err, sizeof(err)), -1);
	assert_int_equal(access("/etc/kpmc-should-not-exist", F_OK), -1);
	/* The spool: made by root, refused once others can write it. */
	snprintf(p, sizeof(p), "%s/spool", dir);
	assert_int_equal(kpmc_step_spool(p, "kpmc-1.0.n.json", "{}\n", err, sizeof(err)), 0);
	snprintf(p, sizeof(p), "%s/spool/kpmc-1.0.n.json", dir);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_uid, 0);
	snprintf(p, sizeof(p), "%s/spool", dir);
	chmod(p, 0777);
	assert_int_equal(kpmc_step_spool(p, "kpmc-1.0.n.json", "{}\n", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "only root can write"));
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	assert_int_equal(system(p), 0);
}

static void test_spool_served(void **state)
{
	char dir[] = "/tmp/kpmc-spool-XXXXXX", p[256], buf[1024];
	struct kpmc_pmda_steps t = { 0 };
	struct kpmc_cgroup_count c;
	struct kpmc_step_report r = { .job = 42, .step = "batch", .node = "node1", .uid = 1000,
				      .events = "instr,cycles:u" };
	const struct kpmc_pmda_step *st;
	unsigned int inst;
	FILE *f;

	(void)state;
	root_tmpdir(dir);
	fill(&c);
	r.count = &c;
	assert_true(kpmc_step_report_json(&r, buf, sizeof(buf)) > 0);
	assert_int_equal(kpmc_step_spool(dir, "kpmc-42.batch.node1.json", buf, err, sizeof(err)), 0);
	r.job = 43;
	strcpy(r.step, "0");
	assert_true(kpmc_step_report_json(&r, buf, sizeof(buf)) > 0);
	assert_int_equal(kpmc_step_spool(dir, "kpmc-43.0.node1.json", buf, err, sizeof(err)), 0);
	/* Not root's: a user cannot add a step of someone else's job. */
	snprintf(p, sizeof(p), "%s/kpmc-44.0.node1.json", dir);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs("{\"job\":44,\"step\":\"0\",\"uid\":0,\"events\":\"instr\",\"counts\":{\"instr\":1},\"run_ns\":1,\"lost\":0}\n", f);
	fclose(f);
	assert_int_equal(chown(p, 65534, 65534), 0);
	/* Root's but not a report. */
	assert_int_equal(kpmc_step_spool(dir, "kpmc-45.0.node1.json", "{\"job\":45}\n", err, sizeof(err)), 0);
	assert_int_equal(kpmc_pmda_steps_read(&t, dir), 2);
	assert_int_equal(t.changed, 1);
	st = t.v[0].job == 42 ? &t.v[0] : &t.v[1];
	assert_int_equal(st->job, 42);
	assert_string_equal(st->step, "batch");
	assert_int_equal(st->uid, 1000);
	assert_string_equal(st->events, "instr,cycles:u");
	assert_string_equal(st->name[0], "instr");
	assert_string_equal(st->name[1], "cycles:u");
	assert_string_equal(st->name[2], "");
	assert_int_equal(st->count[0], 2001);
	assert_int_equal(st->count[1], 4000);
	assert_int_equal(st->run_ns, 1000);
	assert_int_equal(st->lost, 3);
	inst = st->inst;
	/* Read again: the same instances; one file gone, its step with it. */
	t.changed = 0;
	snprintf(p, sizeof(p), "%s/kpmc-43.0.node1.json", dir);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(kpmc_pmda_steps_read(&t, dir), 1);
	assert_int_equal(t.changed, 1);
	assert_non_null(kpmc_pmda_steps_find(&t, inst));
	assert_int_equal(kpmc_pmda_steps_find(&t, inst)->job, 42);
	/* A spool others can write serves nothing. */
	chmod(dir, 0777);
	assert_int_equal(kpmc_pmda_steps_read(&t, dir), -1);
	kpmc_pmda_steps_free(&t);
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	assert_int_equal(system(p), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_option),
		cmocka_unit_test(test_interval),
		cmocka_unit_test(test_series),
		cmocka_unit_test(test_kernel_tokens),
		cmocka_unit_test(test_cgroup_path),
		cmocka_unit_test(test_totals_and_report),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_spool_served),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
