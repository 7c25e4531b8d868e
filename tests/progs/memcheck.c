// SPDX-License-Identifier: GPL-2.0
/*
 * memcheck LAYOUT RAW PMC: judges the memory samples of one memobjects run
 * (tests/progs/memobjects.c). LAYOUT: memobjects' first line; RAW: the
 * records kpmc -w saved; PMC: the sampling counter (user-mode instructions
 * retired). Prints one "memcheck: ..." summary and a "memcheck: FAIL ..."
 * line for each violated rule; exits 1 if any:
 *  - every sample at one of the three loops' memory instructions has its
 *    address, of the right object, 8-byte aligned, of the right kind (a, b
 *    loads; c stores), b's always in row 3;
 *  - exactness: a sample of a's loop that hit element e after retiring the
 *    instruction count n, walked back s instructions, started its loop at
 *    q = n - 1 - s - 4e; every such q, of every repetition, differs from the
 *    others by multiples of one repetition's instruction count R, and the
 *    same R holds for c's loop: one address off by one element would make
 *    the greatest common divisor of those differences collapse;
 *  - each object's share of the samples with an address matches its share
 *    of the loops' sampleable positions within 4 standard deviations.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <math.h>
#include <uapi/linux/kpmc.h>

#include "gcd.h"

#define OBJ_BYTES (64 * 64 * 8)

static int failures;

static void fail(const char *what)
{
	printf("memcheck: FAIL %s\n", what);
	failures++;
}

/* The gcd of the differences of q values from their first, and how many. */
struct lattice {
	int have;
	uint64_t first, g;
	unsigned long n;
};

static void lattice_add(struct lattice *l, uint64_t q)
{
	l->n++;
	if (!l->have) {
		l->have = 1;
		l->first = q;
		return;
	}
	l->g = gcd(l->g, q > l->first ? q - l->first : l->first - q);
}

int main(int argc, char **argv)
{
	unsigned long long a, b, c, lda, ldb, stc;
	unsigned long n_obj[3] = { 0 }, n_none = 0, n_lost = 0, n_exact = 0, n_other = 0;
	unsigned long n_ebs = 0, n_mem = 0;
	struct lattice la = { 0 }, lc = { 0 };
	struct kpmc_record rec;
	uint64_t cum = 0;
	unsigned int pmc;
	char line[512], msg[256];
	FILE *f;
	int rows, cols, brow;

	if (argc != 4) {
		fprintf(stderr, "usage: memcheck LAYOUT RAW PMC\n");
		return 2;
	}
	pmc = (unsigned int)atoi(argv[3]);
	f = fopen(argv[1], "r");
	if (!f || !fgets(line, sizeof(line), f) ||
	    sscanf(line, "memobjects a %llx b %llx c %llx rows %d cols %d elem 8 lda %llx ldb %llx stc %llx aloop 4 brow %d",
		   &a, &b, &c, &rows, &cols, &lda, &ldb, &stc, &brow) != 9) {
		fprintf(stderr, "memcheck: no layout line in %s\n", argv[1]);
		return 2;
	}
	fclose(f);
	f = fopen(argv[2], "rb");
	if (!f) {
		perror(argv[2]);
		return 2;
	}
	while (fread(&rec, sizeof(rec), 1, f) == 1) {
		const struct kpmc_mem_access *m = &rec.mem;
		uint64_t addr = m->addr, base = 0;
		int obj = -1, kind_ok;

		if (rec.kind != KPMC_REC_MEM) {
			if (rec.counter_mask & (1u << pmc))
				cum += rec.counts[pmc];
			n_ebs += rec.kind == KPMC_REC_EBS;
			continue;
		}
		n_mem++;
		if (m->op == KPMC_MEM_OP_NONE) {
			n_none++;
			continue;
		}
		if (!(m->flags & KPMC_MEM_F_ADDR)) {
			n_lost++;
			/*
			 * No loop loses an address: a's and c's bases move only by
			 * their own post-index, b's index by a constant the walk
			 * takes back.
			 */
			if (m->ip == lda || m->ip == ldb || m->ip == stc) {
				snprintf(msg, sizeof(msg), "sample at 0x%llx (a or c loop) without its address (flags 0x%x, skid %u)",
					 (unsigned long long)m->ip, m->flags, m->skid);
				fail(msg);
			}
			continue;
		}
		n_exact += !!(m->flags & KPMC_MEM_F_EXACT);
		if (addr >= a && addr < a + OBJ_BYTES) {
			obj = 0;
			base = a;
		} else if (addr >= b && addr < b + OBJ_BYTES) {
			obj = 1;
			base = b;
		} else if (addr >= c && addr < c + OBJ_BYTES) {
			obj = 2;
			base = c;
		}
		if (obj < 0) {
			n_other++;
			if (m->ip == lda || m->ip == ldb || m->ip == stc) {
				snprintf(msg, sizeof(msg), "sample at a loop's instruction 0x%llx with address 0x%llx outside a, b, c",
					 (unsigned long long)m->ip, (unsigned long long)addr);
				fail(msg);
			}
			continue;
		}
		n_obj[obj]++;
		kind_ok = obj == 2 ? m->op == KPMC_MEM_OP_STORE : m->op == KPMC_MEM_OP_LOAD;
		if ((addr - base) % 8 || m->size != 8 || !kind_ok ||
		    m->ip != (obj == 0 ? lda : obj == 1 ? ldb : stc) ||
		    (obj == 1 && (addr - base) / (cols * 8) != (uint64_t)brow)) {
			snprintf(msg, sizeof(msg), "object %c: ip 0x%llx addr 0x%llx (element %llu) size %u op %u",
				 'a' + obj, (unsigned long long)m->ip, (unsigned long long)addr,
				 (unsigned long long)((addr - base) / 8), m->size, m->op);
			fail(msg);
			continue;
		}
		if (obj != 1)
			lattice_add(obj == 0 ? &la : &lc, cum - 1 - m->skid - 4 * ((addr - base) / 8));
	}
	fclose(f);

	printf("memcheck: %lu EBS, %lu MEM: a %lu, b %lu, c %lu, elsewhere %lu, no access %lu, address lost %lu, exact %lu; repetition %llu (a) %llu (c) instructions from %lu and %lu samples\n",
	       n_ebs, n_mem, n_obj[0], n_obj[1], n_obj[2], n_other, n_none, n_lost, n_exact,
	       (unsigned long long)la.g, (unsigned long long)lc.g, la.n, lc.n);
	if (n_mem != n_ebs)
		fail("not one MEM record per EBS record");
	/* One repetition is at least its loops: 4 x 4096 (a) + 32 x 5 x 64 (b) + 4 x 4096 (c). */
	if (la.n < 20 || lc.n < 20)
		fail("too few samples in a's or c's loop to judge exactness");
	else if (la.g < 42000 || la.g != lc.g)
		fail("a's and c's loop starts are not on one lattice of repetitions: some address is not the one accessed");
	/*
	 * Shares among the samples with an address in a, b or c: sampleable
	 * positions per repetition: a 3 of 4 per element (after ldr, add,
	 * subs; after the taken branch the PC is the loop's head, above which
	 * nothing of the loop ran), b 4 of 5 (after ldr, add, add and cmp: the
	 * index's +1 undone, the compare writing the zero register), c 3 of 4:
	 * 12288, 8192, 12288.
	 */
	{
		const double want[3] = { 12288.0 / 32768, 8192.0 / 32768, 12288.0 / 32768 };
		unsigned long tot = n_obj[0] + n_obj[1] + n_obj[2];
		int k;

		for (k = 0; k < 3 && tot; k++) {
			double got = (double)n_obj[k] / (double)tot;
			double sd = sqrt(want[k] * (1 - want[k]) / (double)tot);

			printf("memcheck: share %c %.4f, expected %.4f +/- %.4f\n", 'a' + k, got, want[k], 4 * sd);
			if (fabs(got - want[k]) > 4 * sd + 0.005) {
				snprintf(msg, sizeof(msg), "object %c has %.4f of the samples, expected %.4f", 'a' + k,
					 got, want[k]);
				fail(msg);
			}
		}
		if (tot < 500)
			fail("fewer than 500 samples in a, b and c");
	}
	return failures ? 1 : 0;
}
