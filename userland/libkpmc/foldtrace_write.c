// SPDX-License-Identifier: LGPL-2.1
/* The fold trace: counter names, and the lines of instances and samples (foldtrace_write.h). */
#include "foldtrace_write.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"
#include "common/eventspec.h"

/* The next ';'-separated set of *p into buf (NULL at the end); -1 if it does not fit. */
static int next_set(const char **p, char *buf, size_t len)
{
	const char *end = strchr(*p, ';');
	size_t n = end ? (size_t)(end - *p) : strlen(*p);

	if (n >= len)
		return -1;
	memcpy(buf, *p, n);
	buf[n] = '\0';
	*p = end ? end + 1 : NULL;
	return 0;
}

/* The pmcN tokens of a raw set, in their order: how many, slots in slot[]; -1 if malformed. */
static int raw_slots(const char *set, int *slot, int max, char *err, size_t len)
{
	const char *p = set;
	int n = 0;

	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t tl = end ? (size_t)(end - p) : strcspn(p, "\n");
		char *stop;
		unsigned long pmc;

		if (tl > 3 && !strncmp(p, "pmc", 3) && p[3] >= '0' && p[3] <= '9') {
			pmc = strtoul(p + 3, &stop, 10);
			if ((stop != p + tl && *stop != '=') || pmc >= KPMC_MAX_COUNTERS ||
			    n == max) {
				snprintf(err, len, "'%.*s': not a counter of the configuration",
					 (int)tl, p);
				return -1;
			}
			slot[n++] = (int)pmc;
		}
		p = end ? end + 1 : NULL;
	}
	return n;
}

static void set_name(char *dst, const char *name, const char *mode)
{
	char *c;

	/* Room kept for the mode: a name cut short still says which mode it counted. */
	snprintf(dst, KPMC_LIB_FOLD_NAME_MAX, "%.*s%s", KPMC_LIB_FOLD_NAME_MAX - 4, name, mode);
	for (c = dst; *c; c++)
		if (*c == ' ' || *c == '\t' || *c == '\n')
			*c = '_';
}

static const char *mode_of(const struct kpmc_event_spec *e)
{
	if (e->usr < 0)
		return "";
	if (e->usr && e->os)
		return ":uk";
	return e->usr ? ":u" : ":k";
}

int kpmc_lib_fold_counter_names(const char *config, const char *raw,
				struct kpmc_lib_fold_counters *fc, char *err, size_t len)
{
	struct kpmc_event_spec ev[KPMC_MAX_EVENTS];
	char cset[1024], rset[2048], events[1024], tokens[256];
	const char *cp = config, *rp = raw;
	int slot[KPMC_MAX_COUNTERS], n, ne, i;
	char (*name)[KPMC_LIB_FOLD_NAME_MAX];

	memset(fc, 0, sizeof(*fc));
	while (cp && rp) {
		if (fc->nr_sets == KPMC_MAX_SETS) {
			snprintf(err, len, "more than %d event sets", KPMC_MAX_SETS);
			return -1;
		}
		if (next_set(&cp, cset, sizeof(cset)) || next_set(&rp, rset, sizeof(rset))) {
			snprintf(err, len, "configuration too long");
			return -1;
		}
		n = raw_slots(rset, slot, KPMC_MAX_COUNTERS, err, len);
		if (n < 0)
			return -1;
		name = fc->name[fc->nr_sets];
		if (kpmc_config_is_raw(cset)) {
			for (i = 0; i < n; i++)
				snprintf(name[slot[i]], KPMC_LIB_FOLD_NAME_MAX, "pmc%d", slot[i]);
		} else {
			if (kpmc_split_set_tokens(cset, events, sizeof(events), tokens,
						  sizeof(tokens), err, len))
				return -1;
			ne = kpmc_parse_event_list(events, ev, KPMC_MAX_EVENTS, err, len);
			if (ne < 0)
				return -1;
			if (ne != n) {
				snprintf(err, len,
					 "set '%s' has %d events but its raw form '%s' %d counters",
					 cset, ne, rset, n);
				return -1;
			}
			for (i = 0; i < n; i++)
				set_name(name[slot[i]], ev[i].name, mode_of(&ev[i]));
		}
		for (i = 0; i < n; i++)
			fc->mask[fc->nr_sets] |= 1u << slot[i];
		fc->nr_sets++;
	}
	if (cp || rp) {
		snprintf(err, len, "'%s' and its raw form '%s' have different numbers of sets",
			 config, raw);
		return -1;
	}
	return 0;
}

int kpmc_lib_fold_whole_set(const uint64_t *set_ns_begin, const uint64_t *set_ns_end,
			    unsigned int nr, uint64_t run_ns)
{
	unsigned int s;
	int whole = -1;

	for (s = 0; s < nr; s++) {
		uint64_t d = set_ns_end[s] - set_ns_begin[s];

		if (d == run_ns && whole < 0)
			whole = (int)s;
		else if (d)
			return -1;	/* another set ran too */
	}
	return whole;
}

/* The counts of set s's counters in counter-line order (ascending pmcN): " C..." */
static void put_counts(FILE *f, uint32_t mask, const uint64_t *v)
{
	unsigned int c;

	for (c = 0; c < KPMC_MAX_COUNTERS; c++)
		if (mask & (1u << c))
			fprintf(f, " %llu", (unsigned long long)v[c]);
}

/* The samples of region r, to f; how many, or -ENOMEM. */
static long region_samples(FILE *f, const struct kpmc_lib_fold_counters *fc,
			   const struct kpmc_lib_fold_region *r,
			   const struct kpmc_lib_fold_point *pts, size_t npts)
{
	struct kpmc_lib_interval *iv;
	uint64_t cum[KPMC_MAX_COUNTERS];
	size_t i;
	long lines = 0, at;
	unsigned int c;

	if (!r->ninv)
		return 0;
	iv = malloc(r->ninv * sizeof(*iv));
	if (!iv)
		return -ENOMEM;
	for (i = 0; i < r->ninv; i++) {
		iv[i].tid = r->inv[i].tid;
		iv[i].begin = r->inv[i].begin_ns;
		iv[i].end = r->inv[i].end_ns;
		iv[i].call = i;
	}
	kpmc_lib_sort_intervals(iv, r->ninv);
	for (i = 0; i < npts; i++) {
		const struct kpmc_lib_fold_point *p = &pts[i];
		const struct kpmc_lib_fold_inv *v;
		int backwards = 0;
		uint32_t mask;

		if (!p->run_ns)
			continue;
		at = kpmc_lib_find_interval(iv, r->ninv, p->tid, p->run_ns);
		if (at < 0)
			continue;
		v = &r->inv[iv[at].call];
		/* Sets rotated inside it: no totals to put its samples' counts against. */
		if (v->set < 0 || (unsigned int)v->set >= fc->nr_sets)
			continue;
		mask = fc->mask[v->set];
		for (c = 0; c < KPMC_MAX_COUNTERS; c++) {
			cum[c] = p->at[c] - v->begin[c];
			if ((mask & (1u << c)) && (p->at[c] < v->begin[c] || cum[c] > v->total[c]))
				backwards = 1;
		}
		if (p->set != (uint32_t)v->set || backwards) {
			fprintf(f, "# sample of tid %u at %llu ns in %s call %llu: set %u or its "
				"counts do not fit the invocation's\n", p->tid,
				(unsigned long long)p->run_ns,
				r->name, (unsigned long long)iv[at].call, p->set);
			continue;
		}
		fprintf(f, "sample %s %u %llu %d %llu", r->name, p->tid,
			(unsigned long long)iv[at].call, v->set,
			(unsigned long long)(p->run_ns - v->begin_ns));
		put_counts(f, mask, cum);
		fputc('\n', f);
		lines++;
	}
	free(iv);
	return lines;
}

long kpmc_lib_fold_write(FILE *f, const struct kpmc_lib_fold_counters *fc,
			 const struct kpmc_lib_fold_region *regions, size_t nregions,
			 const struct kpmc_lib_fold_point *pts, size_t npts)
{
	size_t r, i;
	unsigned int s, c;
	long lines = 0, n;

	fprintf(f, "kpmc-fold 1\n");
	for (s = 0; s < fc->nr_sets; s++)
		for (c = 0; c < KPMC_MAX_COUNTERS; c++)
			if (fc->mask[s] & (1u << c))
				fprintf(f, "counter %u %u %s\n", s, c, fc->name[s][c]);
	for (r = 0; r < nregions; r++) {
		const struct kpmc_lib_fold_region *g = &regions[r];

		for (i = 0; i < g->ninv; i++) {
			const struct kpmc_lib_fold_inv *v = &g->inv[i];
			int set = v->set >= 0 && (unsigned int)v->set < fc->nr_sets ? v->set : -1;

			fprintf(f, "instance %s %u %zu %d %llu", g->name, v->tid, i, set,
				(unsigned long long)(v->end_ns - v->begin_ns));
			if (set >= 0)
				put_counts(f, fc->mask[set], v->total);
			fputc('\n', f);
			lines++;
		}
		n = region_samples(f, fc, g, pts, npts);
		if (n < 0)
			return n;
		lines += n;
	}
	if (fflush(f) || ferror(f))
		return -EIO;
	return lines;
}
