// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of common/growarray.h: doubling from the minimum, no realloc
 * while there is room, sizes that would overflow refused before realloc,
 * and a failed realloc leaving the old array and its capacity as they were.
 * Linked with -Wl,--wrap=realloc: __wrap_realloc counts the calls and fails
 * one on request.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

#include "common/growarray.h"

void *__real_realloc(void *p, size_t size);
void *__wrap_realloc(void *p, size_t size);

static unsigned int reallocs;
static int fail_next;

void *__wrap_realloc(void *p, size_t size)
{
	reallocs++;
	if (fail_next) {
		fail_next = 0;
		errno = ENOMEM;
		return NULL;
	}
	return __real_realloc(p, size);
}

/* Appending one at a time: 16, 32, 64, 128, the values kept across moves. */
static void test_doubles_from_minimum(void **state)
{
	int *v = NULL;
	size_t n, cap = 0;

	(void)state;
	reallocs = 0;
	for (n = 0; n < 100; n++) {
		assert_int_equal(grow_array((void **)&v, &cap, n + 1, sizeof(*v), 16), 0);
		v[n] = (int)n * 3;
	}
	assert_int_equal(cap, 128);
	assert_int_equal(reallocs, 4);
	for (n = 0; n < 100; n++)
		assert_int_equal(v[n], (int)n * 3);
	/* Room enough: no call at all. */
	assert_int_equal(grow_array((void **)&v, &cap, 128, sizeof(*v), 16), 0);
	assert_int_equal(grow_array((void **)&v, &cap, 0, sizeof(*v), 16), 0);
	assert_int_equal(reallocs, 4);
	free(v);
}

/* A need far past the capacity: one realloc, to the first doubling that holds it. */
static void test_one_step_to_need(void **state)
{
	char *b = NULL;
	size_t cap = 0;

	(void)state;
	reallocs = 0;
	assert_int_equal(grow_array((void **)&b, &cap, 1000, 1, 64), 0);
	assert_int_equal(cap, 1024);
	assert_int_equal(grow_array((void **)&b, &cap, 5000, 1, 64), 0);
	assert_int_equal(cap, 8192);
	assert_int_equal(reallocs, 2);
	free(b);
	/* A minimum of 0 counts as 1. */
	b = NULL;
	cap = 0;
	assert_int_equal(grow_array((void **)&b, &cap, 3, 1, 0), 0);
	assert_int_equal(cap, 4);
	free(b);
}

/* Sizes past SIZE_MAX, in elements or in bytes: refused, nothing called or changed. */
static void test_overflow_refused(void **state)
{
	uint64_t *v = NULL, *old;
	size_t cap = 0;

	(void)state;
	assert_int_equal(grow_array((void **)&v, &cap, 4, sizeof(*v), 16), 0);
	v[3] = 42;
	old = v;
	reallocs = 0;
	/* The doubling itself would wrap. */
	errno = 0;
	assert_int_equal(grow_array((void **)&v, &cap, SIZE_MAX / 2 + 2, sizeof(*v), 16), -1);
	assert_int_equal(errno, ENOMEM);
	/* The count fits, its bytes do not. */
	errno = 0;
	assert_int_equal(grow_array((void **)&v, &cap, SIZE_MAX / sizeof(*v) + 1, sizeof(*v), 16), -1);
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(reallocs, 0);
	assert_ptr_equal(v, old);
	assert_int_equal(cap, 16);
	assert_int_equal(v[3], 42);
	free(v);
}

/* realloc fails: the old array, its contents and capacity stay; the next try can succeed. */
static void test_failure_keeps_old_array(void **state)
{
	int *v = NULL, *old;
	size_t n, cap = 0;

	(void)state;
	for (n = 0; n < 16; n++) {
		assert_int_equal(grow_array((void **)&v, &cap, n + 1, sizeof(*v), 16), 0);
		v[n] = (int)n + 7;
	}
	old = v;
	fail_next = 1;
	errno = 0;
	assert_int_equal(grow_array((void **)&v, &cap, 17, sizeof(*v), 16), -1);
	assert_int_equal(errno, ENOMEM);
	assert_ptr_equal(v, old);
	assert_int_equal(cap, 16);
	for (n = 0; n < 16; n++)
		assert_int_equal(v[n], (int)n + 7);
	assert_int_equal(grow_array((void **)&v, &cap, 17, sizeof(*v), 16), 0);
	assert_int_equal(cap, 32);
	for (n = 0; n < 16; n++)
		assert_int_equal(v[n], (int)n + 7);
	free(v);
	/* The first allocation failing: still empty, still NULL. */
	v = NULL;
	cap = 0;
	fail_next = 1;
	assert_int_equal(grow_array((void **)&v, &cap, 1, sizeof(*v), 16), -1);
	assert_null(v);
	assert_int_equal(cap, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doubles_from_minimum),
		cmocka_unit_test(test_one_step_to_need),
		cmocka_unit_test(test_overflow_refused),
		cmocka_unit_test(test_failure_keeps_old_array),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
