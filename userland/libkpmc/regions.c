// SPDX-License-Identifier: LGPL-2.1
/*
 * Regions: kpmc_region_begin/end in the calling thread (its open regions,
 * the counts at each begin), the totals over all threads, their queries and
 * report; with samples or the fold trace, each invocation kept for them.
 */
#include "kpmc.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libkpmc_internal.h"
#include "attrib.h"
#include "common/growarray.h"
#include "foldtrace_write.h"

/* A region over all threads (under lock). */
struct region {
	char name[KPMC_LIB_NAME_LEN];
	uint64_t calls;
	uint64_t run_ns;
	uint64_t total[KPMC_LIB_COUNTERS];	/* pmcN over all sets */
	uint32_t nr_sets;
	struct kpmc_set_counts sets[KPMC_LIB_SETS];
	/* With a sampling configuration: each invocation, for the samples. */
	struct kpmc_lib_interval *iv;
	size_t niv, cap;
	/* With the fold trace kept: each invocation with its counts. */
	struct kpmc_lib_fold_inv *fi;
	size_t nfi, fi_cap;
};

/*
 * A region open in the calling thread: the counts at its begin. The read at
 * a begin ends (memset, copies) in at, which is inside the region: every at
 * on the same cache-line alignment makes that cost the same for every
 * region (glibc's memset/memcpy take paths by alignment).
 */
struct open_region {
	_Alignas(64) struct kpmc_counts at;
	char name[KPMC_LIB_NAME_LEN];
	int active;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct region totals[KPMC_LIB_MAX_REGIONS];	/* over all threads, under lock */
static uint64_t calls_ended;			/* invocations numbered, under lock */
static __thread struct open_region *mine;	/* KPMC_LIB_MAX_REGIONS, at the first begin */
static pthread_key_t mine_key;
static pthread_once_t mine_once = PTHREAD_ONCE_INIT;

static void free_mine(void *p)
{
	free(p);
}

static void make_mine_key(void)
{
	pthread_key_create(&mine_key, free_mine);
}

/*
 * The entry called name in table (KPMC_LIB_MAX_REGIONS entries of stride bytes, the
 * name at name_off in each), added if create; NULL if none or full.
 */
static void *find_named(void *table, size_t stride, size_t name_off, const char *name, int create)
{
	char *e = table;
	int i;

	for (i = 0; i < KPMC_LIB_MAX_REGIONS && e[name_off]; i++, e += stride)
		if (!strcmp(e + name_off, name))
			return e;
	if (!create || i == KPMC_LIB_MAX_REGIONS || strlen(name) >= KPMC_LIB_NAME_LEN)
		return NULL;
	strcpy(e + name_off, name);
	return e;
}

static struct open_region *find_open(const char *name, int create)
{
	if (!mine) {
		if (!create)
			return NULL;
		pthread_once(&mine_once, make_mine_key);
		mine = aligned_alloc(_Alignof(struct open_region), KPMC_LIB_MAX_REGIONS * sizeof(*mine));
		if (!mine)
			return NULL;
		memset(mine, 0, KPMC_LIB_MAX_REGIONS * sizeof(*mine));
		pthread_setspecific(mine_key, mine);
	}
	return find_named(mine, sizeof(*mine), offsetof(struct open_region, name), name, create);
}

/* Under lock. */
static struct region *find_total(const char *name, int create)
{
	return find_named(totals, sizeof(totals[0]), offsetof(struct region, name), name, create);
}

/*
 * The reads around regions. With samples they go through read(): the
 * region's bounds are then the kernel's own run_ns, as in the records.
 */
static int region_read(struct kpmc_counts *c)
{
	return kpmc_lib_read(c, kpmc_lib_session.sampling || kpmc_lib_session.fold_keep);
}

int kpmc_region_begin(const char *name)
{
	struct open_region *r = find_open(name, 1);
	int err;

	if (!r)
		return -ENOSPC;
	if (r->active)
		return -EALREADY;
	err = region_read(&r->at);
	if (err)
		return err;
	r->active = 1;
	return 0;
}

/*
 * Add the invocation from at to c to g's fold list; under lock. Its set: the
 * one whose time grew by all of the invocation's (with several sets and a
 * read without per-set times, the fast path's, none is known).
 */
static void add_fold_inv(struct region *g, const struct kpmc_counts *at,
			 const struct kpmc_counts *c)
{
	const struct kpmc_lib_fold_counters *fc = &kpmc_lib_session.fold_counters;
	uint64_t b_ns[KPMC_LIB_SETS], e_ns[KPMC_LIB_SETS];
	struct kpmc_lib_fold_inv *v;
	unsigned int s, nr = at->nr_sets < c->nr_sets ? at->nr_sets : c->nr_sets, i;
	int set;

	if (grow_array((void **)&g->fi, &g->fi_cap, g->nfi + 1, sizeof(*g->fi), 64))
		return;
	if (nr > KPMC_LIB_SETS)
		nr = KPMC_LIB_SETS;
	for (s = 0; s < nr; s++) {
		b_ns[s] = at->sets[s].run_ns;
		e_ns[s] = c->sets[s].run_ns;
	}
	if (fc->nr_sets > 1 && nr < fc->nr_sets)
		nr = 0;
	set = kpmc_lib_fold_whole_set(b_ns, e_ns, nr, c->run_ns - at->run_ns);
	v = &g->fi[g->nfi++];
	memset(v, 0, sizeof(*v));
	v->tid = kpmc_lib_tid();
	v->set = set;
	v->begin_ns = at->run_ns;
	v->end_ns = c->run_ns;
	if (set < 0)
		return;
	for (i = 0; i < KPMC_LIB_COUNTERS && i < KPMC_MAX_COUNTERS; i++) {
		v->begin[i] = at->sets[set].counts[i];
		v->total[i] = c->sets[set].counts[i] - at->sets[set].counts[i];
	}
}

/* Add invocation (tid, begin, end] to g's list; under lock. */
static void add_interval(struct region *g, uint64_t begin, uint64_t end)
{
	struct kpmc_lib_interval *iv;

	if (grow_array((void **)&g->iv, &g->cap, g->niv + 1, sizeof(*g->iv), 64))
		return;
	iv = &g->iv[g->niv++];
	iv->tid = kpmc_lib_tid();
	iv->begin = begin;
	iv->end = end;
	iv->call = calls_ended++;
}

int kpmc_region_end(const char *name)
{
	struct open_region *r;
	struct region *g;
	struct kpmc_counts c;
	unsigned int i, s;
	/* Read first: the lookup must not count in the region (its cost varies). */
	int err = region_read(&c);

	r = find_open(name, 0);
	if (!r || !r->active)
		return -EINVAL;
	if (err)
		return err;
	r->active = 0;
	pthread_mutex_lock(&lock);
	g = find_total(name, 1);
	if (g) {
		g->calls++;
		g->run_ns += c.run_ns - r->at.run_ns;
		for (i = 0; i < KPMC_LIB_COUNTERS; i++)
			g->total[i] += c.counts[i] - r->at.counts[i];
		if (c.nr_sets > g->nr_sets)
			g->nr_sets = c.nr_sets;
		for (s = 0; s < c.nr_sets && s < r->at.nr_sets; s++) {
			g->sets[s].counter_mask |= c.sets[s].counter_mask;
			g->sets[s].run_ns += c.sets[s].run_ns - r->at.sets[s].run_ns;
			for (i = 0; i < KPMC_LIB_COUNTERS; i++)
				g->sets[s].counts[i] += c.sets[s].counts[i] - r->at.sets[s].counts[i];
		}
		if (kpmc_lib_session.sampling)
			add_interval(g, r->at.run_ns, c.run_ns);
		if (kpmc_lib_session.fold_keep)
			add_fold_inv(g, &r->at, &c);
	}
	pthread_mutex_unlock(&lock);
	return g ? 0 : -ENOSPC;
}

int64_t kpmc_region_total(const char *name, unsigned int pmc)
{
	struct region *g;
	int64_t v = -1;

	if (pmc >= KPMC_LIB_COUNTERS)
		return -1;
	pthread_mutex_lock(&lock);
	g = find_total(name, 0);
	if (g)
		v = (int64_t)g->total[pmc];
	pthread_mutex_unlock(&lock);
	return v;
}

int kpmc_region_get(const char *name, struct kpmc_region_stats *st)
{
	struct region *g;

	pthread_mutex_lock(&lock);
	g = find_total(name, 0);
	if (g) {
		memset(st, 0, sizeof(*st));
		st->calls = g->calls;
		st->run_ns = g->run_ns;
		st->nr_sets = g->nr_sets;
		memcpy(st->sets, g->sets, sizeof(st->sets));
	}
	pthread_mutex_unlock(&lock);
	return g ? 0 : -ENOENT;
}

int64_t kpmc_region_scaled(const char *name, unsigned int set, unsigned int pmc)
{
	struct kpmc_region_stats st;
	const struct kpmc_set_counts *sc;

	if (set >= KPMC_LIB_SETS || pmc >= KPMC_LIB_COUNTERS || kpmc_region_get(name, &st) ||
	    set >= st.nr_sets)
		return -1;
	sc = &st.sets[set];
	if (!(sc->counter_mask & (1u << pmc)) || !sc->run_ns)
		return -1;
	return (int64_t)kpmc_lib_scale(sc->counts[pmc], sc->run_ns, st.run_ns);
}

static void report_sets(FILE *f, const struct region *g)
{
	unsigned int s, c;

	fprintf(f, "region %s calls=%llu run_ns=%llu sets=%u\n", g->name,
		(unsigned long long)g->calls, (unsigned long long)g->run_ns, g->nr_sets);
	for (s = 0; s < g->nr_sets; s++) {
		const struct kpmc_set_counts *sc = &g->sets[s];

		fprintf(f, "region %s set=%u run_ns=%llu coverage=%.1f%%", g->name, s,
			(unsigned long long)sc->run_ns,
			g->run_ns ? 100.0 * (double)sc->run_ns / (double)g->run_ns : 0.0);
		for (c = 0; c < KPMC_LIB_COUNTERS; c++)
			if (sc->counter_mask & (1u << c))
				fprintf(f, " pmc%u=%llu pmc%u_scaled=%llu", c,
					(unsigned long long)sc->counts[c], c,
					(unsigned long long)kpmc_lib_scale(sc->counts[c], sc->run_ns,
									   g->run_ns));
		fputc('\n', f);
	}
}

void kpmc_region_report(FILE *f)
{
	int i;
	unsigned int c;

	pthread_mutex_lock(&lock);
	for (i = 0; i < KPMC_LIB_MAX_REGIONS && totals[i].name[0]; i++) {
		if (totals[i].nr_sets > 1) {
			report_sets(f, &totals[i]);
			continue;
		}
		fprintf(f, "region %s calls=%llu", totals[i].name, (unsigned long long)totals[i].calls);
		for (c = 0; c < KPMC_LIB_COUNTERS; c++)
			if (totals[i].total[c])
				fprintf(f, " pmc%u=%llu", c, (unsigned long long)totals[i].total[c]);
		fputc('\n', f);
	}
	pthread_mutex_unlock(&lock);
}

void kpmc_lib_regions_forget_kept(void)
{
	int i;

	pthread_mutex_lock(&lock);
	for (i = 0; i < KPMC_LIB_MAX_REGIONS; i++) {
		free(totals[i].iv);
		totals[i].iv = NULL;
		totals[i].niv = totals[i].cap = 0;
		free(totals[i].fi);
		totals[i].fi = NULL;
		totals[i].nfi = totals[i].fi_cap = 0;
	}
	pthread_mutex_unlock(&lock);
}

int kpmc_lib_region_intervals(const char *name, struct kpmc_lib_interval **iv, size_t *n)
{
	struct region *g;
	int err = 0;

	*iv = NULL;
	*n = 0;
	pthread_mutex_lock(&lock);
	g = find_total(name, 0);
	if (g && g->niv) {
		*iv = malloc(g->niv * sizeof(**iv));
		if (*iv) {
			memcpy(*iv, g->iv, g->niv * sizeof(**iv));
			*n = g->niv;
		} else {
			err = -ENOMEM;
		}
	}
	pthread_mutex_unlock(&lock);
	return err;
}

int kpmc_lib_regions_fold_copy(struct kpmc_lib_fold_region regs[KPMC_LIB_MAX_REGIONS],
			       char names[KPMC_LIB_MAX_REGIONS][KPMC_LIB_NAME_LEN], size_t *nregs)
{
	char *c;
	int r;

	*nregs = 0;
	pthread_mutex_lock(&lock);
	for (r = 0; r < KPMC_LIB_MAX_REGIONS && totals[r].name[0]; r++) {
		struct kpmc_lib_fold_inv *v;

		if (!totals[r].nfi)
			continue;
		v = malloc(totals[r].nfi * sizeof(*v));
		if (!v) {
			pthread_mutex_unlock(&lock);
			return -ENOMEM;
		}
		memcpy(v, totals[r].fi, totals[r].nfi * sizeof(*v));
		/* A trace's fields are separated by spaces. */
		strcpy(names[*nregs], totals[r].name);
		for (c = names[*nregs]; *c; c++)
			if (*c == ' ' || *c == '\t' || *c == '\n')
				*c = '_';
		regs[*nregs].name = names[*nregs];
		regs[*nregs].inv = v;
		regs[(*nregs)++].ninv = totals[r].nfi;
	}
	pthread_mutex_unlock(&lock);
	return 0;
}
