// SPDX-License-Identifier: GPL-2.0
/*
 * Removes the cost of sampling from a fold trace, so that a fine-sampling run
 * can stand for the unperturbed program (tests/host/check_fold.sh).
 *
 *   fold_compensate EXACT TRACE OUT [REFERENCE]
 *
 * Each sample's interrupt adds on-CPU time and counts (kernel instructions,
 * cycles) to the instance it falls in, the same wherever it falls. EXACT
 * names a counter sampling does not disturb (user-mode instructions: the
 * interrupt runs in the kernel) that measures each instance's work; then per
 * instance, for the duration and for every counter's total,
 *     value = a + b * EXACT total + o * samples in the instance
 * (robust least squares, GSL's bisquare: an instance a timer tick hit does
 * not pull the fit), o being what one sample costs. The work varies between
 * instances independently of how many samples each took (a random period),
 * so o is told apart from b. With REFERENCE, a trace of the same program's
 * same calls sampled less often (the coarse run: twophase draws the calls'
 * sizes from a fixed sequence), o is measured more directly: per call (the
 * same region and call number in both), the difference of the value
 * against the difference of the number of samples,
 *     value - reference value = a + o * (samples - reference samples),
 * the work of the call cancelling out (not the noise of the kernel's own
 * paths, hence again robust least squares). A sample's own counts are taken before its
 * interrupt runs: the sample with k samples before it in its instance has
 * k * o of each removed from its offset and counts, an instance with K
 * samples K * o from its duration and totals. OUT is the compensated trace
 * (same format); stdout one line per column:
 *     compensate column=NAME method=M o=O o_se=SE a=A instances=N
 * (NAME duration_ns or the counter's; M within or paired; SE the standard
 * error of o; both methods printed, the paired one applied when given). Exit
 * status 0, 1 if a fit fails or OUT cannot be written, 2 on bad usage or
 * trace (the parser's message).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>

#include "../../userland/fold/foldtrace.h"

/* The rounded value less k costs of o, kept within [0, cap]. */
static uint64_t less(uint64_t v, double k, double o, uint64_t cap)
{
	double r = nearbyint((double)v - k * o);

	if (r < 0)
		r = 0;
	return r > (double)cap ? cap : (uint64_t)r;
}

static const char *column_name(const struct kpmc_fold_trace *t, size_t col)
{
	return col ? t->counters[t->sets[0].counter[col - 1]].name : "duration_ns";
}

/* Column col of instance in: 0 its duration, 1 + j counter j's total. */
static double column(const struct kpmc_fold_instance *in, size_t col)
{
	return col ? (double)in->totals[col - 1] : (double)in->duration_ns;
}

/* The instance of ref with in's region and call in set 0, or NULL. */
static const struct kpmc_fold_instance *same_call(const struct kpmc_fold_trace *ref,
						  const struct kpmc_fold_instance *in)
{
	for (size_t i = 0; i < ref->ninstances; i++)
		if (ref->instances[i].set == 0 && ref->instances[i].call == in->call &&
		    !strcmp(ref->instances[i].region, in->region))
			return &ref->instances[i];
	return NULL;
}

/*
 * o of column col by robust least squares (GSL, bisquare): within t (rows
 * 1, EXACT total, samples) or, with ref, paired (rows 1, samples - ref's,
 * value - ref's). Prints the line; 0, or -1 if the fit fails.
 */
static int estimate(const struct kpmc_fold_trace *t, const struct kpmc_fold_trace *ref,
		    size_t exact, size_t col, double *o)
{
	size_t i, n = 0, r = 0, p = ref ? 2 : 3;
	gsl_matrix *X, *cov;
	gsl_vector *y, *c;
	gsl_multifit_robust_workspace *w;
	int st;

	for (i = 0; i < t->ninstances; i++)
		n += t->instances[i].set == 0 && (!ref || same_call(ref, &t->instances[i]));
	if (n < 10) {
		fprintf(stderr, "fold_compensate: %zu instances to fit, want 10 or more\n", n);
		return -1;
	}
	X = gsl_matrix_alloc(n, p);
	cov = gsl_matrix_alloc(p, p);
	y = gsl_vector_alloc(n);
	c = gsl_vector_alloc(p);
	w = gsl_multifit_robust_alloc(gsl_multifit_robust_bisquare, n, p);
	if (!X || !cov || !y || !c || !w) {
		fprintf(stderr, "fold_compensate: out of memory\n");
		return -1;
	}
	for (i = 0; i < t->ninstances; i++) {
		const struct kpmc_fold_instance *in = &t->instances[i], *rin = NULL;

		if (in->set != 0 || (ref && !(rin = same_call(ref, in))))
			continue;
		gsl_matrix_set(X, r, 0, 1);
		if (rin) {
			gsl_matrix_set(X, r, 1, (double)in->nsamples - (double)rin->nsamples);
			gsl_vector_set(y, r++, column(in, col) - column(rin, col));
		} else {
			gsl_matrix_set(X, r, 1, (double)in->nsamples);
			gsl_matrix_set(X, r, 2, (double)in->totals[exact]);
			gsl_vector_set(y, r++, column(in, col));
		}
	}
	st = gsl_multifit_robust(X, y, c, cov, w);
	if (st && st != GSL_EMAXITER) {
		fprintf(stderr, "fold_compensate: fit of %s: %s\n", column_name(t, col),
			gsl_strerror(st));
		return -1;
	}
	/* The exact counter is its own regressor within: nothing to remove from it. */
	*o = !ref && col == exact + 1 ? 0 : gsl_vector_get(c, 1);
	printf("compensate column=%s method=%s o=%.3f o_se=%.3f a=%.1f instances=%zu\n",
	       column_name(t, col), ref ? "paired" : "within", *o, sqrt(gsl_matrix_get(cov, 1, 1)),
	       gsl_vector_get(c, 0), n);
	gsl_matrix_free(X);
	gsl_matrix_free(cov);
	gsl_vector_free(y);
	gsl_vector_free(c);
	gsl_multifit_robust_free(w);
	return 0;
}

static struct kpmc_fold_trace *load(const char *path)
{
	struct kpmc_fold_trace *t;
	char err[512];
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		exit(2);
	}
	if (kpmc_fold_trace_parse(f, path, &t, err, sizeof(err))) {
		fprintf(stderr, "fold_compensate: %s\n", err);
		exit(2);
	}
	fclose(f);
	return t;
}

int main(int argc, char **argv)
{
	struct kpmc_fold_trace *t, *ref = NULL;
	FILE *f;
	size_t i, j, exact = SIZE_MAX, nc, col;
	int set = 0;
	double o[65];
	uint64_t *rank;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: fold_compensate EXACT TRACE OUT [REFERENCE]\n");
		return 2;
	}
	t = load(argv[2]);
	if (argc == 5)
		ref = load(argv[4]);
	nc = t->sets[set].ncounters;
	for (j = 0; j < nc; j++)
		if (!strcmp(t->counters[t->sets[set].counter[j]].name, argv[1]))
			exact = j;
	if (exact == SIZE_MAX || nc > 64) {
		fprintf(stderr, "fold_compensate: set 0 has no counter '%s'\n", argv[1]);
		return 2;
	}
	gsl_set_error_handler_off();
	/* Column 0 the duration, 1 + j counter j; the paired estimate (if any) printed last, used. */
	for (col = 0; col <= nc; col++)
		if (estimate(t, NULL, exact, col, &o[col]) ||
		    (ref && estimate(t, ref, exact, col, &o[col])))
			return 1;
	/* Each sample's rank in its instance by offset: the samples taken before it. */
	rank = calloc(t->nsamples + 1, sizeof(*rank));
	if (!rank)
		return 1;
	for (i = 0; i < t->nsamples; i++) {
		const struct kpmc_fold_instance *in = &t->instances[t->samples[i].instance];

		for (j = 0; j < in->nsamples; j++) {
			const struct kpmc_fold_sample *s = &t->samples[in->samples[j]];

			rank[i] += s->offset_ns < t->samples[i].offset_ns ||
				   (s->offset_ns == t->samples[i].offset_ns && in->samples[j] < i);
		}
	}
	f = fopen(argv[3], "w");
	if (!f) {
		perror(argv[3]);
		return 1;
	}
	fprintf(f, "kpmc-fold 1\n# compensated by fold_compensate (%s exact)\n", argv[1]);
	for (i = 0; i < t->ncounters; i++)
		fprintf(f, "counter %d %u %s\n", t->counters[i].set, t->counters[i].pmc,
			t->counters[i].name);
	for (i = 0; i < t->ninstances; i++) {
		const struct kpmc_fold_instance *in = &t->instances[i];
		double k = in->set == set ? (double)in->nsamples : 0;
		uint64_t dur = less(in->duration_ns, k, o[0], in->duration_ns);

		fprintf(f, "instance %s %u %llu %d %llu", in->region, in->tid,
			(unsigned long long)in->call, in->set, (unsigned long long)dur);
		for (j = 0; in->set >= 0 && j < t->sets[in->set].ncounters; j++)
			fprintf(f, " %llu", (unsigned long long)(in->set == set ?
				less(in->totals[j], k, o[j + 1], in->totals[j]) : in->totals[j]));
		fputc('\n', f);
		for (size_t q = 0; q < in->nsamples; q++) {
			size_t si = in->samples[q];
			const struct kpmc_fold_sample *s = &t->samples[si];
			double ks = in->set == set ? (double)rank[si] : 0;

			fprintf(f, "sample %s %u %llu %d %llu", in->region, in->tid,
				(unsigned long long)in->call, s->set,
				(unsigned long long)less(s->offset_ns, ks, o[0], dur));
			for (j = 0; j < t->sets[s->set].ncounters; j++)
				fprintf(f, " %llu", (unsigned long long)(in->set == set ?
					less(s->cum[j], ks, o[j + 1],
					     less(in->totals[j], k, o[j + 1], in->totals[j])) :
					s->cum[j]));
			fputc('\n', f);
		}
	}
	free(rank);
	if (ferror(f) | fclose(f)) {
		perror(argv[3]);
		return 1;
	}
	kpmc_fold_trace_free(t);
	kpmc_fold_trace_free(ref);
	return 0;
}
