/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Metric group files (share/kpmc/groups/<pmu>/<GROUP>.txt, LIKWID's groups
 * and perf's metric JSON in spirit) and the model files built on the same
 * lines (metricmodel.h). One line each, '#' starts a comment:
 *
 *	description Instructions per cycle, user mode
 *	event INST_RETIRED:u		an event to count (the set: at most 16)
 *	define slots = 4 * CPU_CLK_UNHALTED:THREAD_P	a helper value, not shown
 *	metric ipc = INST_RETIRED:u / CPU_CYCLES:u	(groups) a metric shown
 *	unit fraction | cpi		(models) what the components are in
 *	component retiring = ...	(models) a level-1 part of the stack
 *	sub backend_bound memory_bound = ...	(models) a part of a component
 *	total = CPU_CYCLES / INST_RETIRED	(models) what the components add up to
 *
 * An expression may use the declared events, the names defined on earlier
 * lines, and "time" (seconds). Pure: parses text, no I/O; errors say
 * FILE:LINE: and the token.
 */
#ifndef KPMC_METRICGROUP_H
#define KPMC_METRICGROUP_H

#include <stddef.h>
#include "metricexpr.h"

#define KPMC_MFILE_MAX_EVENTS	16
#define KPMC_MFILE_MAX_ENTRIES	48

enum kpmc_mentry_kind { KPMC_ME_DEFINE, KPMC_ME_METRIC, KPMC_ME_COMPONENT, KPMC_ME_SUB, KPMC_ME_TOTAL };

/* Where an expression's variable comes from. */
struct kpmc_msource {
	enum { KPMC_MSRC_EVENT, KPMC_MSRC_ENTRY, KPMC_MSRC_TIME } kind;
	unsigned int index;
};

struct kpmc_mentry {
	enum kpmc_mentry_kind kind;
	char name[64];
	int parent;		/* KPMC_ME_SUB: its component's entry index */
	unsigned int line;
	struct kpmc_mexpr *expr;
	struct kpmc_msource src[KPMC_MEXPR_MAX_VARS];
};

enum kpmc_mfile_kind { KPMC_MFILE_GROUP, KPMC_MFILE_MODEL };
enum kpmc_munit { KPMC_MUNIT_NONE, KPMC_MUNIT_FRACTION, KPMC_MUNIT_CPI };

struct kpmc_mfile {
	enum kpmc_mfile_kind kind;
	char description[200];
	enum kpmc_munit unit;
	unsigned int nevents;
	char events[KPMC_MFILE_MAX_EVENTS][KPMC_MEXPR_NAME_LEN];
	unsigned int nentries;
	struct kpmc_mentry entries[KPMC_MFILE_MAX_ENTRIES];
	int total;		/* models: the total's entry index, -1: none */
	int uses_time;
};

/*
 * Parse text (a whole file; fname names it in errors) as a group or a
 * model. 0, or -1 with "FILE:LINE: ..." naming the token in err (the file
 * is then freed).
 */
int kpmc_mfile_parse(struct kpmc_mfile *f, enum kpmc_mfile_kind kind, const char *text,
		     const char *fname, char *err, size_t len);
void kpmc_mfile_free(struct kpmc_mfile *f);

/*
 * Every entry's value into out[] (f->nentries of them): events[i] is the
 * count (or rate) of f->events[i], secs the time (NaN if unknown).
 */
void kpmc_mfile_eval(const struct kpmc_mfile *f, const double *events, double secs, double *out);

/* The entries shown: a group's metrics (a model's components and subs); -1 ends. */
int kpmc_mfile_next_shown(const struct kpmc_mfile *f, int after);

#endif
