// SPDX-License-Identifier: GPL-2.0
/* pmdakpmc's totals from a session's records (see pmda_counts.h). */
#include "pmda_counts.h"

#include <stdlib.h>
#include <string.h>

struct kpmc_pmda_task *kpmc_pmda_counts_find(struct kpmc_pmda_task_table *t, uint32_t id)
{
	for (unsigned int i = 0; i < t->n; i++)
		if (t->v[i].id == id)
			return &t->v[i];
	return NULL;
}

static struct kpmc_pmda_task *task_add(struct kpmc_pmda_task_table *t, uint32_t id, uint32_t pid)
{
	struct kpmc_pmda_task *k;

	if (t->n == t->cap) {
		unsigned int cap = t->cap ? t->cap * 2 : 64;
		struct kpmc_pmda_task *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		t->v = v;
		t->cap = cap;
	}
	k = &t->v[t->n++];
	memset(k, 0, sizeof(*k));
	k->id = id;
	k->pid = pid;
	return k;
}

/* Counts are per record since the thread's previous record: sums are totals. */
static void totals_add(struct kpmc_pmda_totals *t, const struct kpmc_record *r)
{
	for (unsigned int i = 0; i < KPMC_MAX_COUNTERS; i++)
		if (r->counter_mask & (1u << i))
			t->pmc[i] += r->counts[i];
	for (unsigned int i = 0; i < KPMC_MAX_VIRT; i++)
		if (r->virt_mask & (1u << i))
			t->virt[i] += r->virt[i];
	t->run_ns += r->run_ns;
	t->records++;
}

static int thread_record(struct kpmc_pmda_counts *c, const struct kpmc_record *r, time_t now,
			 int threads, struct kpmc_pmda_task **new_proc)
{
	int ends = r->kind == KPMC_REC_EXIT || r->kind == KPMC_REC_DETACH;
	struct kpmc_pmda_task *p = kpmc_pmda_counts_find(&c->procs, r->pid);
	struct kpmc_pmda_task *th = kpmc_pmda_counts_find(&c->threads, r->tid);
	int first_of_thread = th == NULL || th->ended;

	if (!p) {
		p = task_add(&c->procs, r->pid, r->pid);
		if (!p)
			return -1;
		c->changed = 1;
		if (new_proc)
			*new_proc = p;
	}
	/*
	 * The thread table also says which threads are live for the process's
	 * count of them, so it is kept even without per-thread metrics
	 * (entries without totals then).
	 */
	if (!th) {
		th = task_add(&c->threads, r->tid, r->pid);
		if (!th)
			return -1;
		c->changed |= threads;
	}
	if (first_of_thread) {
		th->ended = 0;
		p->live_threads++;
		p->ended = 0;
	}
	totals_add(&p->t, r);
	if (threads)
		totals_add(&th->t, r);
	if (ends) {
		th->ended = now;
		if (p->live_threads && !--p->live_threads)
			p->ended = now;
	}
	c->counter_mask |= r->counter_mask;
	c->virt_mask |= r->virt_mask;
	return 0;
}

int kpmc_pmda_counts_add(struct kpmc_pmda_counts *c, const struct kpmc_record *r, time_t now,
			 int threads, struct kpmc_pmda_task **new_proc)
{
	if (new_proc)
		*new_proc = NULL;
	switch (r->kind) {
	case KPMC_REC_LOST:
		c->lost += r->lost;
		return 0;
	case KPMC_REC_CPU:
	case KPMC_REC_CPU_OFFLINE:
		if (r->cpu >= sizeof(c->cpu) / sizeof(c->cpu[0]))
			return -1;
		if (!c->cpu_seen[r->cpu])
			c->changed = 1;
		c->cpu_seen[r->cpu] = 1;
		totals_add(&c->cpu[r->cpu], r);
		c->counter_mask |= r->counter_mask;
		c->virt_mask |= r->virt_mask;
		return 0;
	case KPMC_REC_TBS:
	case KPMC_REC_EBS:
	case KPMC_REC_MUX:
	case KPMC_REC_EXIT:
	case KPMC_REC_DETACH:
		return thread_record(c, r, now, threads, new_proc);
	default:
		/* MEM, STACK, FORMAT: what follows a sample, no counts. */
		return 0;
	}
}

void kpmc_pmda_counts_gone(struct kpmc_pmda_counts *c, uint32_t pid, time_t now)
{
	struct kpmc_pmda_task *p = kpmc_pmda_counts_find(&c->procs, pid);

	if (p && !p->ended) {
		p->ended = now;
		p->live_threads = 0;
		for (unsigned int i = 0; i < c->threads.n; i++)
			if (c->threads.v[i].pid == pid && !c->threads.v[i].ended)
				c->threads.v[i].ended = now;
	}
}

static void expire_table(struct kpmc_pmda_task_table *t, time_t now, unsigned int grace_s,
			 int *changed)
{
	unsigned int keep = 0;

	for (unsigned int i = 0; i < t->n; i++) {
		if (t->v[i].ended && now - t->v[i].ended > (time_t)grace_s) {
			*changed = 1;
			continue;
		}
		t->v[keep++] = t->v[i];
	}
	t->n = keep;
}

void kpmc_pmda_counts_expire(struct kpmc_pmda_counts *c, time_t now, unsigned int grace_s)
{
	expire_table(&c->procs, now, grace_s, &c->changed);
	expire_table(&c->threads, now, grace_s, &c->changed);
}

void kpmc_pmda_counts_free(struct kpmc_pmda_counts *c)
{
	free(c->procs.v);
	free(c->threads.v);
	memset(c, 0, sizeof(*c));
}
