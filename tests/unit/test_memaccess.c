// SPDX-License-Identifier: GPL-2.0
/*
 * Memory accesses in words and as Mitos CSV rows (userland/common/memaccess.c),
 * which the kpmc CLI and libkpmc share: every row has the header's 22
 * columns, known fields in Mitos's forms, "??" for the rest.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/memaccess.h"

static char *render(const struct kpmc_mem_access *a, const struct kpmc_mem_row *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (r)
		kpmc_mem_csv_row(f, a, r);
	else
		kpmc_mem_csv_header(f);
	fclose(f);
	return buf;
}

static int columns(const char *line)
{
	int n = 1;

	for (; *line && *line != '\n'; line++)
		n += *line == ',';
	return n;
}

static void test_rows(void **state)
{
	const uint64_t idx[2] = { 3, 17 };
	struct kpmc_mem_access hw = {
		.ip = 0x401a2c, .addr = 0x7ffd1000, .size = 8, .op = KPMC_MEM_OP_LOAD,
		.flags = KPMC_MEM_F_ADDR | KPMC_MEM_F_EXACT | KPMC_MEM_F_HARDWARE |
			 KPMC_MEM_F_LATENCY | KPMC_MEM_F_SOURCE,
		.latency = 180,
		.source = KPMC_MEM_SRC(KPMC_MEM_LVL_RAM, KPMC_MEM_SNOOP_MISS) | KPMC_MEM_SRC_TLB2_MISS |
			  KPMC_MEM_SRC_TLB1_MISS,
	};
	struct kpmc_mem_row row = {
		.source_file = "mm.c", .line = 42, .variable = "a", .buffer_size = 32768,
		.ndims = 2, .index = idx, .pid = 100, .tid = 101, .cpu = 3, .time_ns = 5000,
	};
	struct kpmc_mem_access dec = {
		.ip = 0x400100, .size = 4, .op = KPMC_MEM_OP_STORE, .flags = KPMC_MEM_F_DECODED,
	};
	struct kpmc_mem_row bare = { .pid = 7, .tid = 8 };
	char *h = render(NULL, NULL), *a, *b;

	(void)state;
	assert_int_equal(columns(h), 22);
	a = render(&hw, &row);
	assert_string_equal(a, "mm.c,42,??,8,0x401a2c,a,32768,2,3,17,??,100,101,5000,0x7ffd1000,3,180,RAM,miss,load,miss,L2-miss\n");
	/* Decoded: no latency, no source, address lost: all unknown. */
	b = render(&dec, &bare);
	assert_string_equal(b, "??,??,??,4,0x400100,??,??,??,??,??,??,7,8,??,??,0,??,??,??,store,??,??\n");
	assert_int_equal(columns(a), 22);
	assert_int_equal(columns(b), 22);
	free(h);
	free(a);
	free(b);
	/* An L1 hit is Mitos's "hit"; names have no spaces (trace lines split on them). */
	hw.source = KPMC_MEM_SRC(KPMC_MEM_LVL_L1, KPMC_MEM_SNOOP_NONE);
	a = render(&hw, &row);
	assert_non_null(strstr(a, ",180,L1,hit,load,none,??\n"));
	free(a);
	for (uint32_t l = 0; l <= KPMC_MEM_LVL_L3_MISS + 1; l++)
		assert_null(strchr(kpmc_mem_level_name(l), ' '));
	assert_string_equal(kpmc_mem_level_name(KPMC_MEM_LVL_L3_MISS + 1), "??");
	assert_string_equal(kpmc_mem_op_name(KPMC_MEM_OP_LOAD_STORE), "load+store");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
