/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Reading struct kpmc_self_page: the seqlock retry and the counter-width
 * arithmetic, apart from the instructions that read the live counters (passed
 * in) so that the unit tests run this very code on a simulated page.
 */
#ifndef LIBKPMC_FASTREAD_H
#define LIBKPMC_FASTREAD_H

#include <errno.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <linux/types.h>
#include <uapi/linux/kpmc.h>
#include "include/kpmc.h"

/* A live counter's value, by the page's index for it. */
typedef uint64_t (*kpmc_counter_reader)(uint32_t index, void *arg);
/* CLOCK_MONOTONIC in ns, for run time; NULL: run time as of the page's last rewrite. */
typedef uint64_t (*kpmc_clock_reader)(void *arg);

/*
 * Rewrites race only with an interrupted reader: a handful of retries is a
 * lot, and a page that keeps moving (or is odd for good) sends the caller to
 * read(), which is always right.
 */
#define KPMC_PAGE_RETRIES	64

/*
 * The thread's counts now, as a read() of /proc/kpmc/self would return them:
 * 0, or -EAGAIN when the page says (or keeps saying) "use read()".
 */
static inline int kpmc_page_read(const struct kpmc_self_page *p, kpmc_counter_reader rd,
				 kpmc_clock_reader clk, void *arg, struct kpmc_self_counts *out)
{
	unsigned int tries, i, nr;
	uint32_t seq;

	for (tries = 0; tries < KPMC_PAGE_RETRIES; tries++) {
		seq = __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE);
		if (seq & 1)
			continue;
		if (!(__atomic_load_n(&p->flags, __ATOMIC_RELAXED) & KPMC_PAGE_USER_READ))
			return -EAGAIN;
		nr = __atomic_load_n(&p->nr, __ATOMIC_RELAXED);
		if (nr > KPMC_MAX_COUNTERS)
			continue;
		memset(out, 0, sizeof(*out));
		out->counter_mask = __atomic_load_n(&p->counter_mask, __ATOMIC_RELAXED);
		out->set = __atomic_load_n(&p->set, __ATOMIC_RELAXED);
		out->run_ns = __atomic_load_n(&p->run_ns, __ATOMIC_RELAXED);
		if (clk)
			out->run_ns += clk(arg) - __atomic_load_n(&p->since_ns, __ATOMIC_RELAXED);
		for (i = 0; i < nr; i++) {
			const struct kpmc_page_counter *c = &p->ctr[i];
			uint32_t pmc = __atomic_load_n(&c->pmc, __ATOMIC_RELAXED);
			uint64_t live = rd(__atomic_load_n(&c->index, __ATOMIC_RELAXED), arg);

			if (pmc >= KPMC_MAX_COUNTERS)
				break;
			out->counts[pmc] = __atomic_load_n(&c->base, __ATOMIC_RELAXED) +
				((live - __atomic_load_n(&c->raw, __ATOMIC_RELAXED)) &
				 __atomic_load_n(&c->width_mask, __ATOMIC_RELAXED));
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (i == nr && __atomic_load_n(&p->seq, __ATOMIC_RELAXED) == seq)
			return 0;
	}
	return -EAGAIN;
}

/*
 * One counter, pmcN (< KPMC_MAX_COUNTERS), as kpmc_page_read would count it,
 * from its by_pmc entry and nothing else: no clock, no search, no copy (the
 * lean read perf's own user-space read is measured against). Each try is
 * kpmc.h's kpmc__page_one, the very code kpmc_read_counter inlines into its
 * callers. 0 and *value, or -EAGAIN when the entry says (or the page keeps
 * saying) "use read()", which also tells a counter that is not counted.
 */
static inline int kpmc_page_read_one(const struct kpmc_self_page *p, uint32_t pmc,
				     kpmc_counter_reader rd, void *arg, uint64_t *value)
{
	unsigned int tries;
	int r;

	for (tries = 0; tries < KPMC_PAGE_RETRIES; tries++) {
		r = kpmc__page_one(p, pmc % KPMC_MAX_COUNTERS, rd, arg, value);
		if (r != KPMC__PAGE_RETRY)
			return r;
	}
	return -EAGAIN;
}

/* kpmc.h repeats these so that it stands alone; they must agree. */
_Static_assert(KPMC__PAGE_BY_PMC == offsetof(struct kpmc_self_page, by_pmc), "by_pmc offset");
_Static_assert(sizeof(struct kpmc__page_pmc) == sizeof(struct kpmc_page_pmc), "by_pmc entry");
_Static_assert(offsetof(struct kpmc__page_pmc, base) == offsetof(struct kpmc_page_pmc, base) &&
	       offsetof(struct kpmc__page_pmc, raw) == offsetof(struct kpmc_page_pmc, raw) &&
	       offsetof(struct kpmc__page_pmc, width_mask) ==
	       offsetof(struct kpmc_page_pmc, width_mask) &&
	       offsetof(struct kpmc__page_pmc, user_index) ==
	       offsetof(struct kpmc_page_pmc, user_index), "by_pmc fields");
_Static_assert(offsetof(struct kpmc_self_page, seq) == 0, "seq first");
_Static_assert(KPMC__CYCLE_INDEX == KPMC_PAGE_ARM64_CYCLE_INDEX, "cycle index");
_Static_assert(KPMC_LIB_COUNTERS == KPMC_MAX_COUNTERS, "counters");
_Static_assert(-11 == -EAGAIN, "kpmc__page_one's -EAGAIN");

#endif
