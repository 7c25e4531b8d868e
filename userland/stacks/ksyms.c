// SPDX-License-Identifier: GPL-2.0
#include "ksyms.h"
#include "common/growarray.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where the last symbol is taken to end, having no next one. */
#define KSYM_LAST_SPAN	4096

struct kpmc_ksyms {
	struct kpmc_ksym *syms;
	size_t nr, cap;
	int sorted;
};

struct kpmc_ksyms *kpmc_ksyms_new(void)
{
	return calloc(1, sizeof(struct kpmc_ksyms));
}

void kpmc_ksyms_free(struct kpmc_ksyms *k)
{
	size_t i;

	if (!k)
		return;
	for (i = 0; i < k->nr; i++) {
		free(k->syms[i].name);
		free(k->syms[i].module);
	}
	free(k->syms);
	free(k);
}

int kpmc_ksyms_add(struct kpmc_ksyms *k, uint64_t start, uint64_t end, const char *name,
		   const char *module)
{
	struct kpmc_ksym *s;

	if (grow_array((void **)&k->syms, &k->cap, k->nr + 1, sizeof(*k->syms), 1024))
		return -1;
	s = &k->syms[k->nr];
	s->start = start;
	s->end = end;
	s->written = 0;
	s->name = strdup(name);
	s->module = strdup(module ? module : "");
	if (!s->name || !s->module) {
		free(s->name);
		free(s->module);
		return -1;
	}
	k->nr++;
	k->sorted = 0;
	return 0;
}

int kpmc_ksyms_add_kallsyms_line(struct kpmc_ksyms *k, const char *line, char *why, size_t len)
{
	unsigned long long addr;
	char type, name[256], module[64] = "";
	int n = sscanf(line, "%llx %c %255s [%63[^]]]", &addr, &type, name, module);

	if (n < 3) {
		snprintf(why, len, "not a kallsyms line (ADDRESS TYPE NAME [MODULE]): '%.80s'", line);
		return -1;
	}
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return 0;
	return kpmc_ksyms_add(k, addr, 0, name, module);
}

size_t kpmc_ksyms_count(const struct kpmc_ksyms *k)
{
	size_t i, n = 0;

	for (i = 0; i < k->nr; i++)
		n += k->syms[i].start != 0;
	return n;
}

static int by_start(const void *a, const void *b)
{
	const struct kpmc_ksym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return strcmp(x->name, y->name);
}

void kpmc_ksyms_sort(struct kpmc_ksyms *k)
{
	size_t i, j;

	if (k->nr > 1)
		qsort(k->syms, k->nr, sizeof(*k->syms), by_start);
	for (i = 0; i < k->nr; i++) {
		if (k->syms[i].end)
			continue;
		/* Aliases share a start: all end where the next address begins. */
		for (j = i + 1; j < k->nr && k->syms[j].start == k->syms[i].start; j++)
			;
		k->syms[i].end = j < k->nr ? k->syms[j].start : k->syms[i].start + KSYM_LAST_SPAN;
	}
	k->sorted = 1;
}

struct kpmc_ksym *kpmc_ksyms_find(struct kpmc_ksyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->nr;

	if (!k->sorted)
		kpmc_ksyms_sort(k);
	/* The last symbol starting at or below addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= k->syms[lo - 1].end)
		return NULL;
	/* Of aliases, the first by name: the same answer every time. */
	while (lo > 1 && k->syms[lo - 2].start == k->syms[lo - 1].start)
		lo--;
	return &k->syms[lo - 1];
}
