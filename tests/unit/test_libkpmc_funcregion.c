// SPDX-License-Identifier: GPL-2.0
/*
 * libkpmc's regions from function entry and exit
 * (userland/libkpmc/funcregion.c): KPMC_FOLD_FUNCTIONS' syntax and its
 * errors naming the token; names found in this very executable's symbol
 * table (a static function, a global one, a name it lacks); and the hooks
 * against stand-ins for kpmc_region_begin/end: a listed function's calls
 * are one region invocation each, a recursion is one (its outermost call),
 * other functions never reach libkpmc, and each thread counts its own depth.
 */
/* dl_iterate_phdr */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "libkpmc/funcregion.h"

/* kpmc_region_begin/end stand-ins: what the hooks asked for. */
static int begins, ends, begin_fails;
static char last_name[KPMC_LIB_FUNC_NAME];

int kpmc_region_begin(const char *name);
int kpmc_region_end(const char *name);
void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

int kpmc_region_begin(const char *name)
{
	snprintf(last_name, sizeof(last_name), "%s", name);
	if (begin_fails)
		return -EINVAL;
	__atomic_add_fetch(&begins, 1, __ATOMIC_RELAXED);
	return 0;
}

int kpmc_region_end(const char *name)
{
	snprintf(last_name, sizeof(last_name), "%s", name);
	__atomic_add_fetch(&ends, 1, __ATOMIC_RELAXED);
	return 0;
}

/* The functions looked up: kept out of line and in the symbol table. */
static int __attribute__((noinline, used)) folded_static(int x)
{
	return x * 3 + 1;
}

int __attribute__((noinline)) folded_global(int x);
int __attribute__((noinline)) folded_global(int x)
{
	return folded_static(x) - 1;
}

static void parse_good(void **state)
{
	char names[KPMC_LIB_FUNC_MAX][KPMC_LIB_FUNC_NAME], why[256] = "";

	(void)state;
	assert_int_equal(kpmc_lib_func_parse("work", names, KPMC_LIB_FUNC_MAX, why, sizeof(why)), 1);
	assert_string_equal(names[0], "work");
	assert_int_equal(kpmc_lib_func_parse("_a1,solve_x,Z", names, KPMC_LIB_FUNC_MAX, why,
					     sizeof(why)), 3);
	assert_string_equal(names[1], "solve_x");
	assert_string_equal(names[2], "Z");
}

/* Each bad list: -EINVAL and why, which must hold the offending token. */
static void parse_bad(void **state)
{
	static const struct {
		const char *spec, *token;
	} bad[] = {
		{ "", "at the start" },
		{ "work,", "after 'work'" },
		{ "a,,b", "after 'a'" },
		{ ",a", "at the start" },
		{ "work,9lives", "'9lives'" },
		{ "wo rk", "'wo rk'" },
		{ "a,b-c", "'b-c'" },
		{ "work,work", "'work' listed twice" },
		{ "a23456789012345678901234567890123456789012345678", "longer than 47" },
		{ "f.constprop", "'f.constprop'" },
	};
	char names[KPMC_LIB_FUNC_MAX][KPMC_LIB_FUNC_NAME], why[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		assert_int_equal(kpmc_lib_func_parse(bad[i].spec, names, KPMC_LIB_FUNC_MAX, why,
						     sizeof(why)), -EINVAL);
		if (!strstr(why, bad[i].token))
			fail_msg("'%s': why '%s' does not name '%s'", bad[i].spec, why, bad[i].token);
	}
	/* More than max names: the first one over is named. */
	why[0] = '\0';
	assert_int_equal(kpmc_lib_func_parse("a,b,c", names, 2, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "'c'"));
}

static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uintptr_t *)arg = (uintptr_t)info->dlpi_addr;
	return 1;
}

static void resolve_self(void **state)
{
	char names[KPMC_LIB_FUNC_MAX][KPMC_LIB_FUNC_NAME], why[256] = "";
	struct kpmc_lib_func_addr a[KPMC_LIB_FUNC_ADDRS];
	uintptr_t bias = 0;
	int n, m, i, seen_s = 0, seen_g = 0;

	(void)state;
	dl_iterate_phdr(first_object, &bias);
	n = kpmc_lib_func_parse("folded_global,folded_static", names, KPMC_LIB_FUNC_MAX, why,
				sizeof(why));
	assert_int_equal(n, 2);
	m = kpmc_lib_func_resolve("/proc/self/exe", bias, names, n, a, KPMC_LIB_FUNC_ADDRS, why,
				  sizeof(why));
	if (m < 2)
		fail_msg("resolve: %d %s", m, why);
	for (i = 0; i < m; i++) {
		if (i)
			assert_true(a[i - 1].addr < a[i].addr);
		if (a[i].addr == (uintptr_t)folded_global)
			seen_g = a[i].idx == 0;
		if (a[i].addr == (uintptr_t)folded_static)
			seen_s = a[i].idx == 1;
	}
	assert_true(seen_g);
	assert_true(seen_s);
	/* A name this program lacks: named in the error. */
	n = kpmc_lib_func_parse("folded_global,no_such_function", names, KPMC_LIB_FUNC_MAX, why,
				sizeof(why));
	assert_int_equal(n, 2);
	m = kpmc_lib_func_resolve("/proc/self/exe", bias, names, n, a, KPMC_LIB_FUNC_ADDRS, why,
				  sizeof(why));
	assert_int_equal(m, -ENOENT);
	assert_non_null(strstr(why, "no function 'no_such_function'"));
	/* No ELF file. */
	m = kpmc_lib_func_resolve("/proc/self/status", bias, names, 1, a, KPMC_LIB_FUNC_ADDRS,
				  why, sizeof(why));
	assert_true(m < 0);
	assert_non_null(strstr(why, "/proc/self/status"));
}

static void *other_thread(void *arg)
{
	/* Its own depth: an entry here while main is inside is a second invocation. */
	__cyg_profile_func_enter(arg, NULL);
	__cyg_profile_func_exit(arg, NULL);
	return NULL;
}

static void hooks(void **state)
{
	char why[256] = "";
	pthread_t t;
	int i;

	(void)state;
	/* Before arming: nothing, and an exit without its entry is ignored later too. */
	__cyg_profile_func_enter((void *)folded_static, NULL);
	assert_int_equal(begins, 0);
	setenv("KPMC_FOLD_FUNCTIONS", "folded_static,folded_global", 1);
	assert_int_equal(kpmc_lib_func_regions_start(why, sizeof(why)), 0);
	__cyg_profile_func_exit((void *)folded_static, NULL);
	assert_int_equal(ends, 0);
	/* Another function: never reaches libkpmc. */
	__cyg_profile_func_enter((void *)hooks, NULL);
	__cyg_profile_func_exit((void *)hooks, NULL);
	__cyg_profile_func_enter((void *)((uintptr_t)folded_static + 4), NULL);
	assert_int_equal(begins + ends, 0);
	/* Three calls: three invocations of region folded_static. */
	for (i = 0; i < 3; i++) {
		__cyg_profile_func_enter((void *)folded_static, NULL);
		assert_string_equal(last_name, "folded_static");
		__cyg_profile_func_exit((void *)folded_static, NULL);
	}
	assert_int_equal(begins, 3);
	assert_int_equal(ends, 3);
	/* Recursion three deep, with another listed function inside: its outermost call only. */
	__cyg_profile_func_enter((void *)folded_global, NULL);
	__cyg_profile_func_enter((void *)folded_global, NULL);
	__cyg_profile_func_enter((void *)folded_static, NULL);
	__cyg_profile_func_enter((void *)folded_global, NULL);
	assert_int_equal(begins, 5);
	pthread_create(&t, NULL, other_thread, (void *)folded_global);
	pthread_join(t, NULL);
	assert_int_equal(begins, 6);
	assert_int_equal(ends, 4);
	__cyg_profile_func_exit((void *)folded_global, NULL);
	__cyg_profile_func_exit((void *)folded_static, NULL);
	assert_int_equal(ends, 5);
	__cyg_profile_func_exit((void *)folded_global, NULL);
	assert_int_equal(ends, 5);
	__cyg_profile_func_exit((void *)folded_global, NULL);
	assert_int_equal(ends, 6);
	assert_string_equal(last_name, "folded_global");
	/* A begin that failed (no session): its exit ends nothing. */
	begin_fails = 1;
	__cyg_profile_func_enter((void *)folded_static, NULL);
	__cyg_profile_func_exit((void *)folded_static, NULL);
	begin_fails = 0;
	assert_int_equal(ends, 6);
	/* Armed once: a later start (a second kpmc_start) changes nothing. */
	setenv("KPMC_FOLD_FUNCTIONS", "no_such_function", 1);
	assert_int_equal(kpmc_lib_func_regions_start(why, sizeof(why)), 0);
	assert_int_equal(folded_global(2), 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_good),
		cmocka_unit_test(parse_bad),
		cmocka_unit_test(resolve_self),
		cmocka_unit_test(hooks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
