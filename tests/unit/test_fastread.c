// SPDX-License-Identifier: GPL-2.0
/*
 * libkpmc's fast-path reader (userland/libkpmc/fastread.h) on a simulated
 * page: the width arithmetic, and the seqlock retry when the "kernel"
 * rewrites the page while the reader is between its two seq loads.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "libkpmc/fastread.h"

struct sim {
	struct kpmc_self_page page;
	uint64_t hw[32];		/* live counters by index */
	unsigned int reads;		/* counter reads so far */
	int rewrite_at;			/* rewrite the page at this read (-1: never) */
	unsigned int rewrites;
};

/* A switch-out and back: counts folded, counter reloaded at 0. */
static void rewrite(struct sim *s)
{
	struct kpmc_page_counter *c = &s->page.ctr[0];

	s->page.seq++;
	c->base += (s->hw[c->index] - c->raw) & c->width_mask;
	c->raw = 0;
	s->hw[c->index] = 0;
	s->page.by_pmc[c->pmc].base = c->base;
	s->page.by_pmc[c->pmc].raw = 0;
	s->page.seq++;
	s->rewrites++;
}

static uint64_t sim_counter(uint32_t index, void *arg)
{
	struct sim *s = arg;
	uint64_t v = s->hw[index];

	if ((int)s->reads++ == s->rewrite_at) {
		rewrite(s);
		/* The interrupted read saw the old value; the counter ran on after. */
		s->hw[index] += 7;
	}
	return v;
}

static uint64_t sim_clock(void *arg)
{
	(void)arg;
	return 5000;
}

static void sim_init(struct sim *s)
{
	memset(s, 0, sizeof(*s));
	s->rewrite_at = -1;
	s->page.version = KPMC_PAGE_VERSION;
	s->page.flags = KPMC_PAGE_COUNTING | KPMC_PAGE_USER_READ;
	s->page.nr = 2;
	s->page.counter_mask = 0x3;
	s->page.run_ns = 100;
	s->page.since_ns = 4000;
	s->page.ctr[0] = (struct kpmc_page_counter){ .base = 1000, .raw = 10, .pmc = 1,
		.width_mask = 0xffffffffull, .index = 0 };
	s->page.ctr[1] = (struct kpmc_page_counter){ .base = 50, .raw = 0, .pmc = 0,
		.width_mask = ~0ull, .index = KPMC_PAGE_ARM64_CYCLE_INDEX };
	s->hw[0] = 110;
	s->hw[KPMC_PAGE_ARM64_CYCLE_INDEX] = 25;
	/* The lean entries, as the kernel writes them: index + 1 while readable. */
	s->page.by_pmc[1] = (struct kpmc_page_pmc){ .base = 1000, .raw = 10,
		.width_mask = 0xffffffffull, .user_index = 1 };
	s->page.by_pmc[0] = (struct kpmc_page_pmc){ .base = 50, .raw = 0, .width_mask = ~0ull,
		.user_index = KPMC_PAGE_ARM64_CYCLE_INDEX + 1 };
}

static void stable_page(void **state)
{
	struct sim s;
	struct kpmc_self_counts out;

	(void)state;
	sim_init(&s);
	assert_int_equal(kpmc_page_read(&s.page, sim_counter, sim_clock, &s, &out), 0);
	assert_int_equal(out.counts[1], 1100);
	assert_int_equal(out.counts[0], 75);
	assert_int_equal(out.counter_mask, 0x3);
	assert_int_equal(out.run_ns, 1100);
	assert_int_equal(s.reads, 2);
}

/* A 32-bit counter that wrapped since raw: the masked difference. */
static void counter_wrapped(void **state)
{
	struct sim s;
	struct kpmc_self_counts out;

	(void)state;
	sim_init(&s);
	s.page.ctr[0].raw = 0xffffff00ull;
	s.hw[0] = 0x10;
	assert_int_equal(kpmc_page_read(&s.page, sim_counter, NULL, &s, &out), 0);
	assert_int_equal(out.counts[1], 1000 + 0x110);
	assert_int_equal(out.run_ns, 100);
}

/* Rewritten between the seq loads: the first try is dropped, the second is exact. */
static void retry_on_rewrite(void **state)
{
	struct sim s;
	struct kpmc_self_counts out;

	(void)state;
	sim_init(&s);
	s.rewrite_at = 0;
	assert_int_equal(kpmc_page_read(&s.page, sim_counter, NULL, &s, &out), 0);
	assert_int_equal(s.rewrites, 1);
	/* base 1000 + (110 - 10) folded, then 7 more since the reload at 0. */
	assert_int_equal(out.counts[1], 1107);
	assert_int_equal(s.reads, 4);
}

/* seq odd for good (a writer that died mid-rewrite cannot happen; a bug could): read(). */
static void odd_forever_falls_back(void **state)
{
	struct sim s;
	struct kpmc_self_counts out;

	(void)state;
	sim_init(&s);
	s.page.seq = 3;
	assert_int_equal(kpmc_page_read(&s.page, sim_counter, NULL, &s, &out), -EAGAIN);
	assert_int_equal(s.reads, 0);
}

static void no_user_read_falls_back(void **state)
{
	struct sim s;
	struct kpmc_self_counts out;

	(void)state;
	sim_init(&s);
	s.page.flags = KPMC_PAGE_COUNTING;
	assert_int_equal(kpmc_page_read(&s.page, sim_counter, NULL, &s, &out), -EAGAIN);
	s.page.flags = 0;
	assert_int_equal(kpmc_page_read(&s.page, sim_counter, NULL, &s, &out), -EAGAIN);
	assert_int_equal(s.reads, 0);
}

/* A torn or hostile page (nr or pmc out of range) is never trusted. */
static void bad_page_falls_back(void **state)
{
	struct sim s;
	struct kpmc_self_counts out;

	(void)state;
	sim_init(&s);
	s.page.nr = KPMC_MAX_COUNTERS + 1;
	assert_int_equal(kpmc_page_read(&s.page, sim_counter, NULL, &s, &out), -EAGAIN);
	sim_init(&s);
	s.page.ctr[1].pmc = KPMC_MAX_COUNTERS;
	assert_int_equal(kpmc_page_read(&s.page, sim_counter, NULL, &s, &out), -EAGAIN);
}

/* One counter: the same value as the whole read, each path of the seqlock. */
static void read_one(void **state)
{
	struct sim s;
	uint64_t v = 0;

	(void)state;
	sim_init(&s);
	assert_int_equal(kpmc_page_read_one(&s.page, 1, sim_counter, &s, &v), 0);
	assert_int_equal(v, 1100);
	assert_int_equal(s.reads, 1);		/* only pmc1's counter */
	assert_int_equal(kpmc_page_read_one(&s.page, 0, sim_counter, &s, &v), 0);
	assert_int_equal(v, 75);
	/* Wrapped 32-bit counter. */
	s.page.by_pmc[1].raw = 0xffffff00ull;
	s.hw[0] = 0x10;
	assert_int_equal(kpmc_page_read_one(&s.page, 1, sim_counter, &s, &v), 0);
	assert_int_equal(v, 1000 + 0x110);
	/* Not counted here: read() tells. */
	v = 12345;
	assert_int_equal(kpmc_page_read_one(&s.page, 2, sim_counter, &s, &v), -EAGAIN);
	assert_int_equal(v, 12345);
	/* Rewritten mid-read: retried, exact. */
	sim_init(&s);
	s.rewrite_at = 0;
	assert_int_equal(kpmc_page_read_one(&s.page, 1, sim_counter, &s, &v), 0);
	assert_int_equal(s.rewrites, 1);
	assert_int_equal(v, 1107);
	assert_int_equal(s.reads, 2);
	/* Odd for good, or the entry not readable now: read(). */
	sim_init(&s);
	s.page.seq = 3;
	assert_int_equal(kpmc_page_read_one(&s.page, 1, sim_counter, &s, &v), -EAGAIN);
	sim_init(&s);
	s.page.by_pmc[1].user_index = 0;
	assert_int_equal(kpmc_page_read_one(&s.page, 1, sim_counter, &s, &v), -EAGAIN);
	assert_int_equal(s.reads, 0);
	/* A pmc beyond the page's entries never reads outside it. */
	sim_init(&s);
	assert_int_equal(kpmc_page_read_one(&s.page, KPMC_MAX_COUNTERS + 1, sim_counter, &s, &v), 0);
	assert_int_equal(v, 1100);
}

/*
 * One try, as kpmc.h's inlined kpmc_read_counter makes it: 0 with the value,
 * KPMC__PAGE_RETRY (never a stale value) on a moved or odd seq, -EAGAIN on an
 * entry without an index; *value untouched but on success.
 */
static void page_one_try(void **state)
{
	struct sim s;
	uint64_t v;

	(void)state;
	sim_init(&s);
	assert_int_equal(kpmc__page_one(&s.page, 1, sim_counter, &s, &v), 0);
	assert_int_equal(v, 1100);
	assert_int_equal(kpmc__page_one(&s.page, 0, sim_counter, &s, &v), 0);
	assert_int_equal(v, 75);
	/* Moved during the read: retry, nothing written. */
	sim_init(&s);
	s.rewrite_at = 0;
	v = 1;
	assert_int_equal(kpmc__page_one(&s.page, 1, sim_counter, &s, &v), KPMC__PAGE_RETRY);
	assert_int_equal(v, 1);
	assert_int_equal(kpmc__page_one(&s.page, 1, sim_counter, &s, &v), 0);
	assert_int_equal(v, 1107);
	/* Odd: retry without touching the counter. */
	sim_init(&s);
	s.page.seq = 5;
	assert_int_equal(kpmc__page_one(&s.page, 1, sim_counter, &s, &v), KPMC__PAGE_RETRY);
	assert_int_equal(s.reads, 0);
	/* No index (not counted, not readable now, or libkpmc's all-zero no_page): read(). */
	sim_init(&s);
	s.page.by_pmc[0].user_index = 0;
	assert_int_equal(kpmc__page_one(&s.page, 0, sim_counter, &s, &v), -EAGAIN);
	memset(&s.page, 0, sizeof(s.page));
	assert_int_equal(kpmc__page_one(&s.page, 1, sim_counter, &s, &v), -EAGAIN);
	assert_int_equal(s.reads, 0);
	assert_int_equal(v, 1107);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stable_page),
		cmocka_unit_test(counter_wrapped),
		cmocka_unit_test(retry_on_rewrite),
		cmocka_unit_test(odd_forever_falls_back),
		cmocka_unit_test(no_user_read_falls_back),
		cmocka_unit_test(bad_page_falls_back),
		cmocka_unit_test(read_one),
		cmocka_unit_test(page_one_try),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
