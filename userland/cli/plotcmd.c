// SPDX-License-Identifier: GPL-2.0
/*
 * kpmc plot: any metric over time, one line per thread, from records saved
 * with kpmc -w. Each record's metric is its expression over the record's
 * own counts (the counts since the thread's previous record) and time = the
 * record's on-CPU seconds, so "mips=pmc1/time/1e6" is the rate over each
 * interval; x is the thread's on-CPU time so far. The values go to a data
 * file, gnuplot (its svg terminal) draws them from a script written next to
 * the plot.
 */
#define _GNU_SOURCE
#include "plotcmd.h"
#include "common/gnuplot_quote.h"
#include "common/growarray.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "metrics/metricexpr.h"
#include "common/record_format.h"

#define MAX_PLOT_METRICS 8

struct point {
	double t;
	double v[MAX_PLOT_METRICS];
};

struct series {
	uint32_t pid, tid;
	uint64_t run_ns;
	struct point *pts;
	size_t n, cap;
};

struct plot {
	struct kpmc_metric m[MAX_PLOT_METRICS];
	char defs[MAX_PLOT_METRICS][128];
	unsigned int nm;
	struct series *s;
	size_t ns, cap;
};

static void plot_usage(FILE *f)
{
	fprintf(f,
		"usage: kpmc plot [-m NAME=EXPR]... [-o OUT.svg] [-d DATA] TRACE\n"
		"  TRACE      records saved with kpmc -w\n"
		"  -m NAME=EXPR  a metric per record over its counts: pmcN, time (the\n"
		"             record's on-CPU seconds), numbers, + - * / ( ), min max abs\n"
		"             (default: each counter's rate, pmcN/time)\n"
		"  -o OUT.svg the plot (default kpmc-plot.svg); OUT.gp is gnuplot's script\n"
		"  -d DATA    the values gnuplot draws (default OUT.dat): per thread a\n"
		"             block \"# pid P tid T\", rows \"time metric...\"\n");
}

static struct series *thread_series(struct plot *p, uint32_t pid, uint32_t tid)
{
	for (size_t i = 0; i < p->ns; i++)
		if (p->s[i].tid == tid && p->s[i].pid == pid)
			return &p->s[i];
	if (grow_array((void **)&p->s, &p->cap, p->ns + 1, sizeof(*p->s), 16))
		return NULL;
	memset(&p->s[p->ns], 0, sizeof(p->s[0]));
	p->s[p->ns].pid = pid;
	p->s[p->ns].tid = tid;
	return &p->s[p->ns++];
}

static int record_lookup(const char *name, double *value, void *arg)
{
	const struct kpmc_record *rec = arg;
	unsigned int c;
	char tail;

	if (!strcmp(name, "time")) {
		*value = (double)rec->run_ns / 1e9;
		return 0;
	}
	if (sscanf(name, "pmc%u%c", &c, &tail) != 1 || c >= KPMC_MAX_COUNTERS)
		return -1;
	/* A counter the record's set does not have: no point, not a zero. */
	*value = rec->counter_mask & (1u << c) ? (double)rec->counts[c] : NAN;
	return 0;
}

static int add_record(struct plot *p, const struct kpmc_record *rec)
{
	struct series *s;
	struct point pt;
	char err[128];

	if (rec->kind == KPMC_REC_LOST || rec->kind == KPMC_REC_MEM || !rec->counter_mask)
		return 0;
	s = thread_series(p, rec->pid, KPMC_REC_IS_CPU(rec->kind) ? rec->cpu : rec->tid);
	if (!s)
		return -1;
	s->run_ns += rec->run_ns;
	pt.t = (double)s->run_ns / 1e9;
	for (unsigned int i = 0; i < p->nm; i++)
		if (kpmc_mexpr_eval_lookup(p->m[i].expr, record_lookup, (void *)rec, &pt.v[i], err,
					   sizeof(err)))
			pt.v[i] = NAN;
	if (grow_array((void **)&s->pts, &s->cap, s->n + 1, sizeof(*s->pts), 64))
		return -1;
	s->pts[s->n++] = pt;
	return 0;
}

/* Does thread s have a value of metric m to draw? gnuplot refuses a curve of none. */
static int has_values(const struct series *s, unsigned int m)
{
	for (size_t i = 0; i < s->n; i++)
		if (isfinite(s->pts[i].v[m]))
			return 1;
	return 0;
}

static int write_data(const struct plot *p, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, "kpmc plot: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "# kpmc plot: per thread a block (gnuplot index i = thread i); columns: time_s");
	for (unsigned int m = 0; m < p->nm; m++)
		fprintf(f, " %s", p->m[m].name);
	fputc('\n', f);
	for (size_t i = 0; i < p->ns; i++) {
		fprintf(f, "# pid %u tid %u\n", p->s[i].pid, p->s[i].tid);
		for (size_t k = 0; k < p->s[i].n; k++) {
			fprintf(f, "%.17g", p->s[i].pts[k].t);
			/* %.17g: the exact double; NaN is gnuplot's missing point. */
			for (unsigned int m = 0; m < p->nm; m++) {
				if (isfinite(p->s[i].pts[k].v[m]))
					fprintf(f, " %.17g", p->s[i].pts[k].v[m]);
				else
					fprintf(f, " NaN");
			}
			fputc('\n', f);
		}
		fputs("\n\n", f);
	}
	return fclose(f) ? -1 : 0;
}

static int write_script(const struct plot *p, const char *script, const char *svg, const char *data,
			const char *trace)
{
	FILE *f = fopen(script, "w");

	if (!f) {
		fprintf(stderr, "kpmc plot: %s: %s\n", script, strerror(errno));
		return -1;
	}
	fprintf(f, "# kpmc plot of %s: gnuplot %s\n", trace, script);
	fprintf(f, "set terminal svg size 900,%u dynamic enhanced font 'sans,11'\n", 150 + 300 * p->nm);
	fputs("set output ", f);
	gp_quote(f, svg);
	fputs("\nset datafile missing 'NaN'\nset xlabel 'on-CPU time of the thread (s)'\n"
	      "set key outside right\nset grid\nset style data linespoints\n", f);
	if (p->nm > 1)
		fprintf(f, "set multiplot layout %u,1\n", p->nm);
	for (unsigned int m = 0; m < p->nm; m++) {
		int first = 1;

		fputs("set title ", f);
		gp_quote(f, p->defs[m]);
		fputs(" noenhanced\nset ylabel ", f);
		gp_quote(f, p->m[m].name);
		fputs(" noenhanced\nplot ", f);
		for (size_t i = 0; i < p->ns; i++) {
			if (!has_values(&p->s[i], m))
				continue;
			fprintf(f, "%s\\\n  ", first ? "" : ", ");
			gp_quote(f, data);
			fprintf(f, " index %zu using 1:%u title 'tid %u'", i, m + 2, p->s[i].tid);
			first = 0;
		}
		if (first)
			fputs("NaN notitle", f);	/* no thread has a value: an empty frame */
		fputc('\n', f);
	}
	if (p->nm > 1)
		fputs("unset multiplot\n", f);
	return fclose(f) ? -1 : 0;
}

static int run_gnuplot(const char *script)
{
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		perror("kpmc plot: fork");
		return -1;
	}
	if (!pid) {
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		fprintf(stderr, "kpmc plot: cannot run gnuplot: %s (Debian: gnuplot-nox)\n", strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "kpmc plot: gnuplot %s failed\n", script);
		return -1;
	}
	return 0;
}

/* The file name with its extension (if any) replaced by ext. */
static void with_ext(const char *path, const char *ext, char *out, size_t len)
{
	const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
	size_t n = dot && (!slash || dot > slash) ? (size_t)(dot - path) : strlen(path);

	snprintf(out, len, "%.*s%s", (int)n, path, ext);
}

int kpmc_plot_main(int argc, char **argv)
{
	static struct plot p;
	const char *svg = "kpmc-plot.svg", *data = NULL;
	char datab[4096], script[4096], err[300];
	struct kpmc_record rec;
	uint32_t seen = 0;
	int opt, rc = 1;
	FILE *in;

	optind = 1;
	while ((opt = getopt(argc, argv, "+m:o:d:h")) != -1) {
		switch (opt) {
		case 'm':
			if (p.nm == MAX_PLOT_METRICS) {
				fprintf(stderr, "kpmc plot: at most %d metrics (-m)\n", MAX_PLOT_METRICS);
				return 2;
			}
			if (kpmc_metric_parse(optarg, &p.m[p.nm], err, sizeof(err))) {
				fprintf(stderr, "kpmc plot: -m '%s': %s\n", optarg, err);
				return 2;
			}
			/* A trace has counters, not the events -c named: pmcN and time only. */
			for (unsigned int v = 0; v < kpmc_mexpr_nvars(p.m[p.nm].expr); v++) {
				const char *name = kpmc_mexpr_var(p.m[p.nm].expr, v);
				unsigned int c;
				char tail;

				if (strcmp(name, "time") &&
				    (sscanf(name, "pmc%u%c", &c, &tail) != 1 || c >= KPMC_MAX_COUNTERS)) {
					fprintf(stderr,
						"kpmc plot: -m '%s': '%s': a trace's metrics name counters (pmc0 to pmc%d) and time\n",
						optarg, name, KPMC_MAX_COUNTERS - 1);
					return 2;
				}
			}
			snprintf(p.defs[p.nm], sizeof(p.defs[0]), "%.127s", optarg);
			p.nm++;
			break;
		case 'o':
			svg = optarg;
			break;
		case 'd':
			data = optarg;
			break;
		case 'h':
			plot_usage(stdout);
			return 0;
		default:
			plot_usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		plot_usage(stderr);
		return 2;
	}
	in = fopen(argv[optind], "rb");
	if (!in) {
		fprintf(stderr, "kpmc plot: %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	/* Read once to learn the counters (the default metrics), then evaluate. */
	while (fread(&rec, sizeof(rec), 1, in) == 1) {
		if (kpmc_record_check(&rec, err, sizeof(err))) {
			fprintf(stderr, "kpmc plot: %s: %s\n", argv[optind], err);
			goto out;
		}
		if (rec.kind != KPMC_REC_MEM)
			seen |= rec.counter_mask;
	}
	for (unsigned int c = 0; !p.nm && c < KPMC_MAX_COUNTERS; c++) {
		char def[64];

		if (!(seen & (1u << c)) || p.nm == MAX_PLOT_METRICS)
			continue;
		snprintf(def, sizeof(def), "pmc%u_per_s=pmc%u/time", c, c);
		if (kpmc_metric_parse(def, &p.m[p.nm], err, sizeof(err)))
			goto out;
		snprintf(p.defs[p.nm++], sizeof(p.defs[0]), "%.127s", def);
	}
	if (!p.nm) {
		fprintf(stderr, "kpmc plot: %s has no counts\n", argv[optind]);
		goto out;
	}
	rewind(in);
	while (fread(&rec, sizeof(rec), 1, in) == 1)
		if (add_record(&p, &rec)) {
			fprintf(stderr, "kpmc plot: out of memory\n");
			goto out;
		}
	if (!data) {
		with_ext(svg, ".dat", datab, sizeof(datab));
		data = datab;
	}
	with_ext(svg, ".gp", script, sizeof(script));
	if (!strcmp(data, svg) || !strcmp(script, svg) || !strcmp(script, data)) {
		fprintf(stderr, "kpmc plot: the plot, its data and its script need three names (-o %s -d %s)\n",
			svg, data);
		rc = 2;
		goto out;
	}
	if (write_data(&p, data) || write_script(&p, script, svg, data, argv[optind]) ||
	    run_gnuplot(script))
		goto out;
	rc = 0;
out:
	fclose(in);
	for (size_t i = 0; i < p.ns; i++)
		free(p.s[i].pts);
	free(p.s);
	for (unsigned int m = 0; m < p.nm; m++)
		kpmc_metric_free(&p.m[m]);
	return rc;
}
