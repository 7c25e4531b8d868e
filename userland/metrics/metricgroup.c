// SPDX-License-Identifier: GPL-2.0
/*
 * Group and model files: a strict line parser. Every name an expression uses
 * is bound here, once, to an event, an earlier line or the time, so that an
 * undeclared event is an error at its line rather than a NaN at run time.
 */
#include "metricgroup.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct line_ctx {
	const char *fname;
	unsigned int line;
	char *err;
	size_t len;
};

static int line_fail(const struct line_ctx *c, const char *what)
{
	snprintf(c->err, c->len, "%s:%u: %s", c->fname, c->line, what);
	return -1;
}

static int find_entry(const struct kpmc_mfile *f, const char *name)
{
	for (unsigned int i = 0; i < f->nentries; i++)
		if (!strcmp(f->entries[i].name, name))
			return (int)i;
	return -1;
}

static int find_event(const struct kpmc_mfile *f, const char *name)
{
	for (unsigned int i = 0; i < f->nevents; i++)
		if (!strcmp(f->events[i], name))
			return (int)i;
	return -1;
}

/* A line's name: a letter or '_', then letters, digits, '_', '.'; the length, 0 if none. */
static size_t name_len(const char *s)
{
	size_t n = 0;

	if (!isalpha((unsigned char)s[0]) && s[0] != '_')
		return 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_' || s[n] == '.')
		n++;
	return n;
}

static const char *skip_blank(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/*
 * "NAME = EXPR" (rest) into entry e: compile, bind each name. col: rest's
 * column in the line, for the expression's columns.
 */
static int parse_definition(struct kpmc_mfile *f, struct kpmc_mentry *e, const char *rest,
			    unsigned int col, const struct line_ctx *c)
{
	char msg[400];
	const char *p = rest, *q;
	size_t n = name_len(p);
	unsigned int i;

	if (!n) {
		snprintf(msg, sizeof(msg), "expected a name at column %u, found '%.20s'", col, p);
		return line_fail(c, msg);
	}
	if (n >= sizeof(e->name)) {
		snprintf(msg, sizeof(msg), "name '%.20s...' is too long", p);
		return line_fail(c, msg);
	}
	memcpy(e->name, p, n);
	e->name[n] = '\0';
	if (find_entry(f, e->name) >= 0 || find_event(f, e->name) >= 0 || !strcmp(e->name, "time")) {
		snprintf(msg, sizeof(msg), "'%s' is already defined", e->name);
		return line_fail(c, msg);
	}
	q = skip_blank(p + n);
	if (*q != '=') {
		snprintf(msg, sizeof(msg), "expected '=' after '%s' at column %u, found '%.20s'", e->name,
			 col + (unsigned int)(q - rest), *q ? q : "the end");
		return line_fail(c, msg);
	}
	q++;
	e->expr = kpmc_mexpr_compile(q, col - 1 + (unsigned int)(q - rest), msg, sizeof(msg));
	if (!e->expr)
		return line_fail(c, msg);
	for (i = 0; i < kpmc_mexpr_nvars(e->expr); i++) {
		const char *v = kpmc_mexpr_var(e->expr, i);
		int k;

		if ((k = find_event(f, v)) >= 0) {
			e->src[i] = (struct kpmc_msource){ KPMC_MSRC_EVENT, (unsigned int)k };
		} else if ((k = find_entry(f, v)) >= 0) {
			e->src[i] = (struct kpmc_msource){ KPMC_MSRC_ENTRY, (unsigned int)k };
		} else if (!strcmp(v, "time")) {
			e->src[i] = (struct kpmc_msource){ KPMC_MSRC_TIME, 0 };
			f->uses_time = 1;
		} else {
			snprintf(msg, sizeof(msg),
				 "'%s' in %s's expression is neither a declared event ('event %s') nor a name defined above",
				 v, e->name, v);
			kpmc_mexpr_free(e->expr);
			e->expr = NULL;
			return line_fail(c, msg);
		}
	}
	return 0;
}

static int parse_line(struct kpmc_mfile *f, const char *line, const struct line_ctx *c)
{
	static const struct { const char *word; int model_only, group_only; } words[] = {
		{ "description", 0, 0 }, { "event", 0, 0 }, { "define", 0, 0 }, { "metric", 0, 1 },
		{ "unit", 1, 0 }, { "component", 1, 0 }, { "sub", 1, 0 }, { "total", 1, 0 },
	};
	char msg[400], word[32];
	const char *p = skip_blank(line), *rest;
	size_t n = 0;
	unsigned int w, col;
	struct kpmc_mentry *e;

	if (!*p || *p == '#')
		return 0;
	while (isalpha((unsigned char)p[n]))
		n++;
	snprintf(word, sizeof(word), "%.*s", (int)(n < 31 ? n : 31), p);
	for (w = 0; w < sizeof(words) / sizeof(words[0]); w++)
		if (strlen(words[w].word) == n && !strncmp(words[w].word, p, n))
			break;
	if (!n || w == sizeof(words) / sizeof(words[0]) ||
	    (words[w].model_only && f->kind != KPMC_MFILE_MODEL) ||
	    (words[w].group_only && f->kind != KPMC_MFILE_GROUP)) {
		snprintf(msg, sizeof(msg), "unknown keyword '%.*s' (a %s file has: %s)",
			 (int)strcspn(p, " \t"), p, f->kind == KPMC_MFILE_GROUP ? "group" : "model",
			 f->kind == KPMC_MFILE_GROUP ? "description, event, define, metric" :
			 "description, unit, event, define, component, sub, total");
		return line_fail(c, msg);
	}
	rest = skip_blank(p + n);
	col = (unsigned int)(rest - line) + 1;
	if (rest == p + n && *rest && strcmp(word, "total")) {
		snprintf(msg, sizeof(msg), "unknown keyword '%.*s'", (int)strcspn(p, " \t"), p);
		return line_fail(c, msg);
	}
	if (!strcmp(word, "description")) {
		snprintf(f->description, sizeof(f->description), "%.199s", rest);
		return 0;
	}
	if (!strcmp(word, "unit")) {
		if (!strcmp(rest, "fraction"))
			f->unit = KPMC_MUNIT_FRACTION;
		else if (!strcmp(rest, "cpi"))
			f->unit = KPMC_MUNIT_CPI;
		else {
			snprintf(msg, sizeof(msg), "unit '%.80s': want fraction or cpi", rest);
			return line_fail(c, msg);
		}
		return 0;
	}
	if (!strcmp(word, "event")) {
		struct kpmc_mexpr *x;
		size_t tl = strcspn(rest, " \t");

		if (!*rest)
			return line_fail(c, "'event' wants an event name");
		if (rest[tl] && *skip_blank(rest + tl)) {
			snprintf(msg, sizeof(msg), "one event per line: unexpected '%.80s'", skip_blank(rest + tl));
			return line_fail(c, msg);
		}
		x = kpmc_mexpr_compile(rest, col - 1, msg, sizeof(msg));
		if (!x)
			return line_fail(c, msg);
		if (!kpmc_mexpr_is_name(x) || !strcmp(kpmc_mexpr_var(x, 0), "time")) {
			kpmc_mexpr_free(x);
			snprintf(msg, sizeof(msg), "'%.80s' is not an event name", rest);
			return line_fail(c, msg);
		}
		kpmc_mexpr_free(x);
		if (find_event(f, rest) >= 0 || find_entry(f, rest) >= 0) {
			snprintf(msg, sizeof(msg), "event '%.80s' is declared twice", rest);
			return line_fail(c, msg);
		}
		if (f->nevents == KPMC_MFILE_MAX_EVENTS) {
			snprintf(msg, sizeof(msg), "event '%.80s': at most %d events", rest, KPMC_MFILE_MAX_EVENTS);
			return line_fail(c, msg);
		}
		snprintf(f->events[f->nevents++], KPMC_MEXPR_NAME_LEN, "%.95s", rest);
		return 0;
	}
	if (f->nentries == KPMC_MFILE_MAX_ENTRIES)
		return line_fail(c, "too many definitions");
	e = &f->entries[f->nentries];
	memset(e, 0, sizeof(*e));
	e->line = c->line;
	e->parent = -1;
	if (!strcmp(word, "define"))
		e->kind = KPMC_ME_DEFINE;
	else if (!strcmp(word, "metric"))
		e->kind = KPMC_ME_METRIC;
	else if (!strcmp(word, "component"))
		e->kind = KPMC_ME_COMPONENT;
	else if (!strcmp(word, "total")) {
		char def[600];

		if (f->total >= 0)
			return line_fail(c, "'total' given twice");
		e->kind = KPMC_ME_TOTAL;
		/* "total = EXPR": the entry's name is "total". */
		if (snprintf(def, sizeof(def), "total%s", rest) >= (int)sizeof(def))
			return line_fail(c, "line too long");
		if (parse_definition(f, e, def, col - 5, c))
			return -1;
		f->total = (int)f->nentries++;
		return 0;
	} else {
		/* sub PARENT NAME = EXPR */
		size_t pn = name_len(rest);
		char parent[64];
		int k;

		e->kind = KPMC_ME_SUB;
		snprintf(parent, sizeof(parent), "%.*s", (int)(pn < 63 ? pn : 63), rest);
		k = pn ? find_entry(f, parent) : -1;
		if (k < 0 || f->entries[k].kind != KPMC_ME_COMPONENT) {
			snprintf(msg, sizeof(msg), "sub: '%.*s' is not a component defined above",
				 (int)strcspn(rest, " \t"), rest);
			return line_fail(c, msg);
		}
		e->parent = k;
		rest = skip_blank(rest + pn);
		col = (unsigned int)(rest - line) + 1;
	}
	if (parse_definition(f, e, rest, col, c))
		return -1;
	f->nentries++;
	return 0;
}

int kpmc_mfile_parse(struct kpmc_mfile *f, enum kpmc_mfile_kind kind, const char *text,
		     const char *fname, char *err, size_t len)
{
	struct line_ctx c = { .fname = fname, .err = err, .len = len };
	const char *p = text;
	char line[600];

	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->total = -1;
	while (*p) {
		size_t n = strcspn(p, "\n");

		c.line++;
		if (n >= sizeof(line)) {
			line_fail(&c, "line too long");
			goto bad;
		}
		memcpy(line, p, n);
		line[n] = '\0';
		/* Trailing blanks and a CR (a file edited elsewhere) are no tokens. */
		while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (parse_line(f, line, &c))
			goto bad;
		p += strcspn(p, "\n");
		if (*p)
			p++;
	}
	c.line++;
	if (!f->nevents) {
		line_fail(&c, "no 'event' line: nothing to count");
		goto bad;
	}
	if (kpmc_mfile_next_shown(f, -1) < 0) {
		line_fail(&c, kind == KPMC_MFILE_GROUP ? "no 'metric' line" : "no 'component' line");
		goto bad;
	}
	if (kind == KPMC_MFILE_MODEL && f->unit == KPMC_MUNIT_NONE) {
		line_fail(&c, "no 'unit' line (fraction or cpi)");
		goto bad;
	}
	return 0;
bad:
	kpmc_mfile_free(f);
	return -1;
}

void kpmc_mfile_free(struct kpmc_mfile *f)
{
	for (unsigned int i = 0; i < f->nentries; i++) {
		kpmc_mexpr_free(f->entries[i].expr);
		f->entries[i].expr = NULL;
	}
	f->nentries = 0;
}

void kpmc_mfile_eval(const struct kpmc_mfile *f, const double *events, double secs, double *out)
{
	double vars[KPMC_MEXPR_MAX_VARS];

	for (unsigned int i = 0; i < f->nentries; i++) {
		const struct kpmc_mentry *e = &f->entries[i];

		for (unsigned int v = 0; v < kpmc_mexpr_nvars(e->expr); v++)
			vars[v] = e->src[v].kind == KPMC_MSRC_EVENT ? events[e->src[v].index] :
				  e->src[v].kind == KPMC_MSRC_ENTRY ? out[e->src[v].index] : secs;
		out[i] = kpmc_mexpr_eval(e->expr, vars);
	}
}

int kpmc_mfile_next_shown(const struct kpmc_mfile *f, int after)
{
	for (unsigned int i = (unsigned int)(after + 1); i < f->nentries; i++) {
		enum kpmc_mentry_kind k = f->entries[i].kind;

		if (k == KPMC_ME_METRIC || k == KPMC_ME_COMPONENT || k == KPMC_ME_SUB)
			return (int)i;
	}
	return -1;
}
