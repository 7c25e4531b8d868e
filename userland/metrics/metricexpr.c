// SPDX-License-Identifier: GPL-2.0
/*
 * Metric expressions: a recursive-descent parser to RPN, and a stack
 * evaluator. Strict: every error names the token it stopped at and its
 * column, since users type these on a command line and in group files.
 */
#include "metricexpr.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OPS		256
#define MAX_DEPTH	64
#define MAX_ARGS	16

enum op_kind { OP_NUM, OP_VAR, OP_NEG, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MIN, OP_MAX, OP_ABS };

struct op {
	enum op_kind kind;
	double num;		/* OP_NUM */
	unsigned int arg;	/* OP_VAR: variable index; OP_MIN/OP_MAX: argument count */
};

struct kpmc_mexpr {
	struct op ops[MAX_OPS];
	unsigned int nops;
	unsigned int nvars;
	char vars[KPMC_MEXPR_MAX_VARS][KPMC_MEXPR_NAME_LEN];
	unsigned int max_stack;
};

enum tok_kind { T_END, T_NUM, T_IDENT, T_PLUS, T_MINUS, T_STAR, T_SLASH, T_LPAREN, T_RPAREN, T_COMMA };

struct parser {
	const char *s;
	size_t pos;		/* where the next token starts */
	unsigned int col0;
	/* The current token. */
	enum tok_kind kind;
	size_t start, tlen;
	double num;
	/* The previous token's text, for "after 'X'". */
	char prev[KPMC_MEXPR_NAME_LEN];
	struct kpmc_mexpr *e;
	unsigned int depth;
	char *err;
	size_t elen;
	int failed;
};

static void fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	if (p->failed++)
		return;
	va_start(ap, fmt);
	vsnprintf(p->err, p->elen, fmt, ap);
	va_end(ap);
}

static unsigned int column(const struct parser *p, size_t at)
{
	return p->col0 + (unsigned int)at + 1;
}

/* The current token as quoted text: 'INST_RETIRED', or "the end". */
static void tok_text(const struct parser *p, char *out, size_t len)
{
	if (p->kind == T_END)
		snprintf(out, len, "the end");
	else
		snprintf(out, len, "'%.*s'", (int)(p->tlen < 80 ? p->tlen : 80), p->s + p->start);
}

/*
 * Event names: libpfm4 strings ("pmu::EVENT:UMASK:u", "UOPS_ISSUED.ANY:c=1"),
 * mnemonics, pmcN. '=' only inside a modifier (after a ':').
 */
static int ident_char(const char *s, size_t i, size_t start)
{
	unsigned char c = (unsigned char)s[i];

	if (isalnum(c) || c == '_' || c == '.' || c == ':')
		return 1;
	return c == '=' && memchr(s + start, ':', i - start) != NULL &&
	       isalnum((unsigned char)s[i + 1]);
}

static void next(struct parser *p)
{
	const char *s = p->s;
	size_t i = p->pos;

	if (p->kind != T_END || p->start != 0 || p->tlen != 0)
		snprintf(p->prev, sizeof(p->prev), "%.*s", (int)(p->tlen < 80 ? p->tlen : 80),
			 s + p->start);
	while (s[i] == ' ' || s[i] == '\t')
		i++;
	p->start = i;
	if (!s[i]) {
		p->kind = T_END;
		p->tlen = 0;
		p->pos = i;
		return;
	}
	if (isdigit((unsigned char)s[i]) || (s[i] == '.' && isdigit((unsigned char)s[i + 1]))) {
		char *end;
		size_t j;

		p->num = strtod(s + i, &end);
		j = (size_t)(end - s);
		/* "12abc", "1.5.2", "0x10": a number run into a name is a typo, not two tokens. */
		if (ident_char(s, j, i) || s[j] == '.' || (s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X'))) {
			while (s[j] && (ident_char(s, j, i) || s[j] == '.'))
				j++;
			p->kind = T_NUM;
			p->tlen = j - i;
			fail(p, "bad number '%.*s' at column %u", (int)(j - i), s + i, column(p, i));
			p->pos = j;
			return;
		}
		if (!isfinite(p->num)) {
			fail(p, "number '%.*s' at column %u is out of range", (int)(j - i), s + i,
			     column(p, i));
		}
		p->kind = T_NUM;
		p->tlen = j - i;
		p->pos = j;
		return;
	}
	if (isalpha((unsigned char)s[i]) || s[i] == '_') {
		size_t j = i;

		while (s[j] && ident_char(s, j, i))
			j++;
		p->kind = T_IDENT;
		p->tlen = j - i;
		p->pos = j;
		if (p->tlen >= KPMC_MEXPR_NAME_LEN)
			fail(p, "name '%.40s...' at column %u is too long", s + i, column(p, i));
		else if (s[j - 1] == ':')
			fail(p, "'%.*s' at column %u: a modifier is missing after ':'", (int)p->tlen,
			     s + i, column(p, i));
		return;
	}
	p->tlen = 1;
	p->pos = i + 1;
	switch (s[i]) {
	case '+': p->kind = T_PLUS; return;
	case '-': p->kind = T_MINUS; return;
	case '*': p->kind = T_STAR; return;
	case '/': p->kind = T_SLASH; return;
	case '(': p->kind = T_LPAREN; return;
	case ')': p->kind = T_RPAREN; return;
	case ',': p->kind = T_COMMA; return;
	}
	p->kind = T_END;
	if (isprint((unsigned char)s[i]))
		fail(p, "unexpected character '%c' at column %u", s[i], column(p, i));
	else
		fail(p, "unexpected byte 0x%02x at column %u", (unsigned char)s[i], column(p, i));
}

static void emit(struct parser *p, enum op_kind kind, double num, unsigned int arg)
{
	if (p->e->nops == MAX_OPS) {
		fail(p, "expression too long (more than %d operations)", MAX_OPS);
		return;
	}
	p->e->ops[p->e->nops++] = (struct op){ .kind = kind, .num = num, .arg = arg };
}

static unsigned int var_index(struct parser *p, const char *name, size_t len)
{
	struct kpmc_mexpr *e = p->e;
	unsigned int i;

	for (i = 0; i < e->nvars; i++)
		if (strlen(e->vars[i]) == len && !memcmp(e->vars[i], name, len))
			return i;
	if (e->nvars == KPMC_MEXPR_MAX_VARS) {
		fail(p, "too many names (more than %d) at '%.*s'", KPMC_MEXPR_MAX_VARS, (int)len, name);
		return 0;
	}
	memcpy(e->vars[e->nvars], name, len);
	e->vars[e->nvars][len] = '\0';
	return e->nvars++;
}

static void parse_sum(struct parser *p);

/* An operand was due: say what came instead. */
static void want_operand(struct parser *p)
{
	char got[100];

	tok_text(p, got, sizeof(got));
	if (p->prev[0] && p->kind == T_END)
		fail(p, "expected an operand after '%s' at column %u (end of expression)", p->prev,
		     column(p, p->start));
	else if (p->prev[0])
		fail(p, "expected an operand after '%s' but found %s at column %u", p->prev, got,
		     column(p, p->start));
	else
		fail(p, "expected an operand but found %s at column %u", got, column(p, p->start));
}

static void parse_call(struct parser *p, const char *name, size_t len, size_t at)
{
	static const struct { const char *name; enum op_kind op; unsigned int min, max; } fns[] = {
		{ "min", OP_MIN, 2, MAX_ARGS }, { "max", OP_MAX, 2, MAX_ARGS }, { "abs", OP_ABS, 1, 1 },
	};
	unsigned int f, nargs = 0;
	size_t open_at;

	for (f = 0; f < sizeof(fns) / sizeof(fns[0]); f++)
		if (strlen(fns[f].name) == len && !memcmp(fns[f].name, name, len))
			break;
	if (f == sizeof(fns) / sizeof(fns[0])) {
		fail(p, "unknown function '%.*s' at column %u (there are min, max, abs)", (int)len, name,
		     column(p, at));
		return;
	}
	open_at = p->start;
	next(p);	/* '(' */
	for (;;) {
		parse_sum(p);
		if (p->failed)
			return;
		nargs++;
		if (p->kind == T_COMMA) {
			next(p);
			continue;
		}
		if (p->kind == T_RPAREN)
			break;
		if (p->kind == T_END)
			fail(p, "'(' of %.*s at column %u is never closed", (int)len, name,
			     column(p, open_at));
		else
			fail(p, "expected ',' or ')' in %.*s(...) but found '%.*s' at column %u",
			     (int)len, name, (int)p->tlen, p->s + p->start, column(p, p->start));
		return;
	}
	if (nargs < fns[f].min || nargs > fns[f].max) {
		if (fns[f].min == fns[f].max)
			fail(p, "%s() at column %u takes %u argument%s, not %u", fns[f].name,
			     column(p, at), fns[f].min, fns[f].min == 1 ? "" : "s", nargs);
		else
			fail(p, "%s() at column %u takes %u to %u arguments, not %u", fns[f].name,
			     column(p, at), fns[f].min, fns[f].max, nargs);
		return;
	}
	next(p);	/* ')' */
	emit(p, fns[f].op, 0, nargs);
}

static void parse_primary(struct parser *p)
{
	if (p->failed)
		return;
	if (p->depth++ == MAX_DEPTH) {
		fail(p, "expression nested too deeply at column %u", column(p, p->start));
		return;
	}
	switch (p->kind) {
	case T_NUM:
		emit(p, OP_NUM, p->num, 0);
		next(p);
		break;
	case T_IDENT: {
		const char *name = p->s + p->start;
		size_t len = p->tlen, at = p->start;

		next(p);
		if (p->kind == T_LPAREN) {
			parse_call(p, name, len, at);
			break;
		}
		emit(p, OP_VAR, 0, var_index(p, name, len));
		break;
	}
	case T_LPAREN: {
		size_t open_at = p->start;

		next(p);
		parse_sum(p);
		if (p->failed)
			break;
		if (p->kind == T_END) {
			fail(p, "'(' at column %u is never closed", column(p, open_at));
			break;
		}
		if (p->kind != T_RPAREN) {
			fail(p, "expected ')' or an operator but found '%.*s' at column %u",
			     (int)p->tlen, p->s + p->start, column(p, p->start));
			break;
		}
		next(p);
		break;
	}
	case T_MINUS:
		next(p);
		parse_primary(p);
		emit(p, OP_NEG, 0, 0);
		break;
	case T_PLUS:
		next(p);
		parse_primary(p);
		break;
	default:
		want_operand(p);
	}
	p->depth--;
}

static void parse_product(struct parser *p)
{
	parse_primary(p);
	while (!p->failed && (p->kind == T_STAR || p->kind == T_SLASH)) {
		enum op_kind op = p->kind == T_STAR ? OP_MUL : OP_DIV;

		next(p);
		parse_primary(p);
		emit(p, op, 0, 0);
	}
}

static void parse_sum(struct parser *p)
{
	parse_product(p);
	while (!p->failed && (p->kind == T_PLUS || p->kind == T_MINUS)) {
		enum op_kind op = p->kind == T_PLUS ? OP_ADD : OP_SUB;

		next(p);
		parse_product(p);
		emit(p, op, 0, 0);
	}
}

/* The deepest the evaluation stack gets (each op's effect is known). */
static unsigned int stack_need(const struct kpmc_mexpr *e)
{
	unsigned int i, depth = 0, most = 0;

	for (i = 0; i < e->nops; i++) {
		switch (e->ops[i].kind) {
		case OP_NUM:
		case OP_VAR:
			depth++;
			break;
		case OP_NEG:
		case OP_ABS:
			break;
		case OP_MIN:
		case OP_MAX:
			depth -= e->ops[i].arg - 1;
			break;
		default:
			depth--;
		}
		if (depth > most)
			most = depth;
	}
	return most;
}

struct kpmc_mexpr *kpmc_mexpr_compile(const char *text, unsigned int col0, char *err, size_t len)
{
	struct parser p = { .s = text, .col0 = col0, .err = err, .elen = len };

	p.e = calloc(1, sizeof(*p.e));
	if (!p.e) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	next(&p);
	if (p.kind == T_END && !p.failed)
		fail(&p, "empty expression");
	parse_sum(&p);
	if (!p.failed && p.kind != T_END) {
		if (p.kind == T_RPAREN)
			fail(&p, "')' at column %u closes no '('", column(&p, p.start));
		else if (p.kind == T_COMMA)
			fail(&p, "',' at column %u outside a function's arguments", column(&p, p.start));
		else
			fail(&p, "expected an operator but found '%.*s' at column %u", (int)p.tlen,
			     text + p.start, column(&p, p.start));
	}
	if (p.failed) {
		free(p.e);
		return NULL;
	}
	p.e->max_stack = stack_need(p.e);
	return p.e;
}

void kpmc_mexpr_free(struct kpmc_mexpr *e)
{
	free(e);
}

int kpmc_mexpr_is_name(const struct kpmc_mexpr *e)
{
	return e->nops == 1 && e->ops[0].kind == OP_VAR;
}

unsigned int kpmc_mexpr_nvars(const struct kpmc_mexpr *e)
{
	return e->nvars;
}

const char *kpmc_mexpr_var(const struct kpmc_mexpr *e, unsigned int i)
{
	return i < e->nvars ? e->vars[i] : NULL;
}

double kpmc_mexpr_eval(const struct kpmc_mexpr *e, const double *vars)
{
	double stack[MAX_OPS];
	unsigned int i, sp = 0, k;

	for (i = 0; i < e->nops; i++) {
		const struct op *o = &e->ops[i];

		switch (o->kind) {
		case OP_NUM:
			stack[sp++] = o->num;
			break;
		case OP_VAR:
			stack[sp++] = vars[o->arg];
			break;
		case OP_NEG:
			stack[sp - 1] = -stack[sp - 1];
			break;
		case OP_ABS:
			stack[sp - 1] = fabs(stack[sp - 1]);
			break;
		case OP_ADD:
			sp--;
			stack[sp - 1] += stack[sp];
			break;
		case OP_SUB:
			sp--;
			stack[sp - 1] -= stack[sp];
			break;
		case OP_MUL:
			sp--;
			stack[sp - 1] *= stack[sp];
			break;
		case OP_DIV:
			/* Ratio-safe: a metric over nothing counted is undefined, not infinite. */
			sp--;
			stack[sp - 1] = stack[sp] == 0 ? NAN : stack[sp - 1] / stack[sp];
			break;
		case OP_MIN:
		case OP_MAX:
			/* NaN wins: fmin/fmax would hide an undefined argument. */
			for (k = 1; k < o->arg; k++) {
				double a = stack[sp - o->arg], b = stack[sp - o->arg + k];

				if (isnan(a) || isnan(b))
					stack[sp - o->arg] = NAN;
				else
					stack[sp - o->arg] = o->kind == OP_MIN ? (b < a ? b : a) :
								 (b > a ? b : a);
			}
			sp -= o->arg - 1;
			break;
		}
	}
	return sp ? stack[0] : NAN;
}

int kpmc_mexpr_eval_lookup(const struct kpmc_mexpr *e, kpmc_mexpr_lookup_fn fn, void *arg,
			   double *value, char *err, size_t len)
{
	double vars[KPMC_MEXPR_MAX_VARS];
	unsigned int i;

	for (i = 0; i < e->nvars; i++)
		if (fn(e->vars[i], &vars[i], arg)) {
			snprintf(err, len, "unknown name '%s'", e->vars[i]);
			return -1;
		}
	*value = kpmc_mexpr_eval(e, vars);
	return 0;
}

int kpmc_metric_parse(const char *def, struct kpmc_metric *m, char *err, size_t len)
{
	const char *eq = strchr(def, '=');
	size_t n, i;

	memset(m, 0, sizeof(*m));
	if (!eq) {
		snprintf(err, len, "want NAME=EXPRESSION (no '=')");
		return -1;
	}
	n = (size_t)(eq - def);
	while (n && (def[n - 1] == ' ' || def[n - 1] == '\t'))
		n--;
	if (!n) {
		snprintf(err, len, "a metric needs a name before '=' at column %u",
			 (unsigned int)(eq - def) + 1);
		return -1;
	}
	if (n >= sizeof(m->name)) {
		snprintf(err, len, "metric name '%.*s...' is too long (at most %zu characters)", 20, def,
			 sizeof(m->name) - 1);
		return -1;
	}
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)def[i];

		if (!(isalpha(c) || c == '_' || (i && (isdigit(c) || c == '.')))) {
			snprintf(err, len,
				 "bad metric name '%.*s': character '%c' at column %zu (a name is a letter or '_', then letters, digits, '_', '.')",
				 (int)n, def, isprint(c) ? c : '?', i + 1);
			return -1;
		}
	}
	memcpy(m->name, def, n);
	m->expr = kpmc_mexpr_compile(eq + 1, (unsigned int)(eq - def) + 1, err, len);
	return m->expr ? 0 : -1;
}

void kpmc_metric_free(struct kpmc_metric *m)
{
	kpmc_mexpr_free(m->expr);
	m->expr = NULL;
}

void kpmc_metric_format_value(double v, char *out, size_t len)
{
	if (isnan(v))
		snprintf(out, len, "nan");
	else if (isinf(v))
		snprintf(out, len, v > 0 ? "inf" : "-inf");
	else if (fabs(v) < 1e15 && v == (double)(long long)v)
		snprintf(out, len, "%.0f", v == 0 ? 0.0 : v);	/* counts whole; never "-0" */
	else
		snprintf(out, len, "%.10g", v);
}
