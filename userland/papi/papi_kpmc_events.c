// SPDX-License-Identifier: LGPL-2.1
/* The kpmc component's native events (see papi_kpmc_events.h). */
#include "papi_kpmc_events.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfmon/pfmlib.h>

#include "common/kpmc_proc.h"
#include "common/pfm_events.h"

/* Room kept past the listed events for names added later: the table never moves. */
#define ADDED_EVENTS_MAX	256

static struct kpmc_papi_event *table;
static unsigned int nr_events, capacity;
/* Additions; readers take nr_events with an acquire load and read entries below it. */
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static const struct kpmc_papi_event *find(const char *name)
{
	unsigned int i, n = kpmc_papi_events_count();

	for (i = 0; i < n; i++)
		if (!strcmp(table[i].name, name))
			return &table[i];
	return NULL;
}

/* Copy at most len - 1 bytes of s[0 .. n) and a NUL. */
static void copy_span(char *dst, size_t len, const char *s, size_t n)
{
	if (n >= len)
		n = len - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

int kpmc_papi_event_parse(const char *line, struct kpmc_papi_event *e)
{
	const char *end, *bare, *p;
	char *code_end;

	memset(e, 0, sizeof(*e));
	if (line[0] == '#' || isspace((unsigned char)line[0]) || !line[0])
		return -1;
	end = line + strcspn(line, " \t\n");
	copy_span(e->pfm_name, sizeof(e->pfm_name), line, (size_t)(end - line));
	bare = strstr(e->pfm_name, "::");
	bare = bare ? bare + 2 : e->pfm_name;
	if (!bare[0])
		return -1;
	snprintf(e->name, sizeof(e->name), "%s", bare);
	for (p = end; *p == ' ' || *p == '\t'; p++)
		;
	if (!strncmp(p, "0x", 2)) {
		e->code = strtoull(p, &code_end, 16);
		if (code_end != p + 2 && (*code_end == ' ' || *code_end == '\n' || !*code_end)) {
			e->has_code = 1;
			for (p = code_end; *p == ' '; p++)
				;
		}
	}
	copy_span(e->descr, sizeof(e->descr), p, strcspn(p, "\n"));
	return 0;
}

/*
 * libpfm4's OS PMUs (perf, perf_raw) name perf_event's events, which only
 * kpmc's perf backend counts: kpmc -L lists them for every backend.
 */
static int counted_by_backend(const struct kpmc_papi_pmu *pmu, const struct kpmc_papi_event *e)
{
	size_t n = strcspn(e->pfm_name, ":");

	if (!strcmp(pmu->backend, "perf") || !strstr(e->pfm_name, "::"))
		return 1;
	return !((n == 4 && !strncmp(e->pfm_name, "perf", n)) ||
		 (n == 8 && !strncmp(e->pfm_name, "perf_raw", n)));
}

/*
 * The active monitoring module's virtual counters, as kpmc:::virt:NAME,
 * where a thread can read them between records (/proc/kpmc/info says so):
 * those of modules whose values add up (schedstats' times and switches).
 * The names are the module's when PAPI starts; another module activated
 * later makes their reads fail.
 */
static void add_virtual_counters(void)
{
	struct kpmc_info info;
	struct kpmc_papi_event *e;
	unsigned int i;

	if (kpmc_info_read(&info) || !info.virt_self_read)
		return;
	for (i = 0; i < KPMC_MAX_VIRT; i++) {
		if (!info.virt_name[i][0])
			continue;
		e = &table[nr_events++];
		memset(e, 0, sizeof(*e));
		snprintf(e->name, sizeof(e->name), "virt:%s", info.virt_name[i]);
		snprintf(e->pfm_name, sizeof(e->pfm_name), "%s", e->name);
		snprintf(e->descr, sizeof(e->descr),
			 "virtual counter virt%u (%s) of kpmc's active monitoring module: the thread's, read from /proc/kpmc/self",
			 i, info.virt_name[i]);
		e->virt = i + 1;
	}
}

int kpmc_papi_events_load(const struct kpmc_papi_pmu *pmu, char *err, size_t len)
{
	struct kpmc_papi_event e;
	char *text = NULL, *line, *save = NULL;
	size_t text_len = 0, lines = 0, i;
	FILE *f = open_memstream(&text, &text_len);

	if (!f) {
		snprintf(err, len, "no memory for kpmc's event list");
		return -1;
	}
	kpmc_papi_pfm_lock();
	kpmc_pfm_list(f, NULL, KPMC_PROC_INFO, "/sys/bus/event_source/devices");
	kpmc_papi_pfm_unlock();
	if (fclose(f) || !text) {
		free(text);
		snprintf(err, len, "no memory for kpmc's event list");
		return -1;
	}
	for (i = 0; i < text_len; i++)
		lines += text[i] == '\n';
	capacity = (unsigned int)lines + KPMC_MAX_VIRT + ADDED_EVENTS_MAX;
	table = calloc(capacity, sizeof(*table));
	if (!table) {
		free(text);
		snprintf(err, len, "no memory for %u kpmc events", capacity);
		return -1;
	}
	/* A name two PMUs' tables share is the first PMU's (libpfm4's order). */
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!kpmc_papi_event_parse(line, &e) && counted_by_backend(pmu, &e) && !find(e.name))
			table[nr_events++] = e;
	free(text);
	add_virtual_counters();
	if (!nr_events) {
		snprintf(err, len, "kpmc lists no event for its %s backend (libpfm4 knows no PMU here?)",
			 pmu->backend);
		return -1;
	}
	return 0;
}

void kpmc_papi_events_free(void)
{
	free(table);
	table = NULL;
	nr_events = capacity = 0;
}

unsigned int kpmc_papi_events_count(void)
{
	return __atomic_load_n(&nr_events, __ATOMIC_ACQUIRE);
}

const struct kpmc_papi_event *kpmc_papi_event(unsigned int code)
{
	return code < kpmc_papi_events_count() ? &table[code] : NULL;
}

int kpmc_papi_event_find(const char *name, unsigned int *code)
{
	const struct kpmc_papi_event *known = find(name);

	if (!known)
		return -1;
	*code = (unsigned int)(known - table);
	return 0;
}

int kpmc_papi_event_lookup(const struct kpmc_papi_pmu *pmu, const char *name, unsigned int *code,
			   char *err, size_t len)
{
	const struct kpmc_papi_event *known = find(name);
	struct kpmc_papi_event *e;
	uint64_t raw;
	int ret;

	if (known) {
		*code = (unsigned int)(known - table);
		return KPMC_PAPI_PLAN_OK;
	}
	ret = kpmc_papi_encode(pmu, name, &raw, err, len);
	if (ret)
		return ret;
	pthread_mutex_lock(&table_lock);
	known = find(name);	/* another thread may have added it meanwhile */
	if (!known && nr_events == capacity) {
		pthread_mutex_unlock(&table_lock);
		snprintf(err, len, "more than %d kpmc events added by name", ADDED_EVENTS_MAX);
		return KPMC_PAPI_PLAN_UNKNOWN;
	}
	if (!known) {
		e = &table[nr_events];
		memset(e, 0, sizeof(*e));
		snprintf(e->name, sizeof(e->name), "%s", name);
		snprintf(e->pfm_name, sizeof(e->pfm_name), "%s", name);
		snprintf(e->descr, sizeof(e->descr), "%s, as kpmc's encoder takes it (code 0x%llx)",
			 name, (unsigned long long)raw);
		__atomic_store_n(&nr_events, nr_events + 1, __ATOMIC_RELEASE);
		known = e;
	}
	*code = (unsigned int)(known - table);
	pthread_mutex_unlock(&table_lock);
	return KPMC_PAPI_PLAN_OK;
}

int kpmc_papi_event_umask(const struct kpmc_papi_event *e, unsigned int n, char *umask, size_t len,
			  char *descr, size_t dlen)
{
	pfm_event_info_t info = { .size = sizeof(info) };
	unsigned int seen = 0;
	int idx, i, ret = -1;

	if (e->has_code || strchr(e->name, ':'))
		return -1;
	kpmc_papi_pfm_lock();
	idx = pfm_find_event(e->pfm_name);
	if (idx >= 0 && pfm_get_event_info(idx, PFM_OS_NONE, &info) == PFM_SUCCESS) {
		for (i = 0; i < info.nattrs && ret; i++) {
			pfm_event_attr_info_t a = { .size = sizeof(a) };

			if (pfm_get_event_attr_info(idx, i, PFM_OS_NONE, &a) != PFM_SUCCESS ||
			    a.type != PFM_ATTR_UMASK || seen++ != n)
				continue;
			snprintf(umask, len, "%s", a.name);
			snprintf(descr, dlen, "%s", a.desc ? a.desc : "");
			ret = 0;
		}
	}
	kpmc_papi_pfm_unlock();
	return ret;
}
