// SPDX-License-Identifier: GPL-2.0
/*
 * kpmc fold: a fold trace folded (fold.c) and told as key=value lines on
 * stdout, PREFIX.csv (the fit per bin), PREFIX.points.csv (the folded
 * samples) and PREFIX.svg drawn by gnuplot; with -m, metric expressions
 * over each bin's rates (PREFIX.metrics.csv); with --model, the model
 * (metricmodel.h) evaluated over the folded rates of each bin, stacked in
 * PREFIX.cpi.svg with MIPS on the second axis. Built as the host program
 * kpmc-fold (it needs GSL, which the arm64 guest's CLI goes without);
 * `kpmc fold ARGS` runs it.
 *
 *   kpmc-fold [-r REGION] [-s SET] [--mad K] [--max-samples N] [--bootstrap B]
 *             [--bins N] [--phases P] [--min-phase W] [--min-change C] [--seed S]
 *             [--model FILE] [-m NAME=EXPR]... [-o PREFIX] TRACE
 *
 * Exit status: 0 done, 2 bad options or input (the message names the token),
 * 1 an output could not be written or gnuplot failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "fold.h"
#include "foldtrace.h"
#include "common/gnuplot_quote.h"
#include "metrics/metricexpr.h"
#include "metrics/metricmodel.h"

static const char *prog = "kpmc fold";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kpmc fold [-r REGION] [-s SET] [--mad K] [--max-samples N] [--bootstrap B]\n"
		"                 [--bins N] [--phases P] [--min-phase W] [--min-change C]\n"
		"                 [--seed S] [--model FILE] [-m NAME=EXPR]...\n"
		"                 [-o PREFIX] TRACE\n"
		"  TRACE           a fold trace (libkpmc's; 'kpmc-fold 1' on its first line)\n"
		"  -r REGION       the region to fold (default: the trace's only one)\n"
		"  -s SET          the event set whose instances are folded (default 0)\n"
		"  --mad K         drop instances whose duration is beyond median +- K MAD (default 3)\n"
		"  --max-samples N keep at most N samples, evenly spread (default: all)\n"
		"  --bootstrap B   resamples of the instances for the 90%% band (default 200; 0: none)\n"
		"  --bins N        bins of the region's time (default 50)\n"
		"  --phases P      at most P phases, chosen by a robust BIC (default 4, at most %d)\n"
		"  --min-phase W   no phase narrower than W of the region's time (default 0.02)\n"
		"  --min-change C  neighbouring phases' rates differ by C of the larger at least\n"
		"                  (default 0.05; 0: any change the BIC supports)\n"
		"  --seed S        random seed of the sample choice and the bootstrap (default 1)\n"
		"  -m NAME=EXPR    a metric over each bin's folded rates (counter names as in the\n"
		"                  trace: their rates per second), PREFIX.metrics.csv (repeatable)\n"
		"  --model FILE    a CPI-stack or top-down model (share/kpmc/models) evaluated over\n"
		"                  the folded rates per bin: PREFIX.cpi.csv, PREFIX.cpi.svg\n"
		"  -o PREFIX       write PREFIX.csv, PREFIX.points.csv, PREFIX.svg (default fold)\n"
		"stdout: 'fold', 'excluded', 'counter', 'phase' and 'breakpoint' lines of key=value\n",
		KPMC_FOLD_MAX_PHASES);
}

static int bad(const char *opt, const char *val, const char *want)
{
	fprintf(stderr, "%s: %s '%s': want %s\n", prog, opt, val, want);
	return 2;
}

/* A decimal integer in [min, max], all of it. */
static int parse_ulong(const char *opt, const char *s, unsigned long min, unsigned long max,
		       unsigned long *v)
{
	char *end;
	char want[96];

	snprintf(want, sizeof(want), "an integer from %lu to %lu", min, max);
	if (*s < '0' || *s > '9')
		return bad(opt, s, want);
	errno = 0;
	*v = strtoul(s, &end, 10);
	if (*end || errno || *v < min || *v > max)
		return bad(opt, s, want);
	return 0;
}

/* A CSV field: quoted when it holds a comma or a quote. */
static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static int close_checked(FILE *f, const char *path)
{
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "%s: writing %s: %s\n", prog, path, strerror(errno));
		return 1;
	}
	return 0;
}

static int write_bins_csv(const struct kpmc_fold_result *r, const char *path)
{
	static const char *const cols[] = { "cum", "cum_lo", "cum_hi", "rate_per_s", "rate_lo",
					    "rate_hi", "phase_rate_per_s" };
	FILE *f = fopen(path, "w");
	size_t j;
	unsigned int i, c;

	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return 1;
	}
	fputs("x0,x1", f);
	for (j = 0; j < r->nseries; j++)
		for (c = 0; c < 7; c++) {
			char h[200];

			snprintf(h, sizeof(h), "%s_%s", r->series[j].name, cols[c]);
			fputc(',', f);
			csv_field(f, h);
		}
	fputc('\n', f);
	for (i = 0; i < r->bins; i++) {
		fprintf(f, "%.9g,%.9g", (double)i / r->bins, (double)(i + 1) / r->bins);
		for (j = 0; j < r->nseries; j++) {
			const struct kpmc_fold_series *s = &r->series[j];

			fprintf(f, ",%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g", s->cum[i + 1],
				s->cum_lo[i + 1], s->cum_hi[i + 1], s->rate[i], s->rate_lo[i],
				s->rate_hi[i], s->phase_rate[i]);
		}
		fputc('\n', f);
	}
	return close_checked(f, path);
}

static int write_points_csv(const struct kpmc_fold_result *r, const char *path)
{
	FILE *f = fopen(path, "w");
	size_t j, i;

	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return 1;
	}
	fputs("counter,x,y\n", f);
	for (j = 0; j < r->nseries; j++)
		for (i = 0; i < r->series[j].npoints; i++) {
			csv_field(f, r->series[j].name);
			fprintf(f, ",%.9g,%.9g\n", r->series[j].points[i].x, r->series[j].points[i].y);
		}
	return close_checked(f, path);
}

/*
 * One panel per counter: the folded samples and the fitted cumulative curve
 * (right axis), the rate per bin as steps with its band and the phase
 * model's rate (left axis), the breakpoints as dashed lines.
 */
static void gnuplot_script(FILE *g, const struct kpmc_fold_result *r, const char *prefix,
			   const char *bins_csv, const char *points_csv)
{
	char svg[4096];
	size_t j;
	unsigned int k;

	snprintf(svg, sizeof(svg), "%s.svg", prefix);
	fprintf(g, "set terminal svg size 900,%zu noenhanced font 'sans,10'\nset output ",
		300 * r->nseries + 60);
	gp_quote(g, svg);
	fputs("\nset datafile separator ','\nset multiplot layout ", g);
	fprintf(g, "%zu,1 title ", r->nseries);
	{
		char t[512];

		snprintf(t, sizeof(t), "kpmc fold: region %s, set %d, %zu of %zu instances, %zu samples",
			 r->region, r->set, r->used, r->instances, r->samples);
		gp_quote(g, t);
	}
	fputs("\nset xrange [0:1]\nset xlabel 'region time (fraction)'\n"
	      "set ylabel 'rate per second'\nset y2label 'cumulative fraction'\n"
	      "set yrange [0:*]\nset y2range [0:1]\nset ytics nomirror\nset y2tics 0.25\nset key below horizontal\n"
	      "set style fill transparent solid 0.3 noborder\n", g);
	for (j = 0; j < r->nseries; j++) {
		const struct kpmc_fold_series *s = &r->series[j];
		unsigned int c = 3 + 7 * (unsigned int)j;

		fputs("unset arrow\nset title ", g);
		gp_quote(g, s->name);
		fputc('\n', g);
		for (k = 0; k + 1 < s->nphases; k++)
			fprintf(g, "set arrow from %.9g, graph 0 to %.9g, graph 1 nohead dt 2 lw 1.5 "
				"lc rgb '#c00000'\n", s->phases[k].x1, s->phases[k].x1);
		fputs("plot ", g);
		gp_quote(g, bins_csv);
		fprintf(g, " every ::1 using (($1+$2)/2):%u:%u with filledcurves lc rgb '#6090d0' "
			"title '90%% band', '' every ::1 using (($1+$2)/2):%u with histeps lw 2 "
			"lc rgb '#1040a0' title 'rate', '' every ::1 using (($1+$2)/2):%u with histeps "
			"lw 1.5 lc rgb '#c00000' title 'phases (rate)', ", c + 4, c + 5, c + 3, c + 6);
		gp_quote(g, points_csv);
		fputs(" every ::1 using 2:(strcol(1) eq ", g);
		gp_quote(g, s->name);
		fputs(" ? $3 : NaN) axes x1y2 with points pt 7 ps 0.25 lc rgb '#808080' "
		      "title 'samples (cumulative)', ", g);
		gp_quote(g, bins_csv);
		fprintf(g, " every ::1 using 2:%u axes x1y2 with lines lc rgb '#000000' "
			"title 'fit (cumulative)'\n", c);
	}
	fputs("unset multiplot\nset output\n", g);
}

static int draw_svg(const struct kpmc_fold_result *r, const char *prefix, const char *bins_csv,
		    const char *points_csv)
{
	FILE *g = popen("gnuplot", "w");
	int st;

	if (!g) {
		fprintf(stderr, "%s: cannot run gnuplot: %s\n", prog, strerror(errno));
		return 1;
	}
	gnuplot_script(g, r, prefix, bins_csv, points_csv);
	st = pclose(g);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "%s: gnuplot failed (%s) drawing %s.svg\n", prog,
			st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 127 ? "not installed" :
									    "its errors above",
			prefix);
		return 1;
	}
	return 0;
}

/* ---- --model: a CPI stack over the folded rates ---- */

#define MODEL_MAX_VALUES 64

struct model_bins {
	unsigned int ncomp;		/* level-1 components */
	const char *comp[MODEL_MAX_VALUES];
	double *v;			/* bins x ncomp */
	double *total;			/* bins */
	double *mips;			/* bins; NULL: no instruction counter folded */
};

static int load_model(const char *path, struct kpmc_model *m)
{
	FILE *f = fopen(path, "r");
	char err[512], name[64], *text, *base, *dot;
	size_t len;
	int rc;

	if (!f) {
		fprintf(stderr, "%s: --model %s: %s\n", prog, path, strerror(errno));
		return 2;
	}
	text = malloc(1 << 20);
	len = text ? fread(text, 1, (1 << 20) - 1, f) : 0;
	if (!text || ferror(f) || len == (1 << 20) - 1) {
		fprintf(stderr, "%s: --model %s: %s\n", prog, path,
			text && !ferror(f) ? "larger than 1 MiB" : "cannot read it");
		fclose(f);
		free(text);
		return 2;
	}
	fclose(f);
	text[len] = '\0';
	base = strrchr(path, '/');
	snprintf(name, sizeof(name), "%s", base ? base + 1 : path);
	dot = strrchr(name, '.');
	if (dot && !strcmp(dot, ".model"))
		*dot = '\0';
	rc = kpmc_model_load(m, name, text, path, err, sizeof(err));
	free(text);
	if (rc) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return 2;
	}
	return 0;
}

/* The counter that counts instructions, for MIPS: -1 if none is folded. */
static int instructions_series(const struct kpmc_fold_result *r)
{
	for (size_t j = 0; j < r->nseries; j++) {
		const char *n = r->series[j].name;

		if (!strncmp(n, "INST_RETIRED", 12) || !strcmp(n, "instr") ||
		    !strncmp(n, "instructions", 12))
			return (int)j;
	}
	return -1;
}

/* The model's components in every bin, from the folded rates; 2 if an event is not folded. */
static int eval_model(const struct kpmc_model *m, const struct kpmc_fold_result *r,
		      struct model_bins *mb)
{
	const char *names[64];
	double vals[64];
	struct kpmc_model_value out[MODEL_MAX_VALUES];
	unsigned int i, k, n = r->nseries < 64 ? (unsigned int)r->nseries : 64;
	int inst = instructions_series(r), nv;
	char err[256];

	for (k = 0; k < n; k++)
		names[k] = r->series[k].name;
	mb->v = calloc((size_t)r->bins * MODEL_MAX_VALUES, sizeof(double));
	mb->total = calloc(r->bins, sizeof(double));
	mb->mips = inst >= 0 ? calloc(r->bins, sizeof(double)) : NULL;
	if (!mb->v || !mb->total || (inst >= 0 && !mb->mips)) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	for (i = 0; i < r->bins; i++) {
		for (k = 0; k < n; k++)
			vals[k] = r->series[k].rate[i];
		/* Rates per second: the model's ratios are the same as of counts. */
		nv = kpmc_model_eval_named(m, names, vals, n, NAN, out, MODEL_MAX_VALUES,
					   &mb->total[i], err, sizeof(err));
		if (nv < 0) {
			fprintf(stderr, "%s: --model %s: %s (set %d counts:", prog, m->name, err,
				r->set);
			for (k = 0; k < n; k++)
				fprintf(stderr, " %s", names[k]);
			fprintf(stderr, ")\n");
			return 2;
		}
		mb->ncomp = 0;
		for (k = 0; k < (unsigned int)nv && k < MODEL_MAX_VALUES; k++)
			if (!out[k].parent) {
				mb->comp[mb->ncomp] = out[k].name;
				mb->v[(size_t)i * MODEL_MAX_VALUES + mb->ncomp++] = out[k].value;
			}
		if (mb->mips)
			mb->mips[i] = r->series[inst].rate[i] / 1e6;
	}
	return 0;
}

static int write_model_csv(const struct kpmc_fold_result *r, const struct model_bins *mb,
			   const char *path)
{
	FILE *f = fopen(path, "w");
	unsigned int i, k;

	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return 1;
	}
	fputs("x0,x1,total", f);
	for (k = 0; k < mb->ncomp; k++) {
		fputc(',', f);
		csv_field(f, mb->comp[k]);
	}
	fputs(mb->mips ? ",mips\n" : "\n", f);
	for (i = 0; i < r->bins; i++) {
		fprintf(f, "%.9g,%.9g,%.9g", (double)i / r->bins, (double)(i + 1) / r->bins,
			mb->total[i]);
		for (k = 0; k < mb->ncomp; k++)
			fprintf(f, ",%.9g", mb->v[(size_t)i * MODEL_MAX_VALUES + k]);
		if (mb->mips)
			fprintf(f, ",%.9g", mb->mips[i]);
		fputc('\n', f);
	}
	return close_checked(f, path);
}

/* The stack: component k filled between the sum of those before it and that plus itself. */
static int draw_model_svg(const struct kpmc_fold_result *r, const struct kpmc_model *m,
			  const struct model_bins *mb, const char *prefix, const char *csv)
{
	FILE *g = popen("gnuplot", "w");
	char svg[4096], t[512];
	unsigned int k, j;
	int st;

	if (!g) {
		fprintf(stderr, "%s: cannot run gnuplot: %s\n", prog, strerror(errno));
		return 1;
	}
	snprintf(svg, sizeof(svg), "%s.cpi.svg", prefix);
	fputs("set terminal svg size 900,500 noenhanced font 'sans,10'\nset output ", g);
	gp_quote(g, svg);
	snprintf(t, sizeof(t), "kpmc fold: %s over region %s, set %d", m->name, r->region, r->set);
	fputs("\nset datafile separator ','\nset title ", g);
	gp_quote(g, t);
	fprintf(g, "\nset xrange [0:1]\nset xlabel 'region time (fraction)'\nset ylabel '%s'\n"
		"set key below horizontal\nset style fill solid 0.8 border lc rgb '#404040'\n"
		"set ytics nomirror\n", m->file.unit == KPMC_MUNIT_CPI ? "cycles per instruction" :
		"fraction of slots");
	if (mb->mips)
		fputs("set y2label 'MIPS'\nset y2tics\nset y2range [0:*]\n", g);
	fputs("plot ", g);
	for (k = 0; k < mb->ncomp; k++) {
		fputs(k ? ", '' " : "", g);
		if (!k)
			gp_quote(g, csv);
		fputs(" every ::1 using (($1+$2)/2):(0", g);
		for (j = 0; j < k; j++)
			fprintf(g, "+$%u", 4 + j);
		fputs("):(0", g);
		for (j = 0; j <= k; j++)
			fprintf(g, "+$%u", 4 + j);
		fputs(") with filledcurves title ", g);
		gp_quote(g, mb->comp[k]);
	}
	fputs(mb->ncomp ? ", '' " : "", g);
	if (!mb->ncomp)
		gp_quote(g, csv);
	fputs(" every ::1 using (($1+$2)/2):3 with lines lw 2 lc rgb '#000000' title 'total'", g);
	if (mb->mips)
		fprintf(g, ", '' every ::1 using (($1+$2)/2):%u axes x1y2 with histeps lw 2 "
			"lc rgb '#c00000' title 'MIPS'", 4 + mb->ncomp);
	fputs("\nset output\n", g);
	st = pclose(g);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "%s: gnuplot failed drawing %s\n", prog, svg);
		return 1;
	}
	return 0;
}

/* ---- -m: metric expressions over the folded rates ---- */

#define FOLD_MAX_METRICS 8

/* Variables are folded counters (rates per second); vars[] gets their series indices. */
static int bind_metric(const struct kpmc_metric *m, const struct kpmc_fold_result *r,
		       size_t *vars)
{
	for (unsigned int v = 0; v < kpmc_mexpr_nvars(m->expr); v++) {
		const char *name = kpmc_mexpr_var(m->expr, v);
		size_t j;

		for (j = 0; j < r->nseries && strcmp(r->series[j].name, name); j++)
			;
		if (j == r->nseries) {
			fprintf(stderr, "%s: -m %s: '%s' is not a counter of set %d (", prog, m->name,
				name, r->set);
			for (j = 0; j < r->nseries; j++)
				fprintf(stderr, "%s%s", j ? " " : "", r->series[j].name);
			fprintf(stderr, ")\n");
			return 2;
		}
		vars[v] = j;
	}
	return 0;
}

/* One metric over rate series (rate, or phase_rate when phase) at bin i, or over the means (i < 0). */
static double metric_at(const struct kpmc_metric *m, const struct kpmc_fold_result *r,
			const size_t *vars, long i, int phase)
{
	double vals[KPMC_MEXPR_MAX_VARS];

	for (unsigned int v = 0; v < kpmc_mexpr_nvars(m->expr); v++) {
		const struct kpmc_fold_series *sr = &r->series[vars[v]];

		vals[v] = i < 0 ? sr->mean_rate_per_s : phase ? sr->phase_rate[i] : sr->rate[i];
	}
	return kpmc_mexpr_eval(m->expr, vals);
}

static void free_metrics(struct kpmc_metric *ms, unsigned int n)
{
	for (unsigned int k = 0; k < n; k++)
		kpmc_metric_free(&ms[k]);
}

/* PREFIX.metrics.csv: x0,x1 and per metric its value from the rates and from the phase model. */
static int write_metrics_csv(const struct kpmc_fold_result *r, const struct kpmc_metric *ms,
			     unsigned int n, size_t vars[][KPMC_MEXPR_MAX_VARS], const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return 1;
	}
	fprintf(f, "x0,x1");
	for (unsigned int k = 0; k < n; k++)
		fprintf(f, ",%s,%s_phase", ms[k].name, ms[k].name);
	fputc('\n', f);
	for (unsigned int i = 0; i < r->bins; i++) {
		fprintf(f, "%.9g,%.9g", (double)i / r->bins, (double)(i + 1) / r->bins);
		for (unsigned int k = 0; k < n; k++)
			fprintf(f, ",%.17g,%.17g", metric_at(&ms[k], r, vars[k], i, 0),
				metric_at(&ms[k], r, vars[k], i, 1));
		fputc('\n', f);
	}
	return close_checked(f, path);
}

static void print_result(const struct kpmc_fold_result *r)
{
	size_t i, j;
	unsigned int k;

	printf("fold region=%s set=%d instances=%zu used=%zu excluded=%zu samples=%zu\n", r->region,
	       r->set, r->instances, r->used, r->nexcluded, r->samples);
	for (i = 0; i < r->nexcluded; i++)
		printf("excluded tid=%u call=%llu duration_ns=%llu median_ns=%.0f mad_ns=%.0f\n",
		       r->excluded[i].tid, (unsigned long long)r->excluded[i].call,
		       (unsigned long long)r->excluded[i].duration_ns, r->median_ns, r->mad_ns);
	for (j = 0; j < r->nseries; j++) {
		const struct kpmc_fold_series *s = &r->series[j];

		printf("counter name=%s mean_total=%.9g mean_duration_ns=%.9g mean_rate_per_s=%.9g\n",
		       s->name, s->mean_total, r->mean_duration_ns, s->mean_rate_per_s);
		for (k = 0; k < s->nphases; k++)
			printf("phase counter=%s index=%u x0=%.6f x1=%.6f rate_per_s=%.9g\n", s->name, k,
			       s->phases[k].x0, s->phases[k].x1, s->phases[k].rate_per_s);
		for (k = 0; k + 1 < s->nphases; k++)
			printf("breakpoint counter=%s x=%.6f\n", s->name, s->phases[k].x1);
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "mad", required_argument, NULL, 'K' },
		{ "max-samples", required_argument, NULL, 'N' },
		{ "bootstrap", required_argument, NULL, 'B' },
		{ "bins", required_argument, NULL, 'b' },
		{ "phases", required_argument, NULL, 'P' },
		{ "min-phase", required_argument, NULL, 'W' },
		{ "min-change", required_argument, NULL, 'C' },
		{ "seed", required_argument, NULL, 'S' },
		{ "model", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kpmc_fold_opts o;
	struct kpmc_fold_trace *t = NULL;
	struct kpmc_fold_result *r = NULL;
	const char *region = NULL, *prefix = "fold", *model = NULL;
	char err[512], *bins_csv = NULL, *points_csv = NULL, *model_csv = NULL;
	struct kpmc_model m;
	struct model_bins mb = { 0 };
	unsigned long v, set = 0;
	struct kpmc_metric metrics[FOLD_MAX_METRICS];
	size_t metric_vars[FOLD_MAX_METRICS][KPMC_MEXPR_MAX_VARS];
	char *metrics_csv = NULL;
	unsigned int nmetrics = 0;
	int opt, rc;
	FILE *f;

	kpmc_fold_opts_init(&o);
	/* Run as `kpmc fold ...` (argv[0] "fold") or as kpmc-fold. */
	while ((opt = getopt_long(argc, argv, "r:s:o:m:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			region = optarg;
			break;
		case 's':
			if (parse_ulong("-s", optarg, 0, KPMC_FOLD_MAX_SETS - 1, &set))
				return 2;
			break;
		case 'o':
			if (!*optarg)
				return bad("-o", optarg, "a file name prefix");
			prefix = optarg;
			break;
		case 'K': {
			char *end;

			errno = 0;
			o.mad_k = strtod(optarg, &end);
			if (*end || errno || !(o.mad_k > 0) || !isfinite(o.mad_k) || end == optarg)
				return bad("--mad", optarg, "a positive number");
			break;
		}
		case 'N':
			if (parse_ulong("--max-samples", optarg, 1, 100000000, &v))
				return 2;
			o.max_samples = v;
			break;
		case 'B':
			if (parse_ulong("--bootstrap", optarg, 0, 100000, &v))
				return 2;
			o.bootstrap = (unsigned int)v;
			break;
		case 'b':
			if (parse_ulong("--bins", optarg, 1, 100000, &v))
				return 2;
			o.bins = (unsigned int)v;
			break;
		case 'P':
			if (parse_ulong("--phases", optarg, 1, KPMC_FOLD_MAX_PHASES, &v))
				return 2;
			o.max_phases = (unsigned int)v;
			break;
		case 'W': {
			char *end;

			errno = 0;
			o.min_phase = strtod(optarg, &end);
			if (*end || errno || end == optarg || !(o.min_phase > 0 && o.min_phase <= 0.5))
				return bad("--min-phase", optarg, "a fraction in (0, 0.5]");
			break;
		}
		case 'C': {
			char *end;

			errno = 0;
			o.min_change = strtod(optarg, &end);
			if (*end || errno || end == optarg || !(o.min_change >= 0 && o.min_change <= 1))
				return bad("--min-change", optarg, "a fraction in [0, 1]");
			break;
		}
		case 'S':
			if (parse_ulong("--seed", optarg, 0, ~0UL, &v))
				return 2;
			o.seed = v;
			break;
		case 'M':
			model = optarg;
			break;
		case 'm':
			if (nmetrics == FOLD_MAX_METRICS) {
				fprintf(stderr, "%s: -m: at most %d metrics\n", prog, FOLD_MAX_METRICS);
				free_metrics(metrics, nmetrics);
				return 2;
			}
			if (kpmc_metric_parse(optarg, &metrics[nmetrics], err, sizeof(err))) {
				fprintf(stderr, "%s: -m '%s': %s\n", prog, optarg, err);
				free_metrics(metrics, nmetrics);
				return 2;
			}
			nmetrics++;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "%s: %s\n", prog, optind == argc ? "no TRACE given" : "one TRACE only");
		usage(stderr);
		return 2;
	}
	/* A bad model is refused before the trace is read. */
	if (model && load_model(model, &m))
		return 2;
	rc = 2;
	f = fopen(argv[optind], "r");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, argv[optind], strerror(errno));
		goto out;
	}
	if (kpmc_fold_trace_parse(f, argv[optind], &t, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		fclose(f);
		goto out;
	}
	fclose(f);
	if (kpmc_fold(t, region, (int)set, &o, &r, err, sizeof(err))) {
		fprintf(stderr, "%s: %s: %s\n", prog, argv[optind], err);
		goto out;
	}
	/* The model's and metrics' events must be among the folded counters: checked before any output. */
	if (model && (rc = eval_model(&m, r, &mb)))
		goto out;
	for (unsigned int k = 0; k < nmetrics; k++)
		if ((rc = bind_metric(&metrics[k], r, metric_vars[k])))
			goto out;
	print_result(r);
	for (unsigned int k = 0; k < nmetrics; k++) {
		char v[64];

		kpmc_metric_format_value(metric_at(&metrics[k], r, metric_vars[k], -1, 0), v,
					 sizeof(v));
		printf("metric name=%s mean=%s\n", metrics[k].name, v);
	}
	rc = 1;
	if (asprintf(&bins_csv, "%s.csv", prefix) < 0 ||
	    asprintf(&points_csv, "%s.points.csv", prefix) < 0) {
		fprintf(stderr, "%s: out of memory\n", prog);
		goto out;
	}
	if (fflush(stdout) || write_bins_csv(r, bins_csv) || write_points_csv(r, points_csv) ||
	    draw_svg(r, prefix, bins_csv, points_csv))
		goto out;
	if (model && (asprintf(&model_csv, "%s.cpi.csv", prefix) < 0 ||
		      write_model_csv(r, &mb, model_csv) ||
		      draw_model_svg(r, &m, &mb, prefix, model_csv)))
		goto out;
	if (nmetrics && (asprintf(&metrics_csv, "%s.metrics.csv", prefix) < 0 ||
			 write_metrics_csv(r, metrics, nmetrics, metric_vars, metrics_csv)))
		goto out;
	rc = 0;
out:
	free_metrics(metrics, nmetrics);
	free(metrics_csv);
	if (model)
		kpmc_model_free(&m);
	free(mb.v);
	free(mb.total);
	free(mb.mips);
	free(model_csv);
	free(bins_csv);
	free(points_csv);
	kpmc_fold_result_free(r);
	kpmc_fold_trace_free(t);
	return rc;
}
