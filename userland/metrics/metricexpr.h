/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Metric expressions (kpmc -m 'ipc=INST_RETIRED:u/CPU_CYCLES:u'): numbers,
 * event names as -c takes them (libpfm4 names with modifiers, pmcN,
 * PMCTrack's mnemonics), + - * /, unary minus, parentheses and the functions
 * min, max, abs; the variable "time" (seconds) where the caller knows it.
 * x/0 is NaN, printed "nan". Compiled once to RPN, evaluated over values the
 * caller gives for the expression's variables. Pure: no I/O.
 */
#ifndef KPMC_METRICEXPR_H
#define KPMC_METRICEXPR_H

#include <stddef.h>

#define KPMC_MEXPR_MAX_VARS	32
#define KPMC_MEXPR_NAME_LEN	96

struct kpmc_mexpr;

/*
 * Compile text. Columns in errors count from col0 + 1 (so a caller that
 * strips "NAME=" can report columns of the whole argument). NULL with the
 * reason in err, naming the token and its column.
 */
struct kpmc_mexpr *kpmc_mexpr_compile(const char *text, unsigned int col0, char *err, size_t len);
void kpmc_mexpr_free(struct kpmc_mexpr *e);

/* The expression's variables (event names, "time", ...), each once, in order of appearance. */
unsigned int kpmc_mexpr_nvars(const struct kpmc_mexpr *e);
const char *kpmc_mexpr_var(const struct kpmc_mexpr *e, unsigned int i);

/* Is the expression one name and nothing else? */
int kpmc_mexpr_is_name(const struct kpmc_mexpr *e);

/* The value, vars[i] being variable i's; NaN where a division by 0 happened. */
double kpmc_mexpr_eval(const struct kpmc_mexpr *e, const double *vars);

/* The value of each variable, from a lookup: 0 with *value, or -1 for an unknown name. */
typedef int (*kpmc_mexpr_lookup_fn)(const char *name, double *value, void *arg);
/* 0 and *value, or -1 with the unknown variable named in err. */
int kpmc_mexpr_eval_lookup(const struct kpmc_mexpr *e, kpmc_mexpr_lookup_fn fn, void *arg,
			   double *value, char *err, size_t len);

/* A named metric: "NAME=EXPR". */
struct kpmc_metric {
	char name[64];
	struct kpmc_mexpr *expr;
};

/* Parse "NAME=EXPR" (NAME: a letter or '_', then letters, digits, '_', '.'). 0, or -1 with err. */
int kpmc_metric_parse(const char *def, struct kpmc_metric *m, char *err, size_t len);
void kpmc_metric_free(struct kpmc_metric *m);

/* A value as kpmc prints metrics: "nan", "inf", a whole number as such, or %.10g. */
void kpmc_metric_format_value(double v, char *out, size_t len);

#endif
