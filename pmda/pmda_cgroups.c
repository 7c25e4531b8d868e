// SPDX-License-Identifier: GPL-2.0
/* Cgroups counted as a whole by the module (see pmda_cgroups.h). */
#include "pmda_cgroups.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/growarray.h"
#include "pmda_scan.h"

/* The live entry of path, or NULL. */
static struct kpmc_pmda_cgroup *live(struct kpmc_pmda_cgroups *g, const char *path)
{
	for (size_t i = 0; i < g->n; i++)
		if (!g->v[i].ended && !strcmp(g->v[i].path, path))
			return &g->v[i];
	return NULL;
}

/*
 * A directory matched: counted from now on, or refused (the module counts
 * 8 cgroups at most, with the session's events): then tried again a while
 * later, not at every scan (each refusal is a line in the kernel's log).
 */
static void start(struct kpmc_pmda_cgroups *g, struct kpmc_pmda_cgroup *e, const char *dir,
		  const struct kpmc_pmda_cgroup_ops *ops, time_t now)
{
	char why[200];
	int fd, err;

	/* The directory itself, never a link: what the module is given is what was matched. */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;		/* gone meanwhile */
	err = ops->start(fd, why, sizeof(why), ops->arg);
	/* The module holds the cgroup from its start; it is stopped by its number. */
	close(fd);
	if (err) {
		g->refused++;
		snprintf(g->refusal, sizeof(g->refusal), "%s: %s", e->path, why);
		e->retry = now + KPMC_PMDA_CGROUP_RETRY_S;
		return;
	}
	e->id = ++g->starts;
	e->inst = g->next_inst++;
	g->changed = 1;
}

/* A new entry for path (not counted yet), or NULL without memory. */
static struct kpmc_pmda_cgroup *add(struct kpmc_pmda_cgroups *g, const char *path)
{
	struct kpmc_pmda_cgroup *e;
	char text[KPMC_PMDA_CGROUP_PATH_MAX + 8];

	if (grow_array((void **)&g->v, &g->cap, g->n + 1, sizeof(*g->v), 8))
		return NULL;
	e = &g->v[g->n++];
	memset(e, 0, sizeof(*e));
	snprintf(e->path, sizeof(e->path), "%s", path);
	snprintf(text, sizeof(text), "0::%s\n", path);
	kpmc_pmda_slurm_job(text, e->job, sizeof(e->job), e->step, sizeof(e->step));
	return e;
}

int kpmc_pmda_cgroups_scan(struct kpmc_pmda_cgroups *g, const char *root,
			   const struct kpmc_pmda_config *c, const struct kpmc_pmda_cgroup_ops *ops,
			   time_t now)
{
	size_t rl = strlen(root);
	int counted = 0;

	for (size_t i = 0; i < g->n; i++)
		g->v[i].seen = 0;
	for (unsigned int p = 0; p < c->ncgroup_patterns; p++) {
		char pattern[PATH_MAX];
		glob_t gl;

		snprintf(pattern, sizeof(pattern), "%s%s", root, c->cgroup_pattern[p]);
		if (glob(pattern, GLOB_ONLYDIR | GLOB_NOSORT, NULL, &gl))
			continue;
		for (size_t m = 0; m < gl.gl_pathc; m++) {
			const char *dir = gl.gl_pathv[m], *path = dir + rl;
			struct kpmc_pmda_cgroup *e;
			struct stat st;

			/* Matches are below root; GLOB_ONLYDIR may keep links and files. */
			if (strncmp(dir, root, rl) || path[0] != '/' ||
			    strlen(path) >= KPMC_PMDA_CGROUP_PATH_MAX || lstat(dir, &st) ||
			    !S_ISDIR(st.st_mode))
				continue;
			e = live(g, path);
			if (!e)
				e = add(g, path);
			if (!e)
				continue;
			e->seen = 1;
			if (!e->id && now >= e->retry)
				start(g, e, dir, ops, now);
		}
		globfree(&gl);
	}
	for (size_t i = 0; i < g->n; i++) {
		struct kpmc_pmda_cgroup *e = &g->v[i];

		if (e->ended)
			continue;
		if (e->seen) {
			counted += e->id != 0;
			continue;
		}
		/* Gone: its counting stops (its last records follow), its totals stay a while. */
		if (e->id) {
			ops->stop(e->id, ops->arg);
			g->changed = 1;
		}
		e->ended = now;
	}
	return counted;
}

void kpmc_pmda_cgroups_add(struct kpmc_pmda_cgroups *g, const struct kpmc_record *r)
{
	if (r->kind != KPMC_REC_CPU && r->kind != KPMC_REC_CPU_OFFLINE)
		return;
	for (size_t i = 0; i < g->n; i++) {
		struct kpmc_pmda_cgroup *e = &g->v[i];

		if (!e->id || e->id != r->detail)
			continue;
		for (unsigned int k = 0; k < KPMC_MAX_COUNTERS; k++)
			if (r->counter_mask & (1u << k))
				e->t.pmc[k] += r->counts[k];
		e->t.run_ns += r->run_ns;
		e->t.records++;
		return;
	}
}

void kpmc_pmda_cgroups_expire(struct kpmc_pmda_cgroups *g, time_t now, unsigned int grace_s)
{
	size_t k = 0;

	for (size_t i = 0; i < g->n; i++) {
		if (g->v[i].ended && (!g->v[i].id || now - g->v[i].ended > (time_t)grace_s)) {
			g->changed |= g->v[i].id != 0;
			continue;
		}
		g->v[k++] = g->v[i];
	}
	g->n = k;
}

const struct kpmc_pmda_cgroup *kpmc_pmda_cgroups_find(const struct kpmc_pmda_cgroups *g,
						      unsigned int inst)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->v[i].id && g->v[i].inst == inst)
			return &g->v[i];
	return NULL;
}

void kpmc_pmda_cgroups_free(struct kpmc_pmda_cgroups *g)
{
	free(g->v);
	memset(g, 0, sizeof(*g));
	g->changed = 1;
}
