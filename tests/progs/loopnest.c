// SPDX-License-Identifier: GPL-2.0
/*
 * loopnest REPS: ordinary C loop nests, compiled by GCC at -O2 as users'
 * code is (no hand-written instructions), for the memory-sampling test.
 * Each loop reads or writes one object of its own, so a sample's address
 * names the loop it came from:
 *   rows:   a[i][j] read row by row (64 x 64 doubles);
 *   cols:   b[i][j] read column by column;
 *   stride: d read every STRIDE-th element through a pointer bumped by a
 *           constant (GCC: a load, then "add x, x, #0x180");
 *   head:   h[0] loaded once, then a loop over e that starts right after
 *           that load (the load falls through into the loop's head);
 *   store:  c[i][j] written row by row.
 * Prints the layout first: "loopnest a ADDR b ADDR c ADDR d ADDR e ADDR
 * h ADDR rows 64 cols 64 stride 48 dlen N elen N text ADDR ADDR", the text
 * holding the five loops and nothing else; the objects' element
 * values are chosen so that no loop can be folded away.
 */
#include <stdio.h>
#include <stdlib.h>

#define ROWS 64
#define COLS 64
#define STRIDE 48
#define DLEN (STRIDE * 1024)
#define ELEN 2048
/*
 * The five loops' code, together in a section of its own: the linker's
 * __start_/__stop_ symbols bound it (GCC orders functions as it likes).
 */
#define LOOP __attribute__((noinline, section("loopnest_text")))
extern const char __start_loopnest_text[], __stop_loopnest_text[];

double a[ROWS][COLS], b[ROWS][COLS], c[ROWS][COLS], d[DLEN], e[ELEN];
/* A separate object: the once-per-call load before the head loop. */
double h[8];

LOOP double loop_rows(void)
{
	double s = 0;
	int i, j;

	for (i = 0; i < ROWS; i++)
		for (j = 0; j < COLS; j++)
			s += a[i][j];
	return s;
}

LOOP double loop_cols(void)
{
	double s = 0;
	int i, j;

	for (j = 0; j < COLS; j++)
		for (i = 0; i < ROWS; i++)
			s += b[i][j];
	return s;
}

LOOP double loop_stride(const double *p, long n)
{
	double s = 0;

	while (n-- > 0) {
		s += *p;
		p += STRIDE;
	}
	return s;
}

LOOP double loop_head(const double *scale, long n)
{
	double k = *scale, s = 0;
	long i;

	for (i = 0; i < n; i++)
		s += k * e[i];
	return s;
}

LOOP void loop_store(double x)
{
	int i, j;

	for (i = 0; i < ROWS; i++)
		for (j = 0; j < COLS; j++)
			c[i][j] = x + j;
}


int main(int argc, char **argv)
{
	long reps = argc > 1 ? atol(argv[1]) : 10, r;
	double sum = 0;
	int i, j;

	for (i = 0; i < ROWS; i++)
		for (j = 0; j < COLS; j++)
			a[i][j] = b[i][j] = i + j;
	for (i = 0; i < DLEN; i++)
		d[i] = i;
	for (i = 0; i < ELEN; i++)
		e[i] = i;
	h[0] = 0.5;
	printf("loopnest a 0x%lx b 0x%lx c 0x%lx d 0x%lx e 0x%lx h 0x%lx rows %d cols %d stride %d dlen %d elen %d text 0x%lx 0x%lx\n",
	       (unsigned long)a, (unsigned long)b, (unsigned long)c, (unsigned long)d,
	       (unsigned long)e, (unsigned long)h, ROWS, COLS, STRIDE, DLEN, ELEN,
	       (unsigned long)__start_loopnest_text, (unsigned long)__stop_loopnest_text);
	fflush(stdout);
	for (r = 0; r < reps; r++) {
		sum += loop_rows();
		sum += loop_cols();
		sum += loop_stride(d, DLEN / STRIDE);
		sum += loop_head(h, ELEN);
		loop_store((double)r);
	}
	printf("loopnest: done, sum %g\n", sum);
	return 0;
}
