// SPDX-License-Identifier: GPL-2.0
#include "stackfold.h"
#include "common/growarray.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A string-keyed open-addressing table of indices into an array. */
struct index {
	size_t *slot;			/* index + 1; 0: empty */
	size_t cap;
};

struct kpmc_fold {
	struct kpmc_fold_stack *stacks;
	size_t nstacks, cap_stacks;
	struct index stack_index;
	struct kpmc_fold_function *funcs;
	size_t nfuncs, cap_funcs;
	struct index func_index;
	unsigned long samples;
	int stacks_sorted, funcs_sorted;
	char *buf;			/* the folded string being built */
	size_t buf_cap;
};

struct kpmc_fold *kpmc_fold_new(void)
{
	return calloc(1, sizeof(struct kpmc_fold));
}

void kpmc_fold_free(struct kpmc_fold *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nstacks; i++)
		free(f->stacks[i].folded);
	for (i = 0; i < f->nfuncs; i++) {
		free(f->funcs[i].name);
		free(f->funcs[i].object);
	}
	free(f->stacks);
	free(f->funcs);
	free(f->stack_index.slot);
	free(f->func_index.slot);
	free(f->buf);
	free(f);
}

unsigned long kpmc_fold_samples(const struct kpmc_fold *f)
{
	return f->samples;
}

/* FNV-1a over the parts of a key. */
static uint64_t hash_bytes(uint64_t h, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

#define HASH_SEED 14695981039346656037ull

static uint64_t stack_hash(const char *folded)
{
	return hash_bytes(HASH_SEED, folded, strlen(folded));
}

static uint64_t func_hash(const char *name, const char *object, int kernel)
{
	uint64_t h = hash_bytes(HASH_SEED, name, strlen(name) + 1);

	h = hash_bytes(h, object, strlen(object) + 1);
	return hash_bytes(h, kernel ? "k" : "u", 1);
}

/* Room for one more entry in a table of nr entries (kept under half full). */
static int index_reserve(struct index *ix, size_t nr, uint64_t (*hash_of)(const void *, size_t),
			 const void *arr)
{
	size_t cap, i, j;
	size_t *slot;

	if (2 * (nr + 1) <= ix->cap)
		return 0;
	cap = ix->cap ? 2 * ix->cap : 256;
	slot = calloc(cap, sizeof(*slot));
	if (!slot)
		return -1;
	for (i = 0; i < nr; i++) {
		for (j = hash_of(arr, i) & (cap - 1); slot[j]; j = (j + 1) & (cap - 1))
			;
		slot[j] = i + 1;
	}
	free(ix->slot);
	ix->slot = slot;
	ix->cap = cap;
	return 0;
}

static uint64_t stack_hash_at(const void *arr, size_t i)
{
	return stack_hash(((const struct kpmc_fold_stack *)arr)[i].folded);
}

static uint64_t func_hash_at(const void *arr, size_t i)
{
	const struct kpmc_fold_function *fn = &((const struct kpmc_fold_function *)arr)[i];

	return func_hash(fn->name, fn->object, fn->kernel);
}

static struct kpmc_fold_function *function_of(struct kpmc_fold *f, const struct kpmc_frame *fr)
{
	uint64_t h = func_hash(fr->name, fr->object, fr->kernel);
	struct kpmc_fold_function *fn;
	size_t j;

	if (index_reserve(&f->func_index, f->nfuncs, func_hash_at, f->funcs))
		return NULL;
	for (j = h & (f->func_index.cap - 1); f->func_index.slot[j];
	     j = (j + 1) & (f->func_index.cap - 1)) {
		fn = &f->funcs[f->func_index.slot[j] - 1];
		if (fn->kernel == fr->kernel && !strcmp(fn->name, fr->name) &&
		    !strcmp(fn->object, fr->object))
			return fn;
	}
	if (grow_array((void **)&f->funcs, &f->cap_funcs, f->nfuncs + 1, sizeof(*f->funcs), 256))
		return NULL;
	fn = &f->funcs[f->nfuncs];
	memset(fn, 0, sizeof(*fn));
	fn->name = strdup(fr->name);
	fn->object = strdup(fr->object);
	fn->kernel = fr->kernel;
	if (!fn->name || !fn->object) {
		free(fn->name);
		free(fn->object);
		return NULL;
	}
	f->func_index.slot[j] = ++f->nfuncs;
	f->funcs_sorted = 0;
	return fn;
}

/* The folded string of frames in f->buf. */
static int build_folded(struct kpmc_fold *f, const struct kpmc_frame *frames, unsigned int n)
{
	size_t need = 1, used = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		need += strlen(frames[i].name) + 5;
	if (grow_array((void **)&f->buf, &f->buf_cap, need, 1, 256))
		return -1;
	for (i = 0; i < n; i++) {
		const char *s;

		if (i)
			f->buf[used++] = ';';
		/* ';' separates frames and a blank ends the stack: neither may be in a name. */
		for (s = frames[i].name; *s; s++)
			f->buf[used++] = (*s == ';' || *s == ' ' || *s == '\t' || *s == '\n') ? '_' : *s;
		if (frames[i].kernel) {
			memcpy(f->buf + used, "_[k]", 4);
			used += 4;
		}
	}
	f->buf[used] = '\0';
	return 0;
}

static int count_stack(struct kpmc_fold *f)
{
	uint64_t h = stack_hash(f->buf);
	struct kpmc_fold_stack *st;
	size_t j;

	if (index_reserve(&f->stack_index, f->nstacks, stack_hash_at, f->stacks))
		return -1;
	for (j = h & (f->stack_index.cap - 1); f->stack_index.slot[j];
	     j = (j + 1) & (f->stack_index.cap - 1)) {
		st = &f->stacks[f->stack_index.slot[j] - 1];
		if (!strcmp(st->folded, f->buf)) {
			st->samples++;
			return 0;
		}
	}
	if (grow_array((void **)&f->stacks, &f->cap_stacks, f->nstacks + 1, sizeof(*f->stacks), 256))
		return -1;
	st = &f->stacks[f->nstacks];
	st->folded = strdup(f->buf);
	if (!st->folded)
		return -1;
	st->samples = 1;
	f->stack_index.slot[j] = ++f->nstacks;
	f->stacks_sorted = 0;
	return 0;
}

int kpmc_fold_add(struct kpmc_fold *f, const struct kpmc_frame *frames, unsigned int n)
{
	unsigned int i;

	if (!n)
		return 0;
	/* The index may have been sorted away (kpmc_fold_stacks): rebuild it. */
	if (f->stacks_sorted || f->funcs_sorted) {
		free(f->stack_index.slot);
		free(f->func_index.slot);
		memset(&f->stack_index, 0, sizeof(f->stack_index));
		memset(&f->func_index, 0, sizeof(f->func_index));
		if (index_reserve(&f->stack_index, f->nstacks, stack_hash_at, f->stacks) ||
		    index_reserve(&f->func_index, f->nfuncs, func_hash_at, f->funcs))
			return -1;
		f->stacks_sorted = f->funcs_sorted = 0;
	}
	f->samples++;
	for (i = 0; i < n; i++) {
		struct kpmc_fold_function *fn = function_of(f, &frames[i]);

		if (!fn)
			return -1;
		/* Recursion: a function counts once in a sample's total. */
		if (fn->stamp != f->samples) {
			fn->stamp = f->samples;
			fn->total++;
		}
		if (i + 1 == n)
			fn->self++;
	}
	if (build_folded(f, frames, n))
		return -1;
	return count_stack(f);
}

static int by_folded(const void *a, const void *b)
{
	return strcmp(((const struct kpmc_fold_stack *)a)->folded,
		      ((const struct kpmc_fold_stack *)b)->folded);
}

static int by_total(const void *a, const void *b)
{
	const struct kpmc_fold_function *x = a, *y = b;
	int c;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	c = strcmp(x->name, y->name);
	if (c)
		return c;
	c = strcmp(x->object, y->object);
	return c ? c : x->kernel - y->kernel;
}

const struct kpmc_fold_stack *kpmc_fold_stacks(struct kpmc_fold *f, size_t *n)
{
	if (!f->stacks_sorted && f->nstacks > 1)
		qsort(f->stacks, f->nstacks, sizeof(*f->stacks), by_folded);
	f->stacks_sorted = 1;
	*n = f->nstacks;
	return f->stacks;
}

const struct kpmc_fold_function *kpmc_fold_functions(struct kpmc_fold *f, size_t *n)
{
	if (!f->funcs_sorted && f->nfuncs > 1)
		qsort(f->funcs, f->nfuncs, sizeof(*f->funcs), by_total);
	f->funcs_sorted = 1;
	*n = f->nfuncs;
	return f->funcs;
}
