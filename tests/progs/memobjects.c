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

#include "memloops.h"

#if defined(__aarch64__)
int main(int argc, char **argv)
{
	long reps = argc > 1 ? atol(argv[1]) : 10, r;
	uint64_t sum = 0;

	printf("memobjects a 0x%lx b 0x%lx c 0x%lx rows %d cols %d elem 8 lda 0x%lx ldb 0x%lx stc 0x%lx aloop 4 brow %d\n",
	       (unsigned long)a, (unsigned long)b, (unsigned long)c, ROWS, COLS,
	       (unsigned long)memobj_lda, (unsigned long)memobj_ldb, (unsigned long)memobj_stc,
	       B_ROW);
	fflush(stdout);
	for (r = 0; r < reps; r++)
		sum += memloops_rep((uint64_t)r);
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
