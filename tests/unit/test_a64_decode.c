// SPDX-License-Identifier: GPL-2.0
/*
 * The A64 load/store decoder (backends/arm64/a64_decode.c): a table of encodings,
 * each assembled by aarch64-linux-gnu-as from the text beside it, with the
 * registers at the sample, whether they are from before or after the
 * instruction executed, and the access expected. Plus kpmc_a64_is_branch()
 * and a sweep of the whole encoding space for the decoder's invariants.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "a64_decode.h"

#define BEFORE	false
#define AFTER	true
/* Registers a case sets: X0-X30 as R(n), SP; 0 ends the list. */
#define R(n)	((n) + 1)
#define RSP	32

#define NM	KPMC_A64_NOT_MEM
#define LD	KPMC_A64_LOAD
#define ST	KPMC_A64_STORE
#define LS	KPMC_A64_LOAD_STORE

#define PAIR	KPMC_A64_PAIR
#define WB	KPMC_A64_WRITEBACK
#define SIMD	KPMC_A64_SIMD
#define EXCL	KPMC_A64_EXCLUSIVE
#define ACQREL	KPMC_A64_ACQREL
#define LIT	KPMC_A64_LITERAL
#define UNPRIV	KPMC_A64_UNPRIV
#define PRF	KPMC_A64_PREFETCH

/* The PC of every case: literals are relative to it. */
#define PC0	0x400000ull

struct reg_set {
	u8 reg;
	u64 val;
};

struct decode_case {
	u32 insn;
	const char *text;
	bool after;
	struct reg_set set[2];
	int rc;
	u64 addr;
	u32 size;
	u8 kind;
	u8 flags;
	u8 base;
};

static const struct decode_case cases[] = {
	/* LDR/STR (immediate, unsigned offset): imm12 scaled by the size */
	{ 0xf9400441, "ldr x1, [x2, #8]", BEFORE, { { R(2), 0x1000 } },
	  0, 0x1008, 8, LD, 0, 2 },
	{ 0xf9400441, "ldr x1, [x2, #8]", AFTER, { { R(2), 0x1000 } },
	  0, 0x1008, 8, LD, 0, 2 },
	{ 0xb97ffc83, "ldr w3, [x4, #16380]", BEFORE, { { R(4), 0x10000 } },
	  0, 0x13ffc, 4, LD, 0, 4 },
	{ 0x397ffcc5, "ldrb w5, [x6, #4095]", AFTER, { { R(6), 0x2000 } },
	  0, 0x2fff, 1, LD, 0, 6 },
	{ 0x79400507, "ldrh w7, [x8, #2]", BEFORE, { { R(8), 0x3000 } },
	  0, 0x3002, 2, LD, 0, 8 },
	{ 0x39000441, "strb w1, [x2, #1]", BEFORE, { { R(2), 0x100 } },
	  0, 0x101, 1, ST, 0, 2 },
	{ 0x79000c41, "strh w1, [x2, #6]", AFTER, { { R(2), 0x200 } },
	  0, 0x206, 2, ST, 0, 2 },
	{ 0xb9000c41, "str w1, [x2, #12]", BEFORE, { { R(2), 0x300 } },
	  0, 0x30c, 4, ST, 0, 2 },
	{ 0xf9000be1, "str x1, [sp, #16]", AFTER, { { RSP, 0x7ffffff0 } },
	  0, 0x80000000, 8, ST, 0, 31 },
	{ 0x39800c41, "ldrsb x1, [x2, #3]", BEFORE, { { R(2), 0x400 } },
	  0, 0x403, 1, LD, 0, 2 },
	{ 0x79c00841, "ldrsh w1, [x2, #4]", BEFORE, { { R(2), 0x500 } },
	  0, 0x504, 2, LD, 0, 2 },
	{ 0xb9800841, "ldrsw x1, [x2, #8]", AFTER, { { R(2), 0x600 } },
	  0, 0x608, 4, LD, 0, 2 },
	{ 0xf9400000, "ldr x0, [x0]", AFTER, { { R(0), 0x5000 } },
	  -EAGAIN, 0x0, 8, LD, 0, 0 },
	{ 0xf9400000, "ldr x0, [x0]", BEFORE, { { R(0), 0x5000 } },
	  0, 0x5000, 8, LD, 0, 0 },
	{ 0xf9000000, "str x0, [x0]", AFTER, { { R(0), 0x5000 } },
	  0, 0x5000, 8, ST, 0, 0 },
	{ 0xf94007ff, "ldr xzr, [sp, #8]", AFTER, { { RSP, 0x8000 } },
	  0, 0x8008, 8, LD, 0, 31 },
	{ 0xf94007de, "ldr x30, [x30, #8]", AFTER, { { R(30), 0x8000 } },
	  -EAGAIN, 0x0, 8, LD, 0, 30 },
	/* Pre- and post-index: after, the base is undone */
	{ 0xf8410c41, "ldr x1, [x2, #16]!", BEFORE, { { R(2), 0x1000 } },
	  0, 0x1010, 8, LD, WB, 2 },
	{ 0xf8410c41, "ldr x1, [x2, #16]!", AFTER, { { R(2), 0x1010 } },
	  0, 0x1010, 8, LD, WB, 2 },
	{ 0xf8410441, "ldr x1, [x2], #16", BEFORE, { { R(2), 0x1000 } },
	  0, 0x1000, 8, LD, WB, 2 },
	{ 0xf8410441, "ldr x1, [x2], #16", AFTER, { { R(2), 0x1010 } },
	  0, 0x1000, 8, LD, WB, 2 },
	{ 0xb81f0fe3, "str w3, [sp, #-16]!", AFTER, { { RSP, 0x7ff0 } },
	  0, 0x7ff0, 4, ST, WB, 31 },
	{ 0xb81f0fe3, "str w3, [sp, #-16]!", BEFORE, { { RSP, 0x8000 } },
	  0, 0x7ff0, 4, ST, WB, 31 },
	{ 0xf81f8483, "str x3, [x4], #-8", AFTER, { { R(4), 0x1ff8 } },
	  0, 0x2000, 8, ST, WB, 4 },
	{ 0xf81f8483, "str x3, [x4], #-8", BEFORE, { { R(4), 0x2000 } },
	  0, 0x2000, 8, ST, WB, 4 },
	{ 0x38401441, "ldrb w1, [x2], #1", AFTER, { { R(2), 0x101 } },
	  0, 0x100, 1, LD, WB, 2 },
	{ 0x789fec41, "ldrsh x1, [x2, #-2]!", AFTER, { { R(2), 0x1ffe } },
	  0, 0x1ffe, 2, LD, WB, 2 },
	{ 0xb8900441, "ldrsw x1, [x2], #-256", AFTER, { { R(2), 0x1f00 } },
	  0, 0x2000, 4, LD, WB, 2 },
	{ 0xf8408442, "ldr x2, [x2], #8", AFTER, { { R(2), 0x3008 } },
	  -EAGAIN, 0x0, 8, LD, WB, 2 },
	{ 0xf8408442, "ldr x2, [x2], #8", BEFORE, { { R(2), 0x3000 } },
	  0, 0x3000, 8, LD, WB, 2 },
	{ 0xf8008c42, "str x2, [x2, #8]!", AFTER, { { R(2), 0x3008 } },
	  0, 0x3008, 8, ST, WB, 2 },
	/* Unscaled (LDUR/STUR) and unprivileged (LDTR/STTR): imm9 */
	{ 0xf85ff041, "ldur x1, [x2, #-1]", BEFORE, { { R(2), 0x1000 } },
	  0, 0xfff, 8, LD, 0, 2 },
	{ 0xb80ff041, "stur w1, [x2, #255]", AFTER, { { R(2), 0x1000 } },
	  0, 0x10ff, 4, ST, 0, 2 },
	{ 0xb8900041, "ldursw x1, [x2, #-256]", BEFORE, { { R(2), 0x1000 } },
	  0, 0xf00, 4, LD, 0, 2 },
	{ 0x384033e1, "ldurb w1, [sp, #3]", AFTER, { { RSP, 0x8000 } },
	  0, 0x8003, 1, LD, 0, 31 },
	{ 0xf85f8042, "ldur x2, [x2, #-8]", AFTER, { { R(2), 0x1000 } },
	  -EAGAIN, 0x0, 8, LD, 0, 2 },
	{ 0xf8408841, "ldtr x1, [x2, #8]", AFTER, { { R(2), 0x1000 } },
	  0, 0x1008, 8, LD, UNPRIV, 2 },
	{ 0x381ff841, "sttrb w1, [x2, #-1]", BEFORE, { { R(2), 0x1000 } },
	  0, 0xfff, 1, ST, UNPRIV, 2 },
	{ 0xb8800841, "ldtrsw x1, [x2]", BEFORE, { { R(2), 0x1000 } },
	  0, 0x1000, 4, LD, UNPRIV, 2 },
	{ 0x78c02841, "ldtrsh w1, [x2, #2]", BEFORE, { { R(2), 0x1000 } },
	  0, 0x1002, 2, LD, UNPRIV, 2 },
	/* Register offset: Xm, or Wm extended; shifted by the size with S */
	{ 0xf8636841, "ldr x1, [x2, x3]", AFTER, { { R(2), 0x1000 }, { R(3), 0x20 } },
	  0, 0x1020, 8, LD, 0, 2 },
	{ 0xf8637841, "ldr x1, [x2, x3, lsl #3]", BEFORE, { { R(2), 0x1000 }, { R(3), 0x4 } },
	  0, 0x1020, 8, LD, 0, 2 },
	{ 0xb8635841, "ldr w1, [x2, w3, uxtw #2]", BEFORE, { { R(2), 0x1000 }, { R(3), 0xffffffff00000004 } },
	  0, 0x1010, 4, LD, 0, 2 },
	{ 0xf863d841, "ldr x1, [x2, w3, sxtw #3]", AFTER, { { R(2), 0x1000 }, { R(3), 0xfffffffe } },
	  0, 0xff0, 8, LD, 0, 2 },
	{ 0xf863c841, "ldr x1, [x2, w3, sxtw]", BEFORE, { { R(2), 0x1000 }, { R(3), 0x12345678fffffff0 } },
	  0, 0xff0, 8, LD, 0, 2 },
	{ 0xb8634841, "ldr w1, [x2, w3, uxtw]", BEFORE, { { R(2), 0x1000 }, { R(3), 0xfffffff0 } },
	  0, 0x100000ff0, 4, LD, 0, 2 },
	{ 0xf823e841, "str x1, [x2, x3, sxtx]", BEFORE, { { R(2), 0x1000 }, { R(3), 0xfffffffffffffff8 } },
	  0, 0xff8, 8, ST, 0, 2 },
	{ 0xb823f841, "str w1, [x2, x3, sxtx #2]", BEFORE, { { R(2), 0x1000 }, { R(3), 0xfffffffffffffffe } },
	  0, 0xff8, 4, ST, 0, 2 },
	{ 0x38637841, "ldrb w1, [x2, x3, lsl #0]", BEFORE, { { R(2), 0x1000 }, { R(3), 0x5 } },
	  0, 0x1005, 1, LD, 0, 2 },
	{ 0x38636841, "ldrb w1, [x2, x3]", BEFORE, { { R(2), 0x1000 }, { R(3), 0x5 } },
	  0, 0x1005, 1, LD, 0, 2 },
	{ 0x78637841, "ldrh w1, [x2, x3, lsl #1]", BEFORE, { { R(2), 0x1000 }, { R(3), 0x5 } },
	  0, 0x100a, 2, LD, 0, 2 },
	{ 0xb8a35841, "ldrsw x1, [x2, w3, uxtw #2]", BEFORE, { { R(2), 0x1000 }, { R(3), 0x3 } },
	  0, 0x100c, 4, LD, 0, 2 },
	{ 0x38e3c841, "ldrsb w1, [x2, w3, sxtw]", BEFORE, { { R(2), 0x1000 }, { R(3), 0xffffffff } },
	  0, 0xfff, 1, LD, 0, 2 },
	{ 0xf8636843, "ldr x3, [x2, x3]", AFTER, { { R(2), 0x1000 }, { R(3), 0x8 } },
	  -EAGAIN, 0x0, 8, LD, 0, 2 },
	{ 0xf8636843, "ldr x3, [x2, x3]", BEFORE, { { R(2), 0x1000 }, { R(3), 0x8 } },
	  0, 0x1008, 8, LD, 0, 2 },
	{ 0xf8636842, "ldr x2, [x2, x3]", AFTER, { { R(2), 0x1000 }, { R(3), 0x8 } },
	  -EAGAIN, 0x0, 8, LD, 0, 2 },
	{ 0xf8236843, "str x3, [x2, x3]", AFTER, { { R(2), 0x1000 }, { R(3), 0x8 } },
	  0, 0x1008, 8, ST, 0, 2 },
	{ 0xf8636be1, "ldr x1, [sp, x3]", AFTER, { { RSP, 0x8000 }, { R(3), 0x8 } },
	  0, 0x8008, 8, LD, 0, 31 },
	{ 0xf87f6841, "ldr x1, [x2, xzr]", AFTER, { { R(2), 0x1000 } },
	  0, 0x1000, 8, LD, 0, 2 },
	{ 0x3ca37840, "str q0, [x2, x3, lsl #4]", BEFORE, { { R(2), 0x1000 }, { R(3), 0x2 } },
	  0, 0x1020, 16, ST, SIMD, 2 },
	{ 0xfc637863, "ldr d3, [x3, x3, lsl #3]", AFTER, { { R(3), 0x1000 } },
	  0, 0x9000, 8, LD, SIMD, 3 },
	/* SIMD&FP single registers, B to Q */
	{ 0x3d400420, "ldr b0, [x1, #1]", BEFORE, { { R(1), 0x1000 } },
	  0, 0x1001, 1, LD, SIMD, 1 },
	{ 0x7d400420, "ldr h0, [x1, #2]", BEFORE, { { R(1), 0x1000 } },
	  0, 0x1002, 2, LD, SIMD, 1 },
	{ 0xbd400420, "ldr s0, [x1, #4]", BEFORE, { { R(1), 0x1000 } },
	  0, 0x1004, 4, LD, SIMD, 1 },
	{ 0xfd400420, "ldr d0, [x1, #8]", BEFORE, { { R(1), 0x1000 } },
	  0, 0x1008, 8, LD, SIMD, 1 },
	{ 0x3dc00420, "ldr q0, [x1, #16]", BEFORE, { { R(1), 0x1000 } },
	  0, 0x1010, 16, LD, SIMD, 1 },
	{ 0x7d1ffc25, "str h5, [x1, #4094]", BEFORE, { { R(1), 0x1000 } },
	  0, 0x1ffe, 2, ST, SIMD, 1 },
	{ 0x3c9e0fe1, "str q1, [sp, #-32]!", AFTER, { { RSP, 0x7fe0 } },
	  0, 0x7fe0, 16, ST, SIMD|WB, 31 },
	{ 0xfc408422, "ldr d2, [x1], #8", AFTER, { { R(1), 0x1008 } },
	  0, 0x1000, 8, LD, SIMD|WB, 1 },
	{ 0x3cdf0c22, "ldr q2, [x1, #-16]!", BEFORE, { { R(1), 0x1010 } },
	  0, 0x1000, 16, LD, SIMD|WB, 1 },
	{ 0x3cdf0023, "ldur q3, [x1, #-16]", BEFORE, { { R(1), 0x1000 } },
	  0, 0xff0, 16, LD, SIMD, 1 },
	{ 0x3c007023, "stur b3, [x1, #7]", BEFORE, { { R(1), 0x1000 } },
	  0, 0x1007, 1, ST, SIMD, 1 },
	{ 0xbc22d820, "str s0, [x1, w2, sxtw #2]", BEFORE, { { R(1), 0x1000 }, { R(2), 0xffffffff } },
	  0, 0xffc, 4, ST, SIMD, 1 },
	{ 0x7c627820, "ldr h0, [x1, x2, lsl #1]", BEFORE, { { R(1), 0x1000 }, { R(2), 0x3 } },
	  0, 0x1006, 2, LD, SIMD, 1 },
	{ 0xfd400000, "ldr d0, [x0]", AFTER, { { R(0), 0x1000 } },
	  0, 0x1000, 8, LD, SIMD, 0 },
	/* Literal: relative to the instruction (r->pc) */
	{ 0x58000041, "ldr x1, .+8", AFTER, { },
	  0, 0x400008, 8, LD, LIT, 0xff },
	{ 0x18ffffe1, "ldr w1, .-4", BEFORE, { },
	  0, 0x3ffffc, 4, LD, LIT, 0xff },
	{ 0x98000801, "ldrsw x1, .+0x100", BEFORE, { },
	  0, 0x400100, 4, LD, LIT, 0xff },
	{ 0x1c000080, "ldr s0, .+16", BEFORE, { },
	  0, 0x400010, 4, LD, SIMD|LIT, 0xff },
	{ 0x5c800000, "ldr d0, .-0x100000", BEFORE, { },
	  0, 0x300000, 8, LD, SIMD|LIT, 0xff },
	{ 0x9c7fffe0, "ldr q0, .+0xffffc", AFTER, { },
	  0, 0x4ffffc, 16, LD, SIMD|LIT, 0xff },
	{ 0x58000000, "ldr x0, .", AFTER, { },
	  0, 0x400000, 8, LD, LIT, 0xff },
	{ 0xd8000200, "prfm pldl1keep, .+64", BEFORE, { },
	  -ENOENT, 0x400040, 0, NM, PRF|LIT, 0xff },
	/* Prefetch hints: -ENOENT, the address filled in */
	{ 0xf9800420, "prfm pldl1keep, [x1, #8]", BEFORE, { { R(1), 0x1000 } },
	  -ENOENT, 0x1008, 0, NM, PRF, 1 },
	{ 0xf89fd033, "prfum pstl2strm, [x1, #-3]", BEFORE, { { R(1), 0x1000 } },
	  -ENOENT, 0xffd, 0, NM, PRF, 1 },
	{ 0xf8a27828, "prfm plil1keep, [x1, x2, lsl #3]", AFTER, { { R(1), 0x1000 }, { R(2), 0x2 } },
	  -ENOENT, 0x1010, 0, NM, PRF, 1 },
	/* Pairs: LDP/STP/LDPSW/LDNP/STNP/STGP, SIMD&FP S/D/Q */
	{ 0xa9400861, "ldp x1, x2, [x3]", BEFORE, { { R(3), 0x1000 } },
	  0, 0x1000, 16, LD, PAIR, 3 },
	{ 0xa9600861, "ldp x1, x2, [x3, #-512]", AFTER, { { R(3), 0x1000 } },
	  0, 0xe00, 16, LD, PAIR, 3 },
	{ 0xa9bf7bfd, "stp x29, x30, [sp, #-16]!", AFTER, { { RSP, 0x7ff0 } },
	  0, 0x7ff0, 16, ST, PAIR|WB, 31 },
	{ 0xa9bf7bfd, "stp x29, x30, [sp, #-16]!", BEFORE, { { RSP, 0x8000 } },
	  0, 0x7ff0, 16, ST, PAIR|WB, 31 },
	{ 0xa8c17bfd, "ldp x29, x30, [sp], #16", AFTER, { { RSP, 0x8010 } },
	  0, 0x8000, 16, LD, PAIR|WB, 31 },
	{ 0xa8c17bfd, "ldp x29, x30, [sp], #16", BEFORE, { { RSP, 0x8000 } },
	  0, 0x8000, 16, LD, PAIR|WB, 31 },
	{ 0xa9df8861, "ldp x1, x2, [x3, #504]!", AFTER, { { R(3), 0x11f8 } },
	  0, 0x11f8, 16, LD, PAIR|WB, 3 },
	{ 0x295f8861, "ldp w1, w2, [x3, #252]", BEFORE, { { R(3), 0x1000 } },
	  0, 0x10fc, 8, LD, PAIR, 3 },
	{ 0x29bf8861, "stp w1, w2, [x3, #-4]!", BEFORE, { { R(3), 0x1000 } },
	  0, 0xffc, 8, ST, PAIR|WB, 3 },
	{ 0x28a00861, "stp w1, w2, [x3], #-256", AFTER, { { R(3), 0xf00 } },
	  0, 0x1000, 8, ST, PAIR|WB, 3 },
	{ 0x69410861, "ldpsw x1, x2, [x3, #8]", BEFORE, { { R(3), 0x1000 } },
	  0, 0x1008, 8, LD, PAIR, 3 },
	{ 0x68ff0861, "ldpsw x1, x2, [x3], #-8", AFTER, { { R(3), 0xff8 } },
	  0, 0x1000, 8, LD, PAIR|WB, 3 },
	{ 0xa8410861, "ldnp x1, x2, [x3, #16]", BEFORE, { { R(3), 0x1000 } },
	  0, 0x1010, 16, LD, PAIR, 3 },
	{ 0x283f0861, "stnp w1, w2, [x3, #-8]", BEFORE, { { R(3), 0x1000 } },
	  0, 0xff8, 8, ST, PAIR, 3 },
	{ 0x2d410400, "ldp s0, s1, [x0, #8]", BEFORE, { { R(0), 0x1000 } },
	  0, 0x1008, 8, LD, SIMD|PAIR, 0 },
	{ 0x6dbf07e0, "stp d0, d1, [sp, #-16]!", AFTER, { { RSP, 0x7ff0 } },
	  0, 0x7ff0, 16, ST, SIMD|PAIR|WB, 31 },
	{ 0xacc10400, "ldp q0, q1, [x0], #32", AFTER, { { R(0), 0x1020 } },
	  0, 0x1000, 32, LD, SIMD|PAIR|WB, 0 },
	{ 0xac600400, "ldnp q0, q1, [x0, #-1024]", BEFORE, { { R(0), 0x1000 } },
	  0, 0xc00, 32, LD, SIMD|PAIR, 0 },
	{ 0x6c008400, "stnp d0, d1, [x0, #8]", BEFORE, { { R(0), 0x1000 } },
	  0, 0x1008, 16, ST, SIMD|PAIR, 0 },
	{ 0xa9400821, "ldp x1, x2, [x1]", AFTER, { { R(1), 0x1000 } },
	  -EAGAIN, 0x0, 16, LD, PAIR, 1 },
	{ 0xa9400841, "ldp x1, x2, [x2]", AFTER, { { R(2), 0x1000 } },
	  -EAGAIN, 0x0, 16, LD, PAIR, 2 },
	{ 0x29410841, "ldp w1, w2, [x2, #8]", AFTER, { { R(2), 0x1000 } },
	  -EAGAIN, 0x0, 8, LD, PAIR, 2 },
	{ 0xa9400821, "ldp x1, x2, [x1]", BEFORE, { { R(1), 0x1000 } },
	  0, 0x1000, 16, LD, PAIR, 1 },
	{ 0xa9000821, "stp x1, x2, [x1]", AFTER, { { R(1), 0x1000 } },
	  0, 0x1000, 16, ST, PAIR, 1 },
	{ 0x6d410821, "ldp d1, d2, [x1, #16]", AFTER, { { R(1), 0x1000 } },
	  0, 0x1010, 16, LD, SIMD|PAIR, 1 },
	{ 0xa8c10821, "ldp x1, x2, [x1], #16", AFTER, { { R(1), 0x1010 } },
	  -EAGAIN, 0x0, 16, LD, PAIR|WB, 1 },
	{ 0x69010440, "stgp x0, x1, [x2, #32]", BEFORE, { { R(2), 0x1000 } },
	  0, 0x1020, 16, ST, PAIR, 2 },
	{ 0x68bf8440, "stgp x0, x1, [x2], #-16", AFTER, { { R(2), 0xff0 } },
	  0, 0x1000, 16, ST, PAIR|WB, 2 },
	/* Exclusive, ordered, RCpc: the address is the base */
	{ 0xc85f7c41, "ldxr x1, [x2]", BEFORE, { { R(2), 0x1000 } },
	  0, 0x1000, 8, LD, EXCL, 2 },
	{ 0x885ffc41, "ldaxr w1, [x2]", AFTER, { { R(2), 0x1000 } },
	  0, 0x1000, 4, LD, EXCL|ACQREL, 2 },
	{ 0x085f7fe1, "ldxrb w1, [sp]", AFTER, { { RSP, 0x8000 } },
	  0, 0x8000, 1, LD, EXCL, 31 },
	{ 0xc8037c41, "stxr w3, x1, [x2]", AFTER, { { R(2), 0x1000 } },
	  0, 0x1000, 8, ST, EXCL, 2 },
	{ 0x0803ffe1, "stlxrb w3, w1, [sp]", AFTER, { { RSP, 0x8000 } },
	  0, 0x8000, 1, ST, EXCL|ACQREL, 31 },
	{ 0x48037c41, "stxrh w3, w1, [x2]", BEFORE, { { R(2), 0x1000 } },
	  0, 0x1000, 2, ST, EXCL, 2 },
	{ 0xc8027c41, "stxr w2, x1, [x2]", AFTER, { { R(2), 0x1000 } },
	  -EAGAIN, 0x0, 8, ST, EXCL, 2 },
	{ 0xc8017c42, "stxr w1, x2, [x2]", AFTER, { { R(2), 0x1000 } },
	  0, 0x1000, 8, ST, EXCL, 2 },
	{ 0xc85f7c42, "ldxr x2, [x2]", AFTER, { { R(2), 0x1000 } },
	  -EAGAIN, 0x0, 8, LD, EXCL, 2 },
	{ 0xc87f0861, "ldxp x1, x2, [x3]", BEFORE, { { R(3), 0x1000 } },
	  0, 0x1000, 16, LD, EXCL|PAIR, 3 },
	{ 0x887f8861, "ldaxp w1, w2, [x3]", AFTER, { { R(3), 0x1000 } },
	  0, 0x1000, 8, LD, EXCL|PAIR|ACQREL, 3 },
	{ 0xc87f0c61, "ldxp x1, x3, [x3]", AFTER, { { R(3), 0x1000 } },
	  -EAGAIN, 0x0, 16, LD, EXCL|PAIR, 3 },
	{ 0xc8248861, "stlxp w4, x1, x2, [x3]", AFTER, { { R(3), 0x1000 } },
	  0, 0x1000, 16, ST, EXCL|PAIR|ACQREL, 3 },
	{ 0x88240861, "stxp w4, w1, w2, [x3]", BEFORE, { { R(3), 0x1000 } },
	  0, 0x1000, 8, ST, EXCL|PAIR, 3 },
	{ 0xc8230861, "stxp w3, x1, x2, [x3]", AFTER, { { R(3), 0x1000 } },
	  -EAGAIN, 0x0, 16, ST, EXCL|PAIR, 3 },
	{ 0xc8dffc41, "ldar x1, [x2]", BEFORE, { { R(2), 0x1000 } },
	  0, 0x1000, 8, LD, ACQREL, 2 },
	{ 0x08dffc41, "ldarb w1, [x2]", BEFORE, { { R(2), 0x1000 } },
	  0, 0x1000, 1, LD, ACQREL, 2 },
	{ 0x48dffc41, "ldarh w1, [x2]", AFTER, { { R(2), 0x1000 } },
	  0, 0x1000, 2, LD, ACQREL, 2 },
	{ 0x889ffc41, "stlr w1, [x2]", BEFORE, { { R(2), 0x1000 } },
	  0, 0x1000, 4, ST, ACQREL, 2 },
	{ 0x489ffc42, "stlrh w2, [x2]", AFTER, { { R(2), 0x1000 } },
	  0, 0x1000, 2, ST, ACQREL, 2 },
	{ 0xc89fffe1, "stlr x1, [sp]", AFTER, { { RSP, 0x8000 } },
	  0, 0x8000, 8, ST, ACQREL, 31 },
	{ 0xc8df7c41, "ldlar x1, [x2]", BEFORE, { { R(2), 0x1000 } },
	  0, 0x1000, 8, LD, ACQREL, 2 },
	{ 0x089f7c41, "stllrb w1, [x2]", BEFORE, { { R(2), 0x1000 } },
	  0, 0x1000, 1, ST, ACQREL, 2 },
	{ 0xc8dffc42, "ldar x2, [x2]", AFTER, { { R(2), 0x1000 } },
	  -EAGAIN, 0x0, 8, LD, ACQREL, 2 },
	{ 0xf8bfc041, "ldapr x1, [x2]", AFTER, { { R(2), 0x1000 } },
	  0, 0x1000, 8, LD, ACQREL, 2 },
	{ 0x78bfc041, "ldaprh w1, [x2]", BEFORE, { { R(2), 0x1000 } },
	  0, 0x1000, 2, LD, ACQREL, 2 },
	{ 0xb8bfc042, "ldapr w2, [x2]", AFTER, { { R(2), 0x1000 } },
	  -EAGAIN, 0x0, 4, LD, ACQREL, 2 },
	{ 0xd95f8041, "ldapur x1, [x2, #-8]", BEFORE, { { R(2), 0x1000 } },
	  0, 0xff8, 8, LD, ACQREL, 2 },
	{ 0x99005041, "stlur w1, [x2, #5]", AFTER, { { R(2), 0x1000 } },
	  0, 0x1005, 4, ST, ACQREL, 2 },
	{ 0x999fd041, "ldapursw x1, [x2, #-3]", BEFORE, { { R(2), 0x1000 } },
	  0, 0xffd, 4, LD, ACQREL, 2 },
	{ 0x19cff041, "ldapursb w1, [x2, #255]", BEFORE, { { R(2), 0x1000 } },
	  0, 0x10ff, 1, LD, ACQREL, 2 },
	{ 0x599003e1, "ldapursh x1, [sp, #-256]", BEFORE, { { RSP, 0x8000 } },
	  0, 0x7f00, 2, LD, ACQREL, 31 },
	{ 0xd9400042, "ldapur x2, [x2]", AFTER, { { R(2), 0x1000 } },
	  -EAGAIN, 0x0, 8, LD, ACQREL, 2 },
	/* Atomics (LSE), CAS, CASP: read and write */
	{ 0xf8210062, "ldadd x1, x2, [x3]", AFTER, { { R(3), 0x1000 } },
	  0, 0x1000, 8, LS, 0, 3 },
	{ 0xb8e10062, "ldaddal w1, w2, [x3]", BEFORE, { { R(3), 0x1000 } },
	  0, 0x1000, 4, LS, ACQREL, 3 },
	{ 0xb821007f, "stadd w1, [x3]", AFTER, { { R(3), 0x1000 } },
	  0, 0x1000, 4, LS, 0, 3 },
	{ 0x38211062, "ldclrb w1, w2, [x3]", BEFORE, { { R(3), 0x1000 } },
	  0, 0x1000, 1, LS, 0, 3 },
	{ 0x782123e2, "ldeorh w1, w2, [sp]", AFTER, { { RSP, 0x8000 } },
	  0, 0x8000, 2, LS, 0, 31 },
	{ 0xf8a13062, "ldseta x1, x2, [x3]", BEFORE, { { R(3), 0x1000 } },
	  0, 0x1000, 8, LS, ACQREL, 3 },
	{ 0xb8614062, "ldsmaxl w1, w2, [x3]", BEFORE, { { R(3), 0x1000 } },
	  0, 0x1000, 4, LS, ACQREL, 3 },
	{ 0x78215062, "ldsminh w1, w2, [x3]", BEFORE, { { R(3), 0x1000 } },
	  0, 0x1000, 2, LS, 0, 3 },
	{ 0x38a16062, "ldumaxab w1, w2, [x3]", BEFORE, { { R(3), 0x1000 } },
	  0, 0x1000, 1, LS, ACQREL, 3 },
	{ 0xf8217062, "ldumin x1, x2, [x3]", BEFORE, { { R(3), 0x1000 } },
	  0, 0x1000, 8, LS, 0, 3 },
	{ 0xf821507f, "stsmin x1, [x3]", BEFORE, { { R(3), 0x1000 } },
	  0, 0x1000, 8, LS, 0, 3 },
	{ 0xf8218062, "swp x1, x2, [x3]", AFTER, { { R(3), 0x1000 } },
	  0, 0x1000, 8, LS, 0, 3 },
	{ 0xb8e18062, "swpal w1, w2, [x3]", BEFORE, { { R(3), 0x1000 } },
	  0, 0x1000, 4, LS, ACQREL, 3 },
	{ 0x382183e2, "swpb w1, w2, [sp]", AFTER, { { RSP, 0x8000 } },
	  0, 0x8000, 1, LS, 0, 31 },
	{ 0xf8218063, "swp x1, x3, [x3]", AFTER, { { R(3), 0x1000 } },
	  -EAGAIN, 0x0, 8, LS, 0, 3 },
	{ 0xf8230061, "ldadd x3, x1, [x3]", AFTER, { { R(3), 0x1000 } },
	  0, 0x1000, 8, LS, 0, 3 },
	{ 0xf8210063, "ldadd x1, x3, [x3]", AFTER, { { R(3), 0x1000 } },
	  -EAGAIN, 0x0, 8, LS, 0, 3 },
	{ 0xc8a17c62, "cas x1, x2, [x3]", AFTER, { { R(3), 0x1000 } },
	  0, 0x1000, 8, LS, 0, 3 },
	{ 0x08e17c62, "casab w1, w2, [x3]", BEFORE, { { R(3), 0x1000 } },
	  0, 0x1000, 1, LS, ACQREL, 3 },
	{ 0x48a1fc62, "caslh w1, w2, [x3]", BEFORE, { { R(3), 0x1000 } },
	  0, 0x1000, 2, LS, ACQREL, 3 },
	{ 0x88e1ffe2, "casal w1, w2, [sp]", BEFORE, { { RSP, 0x8000 } },
	  0, 0x8000, 4, LS, ACQREL, 31 },
	{ 0xc8a37c62, "cas x3, x2, [x3]", AFTER, { { R(3), 0x1000 } },
	  -EAGAIN, 0x0, 8, LS, 0, 3 },
	{ 0xc8a27c63, "cas x2, x3, [x3]", AFTER, { { R(3), 0x1000 } },
	  0, 0x1000, 8, LS, 0, 3 },
	{ 0x48207c82, "casp x0, x1, x2, x3, [x4]", AFTER, { { R(4), 0x1000 } },
	  0, 0x1000, 16, LS, PAIR, 4 },
	{ 0x0860fc82, "caspal w0, w1, w2, w3, [x4]", BEFORE, { { R(4), 0x1000 } },
	  0, 0x1000, 8, LS, PAIR|ACQREL, 4 },
	{ 0x48247ca2, "casp x4, x5, x2, x3, [x5]", AFTER, { { R(5), 0x1000 } },
	  -EAGAIN, 0x0, 16, LS, PAIR, 5 },
	{ 0x48247ca2, "casp x4, x5, x2, x3, [x5]", BEFORE, { { R(5), 0x1000 } },
	  0, 0x1000, 16, LS, PAIR, 5 },
	/* SIMD structures, multiple and single, post-index by imm or Xm */
	{ 0x4c407000, "ld1 {v0.16b}, [x0]", AFTER, { { R(0), 0x1000 } },
	  0, 0x1000, 16, LD, SIMD, 0 },
	{ 0x0c407000, "ld1 {v0.8b}, [x0]", BEFORE, { { R(0), 0x1000 } },
	  0, 0x1000, 8, LD, SIMD, 0 },
	{ 0x4c40a800, "ld1 {v0.4s, v1.4s}, [x0]", BEFORE, { { R(0), 0x1000 } },
	  0, 0x1000, 32, LD, SIMD, 0 },
	{ 0x4c406c00, "ld1 {v0.2d-v2.2d}, [x0]", BEFORE, { { R(0), 0x1000 } },
	  0, 0x1000, 48, LD, SIMD, 0 },
	{ 0x0c402c00, "ld1 {v0.1d-v3.1d}, [x0]", BEFORE, { { R(0), 0x1000 } },
	  0, 0x1000, 32, LD, SIMD, 0 },
	{ 0x4c002020, "st1 {v0.16b-v3.16b}, [x1]", BEFORE, { { R(1), 0x1000 } },
	  0, 0x1000, 64, ST, SIMD, 1 },
	{ 0x4cdf7800, "ld1 {v0.4s}, [x0], #16", AFTER, { { R(0), 0x1010 } },
	  0, 0x1000, 16, LD, SIMD|WB, 0 },
	{ 0x4cdf7800, "ld1 {v0.4s}, [x0], #16", BEFORE, { { R(0), 0x1000 } },
	  0, 0x1000, 16, LD, SIMD|WB, 0 },
	{ 0x4c9fafe0, "st1 {v0.2d, v1.2d}, [sp], #32", AFTER, { { RSP, 0x8020 } },
	  0, 0x8000, 32, ST, SIMD|WB, 31 },
	{ 0x0c9f6000, "st1 {v0.8b-v2.8b}, [x0], #24", AFTER, { { R(0), 0x1018 } },
	  0, 0x1000, 24, ST, SIMD|WB, 0 },
	{ 0x4cc27800, "ld1 {v0.4s}, [x0], x2", AFTER, { { R(0), 0x1100 }, { R(2), 0x100 } },
	  0, 0x1000, 16, LD, SIMD|WB, 0 },
	{ 0x4cc27800, "ld1 {v0.4s}, [x0], x2", BEFORE, { { R(0), 0x1000 }, { R(2), 0x100 } },
	  0, 0x1000, 16, LD, SIMD|WB, 0 },
	{ 0x4cc07800, "ld1 {v0.4s}, [x0], x0", AFTER, { { R(0), 0x2000 } },
	  -EAGAIN, 0x0, 16, LD, SIMD|WB, 0 },
	{ 0x4c408800, "ld2 {v0.4s, v1.4s}, [x0]", BEFORE, { { R(0), 0x1000 } },
	  0, 0x1000, 32, LD, SIMD, 0 },
	{ 0x0cdf4000, "ld3 {v0.8b-v2.8b}, [x0], #24", AFTER, { { R(0), 0x1018 } },
	  0, 0x1000, 24, LD, SIMD|WB, 0 },
	{ 0x4cc20800, "ld4 {v0.4s-v3.4s}, [x0], x2", AFTER, { { R(0), 0x1040 }, { R(2), 0x40 } },
	  0, 0x1000, 64, LD, SIMD|WB, 0 },
	{ 0x4c000c00, "st4 {v0.2d-v3.2d}, [x0]", BEFORE, { { R(0), 0x1000 } },
	  0, 0x1000, 64, ST, SIMD, 0 },
	{ 0x4c9f8400, "st2 {v0.8h, v1.8h}, [x0], #32", AFTER, { { R(0), 0x1020 } },
	  0, 0x1000, 32, ST, SIMD|WB, 0 },
	{ 0x0d409000, "ld1 {v0.s}[1], [x0]", BEFORE, { { R(0), 0x1000 } },
	  0, 0x1000, 4, LD, SIMD, 0 },
	{ 0x4ddf8400, "ld1 {v0.d}[1], [x0], #8", AFTER, { { R(0), 0x1008 } },
	  0, 0x1000, 8, LD, SIMD|WB, 0 },
	{ 0x4d001c00, "st1 {v0.b}[15], [x0]", BEFORE, { { R(0), 0x1000 } },
	  0, 0x1000, 1, ST, SIMD, 0 },
	{ 0x4d9f5800, "st1 {v0.h}[7], [x0], #2", AFTER, { { R(0), 0x1002 } },
	  0, 0x1000, 2, ST, SIMD|WB, 0 },
	{ 0x4ddfc800, "ld1r {v0.4s}, [x0], #4", AFTER, { { R(0), 0x1004 } },
	  0, 0x1000, 4, LD, SIMD|WB, 0 },
	{ 0x4d60ec00, "ld4r {v0.2d-v3.2d}, [x0]", BEFORE, { { R(0), 0x1000 } },
	  0, 0x1000, 32, LD, SIMD, 0 },
	{ 0x0da15800, "st2 {v0.h, v1.h}[3], [x0], x1", AFTER, { { R(0), 0x1010 }, { R(1), 0x10 } },
	  0, 0x1000, 4, ST, SIMD|WB, 0 },
	{ 0x0d40a000, "ld3 {v0.s-v2.s}[0], [x0]", BEFORE, { { R(0), 0x1000 } },
	  0, 0x1000, 12, LD, SIMD, 0 },
	{ 0x4dff87e0, "ld2 {v0.d, v1.d}[1], [sp], #16", AFTER, { { RSP, 0x8010 } },
	  0, 0x8000, 16, LD, SIMD|WB, 31 },
	{ 0x0ddfe000, "ld3r {v0.8b-v2.8b}, [x0], #3", AFTER, { { R(0), 0x1003 } },
	  0, 0x1000, 3, LD, SIMD|WB, 0 },
	/* Accesses not decoded */
	{ 0xf8201420, "ldraa x0, [x1, #8]", BEFORE, { { R(1), 0x1000 } },
	  -EOPNOTSUPP, 0x0, 0, NM, 0, 0 },
	{ 0xf8fffc20, "ldrab x0, [x1, #-8]!", AFTER, { { R(1), 0x1000 } },
	  -EOPNOTSUPP, 0x0, 0, NM, 0, 0 },
	{ 0xd9200820, "stg x0, [x1]", BEFORE, { { R(1), 0x1000 } },
	  -EOPNOTSUPP, 0x0, 0, NM, 0, 0 },
	{ 0xd9600020, "ldg x0, [x1]", BEFORE, { { R(1), 0x1000 } },
	  -EOPNOTSUPP, 0x0, 0, NM, 0, 0 },
	{ 0xf83fd020, "ld64b x0, [x1]", BEFORE, { { R(1), 0x1000 } },
	  -EOPNOTSUPP, 0x0, 0, NM, 0, 0 },
	{ 0xf83f9020, "st64b x0, [x1]", BEFORE, { { R(1), 0x1000 } },
	  -EOPNOTSUPP, 0x0, 0, NM, 0, 0 },
	{ 0x19010440, "cpyfp [x0]!, [x1]!, x2!", BEFORE, { },
	  -EOPNOTSUPP, 0x0, 0, NM, 0, 0 },
	{ 0x19c20420, "setp [x0]!, x1!, x2", BEFORE, { },
	  -EOPNOTSUPP, 0x0, 0, NM, 0, 0 },
	{ 0xa540a000, "ld1w {z0.s}, p0/z, [x0]", BEFORE, { },
	  -EOPNOTSUPP, 0x0, 0, NM, 0, 0 },
	{ 0xe5e14000, "st1d {z0.d}, p0, [x0, x1, lsl #3]", BEFORE, { },
	  -EOPNOTSUPP, 0x0, 0, NM, 0, 0 },
	{ 0xe1000000, "ldr za[w12, 0], [x0]", BEFORE, { },
	  -EOPNOTSUPP, 0x0, 0, NM, 0, 0 },
	{ 0xe09f0000, "ld1w {za0h.s[w12, 0]}, p0/z, [x0]", BEFORE, { },
	  -EOPNOTSUPP, 0x0, 0, NM, 0, 0 },
	{ 0xd50b7420, "dc zva, x0", BEFORE, { },
	  -EOPNOTSUPP, 0x0, 0, NM, 0, 0 },
	{ 0xd50b7e20, "dc civac, x0", BEFORE, { },
	  -EOPNOTSUPP, 0x0, 0, NM, 0, 0 },
	{ 0xd5087620, "dc ivac, x0", BEFORE, { },
	  -EOPNOTSUPP, 0x0, 0, NM, 0, 0 },
	{ 0x68400000, "ldp, opc 01 idx 00 (unallocated)", BEFORE, { },
	  -EOPNOTSUPP, 0x0, 0, NM, 0, 0 },
	{ 0x7cc00000, "ldur, SIMD size 01 opc 11 (unallocated)", BEFORE, { },
	  -EOPNOTSUPP, 0x0, 0, NM, 0, 0 },
	{ 0xf8800400, "ldr, size 11 opc 10 post-index (unallocated)", BEFORE, { },
	  -EOPNOTSUPP, 0x0, 0, NM, 0, 0 },
	/* Not memory accesses */
	{ 0x8b020020, "add x0, x1, x2", AFTER, { },
	  -ENOENT, 0x0, 0, NM, 0, 0 },
	{ 0x14000002, "b .+8", AFTER, { },
	  -ENOENT, 0x0, 0, NM, 0, 0 },
	{ 0x94000040, "bl .+0x100", AFTER, { },
	  -ENOENT, 0x0, 0, NM, 0, 0 },
	{ 0xd65f03c0, "ret", AFTER, { },
	  -ENOENT, 0x0, 0, NM, 0, 0 },
	{ 0xd503201f, "nop", AFTER, { },
	  -ENOENT, 0x0, 0, NM, 0, 0 },
	{ 0xd4000001, "svc #0", AFTER, { },
	  -ENOENT, 0x0, 0, NM, 0, 0 },
	{ 0xb4000040, "cbz x0, .+8", AFTER, { },
	  -ENOENT, 0x0, 0, NM, 0, 0 },
	{ 0xd2800020, "mov x0, #1", BEFORE, { },
	  -ENOENT, 0x0, 0, NM, 0, 0 },
	{ 0x90000000, "adrp x0, .", BEFORE, { },
	  -ENOENT, 0x0, 0, NM, 0, 0 },
	{ 0x10000080, "adr x0, .+16", BEFORE, { },
	  -ENOENT, 0x0, 0, NM, 0, 0 },
	{ 0xd5033bbf, "dmb ish", BEFORE, { },
	  -ENOENT, 0x0, 0, NM, 0, 0 },
	{ 0xd53bd040, "mrs x0, tpidr_el0", BEFORE, { },
	  -ENOENT, 0x0, 0, NM, 0, 0 },
	{ 0xd508751f, "ic iallu", BEFORE, { },
	  -ENOENT, 0x0, 0, NM, 0, 0 },
	{ 0x80812000, "fmopa za0.s, p0/m, p1/m, z0.s, z1.s", BEFORE, { },
	  -ENOENT, 0x0, 0, NM, 0, 0 },
	{ 0x04a20020, "add z0.s, z1.s, z2.s", BEFORE, { },
	  -ENOENT, 0x0, 0, NM, 0, 0 },
	{ 0x4e22d420, "fadd v0.4s, v1.4s, v2.4s", BEFORE, { },
	  -ENOENT, 0x0, 0, NM, 0, 0 },
	{ 0x9b020c20, "madd x0, x1, x2, x3", BEFORE, { },
	  -ENOENT, 0x0, 0, NM, 0, 0 },
	{ 0xd5033f5f, "clrex", BEFORE, { },
	  -ENOENT, 0x0, 0, NM, 0, 0 },
};

static void set_regs(struct kpmc_a64_regs *r, const struct reg_set *set, size_t n)
{
	size_t i;

	/* Registers a case does not set hold values no address is built from. */
	for (i = 0; i < 31; i++)
		r->x[i] = 0xbad0000000000000ull | (u64)i << 32;
	r->sp = 0xbadf000000000000ull;
	r->pc = PC0;
	for (i = 0; i < n && set[i].reg; i++) {
		if (set[i].reg == RSP)
			r->sp = set[i].val;
		else
			r->x[set[i].reg - 1] = set[i].val;
	}
}

static void test_decode_table(void **state)
{
	unsigned int failed = 0;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct decode_case *t = &cases[i];
		struct kpmc_a64_regs r;
		struct kpmc_a64_access a;
		int rc;

		set_regs(&r, t->set, ARRAY_SIZE(t->set));
		memset(&a, 0xa5, sizeof(a));	/* every field must be written */
		rc = kpmc_a64_decode(t->insn, &r, t->after, &a);
		if (rc != t->rc || a.addr != t->addr || a.size != t->size || a.kind != t->kind ||
		    a.flags != t->flags || a.base_reg != t->base) {
			print_message("%08x %s (%s): rc %d addr %#llx size %u kind %u flags %#x base %u; expected rc %d addr %#llx size %u kind %u flags %#x base %u\n",
				      t->insn, t->text, t->after ? "after" : "before", rc,
				      (unsigned long long)a.addr, a.size, a.kind, a.flags,
				      a.base_reg, t->rc, (unsigned long long)t->addr, t->size,
				      t->kind, t->flags, t->base);
			failed++;
		}
	}
	print_message("%zu decode cases\n", ARRAY_SIZE(cases));
	assert_int_equal(failed, 0);
}

/* index_reg: Rm where the address (or the post-index) uses one. */
static void test_index_reg(void **state)
{
	static const struct {
		u32 insn;
		u8 index;
	} t[] = {
		{ 0xf8637841, 3 },		/* ldr x1, [x2, x3, lsl #3] */
		{ 0xbc22d820, 2 },		/* str s0, [x1, w2, sxtw #2] */
		{ 0xf87f6841, 31 },		/* ldr x1, [x2, xzr] */
		{ 0x4cc27800, 2 },		/* ld1 {v0.4s}, [x0], x2 */
		{ 0x0da15800, 1 },		/* st2 {v0.h, v1.h}[3], [x0], x1 */
		{ 0x4cdf7800, KPMC_A64_NO_REG },	/* ld1 {v0.4s}, [x0], #16 */
		{ 0xf9400441, KPMC_A64_NO_REG },	/* ldr x1, [x2, #8] */
		{ 0xf8410441, KPMC_A64_NO_REG },	/* ldr x1, [x2], #16 */
		{ 0xa9bf7bfd, KPMC_A64_NO_REG },	/* stp x29, x30, [sp, #-16]! */
		{ 0x58000041, KPMC_A64_NO_REG },	/* ldr x1, .+8 */
		{ 0xf8210062, KPMC_A64_NO_REG },	/* ldadd x1, x2, [x3] */
	};
	struct kpmc_a64_regs r;
	struct kpmc_a64_access a;
	size_t i;

	(void)state;
	memset(&r, 0, sizeof(r));
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		assert_int_equal(kpmc_a64_decode(t[i].insn, &r, false, &a), 0);
		assert_int_equal(a.index_reg, t[i].index);
	}
	/* Not an access: nothing named. */
	assert_int_equal(kpmc_a64_decode(0x8b020020, &r, false, &a), -ENOENT);	/* add */
	assert_int_equal(a.index_reg, KPMC_A64_NO_REG);
	assert_int_equal(a.base_reg, 0);
}

/* r->pc is the instruction's own address, after or not; offsets wrap. */
static void test_literal_pc(void **state)
{
	struct kpmc_a64_regs r;
	struct kpmc_a64_access a;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.pc = 0xffff800000001000ull;
	assert_int_equal(kpmc_a64_decode(0x5c800000, &r, false, &a), 0);	/* ldr d0, .-0x100000 */
	assert_int_equal(a.addr, 0xffff7ffffff01000ull);
	assert_int_equal(kpmc_a64_decode(0x5c800000, &r, true, &a), 0);
	assert_int_equal(a.addr, 0xffff7ffffff01000ull);
	r.pc = 0x8;
	assert_int_equal(kpmc_a64_decode(0x18ffffe1, &r, true, &a), 0);	/* ldr w1, .-4 */
	assert_int_equal(a.addr, 0x4);
	/* A post-index that wrapped past zero is undone through zero. */
	r.x[2] = 0x8;
	assert_int_equal(kpmc_a64_decode(0xf8410441, &r, true, &a), 0);	/* ldr x1, [x2], #16 */
	assert_int_equal(a.addr, 0xfffffffffffffff8ull);
}

static const struct {
	u32 insn;
	bool branch;
} branches[] = {
	{ 0x14000002, true },	/* b .+8 */
	{ 0x16000000, true },	/* b .-0x8000000 */
	{ 0x94000040, true },	/* bl .+0x100 */
	{ 0x54ffff81, true },	/* b.ne .-16 */
	{ 0x5400002e, true },	/* b.al .+4 */
	{ 0x54000050, true },	/* bc.eq .+8 */
	{ 0xb4000040, true },	/* cbz x0, .+8 */
	{ 0x35ffffc3, true },	/* cbnz w3, .-8 */
	{ 0xb6f80041, true },	/* tbz x1, #63, .+8 */
	{ 0x3707ffe2, true },	/* tbnz w2, #0, .-4 */
	{ 0xd61f0020, true },	/* br x1 */
	{ 0xd63f0040, true },	/* blr x2 */
	{ 0xd65f03c0, true },	/* ret */
	{ 0xd65f0060, true },	/* ret x3 */
	{ 0xd69f03e0, true },	/* eret */
	{ 0xd6bf03e0, true },	/* drps */
	{ 0xd71f0822, true },	/* braa x1, x2 */
	{ 0xd63f087f, true },	/* blraaz x3 */
	{ 0xd65f0bff, true },	/* retaa */
	{ 0xd69f0fff, true },	/* eretab */
	{ 0xd503201f, false },	/* nop */
	{ 0xd4000001, false },	/* svc #0 */
	{ 0xd4000022, false },	/* hvc #1 */
	{ 0xd4207d00, false },	/* brk #0x3e8 */
	{ 0x8b020020, false },	/* add x0, x1, x2 */
	{ 0xf9400041, false },	/* ldr x1, [x2] */
	{ 0xd5033bbf, false },	/* dmb ish */
	{ 0xd5033fdf, false },	/* isb */
	{ 0xd53bd040, false },	/* mrs x0, tpidr_el0 */
	{ 0xd503245f, false },	/* bti c */
	{ 0xd503233f, false },	/* paciasp */
	{ 0xd50b7420, false },	/* dc zva, x0 */
	{ 0x90000000, false },	/* adrp x0, . */
	{ 0x9a821020, false },	/* csel x0, x1, x2, ne */
	{ 0x58000041, false },	/* ldr x1, .+8 */
	{ 0xd503203f, false },	/* yield */
	{ 0xd503205f, false },	/* wfe */
};

static void test_is_branch(void **state)
{
	struct kpmc_a64_regs r;
	struct kpmc_a64_access a;
	size_t i;

	(void)state;
	memset(&r, 0, sizeof(r));
	for (i = 0; i < ARRAY_SIZE(branches); i++) {
		if (kpmc_a64_is_branch(branches[i].insn) != branches[i].branch)
			fail_msg("%08x: is_branch %d", branches[i].insn, !branches[i].branch);
		/* A branch is never an access. */
		if (branches[i].branch)
			assert_int_equal(kpmc_a64_decode(branches[i].insn, &r, true, &a), -ENOENT);
	}
}

/*
 * Every 4099th encoding of the 2^32: whatever it is, the decoder answers
 * one of its four codes with *out consistent, and branches are never
 * accesses.
 */
static void test_sweep(void **state)
{
	struct kpmc_a64_regs r;
	struct kpmc_a64_access a;
	unsigned int counts[4] = { 0 };
	u64 w;
	size_t i;

	(void)state;
	for (i = 0; i < 31; i++)
		r.x[i] = 0x100000 * (i + 1);
	r.sp = 0x7fff0000;
	r.pc = PC0;
	for (w = 0; w <= 0xffffffffull; w += 4099) {
		u32 insn = (u32)w;
		int rc = kpmc_a64_decode(insn, &r, (w >> 12) & 1, &a);

		switch (rc) {
		case 0:
			counts[0]++;
			if (a.kind == NM || a.size < 1 || a.size > 64 ||
			    (a.base_reg > 31 && a.base_reg != KPMC_A64_NO_REG))
				fail_msg("%08x: access kind %u size %u base %u", insn, a.kind,
					 a.size, a.base_reg);
			break;
		case -EAGAIN:
			counts[1]++;
			if (a.kind == NM || a.addr || !a.size)
				fail_msg("%08x: -EAGAIN kind %u size %u", insn, a.kind, a.size);
			break;
		case -ENOENT:
			counts[2]++;
			if (a.kind != NM || a.size || (a.flags & ~(PRF | LIT)))
				fail_msg("%08x: -ENOENT kind %u size %u flags %#x", insn, a.kind,
					 a.size, a.flags);
			break;
		case -EOPNOTSUPP:
			counts[3]++;
			if (a.kind != NM || a.addr || a.size || a.flags)
				fail_msg("%08x: -EOPNOTSUPP with fields set", insn);
			break;
		default:
			fail_msg("%08x: rc %d", insn, rc);
		}
		if (kpmc_a64_is_branch(insn) && rc != -ENOENT)
			fail_msg("%08x: a branch decoded as %d", insn, rc);
	}
	print_message("sweep: %u accesses, %u lost, %u not memory, %u not decoded\n",
		      counts[0], counts[1], counts[2], counts[3]);
	assert_true(counts[0] > 0 && counts[1] > 0 && counts[3] > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_table),
		cmocka_unit_test(test_index_reg),
		cmocka_unit_test(test_literal_pc),
		cmocka_unit_test(test_is_branch),
		cmocka_unit_test(test_sweep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
