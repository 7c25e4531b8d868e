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
		double r = (double)rec->run_ns;

		th->set_records[rec->set]++;
		th->set_run_ns[rec->set] += rec->run_ns;
		th->set_rr[rec->set] += r * r;
		for (m = mask; m; m &= m - 1) {
			double x;

			i = (unsigned int)__builtin_ctz(m);
			th->set_counts[rec->set][i] += rec->counts[i];
			x = (double)rec->counts[i];
			th->set_xx[rec->set][i] += x * x;
			th->set_xr[rec->set][i] += x * r;
		}
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

/* Student's t, 95th percentile (a two-sided 90% interval), df degrees of freedom. */
static double t_90(uint64_t df)
{
	static const double t[] = { 0, 6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860,
				    1.833, 1.812, 1.796, 1.782, 1.771, 1.761, 1.753, 1.746, 1.740,
				    1.734, 1.729, 1.725, 1.721, 1.717, 1.714, 1.711, 1.708, 1.706,
				    1.703, 1.701, 1.699, 1.697 };
	const double z = 1.6449;

	if (df < sizeof(t) / sizeof(t[0]))
		return t[df];
	/* Beyond the table: the normal quantile and its first correction. */
	return z + (z * z * z + z) / (4.0 * (double)df);
}

double kpmc_scale_halfwidth90(const struct kpmc_thread_total *th, int set, unsigned int counter)
{
	double n, x, r, rate, resid, mean_r, unsampled, se;

	if (set < 0 || set >= KPMC_MAX_SETS || counter >= KPMC_MAX_COUNTERS)
		return -1;
	n = (double)th->set_records[set];
	r = (double)th->set_run_ns[set];
	if (th->set_records[set] < 2 || r <= 0 || !th->run_ns)
		return -1;
	x = (double)th->set_counts[set][counter];
	rate = x / r;
	/* sum of (x_i - rate * r_i)^2, from the sums kept per record */
	resid = th->set_xx[set][counter] - 2 * rate * th->set_xr[set][counter] +
		rate * rate * th->set_rr[set];
	if (resid < 0)
		resid = 0;
	mean_r = r / n;
	unsampled = 1.0 - r / (double)th->run_ns;
	if (unsampled < 0)
		unsampled = 0;
	se = sqrt(unsampled * resid / (n - 1) / n) / mean_r;
	return t_90(th->set_records[set] - 1) * se * (double)th->run_ns;
}

/* A "+-90%" row: the half-widths of the set's scaled counts in set_mask. */
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

size_t kpmc_totals_format_sets(const struct kpmc_totals *t, int nsets,
			       const uint32_t *set_mask, char *out, size_t len)
{
	uint32_t all = 0;
	size_t used = 0, i, j;
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
			uint64_t scaled[KPMC_MAX_COUNTERS];
			double half[KPMC_MAX_COUNTERS];

			for (c = 0; c < KPMC_MAX_COUNTERS; c++) {
				scaled[c] = kpmc_scale_count(th->set_counts[s][c], th->run_ns,
							     th->set_run_ns[s]);
				half[c] = kpmc_scale_halfwidth90(th, s, c);
			}
			put_set_row(out, len, &used, name, th->tid, s, th->set_records[s],
				    th->set_run_ns[s], th->run_ns, all, set_mask[s], scaled,
				    th->uncounted);
			put_halfwidth_row(out, len, &used, th->tid, s, all, set_mask[s], half);
		}
	}
	/* Per process: each thread's scaled counts added up. */
	for (i = 0; i < t->nr; i++) {
		uint32_t pid = t->threads[i].pid;

		if (!first_of_process(t, i))
			continue;
		for (s = 0; s < nsets; s++) {
			uint64_t sum[KPMC_MAX_COUNTERS] = { 0 }, records = 0, running = 0, enabled = 0;
			double var[KPMC_MAX_COUNTERS] = { 0 };
			uint32_t uncounted = 0;

			for (j = i; j < t->nr; j++) {
				const struct kpmc_thread_total *th = &t->threads[j];

				if (th->pid != pid)
					continue;
				records += th->set_records[s];
				uncounted |= th->uncounted;
				running += th->set_run_ns[s];
				enabled += th->run_ns;
				for (c = 0; c < KPMC_MAX_COUNTERS; c++) {
					double h = kpmc_scale_halfwidth90(th, s, c);

					sum[c] += kpmc_scale_count(th->set_counts[s][c], th->run_ns,
								   th->set_run_ns[s]);
					/* One thread's unknown bar makes the process's unknown. */
					if (h < 0 && th->set_counts[s][c])
						var[c] = -1;
					else if (var[c] >= 0 && h > 0)
						var[c] += h * h;
				}
			}
			put_set_row(out, len, &used, "total", pid, s, records, running, enabled,
				    all, set_mask[s], sum, uncounted);
			for (c = 0; c < KPMC_MAX_COUNTERS; c++)
				var[c] = var[c] < 0 ? -1 : sqrt(var[c]);
			put_halfwidth_row(out, len, &used, pid, s, all, set_mask[s], var);
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
			put(out, len, &used, "%s{\"expid\":%d,\"running_ns\":%llu,\"coverage\":%.4f,\"scaled\":{",
			    s ? "," : "", s, (unsigned long long)th->set_run_ns[s],
			    th->run_ns ? (double)th->set_run_ns[s] / (double)th->run_ns : 0.0);
			first = 1;
			for (c = 0; c < KPMC_MAX_COUNTERS; c++)
				if (th->set_counts[s][c]) {
					put(out, len, &used, "%s\"pmc%u\":%llu", first ? "" : ",", c,
					    (unsigned long long)kpmc_scale_count(th->set_counts[s][c],
										 th->run_ns,
										 th->set_run_ns[s]));
					first = 0;
				}
			put(out, len, &used, "},\"err90\":{");
			first = 1;
			for (c = 0; c < KPMC_MAX_COUNTERS; c++) {
				double h = kpmc_scale_halfwidth90(th, s, c);

				if (!th->set_counts[s][c])
					continue;
				if (h < 0)
					put(out, len, &used, "%s\"pmc%u\":null", first ? "" : ",", c);
				else
					put(out, len, &used, "%s\"pmc%u\":%.0f", first ? "" : ",", c, h);
				first = 0;
			}
			put(out, len, &used, "}}");
		}
		put(out, len, &used, "]}");
	}
	put(out, len, &used, "]}");
	return used;
}
