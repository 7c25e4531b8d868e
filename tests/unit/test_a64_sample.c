// SPDX-License-Identifier: GPL-2.0
/*
 * The walk from an interrupted PC to the access a memory sample hit
 * (backends/arm64/a64_sample.c), on the instructions of memobjects' loops (the
 * guest test's program; encodings from its objdump): every position in each
 * loop, exact, walked back, a moved index undone, and none at a loop head
 * whose predecessor in memory is not the instruction that ran; then the
 * forms compilers emit: a pointer bumped by a constant after its load, the
 * zero register of a compare, SP given back, a load just above a loop's head.
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

/* Other code than memobjects': words from start on. */
struct code {
	u64 start;
	const u32 *words;
	size_t n;
};

static int fetch_code(void *ctx, u64 pc, u32 *insn)
{
	const struct code *c = ctx;

	if (pc < c->start || pc >= c->start + 4 * c->n || pc % 4)
		return -EFAULT;
	*insn = c->words[(pc - c->start) / 4];
	return 0;
}

static struct kpmc_mem_access locate_in(const struct code *c, struct kpmc_a64_regs *r, u64 pc)
{
	struct kpmc_mem_access m;

	memset(&m, 0, sizeof(m));
	r->pc = pc;
	kpmc_a64_locate_access(r, fetch_code, (void *)c, &m);
	return m;
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
	/*
	 * Once "add x1, x1, #1" ran, x1 is one past the index loaded from: the
	 * walk takes the 1 back; "cmp x1, x3" writes the zero register, not SP.
	 */
	r.x[1] = 10;
	m = locate(&r, 0x4008a4);
	assert_int_equal(m.ip, 0x400898);
	assert_int_equal(m.op, KPMC_MEM_OP_LOAD);
	assert_true(m.flags & KPMC_MEM_F_ADDR);
	assert_false(m.flags & (KPMC_MEM_F_CLOBBERED | KPMC_MEM_F_EXACT));
	assert_int_equal(m.addr, row3 + 8 * 9);
	m = locate(&r, 0x4008a8);
	assert_int_equal(m.skid, 3);
	assert_true(m.flags & KPMC_MEM_F_ADDR);
	assert_int_equal(m.addr, row3 + 8 * 9);
	/* "add x0, x0, x4" wrote x0, not an address register: still given. */
	assert_int_equal(m.ip, 0x400898);
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

/*
 * GCC -O2's strided loop: the pointer moves on right after its load, a
 * floating-point add and a compare follow; above the loop's head, a load
 * that runs once.
 */
static void test_strided_loop(void **state)
{
	static const u32 words[] = {
		0xf94000c5,	/* 1ffc: ldr x5, [x6] (before the loop) */
		0xfd400001,	/* 2000: ldr d1, [x0] (the loop's head) */
		0x91060000,	/* 2004: add x0, x0, #0x180 */
		0x1e612800,	/* 2008: fadd d0, d0, d1 */
		0xeb02001f,	/* 200c: cmp x0, x2 */
		0x54ffff81,	/* 2010: b.ne 2000 */
		0xd65f03c0,	/* 2014: ret */
	};
	const struct code c = { 0x1ffc, words, ARRAY_SIZE(words) };
	const u64 elem = 0x7f0000100000ULL;
	struct kpmc_a64_regs r;
	struct kpmc_mem_access m;
	u64 pc;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.x[6] = 0x5000;
	r.x[0] = elem;
	m = locate_in(&c, &r, 0x2004);
	assert_true(m.flags & KPMC_MEM_F_EXACT);
	assert_int_equal(m.addr, elem);
	assert_true(m.flags & KPMC_MEM_F_SIMD);
	/* Past the bump, the fadd (a V register) and the compare (XZR): the same element. */
	r.x[0] = elem + 0x180;
	for (pc = 0x2008; pc <= 0x2010; pc += 4) {
		m = locate_in(&c, &r, pc);
		assert_int_equal(m.ip, 0x2000);
		assert_int_equal(m.op, KPMC_MEM_OP_LOAD);
		assert_int_equal(m.size, 8);
		assert_true(m.flags & KPMC_MEM_F_ADDR);
		assert_int_equal(m.addr, elem);
		assert_int_equal(m.skid, (pc - 0x2004) / 4);
	}
	/*
	 * At the head, after the branch back: the load above it ran once, before
	 * the loop; a sample here is charged to no instruction, and neither is
	 * one a step further, whose walk would cross the head.
	 */
	m = locate_in(&c, &r, 0x2000);
	assert_int_equal(m.op, KPMC_MEM_OP_NONE);
	assert_int_equal(m.ip, 0x2000);
	assert_false(m.flags & KPMC_MEM_F_ADDR);
	{
		static const u32 body[] = {
			0xf94000c5,	/* 3000: ldr x5, [x6] (before the loop) */
			0x8b030000,	/* 3004: add x0, x0, x3 (the loop's head) */
			0xf1000442,	/* 3008: subs x2, x2, #1 */
			0x54ffffc1,	/* 300c: b.ne 3004 */
		};
		const struct code c2 = { 0x3000, body, ARRAY_SIZE(body) };

		m = locate_in(&c2, &r, 0x3008);
		assert_int_equal(m.op, KPMC_MEM_OP_NONE);
		m = locate_in(&c2, &r, 0x300c);
		assert_int_equal(m.op, KPMC_MEM_OP_NONE);
	}
}

/*
 * A load from the stack, then a compare with the zero register as its
 * destination, then SP given back: the address is the load's.
 */
static void test_stack_and_compare(void **state)
{
	static const u32 words[] = {
		0xf94007e1,	/* 4000: ldr x1, [sp, #8] */
		0xf100003f,	/* 4004: cmp x1, #0 */
		0x910043ff,	/* 4008: add sp, sp, #16 */
		0xd65f03c0,	/* 400c: ret */
		0xf94007e1,	/* 4010: ldr x1, [sp, #8] */
		0xaa1f03e0,	/* 4014: mov x0, xzr (orr x0, xzr, xzr) */
		0x9100001f,	/* 4018: mov sp, x0 (add sp, x0, #0) */
		0xd65f03c0,	/* 401c: ret */
	};
	const struct code c = { 0x4000, words, ARRAY_SIZE(words) };
	const u64 sp = 0xffffc000;
	struct kpmc_a64_regs r;
	struct kpmc_mem_access m;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.sp = sp;
	m = locate_in(&c, &r, 0x4008);
	assert_true(m.flags & KPMC_MEM_F_ADDR);
	assert_int_equal(m.addr, sp + 8);
	r.sp = sp + 16;
	m = locate_in(&c, &r, 0x400c);
	assert_int_equal(m.skid, 2);
	assert_true(m.flags & KPMC_MEM_F_ADDR);
	assert_int_equal(m.addr, sp + 8);
	/* SP set from another register: its old value is unknown, the address lost. */
	r.sp = 0;
	m = locate_in(&c, &r, 0x401c);
	assert_int_equal(m.ip, 0x4010);
	assert_false(m.flags & KPMC_MEM_F_ADDR);
	assert_true(m.flags & KPMC_MEM_F_CLOBBERED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_loop),
		cmocka_unit_test(test_b_loop),
		cmocka_unit_test(test_c_loop),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_strided_loop),
		cmocka_unit_test(test_stack_and_compare),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
