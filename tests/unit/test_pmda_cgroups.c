// SPDX-License-Identifier: GPL-2.0
/*
 * pmdakpmc's cgroups counted as a whole (pmda/pmda_cgroups.c) on a fake
 * cgroup tree and a fake module: which directories a pattern takes (no
 * links, no files), the Slurm job and step their paths name, the records
 * that reach each one (by the start that counted them), a cgroup gone
 * stopped and kept for its grace, a refusal tried again only later.
 */
#include <errno.h>
#include <limits.h>
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

#include "pmda_cgroups.h"
#include "pmda_config.h"

static char root[64];

/* The fake module: what it was asked, and whether it refuses. */
static struct {
	char started[8][PATH_MAX];
	unsigned int nstarted;
	uint32_t stopped[8];
	unsigned int nstopped;
	int refuse;
} fake;

static int fake_start(int fd, char *why, size_t len, void *arg)
{
	char link[64];
	ssize_t n;

	(void)arg;
	/* What the module would be handed: the directory matched itself. */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, fake.started[fake.nstarted], sizeof(fake.started[0]) - 1);
	assert_true(n > 0);
	fake.started[fake.nstarted++][n] = '\0';
	if (fake.refuse) {
		snprintf(why, len, "cannot count the cgroup: system-wide monitoring is already on for 8 sessions");
		return -EBUSY;
	}
	return 0;
}

static void fake_stop(uint32_t id, void *arg)
{
	(void)arg;
	fake.stopped[fake.nstopped++] = id;
}

static const struct kpmc_pmda_cgroup_ops ops = { .start = fake_start, .stop = fake_stop };

static void mkdirs(const char *rel)
{
	char path[PATH_MAX], *p;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	assert_int_equal(mkdir(path, 0755), 0);
}

static const struct kpmc_pmda_cgroup *by_path(const struct kpmc_pmda_cgroups *g, const char *path)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->v[i].id && !strcmp(g->v[i].path, path))
			return kpmc_pmda_cgroups_find(g, g->v[i].inst);
	return NULL;
}

static struct kpmc_record cpu_record(uint32_t detail, uint64_t pmc0, uint64_t run_ns)
{
	struct kpmc_record r = { .kind = KPMC_REC_CPU, .counter_mask = 1, .detail = detail };

	r.counts[0] = pmc0;
	r.run_ns = run_ns;
	return r;
}

static void test_cgroups(void **state)
{
	const char *scope = "/system.slice/slurmstepd.scope";
	struct kpmc_pmda_config cfg;
	struct kpmc_pmda_cgroups g = { 0 };
	const struct kpmc_pmda_cgroup *j7, *j8, *j11;
	struct kpmc_record r;
	char path[PATH_MAX], err[256], want[PATH_MAX];
	FILE *f;

	(void)state;
	snprintf(root, sizeof(root), "/tmp/kpmc-cgtest-XXXXXX");
	assert_non_null(mkdtemp(root));
	mkdirs("/system.slice/slurmstepd.scope/job_7/step_0");
	mkdirs("/system.slice/slurmstepd.scope/job_8");
	mkdirs("/other/job_9");
	/* A file and a link that match are no cgroups of theirs. */
	snprintf(path, sizeof(path), "%s%s/job_10", root, scope);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(path, sizeof(path), "%s%s/job_11x", root, scope);
	snprintf(want, sizeof(want), "%s/other/job_9", root);
	assert_int_equal(symlink(want, path), 0);
	assert_int_equal(kpmc_pmda_config_parse("events instr\ncgroups /system.slice/slurmstepd.scope/job_*\n"
						"cgroups /system.slice/slurmstepd.scope/job_7/step_*\n",
						"kpmc.conf", &cfg, err, sizeof(err)), 0);

	assert_int_equal(kpmc_pmda_cgroups_scan(&g, root, &cfg, &ops, 1000), 3);
	assert_int_equal(fake.nstarted, 3);
	j7 = by_path(&g, "/system.slice/slurmstepd.scope/job_7");
	j8 = by_path(&g, "/system.slice/slurmstepd.scope/job_8");
	assert_non_null(j7);
	assert_non_null(j8);
	assert_string_equal(j7->job, "7");
	assert_string_equal(j7->step, "");
	assert_string_equal(by_path(&g, "/system.slice/slurmstepd.scope/job_7/step_0")->step, "0");
	snprintf(want, sizeof(want), "%s%s/job_8", root, scope);
	assert_string_equal(fake.started[j8->id - 1], want);
	assert_null(by_path(&g, "/system.slice/slurmstepd.scope/job_10"));
	assert_null(by_path(&g, "/system.slice/slurmstepd.scope/job_11x"));

	/* Each record to the start that counted it; others to none. */
	r = cpu_record(j7->id, 100, 10);
	kpmc_pmda_cgroups_add(&g, &r);
	r = cpu_record(j7->id, 50, 5);
	kpmc_pmda_cgroups_add(&g, &r);
	r = cpu_record(j8->id, 7, 1);
	kpmc_pmda_cgroups_add(&g, &r);
	r = cpu_record(99, 1000, 1);
	kpmc_pmda_cgroups_add(&g, &r);
	r = cpu_record(j7->id, 1000, 1);
	r.kind = KPMC_REC_EXIT;
	kpmc_pmda_cgroups_add(&g, &r);
	assert_int_equal(j7->t.pmc[0], 150);
	assert_int_equal(j7->t.run_ns, 15);
	assert_int_equal(j7->t.records, 2);
	assert_int_equal(j8->t.pmc[0], 7);

	/* Found again: nothing started twice. */
	g.changed = 0;
	assert_int_equal(kpmc_pmda_cgroups_scan(&g, root, &cfg, &ops, 1002), 3);
	assert_int_equal(fake.nstarted, 3);
	assert_int_equal(g.changed, 0);

	/* job_8 gone: its counting stopped, its totals (and late records) kept for the grace. */
	snprintf(path, sizeof(path), "%s%s/job_8", root, scope);
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(kpmc_pmda_cgroups_scan(&g, root, &cfg, &ops, 1004), 2);
	assert_int_equal(fake.nstopped, 1);
	j8 = by_path(&g, "/system.slice/slurmstepd.scope/job_8");
	assert_non_null(j8);
	assert_int_equal(fake.stopped[0], j8->id);
	assert_int_equal(j8->ended, 1004);
	r = cpu_record(j8->id, 3, 1);
	kpmc_pmda_cgroups_add(&g, &r);
	assert_int_equal(j8->t.pmc[0], 10);
	kpmc_pmda_cgroups_expire(&g, 1010, 60);
	assert_non_null(by_path(&g, "/system.slice/slurmstepd.scope/job_8"));
	kpmc_pmda_cgroups_expire(&g, 1065, 60);
	assert_null(by_path(&g, "/system.slice/slurmstepd.scope/job_8"));

	/* A refusal: no instance, the reason kept, not tried again at every scan. */
	mkdirs("/system.slice/slurmstepd.scope/job_12");
	fake.refuse = 1;
	kpmc_pmda_cgroups_scan(&g, root, &cfg, &ops, 1100);
	assert_int_equal(fake.nstarted, 4);
	assert_int_equal(g.refused, 1);
	assert_non_null(strstr(g.refusal, "/system.slice/slurmstepd.scope/job_12: cannot count"));
	assert_null(by_path(&g, "/system.slice/slurmstepd.scope/job_12"));
	fake.refuse = 0;
	kpmc_pmda_cgroups_scan(&g, root, &cfg, &ops, 1100 + KPMC_PMDA_CGROUP_RETRY_S - 1);
	assert_int_equal(fake.nstarted, 4);
	kpmc_pmda_cgroups_scan(&g, root, &cfg, &ops, 1100 + KPMC_PMDA_CGROUP_RETRY_S);
	assert_int_equal(fake.nstarted, 5);
	j11 = by_path(&g, "/system.slice/slurmstepd.scope/job_12");
	assert_non_null(j11);
	/* Ids go on from the last accepted start, as the module numbers them. */
	assert_int_equal(j11->id, 4);

	kpmc_pmda_cgroups_free(&g);
	assert_int_equal(g.n, 0);
	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cgroups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
