/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * A PAPI event set of kpmc events as kpmc's configuration: each event
 * encoded by kpmc's own event-name code (common/pfm_events.c, libpfm4),
 * the events packed into kpmc event sets (several sets are multiplexed by
 * the kernel), each set's counters assigned and written in the raw
 * /proc/kpmc/config syntax by common/eventspec.c. No PAPI header here: the
 * component maps the outcomes to PAPI's error codes.
 */
#ifndef PAPI_KPMC_PLAN_H
#define PAPI_KPMC_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <uapi/linux/kpmc.h>

#include "common/eventspec.h"

/* Events of one PAPI event set: every counter of every set kpmc can rotate through. */
#define KPMC_PAPI_MAX_EVENTS	(KPMC_MAX_COUNTERS * KPMC_MAX_SETS)
#define KPMC_PAPI_CONFIG_LEN	2048
/* kpmc's default time slice of a set when PAPI asks for none (mux=, ms). */
#define KPMC_PAPI_DEFAULT_MUX_MS	10

/* The PMU as /proc/kpmc/info describes it, read once at the component's start. */
struct kpmc_papi_pmu {
	char backend[64];
	struct kpmc_counter_layout layout;
};

/* What the plan needs of a native event. */
struct kpmc_papi_event_ref {
	const char *pfm_name;	/* what kpmc's encoder takes: a libpfm4 name or a kpmc mnemonic */
	int has_code;		/* the event list gave its code (arm64 events libpfm4 does not name) */
	uint64_t code;
};

struct kpmc_papi_plan {
	unsigned int nr_events;
	unsigned int nr_sets;
	unsigned int set_of[KPMC_PAPI_MAX_EVENTS];	/* the kpmc set counting event i */
	unsigned int pmc_of[KPMC_PAPI_MAX_EVENTS];	/* and its counter there, pmcN */
	char config[KPMC_PAPI_CONFIG_LEN];		/* for /proc/kpmc/config */
};

/* Outcomes of kpmc_papi_plan_make() and kpmc_papi_encode(). */
enum {
	KPMC_PAPI_PLAN_OK = 0,
	KPMC_PAPI_PLAN_UNKNOWN = -1,	/* an event name kpmc cannot encode for this PMU */
	KPMC_PAPI_PLAN_CONFLICT = -2,	/* the events do not fit the counters (or the sets) */
	KPMC_PAPI_PLAN_TOO_LONG = -3,	/* the configuration does not fit its buffer */
};

/* The PMU from /proc/kpmc/info: 0, or -1 when the module reports no usable PMU. */
int kpmc_papi_pmu_read(struct kpmc_papi_pmu *pmu);

/*
 * libpfm4 keeps global state, and PAPI calls the component from any thread:
 * every use of kpmc's libpfm4 code in the component holds this lock.
 */
void kpmc_papi_pfm_lock(void);
void kpmc_papi_pfm_unlock(void);

/*
 * libpfm4 started for the component, at its start. kpmc's encoder starts
 * libpfm4 once, with the table of the module's PMU where the module names
 * one (x86: LIBPFM_FORCE_PMU), and restarts it when it was started
 * otherwise: encoding once here, before PAPI starts perf_event (which uses
 * libpfm4 too), keeps that restart from ever happening under perf_event.
 * PAPI_shutdown() stops libpfm4 (perf_event's shutdown) unknown to kpmc's
 * code: a later start starts it again here (a no-op while it runs).
 */
void kpmc_papi_pfm_start(const struct kpmc_papi_pmu *pmu);

/*
 * The libpfm4 core PMU kpmc names events by (the first present; on x86 the
 * one the module's PMU forced): its name and libpfm4 id, for PAPI's preset
 * table. 0, or -1 when libpfm4 has none.
 */
int kpmc_papi_core_pmu(char *name, size_t len, int *id);

/*
 * An event name's code for kpmc's backend, through kpmc's encoder under
 * the libpfm4 lock. 0, or KPMC_PAPI_PLAN_UNKNOWN with the
 * reason in err.
 */
int kpmc_papi_encode(const struct kpmc_papi_pmu *pmu, const char *name, uint64_t *code,
		     char *err, size_t len);

/*
 * The plan for n events counted in the modes usr/os (0 or 1 each): events
 * fill the first set they fit in; with allow_sets a new set is started when
 * none has room (up to KPMC_MAX_SETS, rotating every mux_ms ms), without it
 * the events must fit one set. KPMC_PAPI_PLAN_* with the reason in err.
 */
int kpmc_papi_plan_make(const struct kpmc_papi_pmu *pmu, const struct kpmc_papi_event_ref *ev,
			unsigned int n, int usr, int os, int allow_sets, unsigned int mux_ms,
			struct kpmc_papi_plan *plan, char *err, size_t len);

/*
 * token (tbs=10, say) added to every set of plan's configuration: set
 * tokens are each set's own. 0, or KPMC_PAPI_PLAN_TOO_LONG.
 */
int kpmc_papi_plan_add_token(struct kpmc_papi_plan *plan, const char *token);

#endif
