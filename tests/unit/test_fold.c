// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of folding (userland/fold/fold.c) and of the fold trace's parser
 * (userland/fold/foldtrace.c) on synthetic traces of known truth, written as text
 * into memory and parsed as kpmc fold parses a file.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gsl/gsl_fit.h>

#include "fold/fold.h"
#include "fold/foldtrace.h"

static uint64_t rng_state;

static double uniform(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

/* A counter's truth: rate r1 (per second) for the first fraction brk of the time, then r2. */
struct truth {
	double brk, r1, r2;
};

static uint64_t count_at(const struct truth *tr, double t, double d)
{
	double b = tr->brk * d;

	return (uint64_t)((t < b ? tr->r1 * t : tr->r1 * b + tr->r2 * (t - b)) * 1e-9);
}

/* The true cumulative fraction at x (the same in every instance). */
static double true_cum(const struct truth *tr, double x)
{
	double b = tr->brk;

	return (x < b ? tr->r1 * x : tr->r1 * b + tr->r2 * (x - b)) /
	       (tr->r1 * b + tr->r2 * (1 - b));
}

struct gen {
	unsigned int instances;
	unsigned int samples_per;	/* samples per instance, at random offsets */
	unsigned int slow_every;	/* every slow_every-th instance (from slow_every/2) 3x as long */
	unsigned int set1_every;	/* every set1_every-th instance (from 1) counted by set 1 */
	struct truth a, b;		/* set 0's counters A and B */
	struct truth c;			/* set 1's counter C */
	uint64_t seed;
};

/* Writes the trace; slow instances' calls go to slow[] (tid 7). */
static char *generate(const struct gen *g, unsigned int *slow, unsigned int *nslow)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	unsigned int i, k;

	assert_non_null(f);
	rng_state = g->seed * 0x9E3779B97F4A7C15ULL + 1;
	fprintf(f, "kpmc-fold 1\ncounter 0 1 A\ncounter 0 2 B\n");
	if (g->set1_every)
		fprintf(f, "counter 1 3 C\n");
	if (nslow)
		*nslow = 0;
	for (i = 0; i < g->instances; i++) {
		/* 10 ms +- 5%: counts of some 10^7, fractions exact to 10^-7. */
		double d = 1e7 * (1 + 0.1 * (uniform() - 0.5));
		int set = g->set1_every && i % g->set1_every == 1 ? 1 : 0;

		if (g->slow_every && i % g->slow_every == g->slow_every / 2) {
			d *= 3;
			if (slow)
				slow[(*nslow)++] = i;
		}
		d = floor(d);
		if (set == 0)
			fprintf(f, "instance r 7 %u 0 %.0f %llu %llu\n", i, d,
				(unsigned long long)count_at(&g->a, d, d),
				(unsigned long long)count_at(&g->b, d, d));
		else
			fprintf(f, "instance r 7 %u 1 %.0f %llu\n", i, d,
				(unsigned long long)count_at(&g->c, d, d));
		for (k = 0; k < g->samples_per; k++) {
			double t = floor(d * uniform());

			if (set == 0)
				fprintf(f, "sample r 7 %u 0 %.0f %llu %llu\n", i, t,
					(unsigned long long)count_at(&g->a, t, d),
					(unsigned long long)count_at(&g->b, t, d));
			else
				fprintf(f, "sample r 7 %u 1 %.0f %llu\n", i, t,
					(unsigned long long)count_at(&g->c, t, d));
		}
	}
	assert_int_equal(fclose(f), 0);
	return text;
}

static struct kpmc_fold_trace *parse_text(const char *text, char *err, size_t errlen)
{
	struct kpmc_fold_trace *t = NULL;
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(f);
	if (kpmc_fold_trace_parse(f, "t", &t, err, errlen))
		t = NULL;
	fclose(f);
	return t;
}

/* Traces of fold_gen's results, freed after each test. */
static struct kpmc_fold_trace *traces[16];
static unsigned int ntraces;

static const struct gen two_phase = {
	.instances = 500, .samples_per = 1,
	.a = { 0.40, 2e9, 5e8 }, .b = { 0.40, 1e8, 1.2e9 }, .seed = 3,
};

/* Folds set of g's trace; the result points into the trace, freed with it by done(). */
static struct kpmc_fold_result *fold_gen(const struct gen *g, const struct kpmc_fold_opts *o,
					 int set, unsigned int *slow, unsigned int *nslow)
{
	char err[256] = "", *text = generate(g, slow, nslow);
	struct kpmc_fold_trace *t = parse_text(text, err, sizeof(err));
	struct kpmc_fold_result *r = NULL;

	free(text);
	if (!t)
		fail_msg("parse: %s", err);
	if (kpmc_fold(t, NULL, set, o, &r, err, sizeof(err)))
		fail_msg("fold: %s", err);
	traces[ntraces++] = t;
	return r;
}

static void done(struct kpmc_fold_result *r)
{
	kpmc_fold_result_free(r);
}

static void free_traces(void)
{
	while (ntraces)
		kpmc_fold_trace_free(traces[--ntraces]);
}

/* Checks one counter's fold against its truth: phases, rates per bin, band. */
static void check_series(const struct kpmc_fold_series *s, const struct truth *tr, unsigned int bins)
{
	double peak = fmax(tr->r1, tr->r2), lo_hits = 0;
	unsigned int i;

	assert_int_equal(s->nphases, 2);
	assert_true(fabs(s->phases[0].x1 - tr->brk) <= 0.01);
	assert_true(fabs(s->phases[0].rate_per_s - tr->r1) <= 0.01 * tr->r1);
	assert_true(fabs(s->phases[1].rate_per_s - tr->r2) <= 0.01 * tr->r2);
	assert_true(s->phases[0].x0 == 0 && s->phases[1].x1 == 1);
	for (i = 0; i < bins; i++) {
		double x0 = (double)i / bins, x1 = (double)(i + 1) / bins;
		/* The true mean rate over the bin: the break is on a bin edge or inside one. */
		double want = (true_cum(tr, x1) - true_cum(tr, x0)) / (x1 - x0) *
			      (tr->r1 * tr->brk + tr->r2 * (1 - tr->brk));

		if (fabs(s->rate[i] - want) > 0.05 * peak)
			fail_msg("%s bin %u: rate %.6g, truth %.6g (peak %.6g)", s->name, i, s->rate[i],
				 want, peak);
		/* The band holds the truth (to 1e-6, the counts' integer rounding). */
		if (s->cum_lo[i + 1] - 1e-6 <= true_cum(tr, x1) &&
		    true_cum(tr, x1) <= s->cum_hi[i + 1] + 1e-6)
			lo_hits++;
		assert_true(s->cum_lo[i + 1] <= s->cum[i + 1] + 1e-12 &&
			    s->cum[i + 1] <= s->cum_hi[i + 1] + 1e-12);
		/* Monotone. */
		assert_true(s->cum[i + 1] >= s->cum[i]);
	}
	assert_true(lo_hits >= 0.9 * bins);
}

static void test_two_phase(void **state)
{
	struct kpmc_fold_opts o;
	struct kpmc_fold_result *r;

	(void)state;
	kpmc_fold_opts_init(&o);
	r = fold_gen(&two_phase, &o, 0, NULL, NULL);
	assert_int_equal(r->instances, 500);
	assert_int_equal(r->used, 500);
	assert_int_equal(r->nexcluded, 0);
	assert_int_equal(r->samples, 500);
	assert_int_equal(r->nseries, 2);
	assert_string_equal(r->series[0].name, "A");
	assert_string_equal(r->series[1].name, "B");
	/* Mean rate: the rates' time average (the same in every instance). */
	assert_true(fabs(r->series[0].mean_rate_per_s - (0.4 * 2e9 + 0.6 * 5e8)) < 1e-4 * 1.1e9);
	check_series(&r->series[0], &two_phase.a, o.bins);
	check_series(&r->series[1], &two_phase.b, o.bins);
	done(r);
	free_traces();
}

/* A break inside a bin (0.37 of 50 bins) and other bin counts: still within bounds. */
static void test_break_inside_bin(void **state)
{
	struct gen g = two_phase;
	struct kpmc_fold_opts o;
	struct kpmc_fold_result *r;

	(void)state;
	g.a.brk = 0.37;
	g.b.brk = 0.37;
	g.seed = 11;
	kpmc_fold_opts_init(&o);
	r = fold_gen(&g, &o, 0, NULL, NULL);
	check_series(&r->series[0], &g.a, o.bins);
	done(r);
	o.bins = 20;
	r = fold_gen(&g, &o, 0, NULL, NULL);
	check_series(&r->series[1], &g.b, o.bins);
	done(r);
	free_traces();
}

/*
 * A trace of n instances of region r, one counter counting total in each
 * 1 ms, one sample each at relative time x with c * 1e6 counts from draw()
 * (rng_state seeded with seed).
 */
static struct kpmc_fold_trace *one_sample_trace(unsigned int n, uint64_t seed, double total,
						void (*draw)(double *x, double *c, const void *arg),
						const void *arg)
{
	char *text, err[256];
	struct kpmc_fold_trace *t;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	fprintf(f, "kpmc-fold 1\ncounter 0 1 A\n");
	rng_state = seed;
	for (unsigned int i = 0; i < n; i++) {
		double x, c;

		draw(&x, &c, arg);
		fprintf(f, "instance r 1 %u 0 1000000 %.0f\nsample r 1 %u 0 %.0f %.0f\n", i, total,
			i, floor(x * 1e6), floor(c * 1e6));
	}
	fclose(f);
	t = parse_text(text, err, sizeof(err));
	free(text);
	assert_non_null(t);
	return t;
}

/* Rate 1 for [0, 0.25), 4 for [0.25, 0.7), 1 after: counts per 1000 ns. */
static void draw_three_rates(double *x, double *c, const void *arg)
{
	(void)arg;
	*x = uniform();
	*c = *x < 0.25 ? *x : *x < 0.7 ? 0.25 + 4 * (*x - 0.25) : 2.05 + (*x - 0.7);
}

/* Three phases found when allowed; one phase only when --phases 1. */
static void test_phase_count(void **state)
{
	char err[256];
	struct kpmc_fold_trace *t = one_sample_trace(600, 5, 2350000, draw_three_rates, NULL);
	struct kpmc_fold_result *r;
	struct kpmc_fold_opts o;
	unsigned int i, lines;

	(void)state;
	kpmc_fold_opts_init(&o);
	assert_int_equal(kpmc_fold(t, "r", 0, &o, &r, err, sizeof(err)), 0);
	assert_int_equal(r->series[0].nphases, 3);
	assert_true(fabs(r->series[0].phases[0].x1 - 0.25) <= 0.01);
	assert_true(fabs(r->series[0].phases[1].x1 - 0.70) <= 0.01);
	/* Rates: 1, 4, 1 per 1000 ns = 1e6, 4e6, 1e6 per second (scale: 2.35e6 / 1 ms). */
	assert_true(fabs(r->series[0].phases[1].rate_per_s - 4e9) <= 0.01 * 4e9);
	assert_true(fabs(r->series[0].phases[2].rate_per_s - 1e9) <= 0.01 * 1e9);
	kpmc_fold_result_free(r);
	o.max_phases = 1;
	assert_int_equal(kpmc_fold(t, "r", 0, &o, &r, err, sizeof(err)), 0);
	assert_int_equal(r->series[0].nphases, 1);
	assert_true(r->series[0].phases[0].x0 == 0 && r->series[0].phases[0].x1 == 1);
	/*
	 * One phase: a line (robust, with an intercept for what happens at the
	 * ends) whose slope lies between the rates; the phase model's bins add
	 * up to the mean rate (C(0) = 0, C(1) = 1) and, where the line is not
	 * clamped to [0, 1], are its rate.
	 */
	{
		const struct kpmc_fold_series *s = &r->series[0];
		double sum = 0;

		assert_int_equal(s->npoints, 600);
		assert_in_range(s->phases[0].rate_per_s, 1e9, 4e9);
		for (i = 0; i < o.bins; i++)
			sum += s->phase_rate[i] / o.bins;
		assert_true(fabs(sum - s->mean_rate_per_s) <= 1e-9 * s->mean_rate_per_s);
		/* Bins the clamp touches (at the ends) have less; at least 30 of 50 are the line's. */
		for (i = 0, lines = 0; i < o.bins; i++) {
			assert_in_range(s->phase_rate[i], 0, s->phases[0].rate_per_s * (1 + 1e-9));
			lines += fabs(s->phase_rate[i] - s->phases[0].rate_per_s) <=
			       1e-9 * s->phases[0].rate_per_s;
		}
		assert_in_range(lines, 30, 50);
	}
	kpmc_fold_result_free(r);
	kpmc_fold_trace_free(t);
}

/*
 * Robust phases: rate 1 then 0.1 (break at 0.4), 5% of the points late by
 * 0.04 of the total (instances a timer tick hit) and every point off by
 * +-0.005: still two phases, the break within 0.01, no negative rate; with
 * --min-phase 0.5 the two phases cannot be told apart: one.
 */
static void test_robust_phases(void **state)
{
	char *text, err[256];
	struct kpmc_fold_trace *t;
	struct kpmc_fold_result *r;
	struct kpmc_fold_opts o;
	size_t len = 0;
	FILE *f;
	unsigned int i, k;

	(void)state;
	f = open_memstream(&text, &len);
	fprintf(f, "kpmc-fold 1\ncounter 0 1 A\n");
	rng_state = 11;
	for (i = 0; i < 500; i++) {
		double x = uniform(), c = x < 0.4 ? x / 0.46 : (0.4 + 0.1 * (x - 0.4)) / 0.46;

		c += 0.01 * (uniform() - 0.5);
		if (i % 20 == 7)
			c -= 0.04;
		c = c < 0 ? 0 : c > 1 ? 1 : c;
		fprintf(f, "instance r 1 %u 0 1000000 1000000\nsample r 1 %u 0 %.0f %.0f\n", i, i,
			floor(x * 1e6), floor(c * 1e6));
	}
	fclose(f);
	t = parse_text(text, err, sizeof(err));
	free(text);
	assert_non_null(t);
	kpmc_fold_opts_init(&o);
	o.bootstrap = 0;
	assert_int_equal(kpmc_fold(t, "r", 0, &o, &r, err, sizeof(err)), 0);
	assert_int_equal(r->series[0].nphases, 2);
	assert_true(fabs(r->series[0].phases[0].x1 - 0.4) <= 0.01);
	/* Rates 1/0.46 and 0.1/0.46 of the mean 1e9 (1e6 counts in 1 ms) within 2%. */
	assert_true(fabs(r->series[0].phases[0].rate_per_s - 1e9 / 0.46) <= 0.02 * 1e9 / 0.46);
	assert_true(fabs(r->series[0].phases[1].rate_per_s - 1e8 / 0.46) <= 0.02 * 1e9 / 0.46);
	for (k = 0; k < r->series[0].nphases; k++)
		assert_true(r->series[0].phases[k].rate_per_s >= 0);
	kpmc_fold_result_free(r);
	o.min_phase = 0.5;
	o.max_phases = 4;
	assert_int_equal(kpmc_fold(t, "r", 0, &o, &r, err, sizeof(err)), 0);
	assert_true(r->series[0].nphases <= 2);
	for (k = 0; k < r->series[0].nphases; k++)
		assert_true(r->series[0].phases[k].x1 - r->series[0].phases[k].x0 >= 0.5 - 1e-12);
	kpmc_fold_result_free(r);
	o.min_phase = 0;
	assert_int_equal(kpmc_fold(t, "r", 0, &o, &r, err, sizeof(err)), -1);
	kpmc_fold_trace_free(t);
}

/* Rate 1/b until a break b of 0.4 +- 5%, drawn per instance; 0 after. */
static void draw_jittered_stop(double *x, double *c, const void *arg)
{
	double b;

	(void)arg;
	*x = uniform();
	b = 0.4 * (1 + 0.1 * (uniform() - 0.5));
	*c = *x < b ? *x / b : 1;
}

/*
 * A counter that stops counting at a break that varies per instance (0.4
 * +- 5%, as the instances' durations vary): its points scatter up to the
 * break and lie on 1 after it, noise 30x larger on one side. Weighed by the
 * local noise, two phases and the break within 0.01; one global scale
 * bought spurious phases in the scatter.
 */
static void test_local_noise(void **state)
{
	char err[256];
	struct kpmc_fold_trace *t = one_sample_trace(500, 29, 1000000, draw_jittered_stop, NULL);
	struct kpmc_fold_result *r;
	struct kpmc_fold_opts o;

	(void)state;
	kpmc_fold_opts_init(&o);
	o.bootstrap = 0;
	assert_int_equal(kpmc_fold(t, "r", 0, &o, &r, err, sizeof(err)), 0);
	assert_int_equal(r->series[0].nphases, 2);
	assert_true(fabs(r->series[0].phases[0].x1 - 0.4) <= 0.01);
	kpmc_fold_result_free(r);
	kpmc_fold_trace_free(t);
}

/*
 * A counter whose points are precise for the first 40% of the region (noise
 * 1e-4) and noisy after (0.02): 2% of its count in a burst over [0, 0.03),
 * nothing until 0.4, the rest at a steady rate from there.
 */
static void draw_quiet_burst(double *x, double *c, const void *arg)
{
	double u;

	(void)arg;
	*x = uniform();
	u = uniform() - 0.5;
	/* Uniform noise of standard deviation 0.02 or 1e-4 (sqrt(12) u). */
	*c = 0.02 * fmin(*x / 0.03, 1) + 0.98 * fmax(*x - 0.4, 0) / 0.6 +
	     sqrt(12) * u * (*x > 0.4 ? 0.02 : 1e-4);
	*c = *c < 0 ? 0 : *c > 1 ? 1 : *c;
}

/*
 * The burst's end at 0.03 is a change 200 times the noise where it happens,
 * the break at 0.4 one of the whole count: three phases, each change found.
 * The first pass used to split its points unweighted, where the noisy part's
 * squares outweigh the quiet part's: its candidates of 3 phases split the
 * noise, none the burst, and the BIC could only choose two phases (4 of
 * these 5 seeds, 8 of the first 10).
 */
static void test_weighted_first_pass(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 5; seed++) {
		char err[256];
		struct kpmc_fold_trace *t = one_sample_trace(500, seed, 1000000, draw_quiet_burst, NULL);
		struct kpmc_fold_result *r;
		struct kpmc_fold_opts o;

		kpmc_fold_opts_init(&o);
		o.bootstrap = 0;
		assert_int_equal(kpmc_fold(t, "r", 0, &o, &r, err, sizeof(err)), 0);
		if (r->series[0].nphases != 3 || fabs(r->series[0].phases[0].x1 - 0.03) > 0.01 ||
		    fabs(r->series[0].phases[1].x1 - 0.4) > 0.01)
			fail_msg("seed %u: %u phases, the first ending at %.4f, the second at %.4f",
				 (unsigned int)seed, r->series[0].nphases, r->series[0].phases[0].x1,
				 r->series[0].nphases > 1 ? r->series[0].phases[1].x1 : 1.0);
		kpmc_fold_result_free(r);
		kpmc_fold_trace_free(t);
	}
}

/* Exact counts whose rate is multiplied by *arg at 0.5. */
static void draw_rate_change(double *x, double *c, const void *arg)
{
	double k = *(const double *)arg, s1 = 1 / (0.5 * (1 + k));

	*x = uniform();
	*c = *x < 0.5 ? s1 * *x : s1 * (0.5 + k * (*x - 0.5));
}

/*
 * Precise counts (noise of a count in 1e6) whose rate changes by 2% at 0.5:
 * true, and the BIC takes it with --min-change 0; by default (5%) one phase.
 * A change of 10% is two phases either way.
 */
static void test_min_change(void **state)
{
	static const double change[] = { 1.02, 1.10 };
	static const unsigned int want[] = { 1, 2 };

	(void)state;
	for (unsigned int c = 0; c < 2; c++) {
		char err[256];
		struct kpmc_fold_trace *t = one_sample_trace(500, 31, 1000000, draw_rate_change, &change[c]);
		struct kpmc_fold_result *r;
		struct kpmc_fold_opts o;

		kpmc_fold_opts_init(&o);
		o.bootstrap = 0;
		assert_int_equal(kpmc_fold(t, "r", 0, &o, &r, err, sizeof(err)), 0);
		assert_int_equal(r->series[0].nphases, want[c]);
		kpmc_fold_result_free(r);
		o.min_change = 0;
		assert_int_equal(kpmc_fold(t, "r", 0, &o, &r, err, sizeof(err)), 0);
		assert_int_equal(r->series[0].nphases, 2);
		assert_true(fabs(r->series[0].phases[0].x1 - 0.5) <= 0.01);
		kpmc_fold_result_free(r);
		o.min_change = 1.5;
		assert_int_equal(kpmc_fold(t, "r", 0, &o, &r, err, sizeof(err)), -1);
		kpmc_fold_trace_free(t);
	}
}

static void test_outliers(void **state)
{
	struct gen g = two_phase;
	struct kpmc_fold_opts o;
	struct kpmc_fold_result *r;
	unsigned int slow[64], nslow, i;

	(void)state;
	g.slow_every = 50;
	kpmc_fold_opts_init(&o);
	r = fold_gen(&g, &o, 0, slow, &nslow);
	assert_int_equal(nslow, 10);
	assert_int_equal(r->instances, 500);
	assert_int_equal(r->nexcluded, nslow);
	assert_int_equal(r->used, 500 - nslow);
	for (i = 0; i < nslow; i++) {
		assert_int_equal(r->excluded[i].tid, 7);
		assert_int_equal(r->excluded[i].call, slow[i]);
		assert_true(r->excluded[i].duration_ns > 2.5 * r->median_ns);
	}
	assert_true(fabs(r->median_ns - 1e7) < 0.01e7);
	/* The slow instances are not in the points: their samples would be off the line. */
	check_series(&r->series[0], &g.a, o.bins);
	done(r);
	free_traces();
}

static void test_max_samples(void **state)
{
	struct gen g = two_phase;
	struct kpmc_fold_opts o;
	struct kpmc_fold_result *r, *r2, *r3;
	size_t i;
	unsigned int bins_hit[10] = { 0 };

	(void)state;
	g.samples_per = 3;
	kpmc_fold_opts_init(&o);
	o.max_samples = 400;
	r = fold_gen(&g, &o, 0, NULL, NULL);
	assert_int_equal(r->samples, 400);
	assert_int_equal(r->series[0].npoints, 400);
	/* Evenly spread: 40 points in each tenth of the sorted 1500, so 40 +- 4 per tenth of x. */
	for (i = 0; i < r->series[0].npoints; i++) {
		if (i)
			assert_true(r->series[0].points[i].x > r->series[0].points[i - 1].x);
		bins_hit[(int)(r->series[0].points[i].x * 10)]++;
	}
	for (i = 0; i < 10; i++)
		assert_in_range(bins_hit[i], 34, 46);
	/* The same seed, the same choice; another seed, another. */
	r2 = fold_gen(&g, &o, 0, NULL, NULL);
	assert_memory_equal(r->series[0].points, r2->series[0].points, 400 * sizeof(*r->series[0].points));
	o.seed = 2;
	r3 = fold_gen(&g, &o, 0, NULL, NULL);
	assert_int_equal(r3->samples, 400);
	assert_memory_not_equal(r->series[0].points, r3->series[0].points,
				400 * sizeof(*r->series[0].points));
	check_series(&r3->series[0], &g.a, o.bins);
	/* More than there are: all of them. */
	o.max_samples = 5000;
	done(r2);
	r2 = fold_gen(&g, &o, 0, NULL, NULL);
	assert_int_equal(r2->samples, 1500);
	done(r);
	done(r2);
	done(r3);
	free_traces();
}

/* Two sets multiplexed: each set folded from its own instances only. */
static void test_multiplexed(void **state)
{
	struct gen g = two_phase;
	struct kpmc_fold_opts o;
	struct kpmc_fold_result *r;

	(void)state;
	g.set1_every = 3;	/* 167 instances of set 1, 333 of set 0 */
	g.c = (struct truth){ 0.70, 3e9, 1e9 };
	kpmc_fold_opts_init(&o);
	r = fold_gen(&g, &o, 0, NULL, NULL);
	assert_int_equal(r->instances, 333);
	assert_int_equal(r->samples, 333);
	assert_int_equal(r->nseries, 2);
	check_series(&r->series[0], &g.a, o.bins);
	done(r);
	r = fold_gen(&g, &o, 1, NULL, NULL);
	assert_int_equal(r->instances, 167);
	assert_int_equal(r->samples, 167);
	assert_int_equal(r->nseries, 1);
	assert_string_equal(r->series[0].name, "C");
	check_series(&r->series[0], &g.c, o.bins);
	done(r);
	free_traces();
}

/* Instances with sets rotated, a counter with total 0, regions to choose from. */
static void test_selection(void **state)
{
	static const char text[] =
		"kpmc-fold 1\n"
		"# two regions\n"
		"counter 0 1 A\n"
		"counter 0 2 Z\n"
		"instance r 1 0 0 1000 100 0\n"
		"instance r 1 1 -1 1000\n"
		"instance q 1 0 0 1000 100 0\n"
		"sample r 1 0 0 500 50 0\n"
		"sample r 1 1 0 500\n"
		"instance r 1 2 0 1000 100 0\n"
		"sample r 1 2 0 250 25 0\n";
	char err[256];
	struct kpmc_fold_trace *t;
	struct kpmc_fold_result *r;
	struct kpmc_fold_opts o;

	(void)state;
	/* "sample r 1 1 0 500" gives no counts: refused. */
	t = parse_text(text, err, sizeof(err));
	assert_null(t);
	assert_string_equal(err, "t:9: token 'sample': want 'sample REGION TID CALL SET OFFSET_NS C...', "
			    "got 6 fields");
	{
		char fixed[sizeof(text) + 8];
		char *p;

		strcpy(fixed, text);
		p = strstr(fixed, "sample r 1 1 0 500\n");
		memcpy(p, "# mpled\n", 8);
		memmove(p + 8, p + 19, strlen(p + 19) + 1);
		t = parse_text(fixed, err, sizeof(err));
	}
	if (!t)
		fail_msg("%s", err);
	assert_int_equal(t->nregions, 2);
	kpmc_fold_opts_init(&o);
	assert_int_equal(kpmc_fold(t, NULL, 0, &o, &r, err, sizeof(err)), -1);
	assert_string_equal(err, "the trace has 2 regions (q, r): choose one with -r");
	assert_int_equal(kpmc_fold(t, "nope", 0, &o, &r, err, sizeof(err)), -1);
	assert_string_equal(err, "region 'nope' has no instance in the trace");
	assert_int_equal(kpmc_fold(t, "r", 1, &o, &r, err, sizeof(err)), -1);
	assert_string_equal(err, "set 1 has no counter line in the trace");
	assert_int_equal(kpmc_fold(t, "q", 0, &o, &r, err, sizeof(err)), -1);
	assert_string_equal(err, "region q set 0: no sample in its 1 instances");
	assert_int_equal(kpmc_fold(t, "r", 0, &o, &r, err, sizeof(err)), 0);
	assert_int_equal(r->instances, 2);	/* the set -1 one is not set 0's */
	assert_int_equal(r->samples, 2);
	assert_int_equal(r->series[0].npoints, 2);
	assert_int_equal(r->series[1].npoints, 0);	/* total 0: no y */
	assert_true(r->series[1].mean_total == 0 && r->series[1].rate[10] == 0);
	/* Two points on the line y = x: the fit is that line. */
	assert_true(fabs(r->series[0].cum[25] - 0.5) < 1e-12);
	kpmc_fold_result_free(r);
	kpmc_fold_trace_free(t);
}

/* Bad lines: each refused with the file, the line and the token. */
static void test_parse_errors(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "kpmc-fold 2\n", "t:1: token '2': version not supported" },
		{ "kpmc fold 1\n", "t:1: token 'kpmc': not a fold trace" },
		{ "kpmc-fold 1\ncounter 0 1 A\nbogus 1 2\n", "t:3: token 'bogus': unknown record" },
		{ "kpmc-fold 1\ncounter 0  1 A\n", "t:2: token '': empty field" },
		{ "kpmc-fold 1\ncounter 0 1 A \n", "t:2: token '': empty field" },
		{ "kpmc-fold 1\ncounter 4 1 A\n", "t:2: token '4': SET: out of range" },
		{ "kpmc-fold 1\ncounter 0 1 A\ncounter 0 1 B\n", "t:3: token '1': set 0 already has a counter pmc1" },
		{ "kpmc-fold 1\ncounter 0 1\n", "t:2: token 'counter': want 'counter SET PMC NAME'" },
		{ "kpmc-fold 1\ncounter 0 1 A\ninstance r 1 x 0 100 5\n", "t:3: token 'x': CALL: want a decimal number" },
		{ "kpmc-fold 1\ncounter 0 1 A\ninstance r 4294967296 0 0 100 5\n", "t:3: token '4294967296': TID: out of range" },
		{ "kpmc-fold 1\ncounter 0 1 A\ninstance r 1 0 0 -100 5\n", "t:3: token '-100': DURATION_NS: want a decimal number" },
		{ "kpmc-fold 1\ncounter 0 1 A\ninstance r 1 0 0 100 5 6\n", "t:3: token '6': set 0 has 1 counters, this line gives 2 counts" },
		{ "kpmc-fold 1\ncounter 0 1 A\ninstance r 1 0 1 100 5\n", "t:3: token '1': set 1 has no counter line before this line" },
		{ "kpmc-fold 1\ncounter 0 1 A\ninstance r 1 0 -1 100 5\n", "t:3: token '5': an instance of set -1 has no counts" },
		{ "kpmc-fold 1\ncounter 0 1 A\ninstance r 1 0 0 100 5\ninstance r 1 0 0 100 5\n", "t:4: token '0': instance r tid 1 call 0 already on line 3" },
		{ "kpmc-fold 1\ncounter 0 1 A\ninstance r 1 0 0 100 5\nsample s 1 0 0 10 1\n", "t:4: token 's': no instance line for region s tid 1 call 0" },
		{ "kpmc-fold 1\ncounter 0 1 A\nsample r 1 0 0 101 1\ninstance r 1 0 0 100 5\n", "t:3: token '101': offset past its instance's duration 100 ns (line 4)" },
		{ "kpmc-fold 1\ncounter 0 1 A\ninstance r 1 0 0 100 5\nsample r 1 0 0 10 6\n", "t:4: token '6': A count past its instance's total 5 (line 3)" },
		{ "kpmc-fold 1\ncounter 0 1 A\ncounter 1 1 A\ninstance r 1 0 0 100 5\nsample r 1 0 1 10 1\n", "t:5: token '1': its instance (line 4) was counted by set 0" },
		{ "kpmc-fold 1\ncounter 0 1 A\nsample r 1 0 -1 10 1\n", "t:3: token '-1': SET: want 0 to 3" },
		{ "kpmc-fold 1\ncounter 0 1 A\ninstance r 1 0 0 100 99999999999999999999\n", "t:3: token '99999999999999999999': A: out of range" },
		{ "kpmc-fold 1\n\n", "t:2: token '': empty line" },
		{ "kpmc-fold 1\ncounter 0 1 A\x01\n", "t:2: token 'A\x01': NAME: control character 0x01" },
		{ "", "t:0: empty trace" },
	};
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct kpmc_fold_trace *t = parse_text(cases[i].text, err, sizeof(err));

		if (t)
			fail_msg("case %zu parsed", i);
		if (strncmp(err, cases[i].want, strlen(cases[i].want)))
			fail_msg("case %zu: '%s', want '%s...'", i, err, cases[i].want);
	}
}

static int teardown(void **state)
{
	(void)state;
	free_traces();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_two_phase, teardown),
		cmocka_unit_test_teardown(test_break_inside_bin, teardown),
		cmocka_unit_test_teardown(test_phase_count, teardown),
		cmocka_unit_test_teardown(test_robust_phases, teardown),
		cmocka_unit_test_teardown(test_local_noise, teardown),
		cmocka_unit_test_teardown(test_weighted_first_pass, teardown),
		cmocka_unit_test_teardown(test_min_change, teardown),
		cmocka_unit_test_teardown(test_outliers, teardown),
		cmocka_unit_test_teardown(test_max_samples, teardown),
		cmocka_unit_test_teardown(test_multiplexed, teardown),
		cmocka_unit_test_teardown(test_selection, teardown),
		cmocka_unit_test_teardown(test_parse_errors, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
