// SPDX-License-Identifier: GPL-2.0
/*
 * libkpmc's memory samples: the element index of an address in a registered
 * object (row-major, index[0] outermost), edges included, and the object
 * table's rules (names unique, 1 to 3 dimensions, no overflow).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <cmocka.h>

#include "memsample.h"

static void test_index(void **state)
{
	const size_t d2[2] = { 64, 32 }, d3[3] = { 4, 5, 6 }, d1[1] = { 10 };
	uint64_t idx[3];

	(void)state;
	/* a[64][32] of 8-byte elements at 0x1000: a[3][7] */
	assert_int_equal(kpmc_mem_index(0x1000, 8, d2, 2, 0x1000 + 8 * (3 * 32 + 7), idx), 0);
	assert_int_equal(idx[0], 3);
	assert_int_equal(idx[1], 7);
	/* a byte inside an element belongs to it */
	assert_int_equal(kpmc_mem_index(0x1000, 8, d2, 2, 0x1000 + 8 * (3 * 32 + 7) + 5, idx), 0);
	assert_int_equal(idx[1], 7);
	/* first and last elements; one past the end and one before are not in it */
	assert_int_equal(kpmc_mem_index(0x1000, 8, d2, 2, 0x1000, idx), 0);
	assert_int_equal(idx[0] + idx[1], 0);
	assert_int_equal(kpmc_mem_index(0x1000, 8, d2, 2, 0x1000 + 8 * 64 * 32 - 1, idx), 0);
	assert_int_equal(idx[0], 63);
	assert_int_equal(idx[1], 31);
	assert_int_equal(kpmc_mem_index(0x1000, 8, d2, 2, 0x1000 + 8 * 64 * 32, idx), -1);
	assert_int_equal(kpmc_mem_index(0x1000, 8, d2, 2, 0xfff, idx), -1);
	/* three dimensions: x[2][3][4] of 4-byte elements */
	assert_int_equal(kpmc_mem_index(0, 4, d3, 3, 4 * (2 * 30 + 3 * 6 + 4), idx), 0);
	assert_int_equal(idx[0], 2);
	assert_int_equal(idx[1], 3);
	assert_int_equal(idx[2], 4);
	/* one dimension */
	assert_int_equal(kpmc_mem_index(100, 2, d1, 1, 100 + 2 * 9, idx), 0);
	assert_int_equal(idx[0], 9);
}

static void test_symbols(void **state)
{
	static double m[8][8];
	const size_t d[2] = { 8, 8 }, huge[2] = { SIZE_MAX / 2, 4 }, zero[1] = { 0 };

	(void)state;
	assert_int_equal(kpmc_add_symbol("m", m, sizeof(m[0][0]), d, 2), 0);
	assert_int_equal(kpmc_add_symbol("m", m, 8, d, 2), -EEXIST);
	assert_int_equal(kpmc_add_symbol("", m, 8, d, 2), -EINVAL);
	assert_int_equal(kpmc_add_symbol("n", m, 8, d, 0), -EINVAL);
	assert_int_equal(kpmc_add_symbol("n", m, 8, d, 4), -EINVAL);
	assert_int_equal(kpmc_add_symbol("n", m, 0, d, 2), -EINVAL);
	assert_int_equal(kpmc_add_symbol("n", m, 8, huge, 2), -EINVAL);
	assert_int_equal(kpmc_add_symbol("n", m, 8, zero, 1), -EINVAL);
	assert_int_equal(kpmc_add_symbol("n", NULL, 8, d, 2), -EINVAL);
	assert_int_equal(kpmc_remove_symbol("m"), 0);
	assert_int_equal(kpmc_remove_symbol("m"), -ENOENT);
	assert_int_equal(kpmc_add_symbol("m", m, 8, d, 2), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index),
		cmocka_unit_test(test_symbols),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
