// SPDX-License-Identifier: GPL-2.0
/*
 * loopcheck LAYOUT RAW PMC: judges the memory samples of one loopnest run
 * (tests/progs/loopnest.c, GCC -O2 loop nests). LAYOUT: loopnest's first
 * line; RAW: the records kpmc -w saved; PMC: the sampling counter (user
 * cycles: one per instruction under -icount). Prints a "loopcheck: ..."
 * summary, one line per loop, and a "loopcheck: FAIL ..." line for each
 * violated rule; exits 1 if any:
 *  - lost: of the samples that found an access in the loops' code, at most
 *    10% without their address;
 *  - outside: at most 1% charged to an access outside the sampled loop:
 *    the load of h before the head loop (once per call), or a constant an
 *    outer loop loads (any address in none of the loops' objects);
 *  - every given address is of its loop's object, aligned to its element
 *    (d to its stride), of the right kind and size;
 *  - exact: the compiler's code is not known here, but each loop retires a
 *    fixed number of instructions per element (K1) and per row or column
 *    (K2): a sample that hit element t after retiring n instructions, walked
 *    back s, started its repetition at q = n - 1 - s - K1 t - K2 (t / row).
 *    For the right K1, K2 every q of every repetition differs from the
 *    others by multiples of one repetition's instruction count R, the same
 *    for all five loops; an address one element (or one stride) off would
 *    make the greatest common divisor of those differences collapse. K1, K2
 *    are searched (1..40, 0..40): the fit must give one R for all loops.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <uapi/linux/kpmc.h>

#include "gcd.h"

enum { LOOP_ROWS, LOOP_COLS, LOOP_STRIDE, LOOP_HEAD, LOOP_STORE, LOOPS };

static const char *const loop_name[LOOPS] = { "rows", "cols", "stride", "head", "store" };

/* A loop's object and how its elements are walked. */
struct loop {
	uint64_t base, bytes, step;	/* step: bytes from one element to the next */
	unsigned int size;		/* bytes one access moves */
	uint16_t op;
	uint64_t per_row;		/* elements per inner loop; 0: a flat loop */
	uint64_t n;			/* samples with a good address */
	uint64_t *t, *start;		/* each sample's element in walk order, and n - 1 - skid */
	uint64_t k1, k2, r;		/* the fitted lattice */
};

static int failures;

static void fail(const char *fmt, const char *a, unsigned long long x, unsigned long long y)
{
	printf("loopcheck: FAIL ");
	printf(fmt, a, x, y);
	printf("\n");
	failures++;
}

/*
 * The gcd of the differences of the loop's q values for K1, K2; with
 * off_by_one, every other sample's element taken one further (what a walk
 * that undid a pointer bump once too often would give).
 */
static uint64_t lattice(const struct loop *l, uint64_t k1, uint64_t k2, int off_by_one)
{
	uint64_t first = 0, g = 0, i;

	for (i = 0; i < l->n; i++) {
		uint64_t t = l->t[i] + (off_by_one && (i & 1));
		uint64_t row = l->per_row ? t / l->per_row : 0;
		uint64_t q = l->start[i] - k1 * t - k2 * row;

		if (!i)
			first = q;
		else
			g = gcd(g, q > first ? q - first : first - q);
		if (g && g < 1000)
			return g;	/* collapsed: not this fit */
	}
	return g;
}

static void fit(struct loop *l)
{
	uint64_t k1, k2, g;

	for (k1 = 1; k1 <= 40; k1++)
		for (k2 = 0; k2 <= (l->per_row ? 40 : 0); k2++) {
			g = lattice(l, k1, k2, 0);
			if (g > l->r) {
				l->r = g;
				l->k1 = k1;
				l->k2 = k2;
			}
		}
}

int main(int argc, char **argv)
{
	unsigned long long a, b, c, d, e, h, text0, text1;
	int rows, cols, stride, dlen, elen, k;
	unsigned long n_ebs = 0, n_mem = 0, n_none = 0, n_lost = 0, n_outside = 0, n_good = 0;
	unsigned long n_elsewhere = 0, n_bad = 0;
	struct loop loop[LOOPS];
	struct kpmc_record rec;
	uint64_t cum = 0, r_all = 0;
	unsigned int pmc;
	char line[512];
	FILE *f;

	if (argc != 4) {
		fprintf(stderr, "usage: loopcheck LAYOUT RAW PMC\n");
		return 2;
	}
	pmc = (unsigned int)atoi(argv[3]);
	f = fopen(argv[1], "r");
	if (!f || !fgets(line, sizeof(line), f) ||
	    sscanf(line, "loopnest a %llx b %llx c %llx d %llx e %llx h %llx rows %d cols %d stride %d dlen %d elen %d text %llx %llx",
		   &a, &b, &c, &d, &e, &h, &rows, &cols, &stride, &dlen, &elen, &text0, &text1) != 13 ||
	    text1 <= text0) {
		fprintf(stderr, "loopcheck: no layout line in %s\n", argv[1]);
		return 2;
	}
	fclose(f);
	memset(loop, 0, sizeof(loop));
	loop[LOOP_ROWS] = (struct loop){ .base = a, .bytes = rows * cols * 8ull, .step = 8,
					  .size = 8, .op = KPMC_MEM_OP_LOAD, .per_row = (uint64_t)cols };
	/* b is walked down its columns: element (i, j) is the (j * rows + i)-th. */
	loop[LOOP_COLS] = (struct loop){ .base = b, .bytes = rows * cols * 8ull, .step = 8,
					  .size = 8, .op = KPMC_MEM_OP_LOAD, .per_row = (uint64_t)rows };
	loop[LOOP_STRIDE] = (struct loop){ .base = d, .bytes = dlen * 8ull, .step = stride * 8ull,
					  .size = 8, .op = KPMC_MEM_OP_LOAD, .per_row = 0 };
	loop[LOOP_HEAD] = (struct loop){ .base = e, .bytes = elen * 8ull, .step = 8,
					  .size = 8, .op = KPMC_MEM_OP_LOAD, .per_row = 0 };
	/* GCC stores c four doubles at a time (stp of two q registers), a row in 16. */
	loop[LOOP_STORE] = (struct loop){ .base = c, .bytes = rows * cols * 8ull, .step = 32,
					  .size = 32, .op = KPMC_MEM_OP_STORE, .per_row = cols * 8ull / 32 };
	for (k = 0; k < LOOPS; k++) {
		loop[k].t = calloc(1 << 20, sizeof(uint64_t));
		loop[k].start = calloc(1 << 20, sizeof(uint64_t));
		if (!loop[k].t || !loop[k].start)
			return 2;
	}
	f = fopen(argv[2], "rb");
	if (!f) {
		perror(argv[2]);
		return 2;
	}
	while (fread(&rec, sizeof(rec), 1, f) == 1) {
		const struct kpmc_mem_access *m = &rec.mem;
		int in_text, which = -1;

		if (rec.kind != KPMC_REC_MEM) {
			if (rec.counter_mask & (1u << pmc))
				cum += rec.counts[pmc];
			n_ebs += rec.kind == KPMC_REC_EBS;
			continue;
		}
		n_mem++;
		in_text = m->ip >= text0 && m->ip < text1;
		if (!in_text) {
			n_elsewhere++;
			continue;
		}
		if (m->op == KPMC_MEM_OP_NONE) {
			n_none++;
			continue;
		}
		if (!(m->flags & KPMC_MEM_F_ADDR)) {
			n_lost++;
			continue;
		}
		for (k = 0; k < LOOPS; k++)
			if (m->addr >= loop[k].base && m->addr < loop[k].base + loop[k].bytes)
				which = k;
		if (which < 0) {
			/* h's load, or a constant of an outer loop's (GCC's vector of j's) */
			n_outside++;
			continue;
		}
		if ((m->addr - loop[which].base) % loop[which].step ||
		    m->size != loop[which].size || m->op != loop[which].op) {
			printf("loopcheck: FAIL ip 0x%llx addr 0x%llx size %u op %u flags 0x%x: not an access of its loop\n",
			       (unsigned long long)m->ip, (unsigned long long)m->addr, m->size, m->op, m->flags);
			failures++;
			n_bad++;
			continue;
		} else {
			struct loop *l = &loop[which];
			uint64_t el = (m->addr - l->base) / l->step;

			if (which == LOOP_COLS)
				el = (el % cols) * rows + el / cols;
			if (l->n < (1 << 20)) {
				l->t[l->n] = el;
				l->start[l->n] = cum - 1 - m->skid;
				l->n++;
			}
			n_good++;
		}
	}
	fclose(f);

	printf("loopcheck: %lu EBS, %lu MEM: outside the loops' code %lu, no access %lu, at an access %lu: address lost %lu, outside the sampled loop %lu, in its loop's object %lu, wrong %lu\n",
	       n_ebs, n_mem, n_elsewhere, n_none, n_lost + n_outside + n_good + n_bad, n_lost, n_outside,
	       n_good, n_bad);
	if (n_mem != n_ebs)
		fail("%s: %llu MEM records for %llu EBS records", "records", n_mem, n_ebs);
	for (k = 0; k < LOOPS; k++) {
		struct loop *l = &loop[k];

		if (l->n < 20) {
			fail("%s: %llu samples, too few to judge (%llu wanted)", loop_name[k], l->n, 20);
			continue;
		}
		fit(l);
		printf("loopcheck: loop %s: %llu samples, %llu + %llu per row instructions per element, repetition %llu\n",
		       loop_name[k], (unsigned long long)l->n, (unsigned long long)l->k1,
		       (unsigned long long)l->k2, (unsigned long long)l->r);
		if (!r_all)
			r_all = l->r;
		if (l->r < 40000 || l->r != r_all)
			fail("%s: the samples' loop starts lie on no lattice of one repetition (%llu, other loops %llu): an address is not the one accessed",
			     loop_name[k], l->r, r_all);
		/* The check's own power: addresses one element off must not fit. */
		if (lattice(l, l->k1, l->k2, 1) >= 40000)
			fail("%s: samples one element off would still fit the lattice (%llu, %llu): too few to judge",
			     loop_name[k], l->n, l->r);
	}
	{
		unsigned long at = n_lost + n_outside + n_good + n_bad;

		if (at < 500)
			fail("%s: %llu samples at an access in the loops, %llu wanted", "samples", at, 500);
		if (n_lost * 10 > at)
			fail("%s: %llu of %llu samples at an access lost their address (10%% allowed)", "lost", n_lost, at);
		if (n_outside * 100 > at)
			fail("%s: %llu of %llu samples charged to an access outside the sampled loop (1%% allowed)",
			     "outside", n_outside, at);
		if (at)
			printf("loopcheck: lost %.2f%%, outside %.2f%% of %lu samples at an access\n",
			       100.0 * n_lost / at, 100.0 * n_outside / at, at);
	}
	return failures ? 1 : 0;
}
