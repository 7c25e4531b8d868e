// SPDX-License-Identifier: GPL-2.0
/*
 * The walk from an interrupted PC to the access a memory sample hit
 * (backends/arm64/a64_sample.c), on the instructions of memobjects' loops (the
 * guest test's program; encodings from its objdump): every position in each
 * loop, exact, walked back, lost to a moved index, and none at a loop head
 * whose predecessor in memory is not the instruction that ran.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "a64_sample.h"

/* memobjects' text from 0x400850 to 0x4008cc (objdump -d). */
static const u32 text[] = {
	0x17ffffd0, 0xd503201f, 0xd503201f, 0xd503201f,	/* 850: b; nop x3 */
	0xd0000501, 0xd2820002, 0x9101c021, 0xd2800000,	/* 860: adrp x1; mov x2; add x1; mov x0 */
	0xf8408423, 0x8b030000, 0xf1000442, 0x54ffffa1,	/* 870: ldr x3, [x1], #8; add x0, x0, x3; subs x2; b.ne */
	0xd65f03c0,					/* 880: ret */
	0xd2800001, 0xd00004c2, 0xd2800803, 0x9119c042,	/* 884: mov x1; adrp x2; mov x3; add x2 */
	0xaa0103e0,					/* 894: mov x0, x1 */
	0xf8617844, 0x8b040000, 0x91000421, 0xeb03003f,	/* 898: ldr x4, [x2, x1, lsl #3]; add x0; add x1, #1; cmp */
	0x54ffff81, 0xd65f03c0,				/* 8a8: b.ne; ret */
	0xd0000481, 0xd2820002, 0x9101c021,		/* 8b0: adrp x1; mov x2; add x1 */
	0xf8008420, 0x91000400, 0xf1000442, 0x54ffffa1,	/* 8bc: str x0, [x1], #8; add x0, #1; subs x2; b.ne */
	0xd65f03c0,					/* 8cc: ret */
};
#define TEXT_START 0x400850ULL

static int fetch(void *ctx, u64 pc, u32 *insn)
{
	(void)ctx;
	if (pc < TEXT_START || pc >= TEXT_START + sizeof(text) || pc % 4)
		return -EFAULT;
	*insn = text[(pc - TEXT_START) / 4];
	return 0;
}

static struct kpmc_mem_access locate(struct kpmc_a64_regs *r, u64 pc)
{
	struct kpmc_mem_access m;

	memset(&m, 0, sizeof(m));
	r->pc = pc;
	kpmc_a64_locate_access(r, fetch, NULL, &m);
	return m;
}

static void test_a_loop(void **state)
{
	struct kpmc_a64_regs r;
	struct kpmc_mem_access m;
	const u64 a = 0x4a2070, e = 17;
	u64 pc;

	(void)state;
	memset(&r, 0, sizeof(r));
	/* Element e loaded: x1 moved past it (post-index), x3 holds its value. */
	r.x[1] = a + 8 * (e + 1);
	r.x[3] = 0xdeadbeef;
	for (pc = 0x400874; pc <= 0x40087c; pc += 4) {
		m = locate(&r, pc);
		assert_int_equal(m.ip, 0x400870);
		assert_int_equal(m.op, KPMC_MEM_OP_LOAD);
		assert_int_equal(m.size, 8);
		assert_true(m.flags & KPMC_MEM_F_ADDR);
		assert_true(m.flags & KPMC_MEM_F_DECODED);
		assert_int_equal(m.addr, a + 8 * e);
		assert_int_equal(m.skid, (pc - 0x400874) / 4);
		assert_int_equal(!!(m.flags & KPMC_MEM_F_EXACT), pc == 0x400874);
	}
	/* At the loop's head after the branch: 0x40086c did not just run; the walk meets no access. */
	m = locate(&r, 0x400870);
	assert_int_equal(m.op, KPMC_MEM_OP_NONE);
	assert_int_equal(m.ip, 0x400870);
	assert_false(m.flags & KPMC_MEM_F_ADDR);
	/* After the branch fell through: the branch stops the walk. */
	m = locate(&r, 0x400880);
	assert_int_equal(m.op, KPMC_MEM_OP_NONE);
}

static void test_b_loop(void **state)
{
	struct kpmc_a64_regs r;
	struct kpmc_mem_access m;
	const u64 row3 = 0x49a070 + 3 * 64 * 8;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.x[2] = row3;
	r.x[1] = 9;
	/* Right after the load and one instruction later: b[3][9]. */
	m = locate(&r, 0x40089c);
	assert_true(m.flags & KPMC_MEM_F_EXACT);
	assert_int_equal(m.addr, row3 + 8 * 9);
	m = locate(&r, 0x4008a0);
	assert_int_equal(m.skid, 1);
	assert_true(m.flags & KPMC_MEM_F_ADDR);
	assert_int_equal(m.addr, row3 + 8 * 9);
	/* Once "add x1, x1, #1" ran, the index in x1 is not the one loaded from. */
	r.x[1] = 10;
	m = locate(&r, 0x4008a4);
	assert_int_equal(m.ip, 0x400898);
	assert_int_equal(m.op, KPMC_MEM_OP_LOAD);
	assert_false(m.flags & KPMC_MEM_F_ADDR);
	assert_true(m.flags & KPMC_MEM_F_CLOBBERED);
	m = locate(&r, 0x4008a8);
	assert_int_equal(m.skid, 3);
	assert_true(m.flags & KPMC_MEM_F_CLOBBERED);
}

static void test_c_loop(void **state)
{
	struct kpmc_a64_regs r;
	struct kpmc_mem_access m;
	const u64 c = 0x492070;
	u64 pc;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.x[1] = c + 8 * 100;	/* element 99 stored */
	r.x[0] = 1234;
	for (pc = 0x4008c0; pc <= 0x4008c8; pc += 4) {
		m = locate(&r, pc);
		assert_int_equal(m.op, KPMC_MEM_OP_STORE);
		assert_int_equal(m.addr, c + 8 * 99);
		assert_int_equal(m.ip, 0x4008bc);
	}
}

static void test_edges(void **state)
{
	static const u32 own_base[] = { 0xf9400000 };	/* ldr x0, [x0] */
	struct kpmc_a64_regs r;
	struct kpmc_mem_access m;

	(void)state;
	memset(&r, 0, sizeof(r));
	/* Nothing readable before the PC. */
	m = locate(&r, TEXT_START);
	assert_int_equal(m.op, KPMC_MEM_OP_NONE);
	assert_int_equal(m.ip, TEXT_START);
	/* A load that overwrote its own base: kind known, address lost. */
	{
		struct kpmc_a64_access a;

		r.pc = 0x1000;
		assert_int_equal(kpmc_a64_decode(own_base[0], &r, true, &a), -EAGAIN);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_loop),
		cmocka_unit_test(test_b_loop),
		cmocka_unit_test(test_c_loop),
		cmocka_unit_test(test_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
