// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE	/* strcasestr */
#include "pfm_events.h"

#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include <perfmon/pfmlib.h>
#include <perfmon/pfmlib_perf_event.h>

/*
 * Start libpfm4 with the table of pmu (NULL: the PMUs it detects). It only
 * detects the machine it runs on, and not every PMU there (VMs, newer
 * models): LIBPFM_FORCE_PMU makes it take the one the module reported. A
 * LIBPFM_FORCE_PMU the user set wins.
 */
static int pfm_ready(const char *pmu, char *err, size_t len)
{
	static int done, status, forced;
	static char active[64];

	if (pmu && !forced && getenv("LIBPFM_FORCE_PMU") && strcmp(active, pmu))
		pmu = NULL;
	if (done && pmu && strcmp(active, pmu)) {
		pfm_terminate();
		done = 0;
	}
	if (!done) {
		if (pmu) {
			setenv("LIBPFM_FORCE_PMU", pmu, 1);
			snprintf(active, sizeof(active), "%s", pmu);
			forced = 1;
		}
		status = pfm_initialize();
		done = 1;
	}
	if (status != PFM_SUCCESS) {
		snprintf(err, len, "libpfm4 cannot start: %s", pfm_strerror(status));
		return -1;
	}
	return 0;
}

/* Case-insensitive edit distance, capped: close enough to suggest? */
static int distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	int row[128], prev, tmp;

	if (la >= 127 || lb >= 127)
		return 99;
	for (j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = (int)i;
		for (j = 1; j <= lb; j++) {
			int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			int best = prev + cost;

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

/* Calls fn for every event of every PMU libpfm4 finds present. */
static void for_each_event(void (*fn)(const pfm_pmu_info_t *p, const pfm_event_info_t *e, void *arg),
			   void *arg)
{
	pfm_pmu_t pmu;

	pfm_for_all_pmus(pmu) {
		pfm_pmu_info_t pinfo = { .size = sizeof(pinfo) };
		int i;

		if (pfm_get_pmu_info(pmu, &pinfo) != PFM_SUCCESS || !pinfo.is_present ||
		    pinfo.type == PFM_PMU_TYPE_UNCORE)
			continue;
		for (i = pinfo.first_event; i != -1; i = pfm_get_event_next(i)) {
			pfm_event_info_t einfo = { .size = sizeof(einfo) };

			if (pfm_get_event_info(i, PFM_OS_NONE, &einfo) == PFM_SUCCESS)
				fn(&pinfo, &einfo, arg);
		}
	}
}

struct suggest {
	const char *name;
	char best[3][96];
	int score[3];
};

static void consider(const pfm_pmu_info_t *p, const pfm_event_info_t *e, void *arg)
{
	struct suggest *s = arg;
	int d = strcasestr(e->name, s->name) ? 1 : distance(s->name, e->name), k;

	(void)p;
	for (k = 0; k < 3; k++) {
		if (d < s->score[k] && strcmp(s->best[k], e->name)) {
			memmove(&s->best[k + 1], &s->best[k], (2 - k) * sizeof(s->best[0]));
			memmove(&s->score[k + 1], &s->score[k], (2 - k) * sizeof(s->score[0]));
			snprintf(s->best[k], sizeof(s->best[k]), "%s", e->name);
			s->score[k] = d;
			break;
		}
	}
}

static void suggest(const char *name, char *err, size_t len)
{
	struct suggest s = { .name = name, .score = { 4, 4, 4 } };
	size_t used = strlen(err);
	int k;

	for_each_event(consider, &s);
	for (k = 0; k < 3 && s.best[k][0]; k++)
		used += (size_t)snprintf(err + used, used < len ? len - used : 0, "%s%s",
					 k ? ", " : "; did you mean: ", s.best[k]);
}

static int encode_name(const char *backend, const char *pmu, const char *bare, uint64_t *code)
{
	char name[192];

	/* Only the module's PMU's table: libpfm4 may have others active. */
	if (pmu && !strstr(bare, "::"))
		snprintf(name, sizeof(name), "%s::%s", pmu, bare);
	else
		snprintf(name, sizeof(name), "%s", bare);
	if (!strcmp(backend, "perf")) {
		struct perf_event_attr attr;
		pfm_perf_encode_arg_t arg;

		memset(&attr, 0, sizeof(attr));
		memset(&arg, 0, sizeof(arg));
		arg.size = sizeof(arg);
		arg.attr = &attr;
		if (pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT, &arg) != PFM_SUCCESS)
			return -1;
		*code = (uint64_t)attr.type << 32 | (attr.config & 0xffffffffULL);
		return 0;
	} else {
		pfm_pmu_encode_arg_t arg;
		uint64_t c;
		int ret;

		memset(&arg, 0, sizeof(arg));
		arg.size = sizeof(arg);
		ret = pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_NONE, &arg);
		if (ret != PFM_SUCCESS || arg.count < 1)
			return -1;
		c = arg.codes[0];
		free(arg.codes);
		/*
		 * ARM: the event number; Intel: umask << 8 | event; AMD: event,
		 * umask and modifiers apart. The privilege and enable bits
		 * libpfm4 adds are kpmc's usrN/osN.
		 */
		*code = strcmp(backend, "amd") ? c & 0xffff : kpmc_x86_code(c);
		return 0;
	}
}

int kpmc_pfm_encode(const char *backend, const char *pmu_line, const struct kpmc_event_spec *e,
		    uint64_t *code, char *err, size_t len)
{
	const char *const *cand = kpmc_mnemonic_candidates(e->name);
	const char *pmu = kpmc_libpfm_pmu(backend, pmu_line), *forced;

	if (pfm_ready(pmu, err, len))
		return -1;
	/* The user's own LIBPFM_FORCE_PMU: whatever libpfm4 has active. */
	forced = getenv("LIBPFM_FORCE_PMU");
	if (pmu && (!forced || strcmp(forced, pmu)))
		pmu = NULL;
	if (strcmp(backend, "arm64-pmuv3") && strcmp(backend, "intel") && strcmp(backend, "amd") &&
	    strcmp(backend, "perf")) {
		snprintf(err, len, "event names are not supported with the %s backend yet: use the raw pmcN= form (-r)",
			 backend);
		return -1;
	}
	if (cand) {
		for (; *cand; cand++)
			if (!encode_name(backend, pmu, *cand, code))
				return 0;
		snprintf(err, len, "'%s': no event of this PMU implements the mnemonic", e->name);
		return -1;
	}
	if (!encode_name(backend, pmu, e->name, code))
		return 0;
	snprintf(err, len, "unknown event '%s'", e->name);
	suggest(e->name, err, len);
	return -1;
}

struct lister {
	FILE *f;
	const char *filter;
	int n;
};

static void list_one(const pfm_pmu_info_t *p, const pfm_event_info_t *e, void *arg)
{
	struct lister *l = arg;

	if (l->filter && !strcasestr(e->name, l->filter) &&
	    !(e->desc && strcasestr(e->desc, l->filter)))
		return;
	fprintf(l->f, "%s::%-32s %s\n", p->name, e->name, e->desc ? e->desc : "");
	l->n++;
}

int kpmc_pfm_list(FILE *f, const char *filter)
{
	struct lister l = { f, filter, 0 };
	char err[128];

	if (pfm_ready(NULL, err, sizeof(err))) {
		fprintf(stderr, "kpmc: %s\n", err);
		return -1;
	}
	for_each_event(list_one, &l);
	if (!l.n)
		fprintf(stderr, "kpmc: no event%s%s%s (libpfm4 found no PMU it knows here?)\n",
			filter ? " matches '" : "", filter ? filter : "", filter ? "'" : "");
	return l.n ? 0 : 1;
}

int kpmc_read_layout(const char *info_path, char *backend, size_t blen,
		     struct kpmc_counter_layout *l)
{
	char line[512], *p;
	FILE *f = fopen(info_path, "r");

	memset(l, 0, sizeof(*l));
	backend[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "backend: ", 9))
			snprintf(backend, blen, "%.63s", line + 9);
		else if (!strncmp(line, "pmu: ", 5))
			snprintf(l->pmu, sizeof(l->pmu), "%.159s", line + 5);
		else if (!strncmp(line, "counters: ", 10))
			l->nr_counters = (unsigned int)atoi(line + 10);
		else if (!strncmp(line, "fixed_counters: ", 16)) {
			l->nr_fixed = (unsigned int)strtoul(line + 16, &p, 10);
			/* " pmc0=cycles(0x11) pmc1=..." */
			for (unsigned int i = 0; i < l->nr_fixed && i < 16 && (p = strchr(p, '(')); i++, p++)
				l->fixed_event[i] = strtoull(p + 1, NULL, 0);
		}
	}
	if (f)
		fclose(f);
	l->split_modifiers = !strcmp(backend, "amd");
	return backend[0] && strcmp(backend, "none") ? 0 : -1;
}

int kpmc_names_to_raw(const char *info_path, const char *set, char *out, size_t len,
		      char *err, size_t elen)
{
	struct kpmc_event_spec ev[KPMC_MAX_EVENTS];
	struct kpmc_counter_layout l;
	uint64_t code[KPMC_MAX_EVENTS];
	int slot[KPMC_MAX_EVENTS], n, i, w;
	char backend[64], events[1024], tokens[256];

	if (kpmc_split_set_tokens(set, events, sizeof(events), tokens, sizeof(tokens), err, elen))
		return -1;
	n = kpmc_parse_event_list(events, ev, KPMC_MAX_EVENTS, err, elen);
	if (n < 0)
		return -1;
	if (kpmc_read_layout(info_path, backend, sizeof(backend), &l)) {
		snprintf(err, elen, "the module reports no usable PMU (%s)", info_path);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (kpmc_pfm_encode(backend, l.pmu, &ev[i], &code[i], err, elen))
			return -1;
	if (kpmc_assign_counters(&l, code, ev, n, slot, err, elen))
		return -1;
	w = kpmc_raw_config(code, ev, slot, n, &l, out, len);
	if (w >= 0 && tokens[0]) {
		int t = snprintf(out + w, len - (size_t)w, ",%s", tokens);

		w = t < 0 || (size_t)t >= len - (size_t)w ? -1 : w + t;
	}
	if (w < 0)
		snprintf(err, elen, "configuration too long");
	return w;
}

int kpmc_config_to_raw(const char *info_path, const char *config, char *out, size_t len,
		       char *err, size_t elen)
{
	char set[1024];
	size_t used = 0, n;
	const char *p = config, *end;
	int w;

	if (!len)
		return -1;
	out[0] = '\0';
	do {
		end = strchr(p, ';');
		n = end ? (size_t)(end - p) : strlen(p);
		if (n >= sizeof(set) || used + 1 >= len) {
			snprintf(err, elen, "configuration too long");
			return -1;
		}
		memcpy(set, p, n);
		set[n] = '\0';
		if (used)
			out[used++] = ';';
		if (kpmc_config_is_raw(set)) {
			w = snprintf(out + used, len - used, "%s", set);
			if (w < 0 || (size_t)w >= len - used) {
				snprintf(err, elen, "configuration too long");
				return -1;
			}
		} else {
			w = kpmc_names_to_raw(info_path, set, out + used, len - used, err, elen);
			if (w < 0)
				return -1;
		}
		used += (size_t)w;
		p = end ? end + 1 : NULL;
	} while (p);
	return (int)used;
}
