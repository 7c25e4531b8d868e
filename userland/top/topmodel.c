// SPDX-License-Identifier: GPL-2.0
#include "topmodel.h"
#include "common/growarray.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct kpmc_top_row *row_of(struct kpmc_top *t, uint32_t pid, uint32_t tid)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		if (t->rows[i].tid == tid && t->rows[i].pid == pid)
			return &t->rows[i];
	if (grow_array((void **)&t->rows, &t->cap, t->nr + 1, sizeof(*t->rows), 64))
		return NULL;
	memset(&t->rows[t->nr], 0, sizeof(t->rows[0]));
	for (i = 0; i < KPMC_TOP_MAX_METRICS; i++)
		t->rows[t->nr].metric[i] = NAN;
	t->rows[t->nr].pid = pid;
	t->rows[t->nr].tid = tid;
	return &t->rows[t->nr++];
}

int kpmc_top_add(struct kpmc_top *t, const struct kpmc_record *rec)
{
	struct kpmc_top_row *r;
	unsigned int i;

	if (rec->kind == KPMC_REC_LOST) {
		t->lost += rec->lost;
		return 0;
	}
	/* What sampling formats add to a sample (mem=1, fmt=): no counts, not a record of its own. */
	if (rec->kind == KPMC_REC_MEM || rec->kind == KPMC_REC_STACK || rec->kind == KPMC_REC_FORMAT)
		return 0;
	/* System-wide records are per CPU: a row per CPU. */
	r = KPMC_REC_IS_CPU(rec->kind) ? row_of(t, 0, rec->cpu) : row_of(t, rec->pid, rec->tid);
	if (!r)
		return -1;
	r->cpu = rec->cpu;
	r->records++;
	r->run_ns += rec->run_ns;
	r->exited |= rec->kind == KPMC_REC_EXIT;
	t->counter_mask |= rec->counter_mask;
	t->virt_mask |= rec->virt_mask;
	for (i = 0; i < KPMC_MAX_COUNTERS; i++) {
		if (!(rec->counter_mask & (1u << i)))
			continue;
		r->total[i] += rec->counts[i];
		/* A thread's last few instructions at exit say little about its rate. */
		if (rec->run_ns && rec->kind != KPMC_REC_EXIT)
			r->rate[i] = (uint64_t)((unsigned __int128)rec->counts[i] * 1000000 / rec->run_ns);
	}
	for (i = 0; i < KPMC_MAX_VIRT; i++)
		if (rec->virt_mask & (1u << i))
			r->virt[i] = rec->virt[i];
	return 0;
}

unsigned int kpmc_top_columns(const struct kpmc_top *t)
{
	return 5 + (unsigned int)__builtin_popcount(t->counter_mask) +
	       (unsigned int)__builtin_popcount(t->virt_mask) + t->nmetrics;
}

/* A cell's value for sorting: counts below 2^53 compare exactly as doubles. */
static double cell(const struct kpmc_top *t, const struct kpmc_top_row *r, unsigned int col)
{
	unsigned int i, k = 5;

	switch (col) {
	case 0: return r->tid;
	case 1: return r->pid;
	case 2: return r->cpu;
	case 3: return r->records;
	case 4: return r->run_ns;
	}
	for (i = 0; i < KPMC_MAX_COUNTERS; i++)
		if (t->counter_mask & (1u << i) && k++ == col)
			return r->rate[i];
	for (i = 0; i < KPMC_MAX_VIRT; i++)
		if (t->virt_mask & (1u << i) && k++ == col)
			return r->virt[i];
	for (i = 0; i < t->nmetrics && i < KPMC_TOP_MAX_METRICS; i++)
		if (k++ == col)
			return isnan(r->metric[i]) ? -INFINITY : r->metric[i];
	return 0;
}

static const struct kpmc_top *sort_top;
static unsigned int sort_col;
static int sort_asc;

static int cmp(const void *a, const void *b)
{
	double x = cell(sort_top, a, sort_col), y = cell(sort_top, b, sort_col);
	const struct kpmc_top_row *ra = a, *rb = b;

	if (x != y)
		return (x < y) == !!sort_asc ? -1 : 1;
	return ra->tid < rb->tid ? -1 : ra->tid > rb->tid;
}

void kpmc_top_sort(struct kpmc_top *t, unsigned int column, int ascending)
{
	sort_top = t;
	sort_col = column;
	sort_asc = ascending;
	qsort(t->rows, t->nr, sizeof(t->rows[0]), cmp);
}

void kpmc_top_free(struct kpmc_top *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}
