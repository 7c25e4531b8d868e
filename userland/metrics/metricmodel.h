/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPI stacks and top-down models as data (share/kpmc/models/NAME.model, the
 * line format of metricgroup.h): named components, each an expression in
 * CPI or in fractions of the machine's slots, that stack to the model's
 * total; level-2 parts ("sub") that stack to their component. Load, list
 * the events a model needs, evaluate over counts or rates. Pure: no I/O.
 */
#ifndef KPMC_METRICMODEL_H
#define KPMC_METRICMODEL_H

#include <stddef.h>
#include "metricgroup.h"

struct kpmc_model {
	char name[64];
	struct kpmc_mfile file;
};

/* Parse a model's text (fname for errors, name: e.g. "tma_l1"). 0, or -1 with err. */
int kpmc_model_load(struct kpmc_model *m, const char *name, const char *text, const char *fname,
		    char *err, size_t len);
void kpmc_model_free(struct kpmc_model *m);

/* The events the model needs, in its order. */
unsigned int kpmc_model_nevents(const struct kpmc_model *m);
const char *kpmc_model_event(const struct kpmc_model *m, unsigned int i);

/* One evaluated component. */
struct kpmc_model_value {
	const char *name;
	const char *parent;	/* NULL: a level-1 component */
	double value;
};

/*
 * The components (level 1, then each one's subs right after it) for the
 * events' counts or rates (values[i] for event i, with kpmc_model_event's
 * order) over secs seconds (NaN: unknown); at most max of them into out.
 * *total: the model's total (1 for fractions without a total line). The
 * number of components (more than max: only max were written).
 */
int kpmc_model_eval(const struct kpmc_model *m, const double *values, double secs,
		    struct kpmc_model_value *out, unsigned int max, double *total);

/*
 * Values given by name (e.g. a group's or a trace's events): each model
 * event's value is found in names[]/values[] (n of them); -1 naming the
 * missing event in err.
 */
int kpmc_model_eval_named(const struct kpmc_model *m, const char *const *names,
			  const double *values, unsigned int n, double secs,
			  struct kpmc_model_value *out, unsigned int max, double *total,
			  char *err, size_t len);

#endif
