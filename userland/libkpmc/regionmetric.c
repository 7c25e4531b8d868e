// SPDX-License-Identifier: GPL-2.0
/*
 * kpmc_region_metric: a metric expression (the CLI's -m syntax) over a
 * region's totals, through the public region calls: pmcN is the region's
 * count of counter N (scaled by enabled/running when sets took turns, as
 * kpmc_region_scaled), time its on-CPU seconds, calls its ended invocations.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kpmc.h"
#include "metrics/metricexpr.h"

struct region_arg {
	const char *name;
	const struct kpmc_region_stats *st;
};

static int region_lookup(const char *var, double *value, void *arg)
{
	const struct region_arg *a = arg;
	unsigned int pmc, s;
	char tail;

	if (!strcmp(var, "time")) {
		*value = (double)a->st->run_ns / 1e9;
		return 0;
	}
	if (!strcmp(var, "calls")) {
		*value = (double)a->st->calls;
		return 0;
	}
	if (sscanf(var, "pmc%u%c", &pmc, &tail) != 1 || pmc >= KPMC_LIB_COUNTERS)
		return -1;
	if (a->st->nr_sets <= 1) {
		int64_t v = kpmc_region_total(a->name, pmc);

		*value = v < 0 ? NAN : (double)v;
		return 0;
	}
	for (s = 0; s < a->st->nr_sets; s++)
		if (a->st->sets[s].counter_mask & (1u << pmc)) {
			int64_t v = kpmc_region_scaled(a->name, s, pmc);

			*value = v < 0 ? NAN : (double)v;
			return 0;
		}
	*value = NAN;
	return 0;
}

double kpmc_region_metric(const char *region, const char *expr, char *err, size_t len)
{
	struct kpmc_region_stats st;
	struct region_arg a = { region, &st };
	struct kpmc_mexpr *e;
	char why[256], unknown[160];
	double v;

	if (!err || !len) {
		err = why;
		len = sizeof(why);
	}
	e = kpmc_mexpr_compile(expr, 0, err, len);
	if (!e)
		return NAN;
	if (kpmc_region_get(region, &st)) {
		snprintf(err, len, "no region '%s' has ended", region);
		v = NAN;
	} else if (kpmc_mexpr_eval_lookup(e, region_lookup, &a, &v, unknown, sizeof(unknown))) {
		snprintf(err, len, "%s: a region metric names pmc0 to pmc%d, time and calls", unknown,
			 KPMC_LIB_COUNTERS - 1);
		v = NAN;
	} else if (err != why) {
		err[0] = '\0';
	}
	kpmc_mexpr_free(e);
	return v;
}
