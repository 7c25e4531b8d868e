// SPDX-License-Identifier: GPL-2.0
/*
 * kpmc -m/-g: metrics bound to counters. An event in an expression is the
 * counter whose -c event encodes to the same code and privilege modes
 * (libpfm4, as -c), so "instr" and "INST_RETIRED" name the same counter.
 */
#define _GNU_SOURCE
#include "metricbind.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/eventspec.h"
#include "common/pfm_events.h"

static int add_event(struct kpmc_mbind *b, const char *name, char *err, size_t len)
{
	unsigned int i;

	if (!strcmp(name, "time"))
		return 0;
	for (i = 0; i < b->nevents; i++)
		if (!strcmp(b->events[i], name))
			return 0;
	if (b->nevents == KPMC_MBIND_MAX_EVENTS) {
		snprintf(err, len, "more than %d events in the metrics", KPMC_MBIND_MAX_EVENTS);
		return -1;
	}
	snprintf(b->events[b->nevents++], KPMC_MEXPR_NAME_LEN, "%s", name);
	return 0;
}

int kpmc_mbind_add_metric(struct kpmc_mbind *b, const char *def, char *err, size_t len)
{
	struct kpmc_metric *m;

	if (b->nmetrics == KPMC_MBIND_MAX_METRICS) {
		snprintf(err, len, "at most %d metrics (-m)", KPMC_MBIND_MAX_METRICS);
		return -1;
	}
	m = &b->metrics[b->nmetrics];
	if (kpmc_metric_parse(def, m, err, len))
		return -1;
	for (unsigned int i = 0; i < b->nmetrics; i++)
		if (!strcmp(b->metrics[i].name, m->name)) {
			snprintf(err, len, "metric '%s' is given twice", m->name);
			kpmc_metric_free(m);
			return -1;
		}
	for (unsigned int i = 0; i < kpmc_mexpr_nvars(m->expr); i++)
		if (add_event(b, kpmc_mexpr_var(m->expr, i), err, len)) {
			kpmc_metric_free(m);
			return -1;
		}
	b->nmetrics++;
	return 0;
}

static int is_dir(const char *path)
{
	return access(path, X_OK) == 0;
}

void kpmc_share_dir(char *out, size_t len)
{
	static const char *const up[] = { "/../../share/kpmc", "/../../../share/kpmc" };
	const char *env = getenv("KPMC_SHARE");
	char exe[PATH_MAX], try[PATH_MAX + 32];
	ssize_t n;

	if (env && *env) {
		snprintf(out, len, "%s", env);
		return;
	}
	/* Run from the build tree (build/host/kpmc, build/ARCH/bin/kpmc): the sources' files. */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		*strrchr(exe, '/') = '\0';
		if (strstr(exe, "/build/")) {
			for (size_t i = 0; i < sizeof(up) / sizeof(up[0]); i++) {
				snprintf(try, sizeof(try), "%s%s/groups", exe, up[i]);
				if (is_dir(try)) {
					try[strlen(try) - strlen("/groups")] = '\0';
					snprintf(out, len, "%s", try);
					return;
				}
			}
		}
	}
	snprintf(out, len, "/usr/share/kpmc");
}

/*
 * The groups directories for this PMU, most specific first: the core's
 * (arm64: from the MIDR), then its family's.
 */
static int pmu_dirs(const char *info_path, const char **dirs, char *err, size_t len)
{
	struct kpmc_counter_layout l;
	char backend[64];
	unsigned long long midr;
	const char *m;
	int n = 0;

	if (kpmc_read_layout(info_path, backend, sizeof(backend), &l)) {
		snprintf(err, len, "the module reports no usable PMU (%s): name the group as PMU/GROUP or a file",
			 info_path);
		return -1;
	}
	if (!strcmp(backend, "arm64-pmuv3")) {
		m = strstr(l.pmu, "MIDR 0x");
		if (m && sscanf(m, "MIDR 0x%llx", &midr) == 1 && (midr >> 24) == 0x41) {
			if (((midr >> 4) & 0xfff) == 0xd07)
				dirs[n++] = "armv8_cortex_a57";
			else if (((midr >> 4) & 0xfff) == 0xd0c)
				dirs[n++] = "arm_neoverse_n1";
		}
		dirs[n++] = "armv8_pmuv3";
	} else if (!strcmp(backend, "intel")) {
		dirs[n++] = "intel";
	} else if (!strcmp(backend, "amd")) {
		dirs[n++] = "amd_zen";
	} else {
		snprintf(err, len, "no groups for the %s backend: name the group as PMU/GROUP or a file", backend);
		return -1;
	}
	return n;
}

/* A whole (small) file into a new buffer; NULL with the reason in err. */
static char *read_text(const char *path, char *err, size_t len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	if (!f) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return NULL;
	}
	buf = malloc(65536);
	n = buf ? fread(buf, 1, 65535, f) : 0;
	if (buf && (n == 65535 || memchr(buf, '\0', n))) {
		snprintf(err, len, "%s: not a group file (binary or over 64 KiB)", path);
		free(buf);
		buf = NULL;
	} else if (buf) {
		buf[n] = '\0';
	} else {
		snprintf(err, len, "out of memory");
	}
	fclose(f);
	return buf;
}

int kpmc_mbind_add_group(struct kpmc_mbind *b, const char *group, const char *info_path,
			 char *err, size_t len)
{
	char share[PATH_MAX], path[PATH_MAX + 200], *text;
	const char *dirs[4];
	size_t gl = strlen(group);
	struct kpmc_mfile *f;
	int i, n;

	if (b->ngroups == KPMC_MBIND_MAX_GROUPS) {
		snprintf(err, len, "at most %d groups (-g)", KPMC_MBIND_MAX_GROUPS);
		return -1;
	}
	if (!gl || gl > 100 || strstr(group, "..")) {
		snprintf(err, len, "-g '%s': want GROUP, PMU/GROUP or a file PATH.txt", group);
		return -1;
	}
	kpmc_share_dir(share, sizeof(share));
	if (strchr(group, '/') && gl > 4 && !strcmp(group + gl - 4, ".txt")) {
		snprintf(path, sizeof(path), "%s", group);
	} else if (strchr(group, '/')) {
		snprintf(path, sizeof(path), "%s/groups/%s.txt", share, group);
	} else {
		n = pmu_dirs(info_path, dirs, err, len);
		if (n < 0)
			return -1;
		for (i = 0; i < n; i++) {
			snprintf(path, sizeof(path), "%s/groups/%s/%s.txt", share, dirs[i], group);
			if (access(path, R_OK) == 0)
				break;
		}
		if (i == n) {
			snprintf(err, len, "-g %s: no group %s for this PMU (looked in %s/groups/%s%s%s)",
				 group, group, share, dirs[0], n > 1 ? " and " : "", n > 1 ? dirs[1] : "");
			return -1;
		}
	}
	text = read_text(path, err, len);
	if (!text)
		return -1;
	f = &b->groups[b->ngroups];
	n = kpmc_mfile_parse(f, KPMC_MFILE_GROUP, text, path, err, len);
	free(text);
	if (n)
		return -1;
	for (unsigned int e = 0; e < f->nevents; e++)
		if (add_event(b, f->events[e], err, len)) {
			kpmc_mfile_free(f);
			return -1;
		}
	snprintf(b->group_names[b->ngroups++], sizeof(b->group_names[0]), "%.63s", group);
	return 0;
}

int kpmc_mbind_event_list(const struct kpmc_mbind *b, char *out, size_t len, char *err, size_t elen)
{
	size_t used = 0;
	unsigned int i;

	out[0] = '\0';
	for (i = 0; i < b->nevents; i++) {
		int w;

		if (!strncmp(b->events[i], "pmc", 3) && b->events[i][3] >= '0' && b->events[i][3] <= '9') {
			snprintf(err, elen, "'%s' names a counter: give the configuration with -c", b->events[i]);
			return -1;
		}
		w = snprintf(out + used, len - used, "%s%s", used ? "," : "", b->events[i]);
		if (w < 0 || (size_t)w >= len - used) {
			snprintf(err, elen, "the metrics' events do not fit one configuration");
			return -1;
		}
		used += (size_t)w;
	}
	if (!used) {
		snprintf(err, elen, "the metrics name no event");
		return -1;
	}
	return 0;
}

/* An event on a counter: its code and modes (-1 default: user only). */
struct placed {
	uint64_t code;
	int usr, os;
	unsigned int pmc;
};

/* The events of one -c set and their counters (the placement -c itself gets). */
static int place_set(const char *set, const char *backend, const struct kpmc_counter_layout *l,
		     struct placed *p, char *err, size_t len)
{
	char events[1024], tokens[256], buf[1024], *tok, *save = NULL;
	struct kpmc_event_spec ev[KPMC_MAX_EVENTS];
	uint64_t code[KPMC_MAX_EVENTS];
	int slot[KPMC_MAX_EVENTS], n, i;

	if (!kpmc_config_is_raw(set)) {
		if (kpmc_split_set_tokens(set, events, sizeof(events), tokens, sizeof(tokens), err, len))
			return -1;
		n = kpmc_parse_event_list(events, ev, KPMC_MAX_EVENTS, err, len);
		if (n < 0)
			return -1;
		for (i = 0; i < n; i++)
			if (kpmc_pfm_encode(backend, l->pmu, &ev[i], &code[i], err, len))
				return -1;
		if (kpmc_assign_counters(l, code, ev, n, slot, err, len))
			return -1;
		for (i = 0; i < n; i++)
			p[i] = (struct placed){ code[i], ev[i].usr, ev[i].os, (unsigned int)slot[i] };
		return n;
	}
	/* Raw: pmcN[=CODE], usrN=, osN=, umaskN= (AMD's split codes). */
	n = 0;
	snprintf(buf, sizeof(buf), "%s", set);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned int c;
		unsigned long long v = 0;
		int k;

		if (sscanf(tok, "pmc%u", &c) == 1 && c < KPMC_MAX_COUNTERS && n < KPMC_MAX_EVENTS) {
			const char *eq = strchr(tok, '=');

			if (eq)
				v = strtoull(eq + 1, NULL, 0);
			else if (c < l->nr_fixed)
				v = l->fixed_event[c];
			p[n++] = (struct placed){ v, -1, -1, c };
			continue;
		}
		for (k = 0; k < n; k++) {
			if (sscanf(tok, "usr%u=%llu", &c, &v) == 2 && c == p[k].pmc)
				p[k].usr = (int)v;
			else if (sscanf(tok, "os%u=%llu", &c, &v) == 2 && c == p[k].pmc)
				p[k].os = (int)v;
			else if (sscanf(tok, "umask%u=%llx", &c, &v) == 2 && c == p[k].pmc)
				p[k].code |= (v & 0xff) << 12;
		}
	}
	return n;
}

static int modes_equal(int usr_a, int os_a, int usr_b, int os_b)
{
	if (usr_a < 0)
		usr_a = 1, os_a = 0;
	if (usr_b < 0)
		usr_b = 1, os_b = 0;
	return usr_a == usr_b && os_a == os_b;
}

int kpmc_mbind_resolve(struct kpmc_mbind *b, const char *const *sets, int n, const char *info_path,
		       char *err, size_t len)
{
	static struct placed placed[KPMC_MAX_SETS][KPMC_MAX_EVENTS];
	int nplaced[KPMC_MAX_SETS];
	struct kpmc_counter_layout l;
	char backend[64];
	int have_pmu = info_path && !kpmc_read_layout(info_path, backend, sizeof(backend), &l);

	for (int s = 0; s < n && s < KPMC_MAX_SETS && have_pmu; s++) {
		nplaced[s] = place_set(sets[s], backend, &l, placed[s], err, len);
		if (nplaced[s] < 0)
			return -1;
	}
	for (unsigned int i = 0; i < b->nevents; i++) {
		const char *name = b->events[i];
		struct kpmc_event_spec spec;
		uint64_t code;
		unsigned int c;
		char tail;
		int s, k, found = 0;

		if (sscanf(name, "pmc%u%c", &c, &tail) == 1) {
			if (c >= KPMC_MAX_COUNTERS) {
				snprintf(err, len, "'%s': there are counters pmc0 to pmc%d", name,
					 KPMC_MAX_COUNTERS - 1);
				return -1;
			}
			b->set[i] = -1;
			b->pmc[i] = c;
			continue;
		}
		if (!have_pmu) {
			snprintf(err, len, "'%s': without the module's PMU, metrics name counters (pmcN) and time",
				 name);
			return -1;
		}
		if (kpmc_parse_event_list(name, &spec, 1, err, len) != 1 ||
		    kpmc_pfm_encode(backend, l.pmu, &spec, &code, err, len))
			return -1;
		if (l.split_modifiers)
			code &= 0xfffff;	/* event and umask: what raw sets give */
		for (s = 0; s < n && !found; s++)
			for (k = 0; k < nplaced[s] && !found; k++) {
				uint64_t pc = l.split_modifiers ? placed[s][k].code & 0xfffff : placed[s][k].code;

				if (pc == code && modes_equal(spec.usr, spec.os, placed[s][k].usr, placed[s][k].os)) {
					b->set[i] = s;
					b->pmc[i] = placed[s][k].pmc;
					found = 1;
				}
			}
		if (!found) {
			snprintf(err, len, "event '%s' is not counted by any -c set: add it there", name);
			return -1;
		}
	}
	return 0;
}

/* Each event's value for one thread: its count, estimated when sets take turns. */
/* The events' values, and with half non-NULL their 90% half-widths (< 0: not known). */
static void event_values(const struct kpmc_mbind *b, const struct kpmc_thread_total *th, int nsets,
			 double *ev, double *half)
{
	for (unsigned int i = 0; i < b->nevents; i++) {
		int s = b->set[i];
		unsigned int c = b->pmc[i];

		/*
		 * pmcN: the thread's count over its sets, unless one set alone
		 * counted it while sets took turns: then that set's estimate.
		 */
		if (s < 0)
			s = kpmc_thread_only_set(th, c);
		else if (nsets <= 1)
			s = -1;
		if (s < 0) {
			ev[i] = (double)th->counts[c];
			if (half)
				half[i] = 0;
		} else {
			struct kpmc_estimate e;

			kpmc_thread_estimate(th, s, c, &e);
			ev[i] = (double)e.value;
			if (half)
				half[i] = e.half90;
		}
	}
}

struct lookup_arg {
	const struct kpmc_mbind *b;
	const double *ev;
	double secs;
};

static int lookup(const char *name, double *value, void *arg)
{
	const struct lookup_arg *a = arg;

	if (!strcmp(name, "time")) {
		*value = a->secs;
		return 0;
	}
	for (unsigned int i = 0; i < a->b->nevents; i++)
		if (!strcmp(a->b->events[i], name)) {
			*value = a->ev[i];
			return 0;
		}
	return -1;
}

/* The columns' values from the events' values. */
static unsigned int metric_values(const struct kpmc_mbind *b, const double *ev, double secs,
				  double *out, unsigned int max)
{
	struct lookup_arg a = { b, ev, secs };
	unsigned int n = 0;
	char err[128];

	for (unsigned int m = 0; m < b->nmetrics && n < max; m++)
		if (kpmc_mexpr_eval_lookup(b->metrics[m].expr, lookup, &a, &out[n++], err, sizeof(err)))
			out[n - 1] = NAN;
	for (unsigned int g = 0; g < b->ngroups; g++) {
		const struct kpmc_mfile *f = &b->groups[g];
		double gev[KPMC_MFILE_MAX_EVENTS], vals[KPMC_MFILE_MAX_ENTRIES];

		for (unsigned int e = 0; e < f->nevents; e++)
			if (lookup(f->events[e], &gev[e], &a))
				gev[e] = NAN;
		kpmc_mfile_eval(f, gev, secs, vals);
		for (int i = kpmc_mfile_next_shown(f, -1); i >= 0 && n < max; i = kpmc_mfile_next_shown(f, i))
			out[n++] = vals[i];
	}
	return n;
}

unsigned int kpmc_mbind_values(const struct kpmc_mbind *b, const struct kpmc_thread_total *th,
			       int nsets, double *out, unsigned int max)
{
	double ev[KPMC_MBIND_MAX_EVENTS];

	event_values(b, th, nsets, ev, NULL);
	return metric_values(b, ev, (double)th->run_ns / 1e9, out, max);
}

unsigned int kpmc_mbind_bars(const struct kpmc_mbind *b, const struct kpmc_thread_total *th,
			     int nsets, double *out, double *half, unsigned int max)
{
	double ev[KPMC_MBIND_MAX_EVENTS], eh[KPMC_MBIND_MAX_EVENTS], moved[KPMC_MBIND_MAX_EVENTS];
	double v[KPMC_MBIND_MAX_METRICS * (KPMC_MBIND_MAX_GROUPS + 1)];
	double secs = (double)th->run_ns / 1e9;
	unsigned int n, i, m;

	if (max > sizeof(v) / sizeof(v[0]))
		max = sizeof(v) / sizeof(v[0]);
	event_values(b, th, nsets, ev, eh);
	n = metric_values(b, ev, secs, out, max);
	for (m = 0; m < n; m++)
		half[m] = 0;
	for (i = 0; i < b->nevents; i++) {
		if (eh[i] == 0)
			continue;
		/*
		 * Each metric moved by one event's half-width, the others' held:
		 * the moves added in quadrature. An event without a bar is moved
		 * by its own value to find the metrics that use it: those have none.
		 */
		memcpy(moved, ev, sizeof(ev[0]) * b->nevents);
		moved[i] += eh[i] > 0 ? eh[i] : (ev[i] != 0 ? ev[i] : 1);
		metric_values(b, moved, secs, v, n);
		for (m = 0; m < n; m++) {
			double d = v[m] - out[m];

			if (eh[i] > 0)
				half[m] += d * d;
			else if (d != 0 && !(isnan(v[m]) && isnan(out[m])))
				half[m] = NAN;
		}
	}
	for (m = 0; m < n; m++)
		half[m] = sqrt(half[m]);
	return n;
}

static void print_row(FILE *out, const char *pid, const char *tid, const double *v, unsigned int n,
		      const int *width)
{
	char cell[64];

	fprintf(out, "%7s %7s", pid, tid);
	for (unsigned int i = 0; i < n; i++) {
		kpmc_metric_format_value(v[i], cell, sizeof(cell));
		fprintf(out, " %*s", width[i], cell);
	}
	fputc('\n', out);
}

void kpmc_mbind_print(const struct kpmc_mbind *b, const struct kpmc_totals *t, int nsets, FILE *out)
{
	int width[KPMC_MBIND_MAX_METRICS * (KPMC_MBIND_MAX_GROUPS + 1)];
	double v[KPMC_MBIND_MAX_METRICS * (KPMC_MBIND_MAX_GROUPS + 1)];
	const char *names[KPMC_MBIND_MAX_METRICS * (KPMC_MBIND_MAX_GROUPS + 1)];
	unsigned int n = 0, max = sizeof(v) / sizeof(v[0]);
	char pid[16], tid[16];

	for (unsigned int m = 0; m < b->nmetrics; m++)
		names[n++] = b->metrics[m].name;
	for (unsigned int g = 0; g < b->ngroups; g++)
		for (int i = kpmc_mfile_next_shown(&b->groups[g], -1); i >= 0 && n < max;
		     i = kpmc_mfile_next_shown(&b->groups[g], i))
			names[n++] = b->groups[g].entries[i].name;
	fputs("[Metrics]\n", out);
	fprintf(out, "%7s %7s", "pid", "tid");
	for (unsigned int i = 0; i < n; i++) {
		width[i] = strlen(names[i]) > 14 ? (int)strlen(names[i]) : 14;
		fprintf(out, " %*s", width[i], names[i]);
	}
	fputc('\n', out);
	for (size_t i = 0; i < t->nr; i++) {
		snprintf(pid, sizeof(pid), "%u", t->threads[i].pid);
		snprintf(tid, sizeof(tid), "%u", t->threads[i].tid);
		kpmc_mbind_values(b, &t->threads[i], nsets, v, n);
		print_row(out, pid, tid, v, n, width);
	}
	/* Per process: the threads' event values and times added, then the metrics. */
	for (size_t i = 0; i < t->nr; i++) {
		double ev[KPMC_MBIND_MAX_EVENTS] = { 0 }, one[KPMC_MBIND_MAX_EVENTS], secs = 0;
		size_t j;

		for (j = 0; j < i && t->threads[j].pid != t->threads[i].pid; j++)
			;
		if (j < i)
			continue;
		for (j = i; j < t->nr; j++) {
			if (t->threads[j].pid != t->threads[i].pid)
				continue;
			event_values(b, &t->threads[j], nsets, one, NULL);
			for (unsigned int e = 0; e < b->nevents; e++)
				ev[e] += one[e];
			secs += (double)t->threads[j].run_ns / 1e9;
		}
		snprintf(pid, sizeof(pid), "%u", t->threads[i].pid);
		metric_values(b, ev, secs, v, n);
		print_row(out, pid, "total", v, n, width);
	}
}

void kpmc_mbind_free(struct kpmc_mbind *b)
{
	for (unsigned int i = 0; i < b->nmetrics; i++)
		kpmc_metric_free(&b->metrics[i]);
	for (unsigned int i = 0; i < b->ngroups; i++)
		kpmc_mfile_free(&b->groups[i]);
	memset(b, 0, sizeof(*b));
}
