// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE	/* strcasestr */
#include "pfm_events.h"

#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include <dirent.h>
#include <stdbool.h>
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

int kpmc_read_event_maps(const char *info_path, struct kpmc_event_maps *m)
{
	char line[512], *p;
	unsigned int t;
	unsigned long long a, b;
	FILE *f = fopen(info_path, "r");

	memset(m, 0, sizeof(*m));
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "core_type", 9) || !isdigit((unsigned char)line[9]))
			continue;
		t = (unsigned int)strtoul(line + 9, &p, 10);
		if (t >= KPMC_MAX_EVENT_TYPES)
			continue;
		if (!strncmp(p, ": ", 2)) {
			/* "core_type0: armv8_pmuv3_0: cpus 0: ..." */
			p += 2;
			snprintf(m->name[t], sizeof(m->name[t]), "%.*s", (int)strcspn(p, ":\n"), p);
		} else if (sscanf(p, "_events: %llx %llx", &a, &b) == 2) {
			m->map[t][0] = a;
			m->map[t][1] = b;
			if (t + 1 > m->nr)
				m->nr = t + 1;
		}
	}
	if (f)
		fclose(f);
	return m->nr ? 0 : -1;
}

/*
 * Implemented common events -L leaves out, as perf's sysfs does: SW_INCR
 * (EL0 writes to PMSWINC_EL0 trap) and CHAIN (useless alone). Raw pmcN=0x0
 * and pmcN=0x1e still work.
 */
static bool unlisted(uint64_t code)
{
	return code == 0x00 || code == 0x1e;
}

/* Word and bit of architected event code in a map; -1 if PMCEID cannot say. */
static int arch_bit(uint64_t code, unsigned int *word)
{
	if (code < 64) {
		*word = 0;
		return (int)code;
	}
	if (code >= 0x4000 && code < 0x4040) {
		*word = 1;
		return (int)(code - 0x4000);
	}
	return -1;
}

int kpmc_event_implemented(const struct kpmc_event_maps *m, int type, uint64_t code)
{
	unsigned int w, t;
	int bit = arch_bit(code, &w);

	if (bit < 0)
		return -1;
	for (t = 0; t < m->nr; t++)
		if ((type < 0 || (unsigned int)type == t) && (m->map[t][w] >> bit & 1))
			return 1;
	return 0;
}

struct lister {
	FILE *f;
	const char *filter;
	int n;
	/* arm64 with PMCEID maps: */
	const struct kpmc_event_maps *m;
	bool impdef;			/* this pass lists implementation-defined events */
	bool header;			/* its heading is out */
	bool listed[2][64];		/* architected events libpfm4 named */
};

static bool wanted(const struct lister *l, const char *name, const char *desc)
{
	return !l->filter || strcasestr(name, l->filter) || (desc && strcasestr(desc, l->filter));
}

/* " [only on armv8_cortex_a53]" when some core type lacks code. */
static void types_note(const struct kpmc_event_maps *m, uint64_t code, char *out, size_t len)
{
	size_t used = 0;
	unsigned int t;

	out[0] = '\0';
	for (t = 0; t < m->nr; t++)
		if (!kpmc_event_implemented(m, (int)t, code))
			break;
	if (t == m->nr)
		return;
	for (t = 0; t < m->nr && used < len; t++)
		if (kpmc_event_implemented(m, (int)t, code) == 1)
			used += (size_t)snprintf(out + used, len - used, "%s%s",
						 used ? "," : " [only on ", m->name[t]);
	if (used && used < len)
		snprintf(out + used, len - used, "]");
}

static void list_one(const pfm_pmu_info_t *p, const pfm_event_info_t *e, void *arg)
{
	struct lister *l = arg;
	uint64_t code = e->code & 0xffff;
	char note[160];
	unsigned int w;
	int bit, imp;

	if (!l->m) {
		if (!wanted(l, e->name, e->desc))
			return;
		fprintf(l->f, "%s::%-32s %s\n", p->name, e->name, e->desc ? e->desc : "");
		l->n++;
		return;
	}
	/* arm64: this PMU's events, each with its number. */
	if (p->type != PFM_PMU_TYPE_CORE)
		return;
	imp = kpmc_event_implemented(l->m, -1, code);
	if (l->impdef != (imp < 0) || !imp || unlisted(code))
		return;
	bit = arch_bit(code, &w);
	if (bit >= 0)
		l->listed[w][bit] = true;
	if (!wanted(l, e->name, e->desc))
		return;
	if (l->impdef && !l->header) {
		fprintf(l->f, "# implementation-defined events of libpfm4's %s table: PMCEID does not enumerate them, perf's sysfs lists none of them, and they count where the core has them\n",
			p->name);
		l->header = true;
	}
	types_note(l->m, code, note, sizeof(note));
	fprintf(l->f, "%s::%-32s 0x%02llx %s%s\n", p->name, e->name, (unsigned long long)code,
		e->desc ? e->desc : "", note);
	l->n++;
}

/* perf's name of architected event code on one of the PMUs of m, from sysfs; "" if none. */
static void perf_name(const struct kpmc_event_maps *m, const char *sysfs_dir, uint64_t code,
		      char *out, size_t len)
{
	char path[512], buf[64];
	unsigned int t;
	struct dirent *d;

	out[0] = '\0';
	for (t = 0; t < m->nr && !out[0]; t++) {
		DIR *dir;

		snprintf(path, sizeof(path), "%s/%s/events", sysfs_dir, m->name[t]);
		dir = opendir(path);
		while (dir && !out[0] && (d = readdir(dir))) {
			FILE *f;

			if (d->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s/events/%s", sysfs_dir, m->name[t],
				 d->d_name);
			f = fopen(path, "r");
			/* "event=0x0023" */
			if (f && fgets(buf, sizeof(buf), f) && !strncmp(buf, "event=", 6) &&
			    strtoull(buf + 6, NULL, 0) == code) {
				size_t n = strnlen(d->d_name, len - 1);

				memcpy(out, d->d_name, n);
				out[n] = '\0';
			}
			if (f)
				fclose(f);
		}
		if (dir)
			closedir(dir);
	}
}

/*
 * The architected events PMCEID says some core type implements but
 * libpfm4's table does not name: listed by perf's name (or their number),
 * to be counted as pmcN=0xNN.
 */
static void list_unnamed(struct lister *l, const char *sysfs_dir)
{
	char name[64], desc[160], note[160];
	unsigned int w, bit;

	for (w = 0; w < 2; w++)
		for (bit = 0; bit < 64; bit++) {
			uint64_t code = w ? 0x4000 + bit : bit;

			if (l->listed[w][bit] || kpmc_event_implemented(l->m, -1, code) != 1 ||
			    unlisted(code))
				continue;
			perf_name(l->m, sysfs_dir, code, name, sizeof(name));
			if (!name[0])
				snprintf(name, sizeof(name), "0x%02llx", (unsigned long long)code);
			snprintf(desc, sizeof(desc),
				 "common event not in libpfm4's table: count it as pmcN=0x%llx",
				 (unsigned long long)code);
			if (!wanted(l, name, desc))
				continue;
			types_note(l->m, code, note, sizeof(note));
			fprintf(l->f, "pmuv3::%-32s 0x%02llx %s%s\n", name, (unsigned long long)code,
				desc, note);
			l->n++;
		}
}

int kpmc_pfm_list(FILE *f, const char *filter, const char *info_path, const char *sysfs_dir)
{
	struct kpmc_event_maps maps;
	struct lister l;
	char err[128];

	memset(&l, 0, sizeof(l));
	l.f = f;
	l.filter = filter;
	if (pfm_ready(NULL, err, sizeof(err))) {
		fprintf(stderr, "kpmc: %s\n", err);
		return -1;
	}
	if (!kpmc_read_event_maps(info_path, &maps)) {
		/*
		 * arm64: exactly the common events PMCEID implements (what perf's
		 * sysfs lists), then libpfm4's implementation-defined ones.
		 */
		l.m = &maps;
		for_each_event(list_one, &l);
		list_unnamed(&l, sysfs_dir);
		l.impdef = true;
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
