// SPDX-License-Identifier: LGPL-2.1
#include "attrib.h"

#include <stdlib.h>
#include <string.h>

uint64_t kpmc_lib_scale(uint64_t count, uint64_t set_ns, uint64_t total_ns)
{
	unsigned __int128 v;

	if (!set_ns)
		return 0;
	v = ((unsigned __int128)count * total_ns + set_ns / 2) / set_ns;
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

/* Records whose counts[] hold counts (the others' union holds a payload there). */
static int has_counts(const struct kpmc_record *r)
{
	return r->kind == KPMC_REC_TBS || r->kind == KPMC_REC_EBS || r->kind == KPMC_REC_EXIT ||
	       r->kind == KPMC_REC_DETACH || r->kind == KPMC_REC_MUX;
}

int kpmc_lib_stream_feed(struct kpmc_lib_stream *s, const struct kpmc_record *r,
			 int lost_before, uint64_t *key)
{
	unsigned int c;

	if (s->started && s->ended && r->nsample == 1) {
		/* The tid was reused by a new thread. */
		s->started = 0;
		s->broken = 0;
	}
	if (!s->started) {
		s->started = 1;
		s->ended = 0;
		s->run_ns = 0;
		memset(s->counts, 0, sizeof(s->counts));
		if (s->mux)
			memset(s->mux, 0, sizeof(*s->mux));
		/* A thread's first record ever, or its first in this session after a restart. */
		s->broken = lost_before && r->nsample != 1;
	} else if (r->nsample != s->nsample + 1) {
		s->broken = 1;
	}
	s->nsample = r->nsample;
	s->run_ns += r->run_ns;
	if (has_counts(r) && r->set < KPMC_MAX_SETS) {
		for (c = 0; c < KPMC_MAX_COUNTERS; c++)
			if (r->counter_mask & (1u << c))
				s->counts[r->set][c] += r->counts[c];
		if (s->mux)
			kpmc_mux_streams_add(s->mux, r->set,
					     r->counter_mask & ((1u << KPMC_MAX_COUNTERS) - 1),
					     (const uint64_t *)r->counts, (double)r->run_ns);
	}
	if (r->kind == KPMC_REC_EXIT || r->kind == KPMC_REC_DETACH)
		s->ended = 1;
	if (s->broken)
		return -1;
	*key = s->run_ns;
	return 0;
}

static int by_tid_begin(const void *a, const void *b)
{
	const struct kpmc_lib_interval *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return 0;
}

void kpmc_lib_sort_intervals(struct kpmc_lib_interval *iv, size_t n)
{
	if (n > 1)
		qsort(iv, n, sizeof(*iv), by_tid_begin);
}

long kpmc_lib_find_interval(const struct kpmc_lib_interval *iv, size_t n, uint32_t tid,
			    uint64_t key)
{
	size_t lo = 0, hi = n, mid;

	/* The last invocation of tid with begin < key. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (iv[mid].tid < tid || (iv[mid].tid == tid && iv[mid].begin < key))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || iv[lo - 1].tid != tid || key > iv[lo - 1].end)
		return -1;
	return (long)(lo - 1);
}
