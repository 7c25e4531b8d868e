// SPDX-License-Identifier: GPL-2.0
/* A step's counts over time (see step_series.h). */
#include "step_series.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/growarray.h"

void kpmc_step_series_add(struct kpmc_step_series *s, const struct kpmc_record *r)
{
	struct kpmc_step_interval *b;
	size_t k;

	if (!KPMC_REC_IS_CPU(r->kind) || !r->nsample)
		return;
	k = (size_t)(r->nsample - 1);
	if (k >= KPMC_STEP_SERIES_MAX) {
		s->dropped++;
		return;
	}
	if (k >= s->n) {
		if (grow_array((void **)&s->v, &s->cap, k + 1, sizeof(*s->v), 64)) {
			s->dropped++;
			return;
		}
		memset(&s->v[s->n], 0, (k + 1 - s->n) * sizeof(*s->v));
		s->n = k + 1;
	}
	b = &s->v[k];
	for (unsigned int i = 0; i < KPMC_MAX_COUNTERS; i++)
		if (r->counter_mask & (1u << i))
			b->pmc[i] += r->counts[i];
	b->run_ns += r->run_ns;
	s->counter_mask |= r->counter_mask;
}

char *kpmc_step_series_csv(const struct kpmc_step_series *s, const char (*names)[96])
{
	size_t cap = 128 + (s->n + 1) * (32 + 24 * KPMC_MAX_COUNTERS) + KPMC_MAX_COUNTERS * 96;
	char *buf = malloc(cap);
	size_t n;

	if (!buf)
		return NULL;
	n = (size_t)snprintf(buf, cap, "interval,end_ms,run_ns");
	for (unsigned int i = 0; i < KPMC_MAX_COUNTERS; i++)
		if (s->counter_mask & (1u << i))
			n += (size_t)snprintf(buf + n, cap - n, ",%s", names[i][0] ? names[i] : "?");
	n += (size_t)snprintf(buf + n, cap - n, "\n");
	for (size_t k = 0; k < s->n; k++) {
		n += (size_t)snprintf(buf + n, cap - n, "%zu,%llu,%llu", k + 1,
				      (unsigned long long)(k + 1) * s->interval_ms,
				      (unsigned long long)s->v[k].run_ns);
		for (unsigned int i = 0; i < KPMC_MAX_COUNTERS; i++)
			if (s->counter_mask & (1u << i))
				n += (size_t)snprintf(buf + n, cap - n, ",%llu",
						      (unsigned long long)s->v[k].pmc[i]);
		n += (size_t)snprintf(buf + n, cap - n, "\n");
	}
	return buf;
}

void kpmc_step_series_free(struct kpmc_step_series *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}
