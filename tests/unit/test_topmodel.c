// SPDX-License-Identifier: GPL-2.0
/* Unit tests of kpmc top's table: rates, totals, rows per thread/CPU, sorting. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "top/topmodel.h"

static struct kpmc_record rec(unsigned int kind, uint32_t tid, uint64_t run, uint64_t c1)
{
	struct kpmc_record r;

	memset(&r, 0, sizeof(r));
	r.kind = (uint8_t)kind;
	r.pid = 10;
	r.tid = tid;
	r.run_ns = run;
	r.counter_mask = 0x2;
	r.counts[1] = c1;
	return r;
}

static void test_rows_and_sort(void **state)
{
	struct kpmc_top t = { 0 };
	struct kpmc_record r;

	(void)state;
	r = rec(KPMC_REC_TBS, 11, 10000000, 5000000);	/* 500,000 per ms */
	assert_int_equal(kpmc_top_add(&t, &r), 0);
	r = rec(KPMC_REC_TBS, 12, 10000000, 20000000);	/* 2,000,000 per ms */
	assert_int_equal(kpmc_top_add(&t, &r), 0);
	r = rec(KPMC_REC_TBS, 11, 5000000, 10000000);	/* now 2,000,000 per ms */
	assert_int_equal(kpmc_top_add(&t, &r), 0);
	r = rec(KPMC_REC_EXIT, 12, 1000, 7);		/* exit: rate kept */
	assert_int_equal(kpmc_top_add(&t, &r), 0);
	r.kind = KPMC_REC_LOST;
	r.lost = 3;
	assert_int_equal(kpmc_top_add(&t, &r), 0);

	assert_int_equal(t.nr, 2);
	assert_int_equal(t.lost, 3);
	assert_int_equal(kpmc_top_columns(&t), 6);
	assert_true(t.rows[0].tid == 11 && t.rows[0].rate[1] == 2000000 && t.rows[0].total[1] == 15000000);
	assert_true(t.rows[1].rate[1] == 2000000 && t.rows[1].exited && t.rows[1].total[1] == 20000007);
	/* By total run time descending: 12 (10.001 ms) before 11 (15 ms)? no: 11 first. */
	kpmc_top_sort(&t, 4, 0);
	assert_int_equal(t.rows[0].tid, 11);
	kpmc_top_sort(&t, 4, 1);
	assert_int_equal(t.rows[0].tid, 12);
	/* Equal rates: ties by tid. */
	kpmc_top_sort(&t, 5, 0);
	assert_int_equal(t.rows[0].tid, 11);
	kpmc_top_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_and_sort),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
