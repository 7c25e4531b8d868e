// SPDX-License-Identifier: GPL-2.0
/*
 * libkpmc's pure logic (userland/libkpmc/attrib.c): scaling multiplexed
 * counts, following a thread's records to its on-CPU time at each sample
 * (and refusing to guess after lost records), and putting samples into the
 * region invocations of their own thread.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "libkpmc/attrib.h"

static void scale(void **state)
{
	(void)state;
	/* A set that ran half the time counted half. */
	assert_int_equal(kpmc_lib_scale(1000, 50, 100), 2000);
	/* Rounded to nearest. */
	assert_int_equal(kpmc_lib_scale(10, 3, 10), 33);
	assert_int_equal(kpmc_lib_scale(20, 3, 10), 67);
	/* Ran all the time: the count itself. */
	assert_int_equal(kpmc_lib_scale(123456789, 777, 777), 123456789);
	/* Never ran: nothing to scale. */
	assert_int_equal(kpmc_lib_scale(5, 0, 100), 0);
	/* No 64-bit overflow in count x total. */
	assert_true(kpmc_lib_scale(4000000000000ull, 5000000000ull, 10000000000ull) ==
		    8000000000000ull);
	/* Saturates instead of wrapping. */
	assert_true(kpmc_lib_scale(UINT64_MAX / 2, 1, 4) == UINT64_MAX);
}

/* Feed s the record (s's tid, nsample, kind, run_ns); lost: records were lost before. */
static int feed(struct kpmc_lib_stream *s, uint64_t nsample, int kind, uint64_t run_ns, int lost,
		uint64_t *key)
{
	struct kpmc_record r;

	memset(&r, 0, sizeof(r));
	r.tid = s->tid;
	r.nsample = nsample;
	r.kind = (uint8_t)kind;
	r.run_ns = run_ns;
	return kpmc_lib_stream_feed(s, &r, lost, key);
}

static void stream_keys(void **state)
{
	struct kpmc_lib_stream s = { .tid = 7 };
	uint64_t key = 0;

	(void)state;
	assert_int_equal(feed(&s, 1, KPMC_REC_EBS, 100, 0, &key), 0);
	assert_int_equal(key, 100);
	assert_int_equal(feed(&s, 2, KPMC_REC_MUX, 30, 0, &key), 0);
	assert_int_equal(key, 130);
	assert_int_equal(feed(&s, 3, KPMC_REC_EBS, 70, 0, &key), 0);
	assert_int_equal(key, 200);
}

/* A gap in nsample: that thread's keys are unknown from then on, for good. */
static void stream_gap_breaks(void **state)
{
	struct kpmc_lib_stream s = { .tid = 7 };
	uint64_t key = 0;

	(void)state;
	assert_int_equal(feed(&s, 1, KPMC_REC_EBS, 100, 0, &key), 0);
	assert_int_equal(feed(&s, 3, KPMC_REC_EBS, 100, 1, &key), -1);
	assert_int_equal(feed(&s, 4, KPMC_REC_EBS, 100, 1, &key), -1);
	assert_true(s.broken);
}

/*
 * First record of a thread: its first ever (nsample 1) is trusted after a
 * loss; a later number (a restarted session) only while nothing was lost.
 */
static void stream_first_record(void **state)
{
	struct kpmc_lib_stream a = { .tid = 8 }, b = { .tid = 9 }, c = { .tid = 10 };
	uint64_t key = 0;

	(void)state;
	assert_int_equal(feed(&a, 1, KPMC_REC_EBS, 50, 1, &key), 0);
	assert_int_equal(key, 50);
	assert_int_equal(feed(&b, 12, KPMC_REC_EBS, 50, 0, &key), 0);
	assert_int_equal(key, 50);
	assert_int_equal(feed(&c, 12, KPMC_REC_EBS, 50, 1, &key), -1);
}

/* A tid reused after the thread's exit is a new stream. */
static void stream_tid_reuse(void **state)
{
	struct kpmc_lib_stream s = { .tid = 7 };
	uint64_t key = 0;

	(void)state;
	assert_int_equal(feed(&s, 1, KPMC_REC_EBS, 100, 0, &key), 0);
	assert_int_equal(feed(&s, 2, KPMC_REC_EXIT, 5, 0, &key), 0);
	assert_int_equal(feed(&s, 1, KPMC_REC_EBS, 40, 0, &key), 0);
	assert_int_equal(key, 40);
}

/* A set's record: counts[0] = x over run_ns of the set. */
static void feed_set(struct kpmc_lib_stream *s, uint64_t nsample, unsigned int set, uint64_t x,
		     uint64_t run_ns)
{
	struct kpmc_record r;
	uint64_t key;

	memset(&r, 0, sizeof(r));
	r.tid = s->tid;
	r.nsample = nsample;
	r.kind = KPMC_REC_MUX;
	r.set = set;
	r.counter_mask = 1;
	r.counts[0] = x;
	r.run_ns = run_ns;
	assert_int_equal(kpmc_lib_stream_feed(s, &r, 0, &key), 0);
}

/*
 * A multiplexing session's stream keeps the turns: its estimates are those
 * of the same records given to the estimator directly (kpmc -A's), and a new
 * thread with the tid starts from nothing.
 */
static void stream_turns(void **state)
{
	struct kpmc_mux_streams m, direct;
	struct kpmc_lib_stream s = { .tid = 7, .mux = &m };
	struct kpmc_estimate a, b;
	const uint64_t x[] = { 100, 40, 130, 60, 90, 50 };
	uint64_t one[KPMC_MAX_COUNTERS] = { 0 };
	unsigned int i;

	(void)state;
	memset(&m, 0, sizeof(m));
	memset(&direct, 0, sizeof(direct));
	for (i = 0; i < 6; i++) {
		feed_set(&s, i + 1, i % 2, x[i], 10 + i);
		one[0] = x[i];
		kpmc_mux_streams_add(&direct, i % 2, 1, one, 10 + i);
	}
	for (i = 0; i < 2; i++) {
		kpmc_mux_estimate(&m, i, 0, &a);
		kpmc_mux_estimate(&direct, i, 0, &b);
		assert_int_equal(a.value, b.value);
		assert_true(a.half90 == b.half90 && a.half90 > 0);
		assert_int_equal(a.how, KPMC_EST_SCALED);
	}
	/* Set 0: 320 over 36 of 75 ns. */
	kpmc_mux_estimate(&m, 0, 0, &a);
	assert_int_equal(a.value, 667);
	feed_set(&s, 7, 0, 5, 1);
	s.ended = 1;
	feed_set(&s, 1, 0, 9, 3);
	kpmc_mux_estimate(&m, 0, 0, &a);
	assert_int_equal(a.value, 9);
	assert_int_equal(a.how, KPMC_EST_COUNTED);
}

static void intervals(void **state)
{
	/* Unsorted, two threads with overlapping on-CPU times. */
	struct kpmc_lib_interval iv[] = {
		{ .tid = 5, .begin = 300, .end = 400, .call = 2 },
		{ .tid = 4, .begin = 100, .end = 200, .call = 0 },
		{ .tid = 5, .begin = 100, .end = 200, .call = 1 },
		{ .tid = 4, .begin = 500, .end = 900, .call = 3 },
	};
	size_t n = sizeof(iv) / sizeof(iv[0]);
	long i;

	(void)state;
	kpmc_lib_sort_intervals(iv, n);
	/* (begin, end]: the begin read's own sample is before the region, the end read's in it. */
	assert_int_equal(kpmc_lib_find_interval(iv, n, 4, 100), -1);
	i = kpmc_lib_find_interval(iv, n, 4, 101);
	assert_true(i >= 0 && iv[i].call == 0);
	i = kpmc_lib_find_interval(iv, n, 4, 200);
	assert_true(i >= 0 && iv[i].call == 0);
	assert_int_equal(kpmc_lib_find_interval(iv, n, 4, 201), -1);
	/* Between invocations, and before the first. */
	assert_int_equal(kpmc_lib_find_interval(iv, n, 4, 350), -1);
	assert_int_equal(kpmc_lib_find_interval(iv, n, 4, 3), -1);
	i = kpmc_lib_find_interval(iv, n, 4, 900);
	assert_true(i >= 0 && iv[i].call == 3);
	assert_int_equal(kpmc_lib_find_interval(iv, n, 4, 901), -1);
	/* The same key in another thread: that thread's invocation, or none. */
	i = kpmc_lib_find_interval(iv, n, 5, 350);
	assert_true(i >= 0 && iv[i].call == 2);
	assert_int_equal(kpmc_lib_find_interval(iv, n, 5, 600), -1);
	assert_int_equal(kpmc_lib_find_interval(iv, n, 6, 150), -1);
	assert_int_equal(kpmc_lib_find_interval(iv, n, 3, 150), -1);
	assert_int_equal(kpmc_lib_find_interval(iv, 0, 4, 150), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scale),
		cmocka_unit_test(stream_keys),
		cmocka_unit_test(stream_gap_breaks),
		cmocka_unit_test(stream_first_record),
		cmocka_unit_test(stream_tid_reuse),
		cmocka_unit_test(stream_turns),
		cmocka_unit_test(intervals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
