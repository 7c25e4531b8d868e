// SPDX-License-Identifier: GPL-2.0
/*
 * A program of libkpmcfold's users (tests/host/foldlib.sh): folds TRACE with
 * kpmc fold's defaults through the library call and prints what it got, one
 * "KEY VALUE" line each (numbers as %.9g, kpmc fold's own precision), for
 * the test to compare with kpmc fold's stdout and PREFIX.csv:
 *   foldlib_user TRACE
 */
#include <stdio.h>
#include <stdlib.h>
#include <kpmc/fold.h>

int main(int argc, char **argv)
{
	struct kpmc_fold_trace *t = NULL;
	struct kpmc_fold_result *r = NULL;
	struct kpmc_fold_opts o;
	char err[512];
	FILE *f;
	size_t i, j;
	unsigned int k;

	if (argc != 2) {
		fprintf(stderr, "usage: foldlib_user TRACE\n");
		return 2;
	}
	f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	if (kpmc_fold_trace_parse(f, argv[1], &t, err, sizeof(err))) {
		fprintf(stderr, "foldlib_user: %s\n", err);
		return 1;
	}
	fclose(f);
	kpmc_fold_opts_init(&o);
	if (kpmc_fold(t, NULL, 0, &o, &r, err, sizeof(err))) {
		fprintf(stderr, "foldlib_user: %s\n", err);
		kpmc_fold_trace_free(t);
		return 1;
	}
	printf("region %s\nset %d\ninstances %zu\nused %zu\nsamples %zu\n", r->region, r->set,
	       r->instances, r->used, r->samples);
	for (i = 0; i < r->nexcluded; i++)
		printf("excluded %u:%llu:%llu\n", r->excluded[i].tid,
		       (unsigned long long)r->excluded[i].call,
		       (unsigned long long)r->excluded[i].duration_ns);
	for (j = 0; j < r->nseries; j++) {
		const struct kpmc_fold_series *s = &r->series[j];

		printf("%s.mean_total %.9g\n%s.mean_rate_per_s %.9g\n", s->name, s->mean_total,
		       s->name, s->mean_rate_per_s);
		for (k = 0; k < s->nphases; k++)
			printf("%s.phase%u %.6f:%.6f:%.9g\n", s->name, k, s->phases[k].x0,
			       s->phases[k].x1, s->phases[k].rate_per_s);
		for (k = 0; k < r->bins; k++)
			printf("%s.bin%u %.9g:%.9g:%.9g:%.9g\n", s->name, k, s->cum[k + 1], s->rate[k],
			       s->rate_lo[k], s->phase_rate[k]);
	}
	kpmc_fold_result_free(r);
	kpmc_fold_trace_free(t);
	return 0;
}
