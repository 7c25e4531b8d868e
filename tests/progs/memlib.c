// SPDX-License-Identifier: GPL-2.0
/*
 * memlib REPS CSV: libkpmc's memory sampling, Mitos's way. memloops.h's
 * objects are registered (kpmc_add_symbol: a and c as 64 x 64, b as 64 rows
 * of 64), sampled with mem=1 while the loops run REPS times; then every
 * kept sample at one of the loops' memory instructions must name the object
 * and the element the address is (b: row 3, c: a store), the handler must
 * have seen each sample once, and the samples go to CSV in Mitos's columns.
 * Prints "memlib: samples N handler N a A b B c C other O wrong W" and the
 * first few wrong ones; exits 1 if any is wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include "kpmc.h"
#include "memloops.h"

#if defined(__aarch64__)
struct tally {
	unsigned long handler, kept, a, b, c, other, noaddr, wrong;
};

static void on_sample(const struct kpmc_mem_sample *s, void *arg)
{
	(void)s;
	__atomic_fetch_add(&((struct tally *)arg)->handler, 1, __ATOMIC_RELAXED);
}

static void wrong(struct tally *t, const struct kpmc_mem_sample *s, const char *why)
{
	if (t->wrong++ < 5)
		printf("memlib: wrong: %s: ip 0x%llx addr 0x%llx object '%s' index %llu %llu op %u\n",
		       why, (unsigned long long)s->ip, (unsigned long long)s->addr, s->object,
		       (unsigned long long)s->index[0], (unsigned long long)s->index[1], s->op);
}

static void check(const struct kpmc_mem_sample *s, void *arg)
{
	struct tally *t = arg;
	uint64_t ip = s->ip, elem;
	const char *want;
	uint64_t base;

	t->kept++;
	if (!(s->flags & KPMC_MEM_HAS_ADDR)) {
		t->noaddr++;
		return;
	}
	if (ip == (uintptr_t)memobj_lda) {
		want = "a";
		base = (uintptr_t)a;
	} else if (ip == (uintptr_t)memobj_ldb) {
		want = "b";
		base = (uintptr_t)b;
	} else if (ip == (uintptr_t)memobj_stc) {
		want = "c";
		base = (uintptr_t)c;
	} else {
		t->other++;
		return;
	}
	if (strcmp(s->object, want))
		return wrong(t, s, "object");
	elem = (s->addr - base) / 8;
	if (s->ndims != 2 || s->index[0] != elem / COLS || s->index[1] != elem % COLS)
		return wrong(t, s, "index");
	if (want[0] == 'b' && s->index[0] != B_ROW)
		return wrong(t, s, "b outside row 3");
	if (s->op != (want[0] == 'c' ? KPMC_MEM_STORE : KPMC_MEM_LOAD) || s->size != 8)
		return wrong(t, s, "kind or size");
	if (want[0] == 'a')
		t->a++;
	else if (want[0] == 'b')
		t->b++;
	else
		t->c++;
}

int main(int argc, char **argv)
{
	const size_t dims[2] = { ROWS, COLS };
	long reps = argc > 1 ? atol(argv[1]) : 100, r, n;
	struct tally t = { 0 };
	uint64_t sum = 0;
	FILE *csv;
	int err;

	if (argc != 3) {
		fprintf(stderr, "usage: memlib REPS CSV\n");
		return 2;
	}
	err = kpmc_start("pmc0,ebs0=15000,rnd=5000,seed=7,mem=1");
	if (err) {
		fprintf(stderr, "memlib: kpmc_start: %s\n", kpmc_last_error());
		return 1;
	}
	if (kpmc_add_symbol("a", a, sizeof(a[0][0]), dims, 2) ||
	    kpmc_add_symbol("b", b, sizeof(b[0][0]), dims, 2) ||
	    kpmc_add_symbol("c", c, sizeof(c[0][0]), dims, 2) ||
	    kpmc_add_symbol("a", c, 8, dims, 2) != -EEXIST ||
	    kpmc_add_symbol("bad", c, 8, dims, 4) != -EINVAL) {
		fprintf(stderr, "memlib: kpmc_add_symbol misbehaved\n");
		return 1;
	}
	kpmc_mem_set_handler(on_sample, &t);
	for (r = 0; r < reps; r++)
		sum += memloops_rep((uint64_t)r);
	kpmc_stop();
	n = kpmc_mem_samples(check, &t);
	csv = fopen(argv[2], "w");
	if (!csv || kpmc_mem_write_csv(csv) != n || fclose(csv)) {
		fprintf(stderr, "memlib: writing %s failed\n", argv[2]);
		return 1;
	}
	printf("memlib: samples %ld handler %lu a %lu b %lu c %lu other %lu noaddr %lu wrong %lu (sum %llu)\n",
	       n, t.handler, t.a, t.b, t.c, t.other, t.noaddr, t.wrong, (unsigned long long)sum);
	return t.wrong || (unsigned long)n != t.handler ? 1 : 0;
}
#else
int main(void)
{
	fprintf(stderr, "memlib: arm64 only (hand-written A64 loops)\n");
	return 2;
}
#endif
