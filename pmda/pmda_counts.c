// SPDX-License-Identifier: GPL-2.0
/* pmdakpmc's totals from a session's records (see pmda_counts.h). */
#include "pmda_counts.h"
#include "common/growarray.h"

#include <stdlib.h>
#include <string.h>

/* Fibonacci hashing: pids and tids are dense, their low bits alike. */
static unsigned int id_slot(const struct kpmc_pmda_task_table *t, uint32_t id)
{
	return (unsigned int)((id * 2654435769u) & (t->index_cap - 1));
}

/* Index slot i of the table; an id already there keeps its first slot. */
static void index_put(struct kpmc_pmda_task_table *t, unsigned int i)
{
	unsigned int h = id_slot(t, t->v[i].id);

	while (t->index[h]) {
		if (t->v[t->index[h] - 1].id == t->v[i].id)
			return;
		h = (h + 1) & (t->index_cap - 1);
	}
	t->index[h] = i + 1;
}

/* A fresh index for the table's tasks, room for at least min_tasks; 0 or -1. */
static int index_rebuild(struct kpmc_pmda_task_table *t, unsigned int min_tasks)
{
	unsigned int cap = 128;
	uint32_t *ix;

	while (cap < 2 * min_tasks)
		cap *= 2;
	ix = calloc(cap, sizeof(*ix));
	if (!ix)
		return -1;
	free(t->index);
	t->index = ix;
	t->index_cap = cap;
	for (unsigned int i = 0; i < t->n; i++)
		index_put(t, i);
	return 0;
}

struct kpmc_pmda_task *kpmc_pmda_counts_find(struct kpmc_pmda_task_table *t, uint32_t id)
{
	unsigned int h;

	if (!t->index)
		return NULL;
	for (h = id_slot(t, id); t->index[h]; h = (h + 1) & (t->index_cap - 1))
		if (t->v[t->index[h] - 1].id == id)
			return &t->v[t->index[h] - 1];
	return NULL;
}

/* Room for one more task, in the array and (at most half full) in the index. */
static int table_reserve(struct kpmc_pmda_task_table *t)
{
	if (grow_array((void **)&t->v, &t->cap, (size_t)t->n + 1, sizeof(*t->v), 64))
		return -1;
	if (2 * (t->n + 1) > t->index_cap && index_rebuild(t, t->n + 1))
		return -1;
	return 0;
}

int kpmc_pmda_table_append(struct kpmc_pmda_task_table *t, const struct kpmc_pmda_task *k)
{
	if (table_reserve(t))
		return -1;
	t->v[t->n] = *k;
	index_put(t, t->n++);
	return 0;
}

static struct kpmc_pmda_task *task_add(struct kpmc_pmda_task_table *t, uint32_t id, uint32_t pid)
{
	struct kpmc_pmda_task k;

	memset(&k, 0, sizeof(k));
	k.id = id;
	k.pid = pid;
	if (kpmc_pmda_table_append(t, &k))
		return NULL;
	return &t->v[t->n - 1];
}

/* Keep the tasks that keep(task, arg) says to, in order; the index follows. */
static unsigned int table_compact(struct kpmc_pmda_task_table *t,
				  int (*keep)(const struct kpmc_pmda_task *k, const void *arg),
				  const void *arg)
{
	unsigned int kept = 0, dropped;

	for (unsigned int i = 0; i < t->n; i++)
		if (keep(&t->v[i], arg))
			t->v[kept++] = t->v[i];
	dropped = t->n - kept;
	t->n = kept;
	/* Same size: cannot fail for want of memory but in calloc; then searched as empty. */
	if (dropped && index_rebuild(t, t->n)) {
		free(t->index);
		t->index = NULL;
		t->index_cap = 0;
	}
	return dropped;
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

static int alive_or_not_of(const struct kpmc_pmda_task *k, const void *pid)
{
	return k->pid != *(const uint32_t *)pid || !k->ended;
}

/* Forget the ended threads of process pid (a new process has its pid). */
static void drop_ended_threads(struct kpmc_pmda_task_table *t, uint32_t pid)
{
	table_compact(t, alive_or_not_of, &pid);
}

/* Has the ended process entry p's pid been taken by another process since? */
static int pid_reused(struct kpmc_pmda_counts *c, const struct kpmc_pmda_task *p, uint64_t *start)
{
	if (!p->ended || !c->start_of || c->start_of(p->id, start, c->start_arg))
		return 0;	/* alive, or nobody has the pid now: a late record of p */
	/* Unknown start: p was gone when first named, so whoever has the pid is new. */
	return !p->start || *start != p->start;
}

static void task_reset(struct kpmc_pmda_task *k, uint32_t id, uint32_t pid)
{
	memset(k, 0, sizeof(*k));
	k->id = id;
	k->pid = pid;
}

/*
 * The entries of thread tid of process pid, made or revived as live: *pp
 * and *thp. p is pid's entry as found (NULL: none); reused: it is another
 * process's now, whose start time is start.
 */
static int thread_entries(struct kpmc_pmda_counts *c, struct kpmc_pmda_task *p, uint32_t pid,
			  uint32_t tid, int reused, uint64_t start, int threads,
			  struct kpmc_pmda_task **new_proc, struct kpmc_pmda_task **pp,
			  struct kpmc_pmda_task **thp)
{
	struct kpmc_pmda_task *th;
	int first_of_thread, fresh = 0;

	if (p && reused) {
		drop_ended_threads(&c->threads, pid);
		task_reset(p, pid, pid);
		p->start = start;
		c->changed = 1;
		if (new_proc)
			*new_proc = p;
	}
	th = kpmc_pmda_counts_find(&c->threads, tid);
	/* The tid of a thread that ended for good, or of another process: a new thread. */
	if (th && th->ended && (th->final || th->pid != pid)) {
		task_reset(th, tid, pid);
		c->changed |= threads;
		fresh = 1;
	}
	first_of_thread = th == NULL || th->ended || fresh;
	if (!p) {
		p = task_add(&c->procs, pid, pid);
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
		th = task_add(&c->threads, tid, pid);
		if (!th)
			return -1;
		c->changed |= threads;
	}
	if (first_of_thread) {
		th->ended = 0;
		p->live_threads++;
		p->ended = 0;
	}
	*pp = p;
	*thp = th;
	return 0;
}

static int thread_record(struct kpmc_pmda_counts *c, const struct kpmc_record *r, time_t now,
			 int threads, struct kpmc_pmda_task **new_proc)
{
	int ends = r->kind == KPMC_REC_EXIT || r->kind == KPMC_REC_DETACH;
	struct kpmc_pmda_task *p = kpmc_pmda_counts_find(&c->procs, r->pid);
	struct kpmc_pmda_task *th;
	uint64_t start = 0;
	int reused = p && pid_reused(c, p, &start);

	if (thread_entries(c, p, r->pid, r->tid, reused, start, threads, new_proc, &p, &th))
		return -1;
	totals_add(&p->t, r);
	if (threads)
		totals_add(&th->t, r);
	if (ends) {
		th->ended = now;
		th->final = 1;
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

int kpmc_pmda_counts_attached(struct kpmc_pmda_counts *c, uint32_t pid, uint32_t tid, uint64_t start,
			      int threads, struct kpmc_pmda_task **new_proc)
{
	struct kpmc_pmda_task *p = kpmc_pmda_counts_find(&c->procs, pid), *th;
	/* An ended entry of another start time: the pid is a new process's. */
	int reused = p && p->ended && (!p->start || p->start != start);

	if (new_proc)
		*new_proc = NULL;
	if (thread_entries(c, p, pid, tid, reused, start, threads, new_proc, &p, &th))
		return -1;
	if (!p->start)
		p->start = start;
	return 0;
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

struct expiry {
	time_t now;
	unsigned int grace_s;
};

static int not_expired(const struct kpmc_pmda_task *k, const void *arg)
{
	const struct expiry *e = arg;

	return !k->ended || e->now - k->ended <= (time_t)e->grace_s;
}

static void expire_table(struct kpmc_pmda_task_table *t, time_t now, unsigned int grace_s,
			 int *changed)
{
	struct expiry e = { now, grace_s };

	if (table_compact(t, not_expired, &e))
		*changed = 1;
}

void kpmc_pmda_counts_expire(struct kpmc_pmda_counts *c, time_t now, unsigned int grace_s)
{
	expire_table(&c->procs, now, grace_s, &c->changed);
	expire_table(&c->threads, now, grace_s, &c->changed);
}

void kpmc_pmda_counts_free(struct kpmc_pmda_counts *c)
{
	int (*start_of)(uint32_t pid, uint64_t *start, void *arg) = c->start_of;
	void *start_arg = c->start_arg;

	free(c->procs.v);
	free(c->threads.v);
	free(c->procs.index);
	free(c->threads.index);
	memset(c, 0, sizeof(*c));
	c->start_of = start_of;
	c->start_arg = start_arg;
}

/* dst (empty) becomes a copy of src with an index of its own; 0 or -1. */
static int table_copy(struct kpmc_pmda_task_table *dst, const struct kpmc_pmda_task_table *src)
{
	struct kpmc_pmda_task *v = NULL;

	if (src->n) {
		v = malloc(src->n * sizeof(*v));
		if (!v)
			return -1;
		memcpy(v, src->v, src->n * sizeof(*v));
	}
	dst->v = v;
	dst->n = src->n;
	dst->cap = src->n;
	if (index_rebuild(dst, dst->n)) {
		free(v);
		dst->v = NULL;
		return -1;
	}
	return 0;
}

int kpmc_pmda_counts_copy(struct kpmc_pmda_counts *dst, const struct kpmc_pmda_counts *src)
{
	struct kpmc_pmda_task_table procs = dst->procs, threads = dst->threads;
	struct kpmc_pmda_task_table np = { 0 }, nt = { 0 };

	if (table_copy(&np, &src->procs) || table_copy(&nt, &src->threads)) {
		free(np.v);
		free(np.index);
		return -1;
	}
	free(procs.v);
	free(threads.v);
	free(procs.index);
	free(threads.index);
	*dst = *src;
	dst->procs = np;
	dst->threads = nt;
	return 0;
}
