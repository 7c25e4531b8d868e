/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Known memory accesses for the memory-sampling tests (arm64): three
 * 64 x 64 arrays of 8-byte elements, a read row by row, b read in row 3
 * only, c written only, by hand-written loops whose instructions and order
 * are known exactly (see memobjects.c). One definition per program.
 */
#ifndef KPMC_TEST_MEMLOOPS_H
#define KPMC_TEST_MEMLOOPS_H

#include <stdint.h>

#if defined(__aarch64__)
#define ROWS 64
#define COLS 64
#define B_ROW 3
#define B_TIMES 32

static uint64_t a[ROWS][COLS], b[ROWS][COLS], c[ROWS][COLS];
extern const char memobj_lda[], memobj_ldb[], memobj_stc[];

static __attribute__((noinline)) uint64_t read_a(void)
{
	uint64_t sum = 0, *p = &a[0][0], n = ROWS * COLS, v;

	__asm__ volatile(".global memobj_lda\n"
			 "memobj_lda:\n"
			 "1:	ldr %[v], [%[p]], #8\n"
			 "	add %[s], %[s], %[v]\n"
			 "	subs %[n], %[n], #1\n"
			 "	b.ne 1b\n"
			 : [p] "+r"(p), [n] "+r"(n), [s] "+r"(sum), [v] "=&r"(v) : : "cc", "memory");
	return sum;
}

static __attribute__((noinline)) uint64_t read_b_row(void)
{
	uint64_t sum = 0, i = 0, n = COLS, v;
	uint64_t *row = &b[B_ROW][0];

	__asm__ volatile(".global memobj_ldb\n"
			 "memobj_ldb:\n"
			 "1:	ldr %[v], [%[r], %[i], lsl #3]\n"
			 "	add %[s], %[s], %[v]\n"
			 "	add %[i], %[i], #1\n"
			 "	cmp %[i], %[n]\n"
			 "	b.ne 1b\n"
			 : [i] "+r"(i), [s] "+r"(sum), [v] "=&r"(v) : [r] "r"(row), [n] "r"(n)
			 : "cc", "memory");
	return sum;
}

static __attribute__((noinline)) void write_c(uint64_t x)
{
	uint64_t *p = &c[0][0], n = ROWS * COLS;

	__asm__ volatile(".global memobj_stc\n"
			 "memobj_stc:\n"
			 "1:	str %[x], [%[p]], #8\n"
			 "	add %[x], %[x], #1\n"
			 "	subs %[n], %[n], #1\n"
			 "	b.ne 1b\n"
			 : [p] "+r"(p), [n] "+r"(n), [x] "+r"(x) : : "cc", "memory");
}


/* One repetition: a read, row 3 of b read B_TIMES times, c written. */
static __attribute__((noinline)) uint64_t memloops_rep(uint64_t r)
{
	uint64_t sum = read_a();
	int k;

	for (k = 0; k < B_TIMES; k++)
		sum += read_b_row();
	write_c(r);
	return sum;
}
#endif

#endif
