// SPDX-License-Identifier: GPL-2.0
#include "aggregate.h"
#include "growarray.h"
#include "record_format.h"
#include "textput.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct kpmc_thread_total *find_or_insert(struct kpmc_totals *t, uint32_t pid,
						uint32_t tid)
{
	size_t lo = 0, hi = t->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->threads[mid].tid == tid)
			return &t->threads[mid];
		if (t->threads[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (grow_array((void **)&t->threads, &t->cap, t->nr + 1, sizeof(*t->threads), 16))
		return NULL;
	memmove(&t->threads[lo + 1], &t->threads[lo], (t->nr - lo) * sizeof(t->threads[0]));
	memset(&t->threads[lo], 0, sizeof(t->threads[0]));
	t->threads[lo].pid = pid;
	t->threads[lo].tid = tid;
	t->nr++;
	return &t->threads[lo];
}

/* The clock of counts and time: on-CPU time, or the anchor's count. */
static double clock_of(const struct kpmc_totals *t, const uint64_t *counts, uint64_t run_ns)
{
	if (t->anchor && t->anchor <= KPMC_MAX_COUNTERS)
		return (double)counts[t->anchor - 1];
	return (double)run_ns;
}

/*
 * The sets' turns, from a thread's first record of a second set on (the
 * records before it were all one turn of set 0: its totals). The record is
 * already in the thread's totals. -2: it lacks the anchor.
 */
static int mux_add(const struct kpmc_totals *t, struct kpmc_thread_total *th,
		   const struct kpmc_record *rec, uint32_t mask)
{
	double clock = clock_of(t, (const uint64_t *)rec->counts, rec->run_ns);

	if (t->anchor && !(mask & (1u << (t->anchor - 1))))
		return -2;
	if (!th->mux && rec->set == 0) {
		th->set0_mask |= mask;
		return 0;
	}
	if (!th->mux) {
		double before = clock_of(t, th->counts, th->run_ns) - clock;
		unsigned int c;

		th->mux = calloc(1, sizeof(*th->mux));
		if (!th->mux)
			return -1;
		th->mux->time = before;
		/* The other sets' first gap: all of it. */
		for (c = 1; c < KPMC_MAX_SETS; c++)
			th->mux->set[c].gap = before;
		if (th->set0_mask) {
			th->mux->open = 1;
			th->mux->open_mask = th->set0_mask;
			for (c = 0; c < KPMC_MAX_COUNTERS; c++)
				th->mux->open_x[c] = (double)th->set_counts[0][c];
			th->mux->open_t = before;
		}
	}
	kpmc_mux_streams_add(th->mux, rec->set, mask, (const uint64_t *)rec->counts, clock);
	return 0;
}

int kpmc_totals_add(struct kpmc_totals *t, const struct kpmc_record *rec)
{
	struct kpmc_thread_total *th;
	uint32_t mask = rec->counter_mask & ((1u << KPMC_MAX_COUNTERS) - 1), m;
	unsigned int i;

	/* Per record (-A at every sample): the same thread as last time, mostly. */
	if (t->nr && t->last < t->nr && t->threads[t->last].tid == rec->tid)
		th = &t->threads[t->last];
	else
		th = find_or_insert(t, rec->pid, rec->tid);
	if (!th)
		return -1;
	t->last = (size_t)(th - t->threads);
	th->records++;
	th->run_ns += rec->run_ns;
	th->uncounted |= rec->uncounted_mask;
	/* Only the counters the record holds: one or two, of 16. */
	for (m = mask; m; m &= m - 1) {
		i = (unsigned int)__builtin_ctz(m);
		th->counts[i] += rec->counts[i];
	}
	if (rec->set < KPMC_MAX_SETS) {
		th->set_records[rec->set]++;
		th->set_run_ns[rec->set] += rec->run_ns;
		for (m = mask; m; m &= m - 1) {
			i = (unsigned int)__builtin_ctz(m);
			th->set_counts[rec->set][i] += rec->counts[i];
		}
		return mux_add(t, th, rec, mask);
	}
	return 0;
}

int kpmc_totals_add_owner(struct kpmc_totals *t, const struct kpmc_record *rec)
{
	struct kpmc_record per_cpu;

	if (!KPMC_REC_IS_CPU(rec->kind))
		return kpmc_totals_add(t, rec);
	per_cpu = *rec;
	per_cpu.pid = 0;
	per_cpu.tid = rec->cpu;
	return kpmc_totals_add(t, &per_cpu);
}

void kpmc_totals_free(struct kpmc_totals *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		free(t->threads[i].mux);
	free(t->threads);
	memset(t, 0, sizeof(*t));
}

/* " pmcN ..." header cells of the counters in mask, and the line's end. */
static void put_counter_names(char *out, size_t len, size_t *used, uint32_t mask)
{
	char name[16];
	unsigned int c;

	for (c = 0; c < KPMC_MAX_COUNTERS; c++)
		if (mask & (1u << c)) {
			snprintf(name, sizeof(name), "pmc%u", c);
			put(out, len, used, " %14s", name);
		}
	put(out, len, used, "\n");
}

/* Is thread i the first (lowest tid) of its process in t? */
static int first_of_process(const struct kpmc_totals *t, size_t i)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (t->threads[j].pid == t->threads[i].pid)
			return 0;
	return 1;
}

/* One count cell; '*' marks a counter that did not count for part of the run. */
static void put_count(char *out, size_t len, size_t *used, uint64_t count, int uncounted)
{
	put(out, len, used, uncounted ? " %13llu*" : " %14llu", (unsigned long long)count);
}

static void put_counts(char *out, size_t len, size_t *used, uint32_t mask,
		       const uint64_t *counts, uint32_t uncounted)
{
	unsigned int i;

	for (i = 0; i < KPMC_MAX_COUNTERS; i++)
		if (mask & (1u << i))
			put_count(out, len, used, counts[i], uncounted & (1u << i));
	put(out, len, used, "\n");
}

size_t kpmc_totals_format(const struct kpmc_totals *t, uint32_t counter_mask,
			  char *out, size_t len)
{
	size_t used = 0, i, j;
	unsigned int c;

	if (len)
		out[0] = '\0';
	put(out, len, &used, "%7s %7s %7s", "pid", "tid", "samples");
	put_counter_names(out, len, &used, counter_mask);
	for (i = 0; i < t->nr; i++) {
		const struct kpmc_thread_total *th = &t->threads[i];

		put(out, len, &used, "%7u %7u %7llu", th->pid, th->tid,
		    (unsigned long long)th->records);
		put_counts(out, len, &used, counter_mask, th->counts, th->uncounted);
	}
	/* Per process, in order of each process's first (lowest) tid. */
	for (i = 0; i < t->nr; i++) {
		uint64_t sum[KPMC_MAX_COUNTERS] = { 0 }, records = 0;
		uint32_t pid = t->threads[i].pid, uncounted = 0;

		if (!first_of_process(t, i))
			continue;
		for (j = i; j < t->nr; j++) {
			if (t->threads[j].pid != pid)
				continue;
			records += t->threads[j].records;
			uncounted |= t->threads[j].uncounted;
			for (c = 0; c < KPMC_MAX_COUNTERS; c++)
				sum[c] += t->threads[j].counts[c];
		}
		put(out, len, &used, "%7s %7u %7llu", "total", pid, (unsigned long long)records);
		put_counts(out, len, &used, counter_mask, sum, uncounted);
	}
	return used;
}

uint64_t kpmc_scale_count(uint64_t count, uint64_t enabled, uint64_t running)
{
	unsigned __int128 v;

	if (!running)
		return 0;
	v = (unsigned __int128)count * enabled + running / 2;
	v /= running;
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

void kpmc_thread_estimate(const struct kpmc_thread_total *th, int set, unsigned int c,
			  struct kpmc_estimate *e)
{
	*e = (struct kpmc_estimate){ .half90 = -1, .how = KPMC_EST_NONE };
	if (set < 0 || set >= KPMC_MAX_SETS || c >= KPMC_MAX_COUNTERS)
		return;
	if (th->mux) {
		kpmc_mux_estimate(th->mux, (unsigned int)set, c, e);
	} else if (set == 0 && th->set_records[0]) {
		/* One set all the time: its count. */
		*e = (struct kpmc_estimate){ .value = th->set_counts[0][c], .half90 = 0,
					     .how = KPMC_EST_COUNTED };
	}
}

int kpmc_thread_only_set(const struct kpmc_thread_total *th, unsigned int c)
{
	int s, only = -1;

	if (!th->mux || c >= KPMC_MAX_COUNTERS)
		return -1;
	for (s = 0; s < KPMC_MAX_SETS; s++) {
		uint32_t mask = th->mux->set[s].mask;

		if (th->mux->open == s + 1)
			mask |= th->mux->open_mask;
		if (!(mask & (1u << c)))
			continue;
		if (only >= 0)
			return -1;
		only = s;
	}
	return only;
}

/* A "+-90%" row: the half-widths of the set's estimates in set_mask. */
static void put_halfwidth_row(char *out, size_t len, size_t *used, uint32_t id, int set,
			      uint32_t all_mask, uint32_t set_mask, const double *half)
{
	unsigned int c;

	put(out, len, used, "%7s %7u %5d %7s %9s", "+-90%", id, set, "-", "-");
	for (c = 0; c < KPMC_MAX_COUNTERS; c++) {
		if (!(all_mask & (1u << c)))
			continue;
		if (!(set_mask & (1u << c)))
			put(out, len, used, " %14s", "-");
		else if (half[c] < 0)
			put(out, len, used, " %14s", "n/a");
		else
			put(out, len, used, " %14.0f", half[c]);
	}
	put(out, len, used, "\n");
}

/* An "est" row: each estimate's estimator; NULL: the threads' differ. */
static void put_estimator_row(char *out, size_t len, size_t *used, uint32_t id, int set,
			      uint32_t all_mask, uint32_t set_mask, const char *const *how)
{
	unsigned int c;

	put(out, len, used, "%7s %7u %5d %7s %9s", "est", id, set, "-", "-");
	for (c = 0; c < KPMC_MAX_COUNTERS; c++) {
		if (!(all_mask & (1u << c)))
			continue;
		put(out, len, used, " %14s",
		    !(set_mask & (1u << c)) ? "-" : how[c] ? how[c] : "mixed");
	}
	put(out, len, used, "\n");
}

static void put_set_row(char *out, size_t len, size_t *used, const char *who, uint32_t id,
			int set, uint64_t records, uint64_t running, uint64_t enabled,
			uint32_t all_mask, uint32_t set_mask, const uint64_t *scaled,
			uint32_t uncounted)
{
	unsigned int c;

	put(out, len, used, "%7s %7u %5d %7llu %8.2f%%", who, id, set,
	    (unsigned long long)records, enabled ? 100.0 * (double)running / (double)enabled : 0.0);
	for (c = 0; c < KPMC_MAX_COUNTERS; c++) {
		if (!(all_mask & (1u << c)))
			continue;
		if (set_mask & (1u << c))
			put_count(out, len, used, scaled[c], uncounted & (1u << c));
		else
			put(out, len, used, " %14s", "-");
	}
	put(out, len, used, "\n");
}

/* One process's estimates of set s: its threads' added up. */
struct process_estimate {
	uint64_t records, running, enabled, value[KPMC_MAX_COUNTERS];
	double var[KPMC_MAX_COUNTERS];		/* < 0: some thread's is not known */
	const char *how[KPMC_MAX_COUNTERS];	/* NULL: the threads' differ */
	uint32_t uncounted;
};

static void process_estimate(const struct kpmc_totals *t, size_t first, int s,
			     struct process_estimate *p)
{
	uint32_t pid = t->threads[first].pid;
	int seen = 0;
	unsigned int c;
	size_t j;

	memset(p, 0, sizeof(*p));
	for (j = first; j < t->nr; j++) {
		const struct kpmc_thread_total *th = &t->threads[j];

		if (th->pid != pid)
			continue;
		p->records += th->set_records[s];
		p->uncounted |= th->uncounted;
		p->running += th->set_run_ns[s];
		p->enabled += th->run_ns;
		for (c = 0; c < KPMC_MAX_COUNTERS; c++) {
			struct kpmc_estimate e;
			const char *how;

			kpmc_thread_estimate(th, s, c, &e);
			p->value[c] += e.value;
			/* One thread's unknown bar makes the process's unknown. */
			if (e.half90 < 0 && th->set_counts[s][c])
				p->var[c] = -1;
			else if (p->var[c] >= 0 && e.half90 > 0)
				p->var[c] += e.half90 * e.half90;
			if (!th->set_counts[s][c])
				continue;
			how = kpmc_estimator_name(e.how);
			if (!(seen & (1 << c)))
				p->how[c] = how;
			else if (p->how[c] && strcmp(p->how[c], how))
				p->how[c] = NULL;
			seen |= 1 << c;
		}
	}
	for (c = 0; c < KPMC_MAX_COUNTERS; c++) {
		p->var[c] = p->var[c] < 0 ? -1 : sqrt(p->var[c]);
		if (!(seen & (1 << c)))
			p->how[c] = "none";
	}
}

size_t kpmc_totals_format_sets(const struct kpmc_totals *t, int nsets,
			       const uint32_t *set_mask, char *out, size_t len)
{
	uint32_t all = 0;
	size_t used = 0, i;
	unsigned int c;
	char name[16];
	int s;

	for (s = 0; s < nsets; s++)
		all |= set_mask[s];
	if (len)
		out[0] = '\0';
	put(out, len, &used, "%7s %7s %5s %7s %9s", "pid", "tid", "expid", "samples", "coverage");
	put_counter_names(out, len, &used, all);
	for (i = 0; i < t->nr; i++) {
		const struct kpmc_thread_total *th = &t->threads[i];

		snprintf(name, sizeof(name), "%u", th->pid);
		for (s = 0; s < nsets; s++) {
			uint64_t value[KPMC_MAX_COUNTERS];
			double half[KPMC_MAX_COUNTERS];
			const char *how[KPMC_MAX_COUNTERS];

			for (c = 0; c < KPMC_MAX_COUNTERS; c++) {
				struct kpmc_estimate e;

				kpmc_thread_estimate(th, s, c, &e);
				value[c] = e.value;
				half[c] = e.half90;
				how[c] = kpmc_estimator_name(e.how);
			}
			put_set_row(out, len, &used, name, th->tid, s, th->set_records[s],
				    th->set_run_ns[s], th->run_ns, all, set_mask[s], value,
				    th->uncounted);
			put_halfwidth_row(out, len, &used, th->tid, s, all, set_mask[s], half);
			put_estimator_row(out, len, &used, th->tid, s, all, set_mask[s], how);
		}
	}
	/* Per process: each thread's estimates added up. */
	for (i = 0; i < t->nr; i++) {
		uint32_t pid = t->threads[i].pid;

		if (!first_of_process(t, i))
			continue;
		for (s = 0; s < nsets; s++) {
			struct process_estimate p;

			process_estimate(t, i, s, &p);
			put_set_row(out, len, &used, "total", pid, s, p.records, p.running,
				    p.enabled, all, set_mask[s], p.value, p.uncounted);
			put_halfwidth_row(out, len, &used, pid, s, all, set_mask[s], p.var);
			put_estimator_row(out, len, &used, pid, s, all, set_mask[s], p.how);
		}
	}
	return used;
}

size_t kpmc_totals_format_json(const struct kpmc_totals *t, int nsets, uint64_t lost,
			       char *out, size_t len)
{
	size_t used = 0, i;
	unsigned int c;
	int s;

	if (len)
		out[0] = '\0';
	put(out, len, &used, "{\"type\":\"summary\",\"lost\":%llu,\"threads\":[",
	    (unsigned long long)lost);
	for (i = 0; i < t->nr; i++) {
		const struct kpmc_thread_total *th = &t->threads[i];
		char uncounted[12 * KPMC_MAX_COUNTERS];
		int first = 1;

		kpmc_format_uncounted_json(th->uncounted, uncounted, sizeof(uncounted));
		put(out, len, &used, "%s{\"pid\":%u,\"tid\":%u,\"records\":%llu,\"run_ns\":%llu,\"uncounted\":%s,\"counts\":{",
		    i ? "," : "", th->pid, th->tid, (unsigned long long)th->records,
		    (unsigned long long)th->run_ns, uncounted);
		for (c = 0; c < KPMC_MAX_COUNTERS; c++)
			if (th->counts[c] || (nsets <= 1 && th->set_counts[0][c])) {
				put(out, len, &used, "%s\"pmc%u\":%llu", first ? "" : ",", c,
				    (unsigned long long)th->counts[c]);
				first = 0;
			}
		put(out, len, &used, "},\"sets\":[");
		for (s = 0; s < (nsets > 1 ? nsets : 1); s++) {
			struct kpmc_estimate e[KPMC_MAX_COUNTERS];
			int part;

			for (c = 0; c < KPMC_MAX_COUNTERS; c++)
				kpmc_thread_estimate(th, s, c, &e[c]);
			put(out, len, &used, "%s{\"expid\":%d,\"running_ns\":%llu,\"coverage\":%.4f",
			    s ? "," : "", s, (unsigned long long)th->set_run_ns[s],
			    th->run_ns ? (double)th->set_run_ns[s] / (double)th->run_ns : 0.0);
			/* "scaled": the estimates; "err90": their half-widths; "estimator": how */
			for (part = 0; part < 3; part++) {
				static const char *const key[] = { "scaled", "err90", "estimator" };

				put(out, len, &used, ",\"%s\":{", key[part]);
				first = 1;
				for (c = 0; c < KPMC_MAX_COUNTERS; c++) {
					if (!th->set_counts[s][c])
						continue;
					put(out, len, &used, "%s\"pmc%u\":", first ? "" : ",", c);
					first = 0;
					if (part == 0)
						put(out, len, &used, "%llu",
						    (unsigned long long)e[c].value);
					else if (part == 1 && e[c].half90 < 0)
						put(out, len, &used, "null");
					else if (part == 1)
						put(out, len, &used, "%.0f", e[c].half90);
					else
						put(out, len, &used, "\"%s\"",
						    kpmc_estimator_name(e[c].how));
				}
				put(out, len, &used, "}");
			}
			put(out, len, &used, "}");
		}
		put(out, len, &used, "]}");
	}
	put(out, len, &used, "]}");
	return used;
}
