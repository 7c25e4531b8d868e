// SPDX-License-Identifier: GPL-2.0
/* CPI-stack and top-down models: a model file's components, evaluated. */
#include "metricmodel.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int kpmc_model_load(struct kpmc_model *m, const char *name, const char *text, const char *fname,
		    char *err, size_t len)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", name);
	return kpmc_mfile_parse(&m->file, KPMC_MFILE_MODEL, text, fname, err, len);
}

void kpmc_model_free(struct kpmc_model *m)
{
	kpmc_mfile_free(&m->file);
}

unsigned int kpmc_model_nevents(const struct kpmc_model *m)
{
	return m->file.nevents;
}

const char *kpmc_model_event(const struct kpmc_model *m, unsigned int i)
{
	return i < m->file.nevents ? m->file.events[i] : NULL;
}

int kpmc_model_eval(const struct kpmc_model *m, const double *values, double secs,
		    struct kpmc_model_value *out, unsigned int max, double *total)
{
	const struct kpmc_mfile *f = &m->file;
	double v[KPMC_MFILE_MAX_ENTRIES];
	unsigned int n = 0;

	kpmc_mfile_eval(f, values, secs, v);
	*total = f->total >= 0 ? v[f->total] : f->unit == KPMC_MUNIT_FRACTION ? 1.0 : NAN;
	/* Each component, then its parts: the order a stacked plot draws them. */
	for (unsigned int i = 0; i < f->nentries; i++) {
		if (f->entries[i].kind != KPMC_ME_COMPONENT)
			continue;
		for (unsigned int j = i; j < f->nentries; j++) {
			const struct kpmc_mentry *e = &f->entries[j];

			if (j != i && (e->kind != KPMC_ME_SUB || e->parent != (int)i))
				continue;
			if (n < max)
				out[n] = (struct kpmc_model_value){
					.name = e->name,
					.parent = j == i ? NULL : f->entries[i].name,
					.value = v[j],
				};
			n++;
		}
	}
	return (int)n;
}

int kpmc_model_eval_named(const struct kpmc_model *m, const char *const *names,
			  const double *values, unsigned int n, double secs,
			  struct kpmc_model_value *out, unsigned int max, double *total,
			  char *err, size_t len)
{
	double ordered[KPMC_MFILE_MAX_EVENTS];

	for (unsigned int i = 0; i < m->file.nevents; i++) {
		unsigned int k;

		for (k = 0; k < n && strcmp(names[k], m->file.events[i]); k++)
			;
		if (k == n) {
			snprintf(err, len, "model %s needs event %s, which was not counted", m->name,
				 m->file.events[i]);
			return -1;
		}
		ordered[i] = values[k];
	}
	return kpmc_model_eval(m, ordered, secs, out, max, total);
}
