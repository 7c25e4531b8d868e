// SPDX-License-Identifier: GPL-2.0
/*
 * Estimates of multiplexed counts (common/mux_estimate.c through
 * aggregate.c) on synthetic record streams with known truths: figures
 * worked by hand, a trend that interpolation follows and scaling misses, a
 * change of speed that an anchor sees through, turns split into records.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "common/aggregate.h"

#define MS 1000000ull

/* A record of set `set`: run_ns, and counts of pmc0..pmc2 (0: not counted). */
static struct kpmc_record rec(unsigned int set, uint64_t run_ns, uint64_t c0, uint64_t c1,
			      uint64_t c2)
{
	struct kpmc_record r;

	memset(&r, 0, sizeof(r));
	r.version = KPMC_RECORD_VERSION;
	r.size = sizeof(r);
	r.kind = KPMC_REC_MUX;
	r.pid = 5;
	r.tid = 5;
	r.set = (uint8_t)set;
	r.run_ns = run_ns;
	r.counter_mask = (c0 ? 1u : 0) | (c1 ? 2u : 0) | (c2 ? 4u : 0);
	r.counts[0] = c0;
	r.counts[1] = c1;
	r.counts[2] = c2;
	return r;
}

static void add(struct kpmc_totals *t, struct kpmc_record r)
{
	assert_int_equal(kpmc_totals_add(t, &r), 0);
}

/*
 * Set 0 ran 4 turns of 10 ms with 100, 120, 80 and 100 events (rate 10 per
 * ms; residuals 0, 20, -20, 0: s^2 = 800 / 3), set 1 the other 4 turns of
 * 10 ms: the thread ran 80 ms. Estimate 10 per ms x 80 ms = 800; SE of the
 * rate sqrt(800/3 / 4) / 10 ms = 0.8165 per ms, times 80 ms and t(3) =
 * 2.353: 153.7. Four turns are too few to interpolate: scaled.
 */
static void test_hand_worked(void **state)
{
	static const uint64_t events[4] = { 100, 120, 80, 100 };
	struct kpmc_totals t = { 0 };
	uint32_t masks[2] = { 0x2, 0x2 };
	struct kpmc_estimate e;
	char out[4096];
	int i;

	(void)state;
	for (i = 0; i < 4; i++) {
		add(&t, rec(0, 10 * MS, 0, events[i], 0));
		add(&t, rec(1, 10 * MS, 0, 50, 0));
	}
	kpmc_thread_estimate(&t.threads[0], 0, 1, &e);
	assert_int_equal(e.value, 800);
	assert_true(e.half90 > 153.6 && e.half90 < 153.8);
	assert_int_equal(e.how, KPMC_EST_SCALED);
	/* The same rate in every turn: no spread. */
	kpmc_thread_estimate(&t.threads[0], 1, 1, &e);
	assert_int_equal(e.value, 400);
	assert_true(e.half90 >= 0 && e.half90 < 1e-3);
	/* A set that never ran, and no such set. */
	kpmc_thread_estimate(&t.threads[0], 2, 1, &e);
	assert_int_equal(e.how, KPMC_EST_NONE);
	assert_true(e.half90 < 0);
	kpmc_thread_estimate(&t.threads[0], KPMC_MAX_SETS, 1, &e);
	assert_int_equal(e.how, KPMC_EST_NONE);

	kpmc_totals_format_sets(&t, 2, masks, out, sizeof(out));
	assert_non_null(strstr(out, "      5       5     0       4    50.00%            800\n"
				    "  +-90%       5     0       -         -            154\n"
				    "    est       5     0       -         -         scaled\n"));
	assert_non_null(strstr(out, "  +-90%       5     1       -         -              0\n"));
	/* The process's: its one thread's. */
	assert_non_null(strstr(out, "  total       5     0       4    50.00%            800\n"
				    "  +-90%       5     0       -         -            154\n"
				    "    est       5     0       -         -         scaled\n"));
	kpmc_totals_format_json(&t, 2, 0, out, sizeof(out));
	assert_non_null(strstr(out, "\"scaled\":{\"pmc1\":800},\"err90\":{\"pmc1\":154},"
				    "\"estimator\":{\"pmc1\":\"scaled\"}"));
	kpmc_totals_free(&t);
}

/* A turn split into several records (a sample, a switch) is still one turn. */
static void test_turns_not_records(void **state)
{
	static const uint64_t events[4] = { 100, 120, 80, 100 };
	struct kpmc_totals t = { 0 };
	struct kpmc_estimate e;
	int i;

	(void)state;
	for (i = 0; i < 4; i++) {
		add(&t, rec(0, 4 * MS, 0, events[i] / 2, 0));
		add(&t, rec(0, 6 * MS, 0, events[i] - events[i] / 2, 0));
		add(&t, rec(1, 10 * MS, 0, 50, 0));
	}
	assert_int_equal(t.threads[0].set_records[0], 8);
	kpmc_thread_estimate(&t.threads[0], 0, 1, &e);
	assert_int_equal(e.value, 800);
	assert_true(e.half90 > 153.6 && e.half90 < 153.8);
	kpmc_totals_free(&t);
}

/* One set all the time: its count, exact; the second set never ran. */
static void test_one_set_counted(void **state)
{
	struct kpmc_totals t = { 0 };
	struct kpmc_estimate e;
	int i;

	(void)state;
	for (i = 0; i < 5; i++)
		add(&t, rec(0, 10 * MS, 0, 100 + (uint64_t)i, 0));
	kpmc_thread_estimate(&t.threads[0], 0, 1, &e);
	assert_int_equal(e.value, 510);
	assert_true(e.half90 == 0);
	assert_int_equal(e.how, KPMC_EST_COUNTED);
	kpmc_thread_estimate(&t.threads[0], 1, 1, &e);
	assert_int_equal(e.how, KPMC_EST_NONE);
	kpmc_totals_free(&t);
}

/*
 * A rate that grows through the run: turn k (1 ms, k = 0..39) counts
 * 1000 (k + 0.5) events, the sets alternate, both count the event: truth
 * 800,000. Scaling gives set 0 the mean of the even turns, 19,500 a ms x 40 =
 * 780,000 (-2.5%). Interpolated, each odd turn is the mean of its
 * neighbours, exact, but for the last, at turn 38's rate: 799,000. Successive
 * turns differ by a constant, so the spread of the differences is far below
 * the spread around the mean: interpolated.
 */
static void test_trend_interpolated(void **state)
{
	struct kpmc_totals t = { 0 };
	struct kpmc_estimate e;
	uint64_t k;

	(void)state;
	for (k = 0; k < 40; k++)
		add(&t, rec((unsigned int)(k % 2), MS, 0, 1000 * k + 500, 0));
	assert_int_equal(kpmc_scale_count(t.threads[0].set_counts[0][1], t.threads[0].run_ns,
					  t.threads[0].set_run_ns[0]), 780000);
	kpmc_thread_estimate(&t.threads[0], 0, 1, &e);
	assert_int_equal(e.how, KPMC_EST_INTERPOLATED);
	assert_int_equal(e.value, 799000);
	/* Set 1: its first gap (turn 0) at turn 1's rate: 1,500 for 500. */
	kpmc_thread_estimate(&t.threads[0], 1, 1, &e);
	assert_int_equal(e.how, KPMC_EST_INTERPOLATED);
	assert_int_equal(e.value, 801000);
	/* Its bar holds the truth. */
	assert_true(e.half90 > 1000 && e.half90 < 30000);
	kpmc_totals_free(&t);
}

/*
 * Turns that differ at random (here: alternately above and below the mean
 * rate) leave interpolation nothing to follow: scaled, and the estimate is
 * the mean rate's.
 */
static void test_noise_scaled(void **state)
{
	struct kpmc_totals t = { 0 };
	struct kpmc_estimate e;
	uint64_t k;

	(void)state;
	for (k = 0; k < 40; k++)
		add(&t, rec((unsigned int)(k % 2), MS, 0, (k / 2) % 2 ? 900 : 1100, 0));
	kpmc_thread_estimate(&t.threads[0], 0, 1, &e);
	assert_int_equal(e.how, KPMC_EST_SCALED);
	assert_int_equal(e.value, 40000);
	kpmc_totals_free(&t);
}

/*
 * A change of speed, not of mix: pmc0 (cycles, the anchor, in both sets),
 * pmc1 = cycles / 2 in set 0, pmc2 = cycles / 4 in set 1. Turns of 10 ms;
 * the CPU runs 1,000 cycles a ms, but 3,000 in set 0's last four turns.
 * Cycles in all: 200,000, so the truths are 100,000 and 50,000. Time scaling
 * gives set 0 its 70,000 over 60 ms for 120 ms: 140,000 (+40%); the anchor's
 * clock gives both exactly, with no spread.
 */
static void test_anchor_clock(void **state)
{
	static const uint64_t speed0[6] = { 1, 1, 3, 3, 3, 3 };
	struct kpmc_totals t = { .anchor = 1 }, bad = { .anchor = 1 };
	struct kpmc_record r;
	struct kpmc_estimate e;
	int k;

	(void)state;
	for (k = 0; k < 6; k++) {
		uint64_t c = 10000 * speed0[k];

		add(&t, rec(0, 10 * MS, c, c / 2, 0));
		add(&t, rec(1, 10 * MS, 10000, 0, 2500));
	}
	kpmc_thread_estimate(&t.threads[0], 0, 1, &e);
	assert_int_equal(e.value, 100000);
	assert_true(e.half90 >= 0 && e.half90 < 1e-3);
	kpmc_thread_estimate(&t.threads[0], 1, 2, &e);
	assert_int_equal(e.value, 50000);
	/* The anchor itself, from either set: its exact total. */
	kpmc_thread_estimate(&t.threads[0], 1, 0, &e);
	assert_int_equal(e.value, 200000);
	/* Time scaling of the same records. */
	assert_int_equal(kpmc_scale_count(t.threads[0].set_counts[0][1], t.threads[0].run_ns,
					  t.threads[0].set_run_ns[0]), 140000);
	kpmc_totals_free(&t);

	/* A record without the anchor is refused (kept in the totals). */
	r = rec(1, 10 * MS, 0, 0, 2500);
	assert_int_equal(kpmc_totals_add(&bad, &r), -2);
	assert_int_equal(bad.threads[0].set_counts[1][2], 2500);
	kpmc_totals_free(&bad);
}

/* Threads of one process whose estimators differ: "mixed". */
static void test_process_mixed(void **state)
{
	struct kpmc_totals t = { 0 };
	uint32_t masks[2] = { 0x2, 0x2 };
	struct kpmc_record r;
	char out[8192];
	uint64_t k;

	(void)state;
	for (k = 0; k < 40; k++) {
		r = rec((unsigned int)(k % 2), MS, 0, 1000 * k + 500, 0);
		add(&t, r);
		r = rec((unsigned int)(k % 2), MS, 0, (k / 2) % 2 ? 900 : 1100, 0);
		r.tid = 6;
		add(&t, r);
	}
	kpmc_totals_format_sets(&t, 2, masks, out, sizeof(out));
	assert_non_null(strstr(out, "  total       5     0      40    50.00%         839000\n"));
	assert_non_null(strstr(out, "    est       5     0       -         -          mixed\n"));
	kpmc_totals_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_worked),
		cmocka_unit_test(test_turns_not_records),
		cmocka_unit_test(test_one_set_counted),
		cmocka_unit_test(test_trend_interpolated),
		cmocka_unit_test(test_noise_scaled),
		cmocka_unit_test(test_anchor_clock),
		cmocka_unit_test(test_process_mixed),
	};

	return cmocka_run_group_tests_name("kpmc_mux_estimate", tests, NULL, NULL);
}
