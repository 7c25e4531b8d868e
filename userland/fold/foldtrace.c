// SPDX-License-Identifier: GPL-2.0
/*
 * The fold trace's strict parser: every field checked where it is read, every
 * sample tied to its instance once all lines are in (the writer may put them
 * in any order), and any inconsistency refused with the file, the line and
 * the token, since a fold of a half-understood trace would plot nonsense.
 */
#include "foldtrace.h"
#include "common/growarray.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	const char *name;
	unsigned int line;
	char *err;
	size_t errlen;
	struct kpmc_fold_trace *t;
	size_t cap_counters, cap_instances, cap_samples, cap_region, cap_tid, cap_call;
	/* A sample names its instance; kept here until all instances are read. */
	char **sample_region;
	uint32_t *sample_tid;
	uint64_t *sample_call;
};

static int fail(struct parser *p, unsigned int line, const char *token, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (token)
		snprintf(p->err, p->errlen, "%s:%u: token '%.60s': %s", p->name, line, token, why);
	else
		snprintf(p->err, p->errlen, "%s:%u: %s", p->name, line, why);
	return -1;
}

static int oom(struct parser *p)
{
	snprintf(p->err, p->errlen, "%s: out of memory", p->name);
	return -1;
}

/* Room for element n of *arr; on failure the parser's error says so. */
static int grow(struct parser *p, void **arr, size_t *cap, size_t n, size_t size)
{
	return grow_array(arr, cap, n + 1, size, 64) ? oom(p) : 0;
}

/* A decimal number with no sign, no leading '+', no spaces, and that fits. */
static int parse_u64(struct parser *p, const char *tok, const char *what, uint64_t max, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (*tok < '0' || *tok > '9')
		return fail(p, p->line, tok, "%s: want a decimal number", what);
	errno = 0;
	x = strtoull(tok, &end, 10);
	if (*end)
		return fail(p, p->line, tok, "%s: want a decimal number", what);
	if (errno == ERANGE || x > max)
		return fail(p, p->line, tok, "%s: out of range (at most %llu)", what,
			    (unsigned long long)max);
	*v = x;
	return 0;
}

/* An event set of a counter or sample line: 0 .. KPMC_FOLD_MAX_SETS-1. */
static int parse_set(struct parser *p, const char *tok, int allow_rotated, int *set)
{
	uint64_t v;

	if (allow_rotated && !strcmp(tok, "-1")) {
		*set = -1;
		return 0;
	}
	if (*tok == '-')
		return fail(p, p->line, tok, "SET: want 0 to %d%s", KPMC_FOLD_MAX_SETS - 1,
			    allow_rotated ? ", or -1 (sets rotated inside the instance)" : "");
	if (parse_u64(p, tok, "SET", KPMC_FOLD_MAX_SETS - 1, &v))
		return -1;
	*set = (int)v;
	return 0;
}

static int check_name(struct parser *p, const char *tok, const char *what)
{
	const unsigned char *c;

	for (c = (const unsigned char *)tok; *c; c++)
		if (*c < 0x21 || *c == 0x7f)
			return fail(p, p->line, tok, "%s: control character 0x%02x", what, *c);
	return 0;
}

static int counter_line(struct parser *p, char **tok, size_t n)
{
	struct kpmc_fold_trace *t = p->t;
	struct kpmc_fold_set *s;
	struct kpmc_fold_counter *c;
	uint64_t pmc;
	int set;
	size_t i;

	if (n != 4)
		return fail(p, p->line, tok[0], "want 'counter SET PMC NAME' (4 fields), got %zu", n);
	if (parse_set(p, tok[1], 0, &set) || parse_u64(p, tok[2], "PMC", 63, &pmc) ||
	    check_name(p, tok[3], "NAME"))
		return -1;
	s = &t->sets[set];
	for (i = 0; i < s->ncounters; i++) {
		c = &t->counters[s->counter[i]];
		if (c->pmc == pmc)
			return fail(p, p->line, tok[2], "set %d already has a counter pmc%u", set,
				    c->pmc);
		if (!strcmp(c->name, tok[3]))
			return fail(p, p->line, tok[3], "set %d already has a counter named so", set);
	}
	if (s->ncounters == sizeof(s->counter) / sizeof(s->counter[0]))
		return fail(p, p->line, tok[3], "more than %zu counters in set %d",
			    s->ncounters, set);
	if (grow(p, (void **)&t->counters, &p->cap_counters, t->ncounters, sizeof(*t->counters)))
		return -1;
	c = &t->counters[t->ncounters];
	c->set = set;
	c->pmc = (unsigned int)pmc;
	c->name = strdup(tok[3]);
	if (!c->name)
		return oom(p);
	s->counter[s->ncounters++] = t->ncounters++;
	return 0;
}

/* The counts C... of a line of event set set (tok[-2] its SET): one per counter of the set. */
static int counts(struct parser *p, char **tok, size_t n, int set, uint64_t **out)
{
	const struct kpmc_fold_set *s = &p->t->sets[set];
	size_t i;

	if (!s->ncounters)
		return fail(p, p->line, tok[-2], "set %d has no counter line before this line", set);
	if (n != s->ncounters)
		return fail(p, p->line, n > s->ncounters ? tok[s->ncounters] : tok[(long)n - 1],
			    "set %d has %zu counters, this line gives %zu counts", set,
			    s->ncounters, n);
	*out = calloc(n, sizeof(**out));
	if (!*out)
		return oom(p);
	for (i = 0; i < n; i++)
		if (parse_u64(p, tok[i], p->t->counters[s->counter[i]].name, UINT64_MAX, &(*out)[i]))
			return -1;
	return 0;
}

/* The fields both instance and sample lines start with: REGION TID CALL SET. */
static int key_fields(struct parser *p, char **tok, char **region, uint32_t *tid, uint64_t *call,
		      int *set, int allow_rotated)
{
	uint64_t v;

	if (check_name(p, tok[1], "REGION") || parse_u64(p, tok[2], "TID", UINT32_MAX, &v))
		return -1;
	*tid = (uint32_t)v;
	if (parse_u64(p, tok[3], "CALL", UINT64_MAX, call) ||
	    parse_set(p, tok[4], allow_rotated, set))
		return -1;
	*region = strdup(tok[1]);
	return *region ? 0 : oom(p);
}

static int instance_line(struct parser *p, char **tok, size_t n)
{
	struct kpmc_fold_trace *t = p->t;
	struct kpmc_fold_instance *in;

	if (n < 6)
		return fail(p, p->line, tok[0],
			    "want 'instance REGION TID CALL SET DURATION_NS C...', got %zu fields", n);
	if (grow(p, (void **)&t->instances, &p->cap_instances, t->ninstances, sizeof(*in)))
		return -1;
	in = &t->instances[t->ninstances];
	memset(in, 0, sizeof(*in));
	in->line = p->line;
	if (key_fields(p, tok, &in->region, &in->tid, &in->call, &in->set, 1)) {
		free(in->region);
		return -1;
	}
	t->ninstances++;	/* owns region from here: freed with the trace */
	if (parse_u64(p, tok[5], "DURATION_NS", UINT64_MAX, &in->duration_ns))
		return -1;
	if (in->set < 0) {
		if (n > 6)
			return fail(p, p->line, tok[6], "an instance of set -1 has no counts");
		return 0;
	}
	return counts(p, tok + 6, n - 6, in->set, &in->totals);
}

static int sample_line(struct parser *p, char **tok, size_t n)
{
	struct kpmc_fold_trace *t = p->t;
	struct kpmc_fold_sample *s;
	size_t i = t->nsamples;

	if (n < 7)
		return fail(p, p->line, tok[0],
			    "want 'sample REGION TID CALL SET OFFSET_NS C...', got %zu fields", n);
	if (grow(p, (void **)&t->samples, &p->cap_samples, i, sizeof(*s)))
		return -1;
	/* The instance a sample names, kept until all instances are read. */
	if (grow(p, (void **)&p->sample_region, &p->cap_region, i, sizeof(*p->sample_region)) ||
	    grow(p, (void **)&p->sample_tid, &p->cap_tid, i, sizeof(*p->sample_tid)) ||
	    grow(p, (void **)&p->sample_call, &p->cap_call, i, sizeof(*p->sample_call)))
		return -1;
	s = &t->samples[i];
	memset(s, 0, sizeof(*s));
	s->line = p->line;
	p->sample_region[i] = NULL;
	if (key_fields(p, tok, &p->sample_region[i], &p->sample_tid[i], &p->sample_call[i], &s->set,
		       0))
		return -1;
	t->nsamples++;
	if (parse_u64(p, tok[5], "OFFSET_NS", UINT64_MAX, &s->offset_ns))
		return -1;
	return counts(p, tok + 6, n - 6, s->set, &s->cum);
}

/* Splits line at single spaces; an empty field (two spaces, a space at an end) is an error. */
static int split(struct parser *p, char *line, char **tok, size_t max, size_t *n)
{
	char *c = line;

	*n = 0;
	for (;;) {
		char *sp = strchr(c, ' ');

		if (*n == max)
			return fail(p, p->line, c, "more than %zu fields", max);
		tok[(*n)++] = c;
		if (sp)
			*sp = '\0';
		if (!*c)
			return fail(p, p->line, c,
				    "empty field (fields are separated by single spaces)");
		if (!sp)
			return 0;
		c = sp + 1;
	}
}

static int cmp_key(const char *ra, uint32_t ta, uint64_t ca, const char *rb, uint32_t tb,
		   uint64_t cb)
{
	int r = strcmp(ra, rb);

	if (r)
		return r;
	if (ta != tb)
		return ta < tb ? -1 : 1;
	if (ca != cb)
		return ca < cb ? -1 : 1;
	return 0;
}

static const struct kpmc_fold_trace *sort_trace;

static int cmp_instance_idx(const void *a, const void *b)
{
	const struct kpmc_fold_instance *x = &sort_trace->instances[*(const size_t *)a];
	const struct kpmc_fold_instance *y = &sort_trace->instances[*(const size_t *)b];
	int r = cmp_key(x->region, x->tid, x->call, y->region, y->tid, y->call);

	/* Equal keys: the later line second, so that it is the one named. */
	if (!r)
		r = x->line < y->line ? -1 : 1;
	return r;
}

/* Ties samples to instances and checks each against its instance. */
static int link(struct parser *p)
{
	struct kpmc_fold_trace *t = p->t;
	size_t *order, i, j, nreg = 0;

	if (!t->ninstances)
		return 0;
	order = malloc(t->ninstances * sizeof(*order));
	if (!order)
		return oom(p);
	for (i = 0; i < t->ninstances; i++)
		order[i] = i;
	sort_trace = t;
	qsort(order, t->ninstances, sizeof(*order), cmp_instance_idx);
	t->regions = calloc(t->ninstances, sizeof(*t->regions));
	if (!t->regions) {
		free(order);
		return oom(p);
	}
	for (i = 0; i < t->ninstances; i++) {
		const struct kpmc_fold_instance *in = &t->instances[order[i]];

		if (i && !cmp_key(in->region, in->tid, in->call, t->instances[order[i - 1]].region,
				  t->instances[order[i - 1]].tid, t->instances[order[i - 1]].call)) {
			unsigned int first = t->instances[order[i - 1]].line;
			char tok[32];

			snprintf(tok, sizeof(tok), "%llu", (unsigned long long)in->call);
			free(order);
			return fail(p, in->line, tok, "instance %s tid %u call %s already on line %u",
				    in->region, in->tid, tok, first);
		}
		if (!nreg || strcmp(t->regions[nreg - 1], in->region))
			t->regions[nreg++] = in->region;
	}
	t->nregions = nreg;
	for (i = 0; i < t->nsamples; i++) {
		struct kpmc_fold_sample *s = &t->samples[i];
		struct kpmc_fold_instance *in;
		const struct kpmc_fold_set *set = &t->sets[s->set];
		size_t lo = 0, hi = t->ninstances, *grown;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			const struct kpmc_fold_instance *m = &t->instances[order[mid]];

			if (cmp_key(m->region, m->tid, m->call, p->sample_region[i], p->sample_tid[i],
				    p->sample_call[i]) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == t->ninstances ||
		    cmp_key(t->instances[order[lo]].region, t->instances[order[lo]].tid,
			    t->instances[order[lo]].call, p->sample_region[i], p->sample_tid[i],
			    p->sample_call[i])) {
			free(order);
			return fail(p, s->line, p->sample_region[i],
				    "no instance line for region %s tid %u call %llu",
				    p->sample_region[i], p->sample_tid[i],
				    (unsigned long long)p->sample_call[i]);
		}
		s->instance = order[lo];
		in = &t->instances[s->instance];
		if (in->set >= 0 && in->set != s->set) {
			char tok[8];

			snprintf(tok, sizeof(tok), "%d", s->set);
			free(order);
			return fail(p, s->line, tok, "its instance (line %u) was counted by set %d",
				    in->line, in->set);
		}
		if (s->offset_ns > in->duration_ns) {
			char tok[32];

			snprintf(tok, sizeof(tok), "%llu", (unsigned long long)s->offset_ns);
			free(order);
			return fail(p, s->line, tok,
				    "offset past its instance's duration %llu ns (line %u)",
				    (unsigned long long)in->duration_ns, in->line);
		}
		for (j = 0; in->set >= 0 && j < set->ncounters; j++)
			if (s->cum[j] > in->totals[j]) {
				char tok[32];

				snprintf(tok, sizeof(tok), "%llu", (unsigned long long)s->cum[j]);
				free(order);
				return fail(p, s->line, tok,
					    "%s count past its instance's total %llu (line %u)",
					    t->counters[set->counter[j]].name,
					    (unsigned long long)in->totals[j], in->line);
			}
		grown = realloc(in->samples, (in->nsamples + 1) * sizeof(*grown));
		if (!grown) {
			free(order);
			return oom(p);
		}
		in->samples = grown;
		in->samples[in->nsamples++] = i;
	}
	free(order);
	return 0;
}

static int parse_lines(struct parser *p, FILE *f)
{
	char *line = NULL, *tok[80];
	size_t cap = 0, n;
	ssize_t len;
	int rc = 0, seen_version = 0;

	while ((len = getline(&line, &cap, f)) >= 0) {
		p->line++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if ((size_t)len != strlen(line)) {
			rc = fail(p, p->line, NULL, "a NUL byte in the line");
			break;
		}
		if (line[0] == '#')
			continue;
		if (!len) {
			rc = fail(p, p->line, "", "empty line");
			break;
		}
		if (split(p, line, tok, sizeof(tok) / sizeof(tok[0]), &n)) {
			rc = -1;
			break;
		}
		if (!seen_version) {
			if (strcmp(tok[0], "kpmc-fold")) {
				rc = fail(p, p->line, tok[0], "not a fold trace (want 'kpmc-fold 1' first)");
				break;
			}
			if (n != 2 || strcmp(tok[1], "1")) {
				rc = fail(p, p->line, n > 1 ? tok[1] : tok[0],
					  "version not supported (want 'kpmc-fold 1')");
				break;
			}
			seen_version = 1;
			continue;
		}
		if (!strcmp(tok[0], "counter"))
			rc = counter_line(p, tok, n);
		else if (!strcmp(tok[0], "instance"))
			rc = instance_line(p, tok, n);
		else if (!strcmp(tok[0], "sample"))
			rc = sample_line(p, tok, n);
		else
			rc = fail(p, p->line, tok[0],
				  "unknown record (want counter, instance, sample or '#')");
		if (rc)
			break;
	}
	free(line);
	if (!rc && ferror(f))
		rc = fail(p, p->line, NULL, "read error: %s", strerror(errno));
	if (!rc && !seen_version)
		rc = fail(p, p->line, NULL, "empty trace (want 'kpmc-fold 1' first)");
	return rc;
}

int kpmc_fold_trace_parse(FILE *f, const char *name, struct kpmc_fold_trace **out, char *err,
			  size_t errlen)
{
	struct parser p = { .name = name, .err = err, .errlen = errlen };
	size_t i;
	int rc;

	*out = NULL;
	p.t = calloc(1, sizeof(*p.t));
	if (!p.t)
		return oom(&p);
	rc = parse_lines(&p, f);
	if (!rc)
		rc = link(&p);
	for (i = 0; i < p.t->nsamples; i++)
		free(p.sample_region[i]);
	free(p.sample_region);
	free(p.sample_tid);
	free(p.sample_call);
	if (rc) {
		kpmc_fold_trace_free(p.t);
		return -1;
	}
	*out = p.t;
	return 0;
}

void kpmc_fold_trace_free(struct kpmc_fold_trace *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->ncounters; i++)
		free(t->counters[i].name);
	for (i = 0; i < t->ninstances; i++) {
		free(t->instances[i].region);
		free(t->instances[i].totals);
		free(t->instances[i].samples);
	}
	for (i = 0; i < t->nsamples; i++)
		free(t->samples[i].cum);
	free(t->counters);
	free(t->instances);
	free(t->samples);
	free(t->regions);
	free(t);
}
