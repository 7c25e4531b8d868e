/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The kpmc component's native events: the list kpmc -L prints
 * (common/pfm_events.c's kpmc_pfm_list: libpfm4's events of the PMUs
 * present, on arm64 only those PMCEID says some core implements, plus the
 * common events libpfm4 does not name, by their code), each under its name
 * without the PMU prefix (kpmc:::INST_RETIRED). A name not listed that
 * kpmc's encoder takes (a kpmc mnemonic such as instr, a libpfm4 event
 * with a unit mask) is added when first asked for. No PAPI header here.
 */
#ifndef PAPI_KPMC_EVENTS_H
#define PAPI_KPMC_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "papi_kpmc_plan.h"

#define KPMC_PAPI_NAME_LEN	128	/* PAPI_MAX_STR_LEN */
#define KPMC_PAPI_DESCR_LEN	256

struct kpmc_papi_event {
	char name[KPMC_PAPI_NAME_LEN];		/* after kpmc::: */
	char pfm_name[KPMC_PAPI_NAME_LEN];	/* kpmc's encoder's name: PMU::EVENT as listed */
	char descr[KPMC_PAPI_DESCR_LEN];
	int has_code;				/* listed with its code: counted by it when */
	uint64_t code;				/* libpfm4 does not know the name */
	/*
	 * kpmc:::virt:NAME, the active monitoring module's virtual counter
	 * (virt - 1): read from the thread's read() of /proc/kpmc/self, not
	 * counted on the PMU; 0 for a PMU event.
	 */
	unsigned int virt;
};

/*
 * One line of kpmc -L: "PMU::NAME  [0xCODE] DESCRIPTION" (the code on
 * arm64); '#' lines are headings. Into *e: 0, or -1 for a line that names
 * no event.
 */
int kpmc_papi_event_parse(const char *line, struct kpmc_papi_event *e);

/*
 * The list for pmu (the module loaded): 0, or -1 with the reason in err
 * (no memory, or no event at all).
 */
int kpmc_papi_events_load(const struct kpmc_papi_pmu *pmu, char *err, size_t len);
/* Forget the list (the component's shutdown). */
void kpmc_papi_events_free(void);
/* Events known now (listed, and added since). */
unsigned int kpmc_papi_events_count(void);
/* Native event code's event, or NULL. Entries never move once made. */
const struct kpmc_papi_event *kpmc_papi_event(unsigned int code);
/*
 * Unit mask number n (0, 1, ...) of listed event e, as libpfm4's table has
 * it: its name into umask, its description into descr. 0, or -1 past the
 * last (none for an event counted by its code, nor for a name added with
 * its unit masks already).
 */
int kpmc_papi_event_umask(const struct kpmc_papi_event *e, unsigned int n, char *umask, size_t len,
			  char *descr, size_t dlen);

/* A known name's code (listed, or added since): 0, or -1. */
int kpmc_papi_event_find(const char *name, unsigned int *code);

/*
 * A name's code: a known one, or a new entry when kpmc's encoder takes the
 * name. 0, or KPMC_PAPI_PLAN_UNKNOWN (with the encoder's reason in err).
 */
int kpmc_papi_event_lookup(const struct kpmc_papi_pmu *pmu, const char *name, unsigned int *code,
			   char *err, size_t len);

#endif
