/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbolized call stacks counted two ways: folded stacks (the frames of
 * each distinct stack, outermost first, joined by ';': what flame-graph
 * tools read) and per function the samples it was the leaf of (self) and
 * the samples it was anywhere in (total: itself and its callees, as perf
 * report --children counts). Pure: no I/O.
 */
#ifndef KPMC_STACKFOLD_H
#define KPMC_STACKFOLD_H

#include <stddef.h>

/* A frame: the function and the object it is in; kernel frames are marked. */
struct kpmc_frame {
	const char *name;
	const char *object;
	int kernel;
};

struct kpmc_fold_stack {
	char *folded;			/* "main;a;b;c", kernel frames as "name_[k]" */
	unsigned long samples;
};

struct kpmc_fold_function {
	char *name, *object;
	int kernel;
	unsigned long self, total;
	unsigned long stamp;		/* the last sample that counted it in total */
};

struct kpmc_fold;

struct kpmc_fold *kpmc_fold_new(void);
void kpmc_fold_free(struct kpmc_fold *f);
/*
 * One sample's frames, outermost first (the last is the leaf). A name with
 * ';' or blanks, which would break the folded form, has them as '_'.
 * -1 if out of memory.
 */
int kpmc_fold_add(struct kpmc_fold *f, const struct kpmc_frame *frames, unsigned int n);
unsigned long kpmc_fold_samples(const struct kpmc_fold *f);
/* The distinct stacks, sorted by their folded string. */
const struct kpmc_fold_stack *kpmc_fold_stacks(struct kpmc_fold *f, size_t *n);
/* The functions, by total, then self, descending, then name and object. */
const struct kpmc_fold_function *kpmc_fold_functions(struct kpmc_fold *f, size_t *n);

#endif
