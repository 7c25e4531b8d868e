// SPDX-License-Identifier: GPL-2.0
/*
 * memobjects REPS: known memory accesses for memory sampling (arm64). Three
 * 64 x 64 arrays of 8-byte elements: a read row by row, b read in row 3 only,
 * c written only, REPS times, by hand-written loops so that the sampled
 * instructions and their order are known exactly:
 *   a: 1: ldr x3, [x0], #8            b: 1: ldr x3, [x0, x4, lsl #3]
 *         add x2, x2, x3                    add x2, x2, x3
 *         subs x1, x1, #1                   add x4, x4, #1
 *         b.ne 1b                           cmp x4, x1
 *                                           b.ne 1b
 *   c: 1: str x3, [x0], #8
 *         add x3, x3, #1
 *         subs x1, x1, #1
 *         b.ne 1b
 * a's loop retires exactly 4 instructions per element, so a sample whose
 * user instruction count is known says which element it hit. Prints the
 * layout first: "memobjects a ADDR b ADDR c ADDR rows 64 cols 64 elem 8
 * lda IP ldb IP stc IP aloop 4".
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

#define ROWS 64
#define COLS 64
#define B_ROW 3
#define B_TIMES 32

#if defined(__aarch64__)
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

int main(int argc, char **argv)
{
	long reps = argc > 1 ? atol(argv[1]) : 10, r, k;
	uint64_t sum = 0;

	printf("memobjects a 0x%lx b 0x%lx c 0x%lx rows %d cols %d elem 8 lda 0x%lx ldb 0x%lx stc 0x%lx aloop 4 brow %d\n",
	       (unsigned long)a, (unsigned long)b, (unsigned long)c, ROWS, COLS,
	       (unsigned long)memobj_lda, (unsigned long)memobj_ldb, (unsigned long)memobj_stc,
	       B_ROW);
	fflush(stdout);
	for (r = 0; r < reps; r++) {
		sum += read_a();
		for (k = 0; k < B_TIMES; k++)
			sum += read_b_row();
		write_c((uint64_t)r);
	}
	printf("memobjects: done, sum %lu\n", (unsigned long)sum);
	return 0;
}
#else
int main(void)
{
	fprintf(stderr, "memobjects: arm64 only (hand-written A64 loops)\n");
	return 2;
}
#endif
