// SPDX-License-Identifier: LGPL-2.1
/* A PAPI event set as kpmc's configuration (see papi_kpmc_plan.h). */
#include "papi_kpmc_plan.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <perfmon/pfmlib.h>

#include "common/kpmc_proc.h"
#include "common/pfm_events.h"

static pthread_mutex_t pfm_lock = PTHREAD_MUTEX_INITIALIZER;

void kpmc_papi_pfm_lock(void)
{
	pthread_mutex_lock(&pfm_lock);
}

void kpmc_papi_pfm_unlock(void)
{
	pthread_mutex_unlock(&pfm_lock);
}

int kpmc_papi_pmu_read(struct kpmc_papi_pmu *pmu)
{
	return kpmc_read_layout(KPMC_PROC_INFO, pmu->backend, sizeof(pmu->backend), &pmu->layout);
}

int kpmc_papi_encode(const struct kpmc_papi_pmu *pmu, const char *name, uint64_t *code,
		     char *err, size_t len)
{
	struct kpmc_event_spec spec;
	int ret;

	memset(&spec, 0, sizeof(spec));
	if (strlen(name) >= sizeof(spec.name)) {
		snprintf(err, len, "event name too long: %s", name);
		return KPMC_PAPI_PLAN_UNKNOWN;
	}
	strcpy(spec.name, name);
	spec.usr = spec.os = -1;
	pthread_mutex_lock(&pfm_lock);
	ret = kpmc_pfm_encode(pmu->backend, pmu->layout.pmu, &spec, code, err, len);
	pthread_mutex_unlock(&pfm_lock);
	return ret ? KPMC_PAPI_PLAN_UNKNOWN : KPMC_PAPI_PLAN_OK;
}

void kpmc_papi_pfm_start(const struct kpmc_papi_pmu *pmu)
{
	char err[256];
	uint64_t code;

	kpmc_papi_encode(pmu, "cycles", &code, err, sizeof(err));
	pthread_mutex_lock(&pfm_lock);
	pfm_initialize();
	pthread_mutex_unlock(&pfm_lock);
}

int kpmc_papi_core_pmu(char *name, size_t len, int *id)
{
	pfm_pmu_t p;
	int ret = -1;

	pthread_mutex_lock(&pfm_lock);
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t info = { .size = sizeof(info) };

		if (pfm_get_pmu_info(p, &info) == PFM_SUCCESS && info.is_present &&
		    info.type == PFM_PMU_TYPE_CORE) {
			snprintf(name, len, "%s", info.name);
			*id = (int)p;
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&pfm_lock);
	return ret;
}

/* One kpmc set being filled: its events' specs and codes, and which PAPI event each is. */
struct set_draft {
	unsigned int n;
	unsigned int event[KPMC_MAX_EVENTS];
	struct kpmc_event_spec spec[KPMC_MAX_EVENTS];
	uint64_t code[KPMC_MAX_EVENTS];
	int slot[KPMC_MAX_EVENTS];
};

/* Does the set take one more event? If so it is added, with every counter reassigned. */
static int set_take(const struct kpmc_papi_pmu *pmu, struct set_draft *s, unsigned int event,
		    const struct kpmc_event_spec *spec, uint64_t code, char *err, size_t len)
{
	if (s->n == KPMC_MAX_EVENTS)
		return 0;
	s->event[s->n] = event;
	s->spec[s->n] = *spec;
	s->code[s->n] = code;
	if (kpmc_assign_counters(&pmu->layout, s->code, s->spec, (int)s->n + 1, s->slot, err, len))
		return 0;
	s->n++;
	return 1;
}

/* The sets' raw configurations, ';'-separated, each with its slice of the rotation (kpmc's is per set). */
static int write_config(const struct kpmc_papi_pmu *pmu, const struct set_draft *sets,
			unsigned int nr_sets, unsigned int mux_ms, struct kpmc_papi_plan *plan,
			char *err, size_t len)
{
	size_t used = 0;
	unsigned int s;
	int w;

	plan->config[0] = '\0';
	for (s = 0; s < nr_sets; s++) {
		if (s && used + 1 < sizeof(plan->config))
			plan->config[used++] = ';';
		w = kpmc_raw_config(sets[s].code, sets[s].spec, sets[s].slot, (int)sets[s].n,
				    &pmu->layout, plan->config + used, sizeof(plan->config) - used);
		if (w < 0)
			goto too_long;
		used += (size_t)w;
		if (nr_sets > 1) {
			w = snprintf(plan->config + used, sizeof(plan->config) - used, ",mux=%u",
				     mux_ms ? mux_ms : KPMC_PAPI_DEFAULT_MUX_MS);
			if (w < 0 || (size_t)w >= sizeof(plan->config) - used)
				goto too_long;
			used += (size_t)w;
		}
	}
	return KPMC_PAPI_PLAN_OK;
too_long:
	snprintf(err, len, "kpmc configuration longer than %zu bytes", sizeof(plan->config));
	return KPMC_PAPI_PLAN_TOO_LONG;
}

int kpmc_papi_plan_make(const struct kpmc_papi_pmu *pmu, const struct kpmc_papi_event_ref *ev,
			unsigned int n, int usr, int os, int allow_sets, unsigned int mux_ms,
			struct kpmc_papi_plan *plan, char *err, size_t len)
{
	struct set_draft sets[KPMC_MAX_SETS];
	struct kpmc_event_spec spec;
	unsigned int nr_sets = 0, i, s, k;
	uint64_t code;
	int ret;

	memset(plan, 0, sizeof(*plan));
	if (n > KPMC_PAPI_MAX_EVENTS) {
		snprintf(err, len, "more than %u kpmc events", KPMC_PAPI_MAX_EVENTS);
		return KPMC_PAPI_PLAN_CONFLICT;
	}
	for (i = 0; i < n; i++) {
		memset(&spec, 0, sizeof(spec));
		snprintf(spec.name, sizeof(spec.name), "%s", ev[i].pfm_name);
		spec.usr = usr;
		spec.os = os;
		ret = kpmc_papi_encode(pmu, ev[i].pfm_name, &code, err, len);
		if (ret && !ev[i].has_code)
			return ret;
		if (ret)
			code = ev[i].code;
		for (s = 0; s < nr_sets; s++)
			if (set_take(pmu, &sets[s], i, &spec, code, err, len))
				break;
		if (s < nr_sets)
			continue;
		if (nr_sets && !allow_sets) {
			snprintf(err, len, "'%s' does not fit the %u counters beside the others (multiplex the event set)",
				 ev[i].pfm_name, pmu->layout.nr_counters);
			return KPMC_PAPI_PLAN_CONFLICT;
		}
		if (nr_sets == KPMC_MAX_SETS) {
			snprintf(err, len, "'%s' does not fit: all %d kpmc sets are full",
				 ev[i].pfm_name, KPMC_MAX_SETS);
			return KPMC_PAPI_PLAN_CONFLICT;
		}
		sets[nr_sets].n = 0;
		if (!set_take(pmu, &sets[nr_sets], i, &spec, code, err, len))
			return KPMC_PAPI_PLAN_CONFLICT;	/* no counter counts it at all */
		nr_sets++;
	}
	plan->nr_events = n;
	plan->nr_sets = nr_sets;
	for (s = 0; s < nr_sets; s++) {
		/* A refused try left its slots behind: the set's members assigned again. */
		if (kpmc_assign_counters(&pmu->layout, sets[s].code, sets[s].spec, (int)sets[s].n,
					 sets[s].slot, err, len))
			return KPMC_PAPI_PLAN_CONFLICT;
		for (k = 0; k < sets[s].n; k++) {
			plan->set_of[sets[s].event[k]] = s;
			plan->pmc_of[sets[s].event[k]] = (unsigned int)sets[s].slot[k];
		}
	}
	return write_config(pmu, sets, nr_sets, mux_ms, plan, err, len);
}

int kpmc_papi_plan_add_token(struct kpmc_papi_plan *plan, const char *token)
{
	char out[KPMC_PAPI_CONFIG_LEN];
	const char *set = plan->config, *end;
	size_t used = 0;
	int w;

	do {
		end = strchr(set, ';');
		w = snprintf(out + used, sizeof(out) - used, "%s%.*s,%s", used ? ";" : "",
			     (int)(end ? (size_t)(end - set) : strlen(set)), set, token);
		if (w < 0 || (size_t)w >= sizeof(out) - used)
			return KPMC_PAPI_PLAN_TOO_LONG;
		used += (size_t)w;
		set = end ? end + 1 : NULL;
	} while (set);
	memcpy(plan->config, out, used + 1);
	return KPMC_PAPI_PLAN_OK;
}
