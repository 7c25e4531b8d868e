// SPDX-License-Identifier: GPL-2.0
#include "eventspec.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kpmc_config_is_raw(const char *s)
{
	return !strncmp(s, "pmc", 3) && s[3] >= '0' && s[3] <= '9';
}

/*
 * NAME[:mod...]: our modifiers (u, k, uk, ebs=N) are taken out wherever they
 * are; every other ':'-separated part stays in the name, so libpfm4 strings
 * (PMU::EVENT:UMASK) pass through.
 */
static int parse_one(char *tok, struct kpmc_event_spec *e, char *err, size_t len)
{
	char *part, *rest = tok;
	size_t used = 0;
	int first = 1;

	memset(e, 0, sizeof(*e));
	e->usr = e->os = -1;
	for (part = strsep(&rest, ":"); part; part = strsep(&rest, ":"), first = 0) {
		if (!first && !strcmp(part, "u")) {
			e->usr = 1, e->os = 0;
		} else if (!first && !strcmp(part, "k")) {
			e->usr = 0, e->os = 1;
		} else if (!first && (!strcmp(part, "uk") || !strcmp(part, "ku"))) {
			e->usr = 1, e->os = 1;
		} else if (!first && !strncmp(part, "ebs=", 4)) {
			char *end;

			e->ebs = strtoull(part + 4, &end, 0);
			if (*end || !e->ebs) {
				snprintf(err, len, "'%s': ebs= wants a period", part);
				return -1;
			}
		} else {
			size_t pl = strlen(part);

			if (used + pl + 2 > sizeof(e->name)) {
				snprintf(err, len, "event name too long");
				return -1;
			}
			if (!first)
				e->name[used++] = ':';
			memcpy(e->name + used, part, pl + 1);
			used += pl;
		}
	}
	if (!e->name[0]) {
		snprintf(err, len, "empty event name");
		return -1;
	}
	return 0;
}

int kpmc_parse_event_list(const char *s, struct kpmc_event_spec *ev, int max,
			  char *err, size_t len)
{
	char buf[1024], *tok, *save = NULL;
	int n = 0;

	if (strlen(s) >= sizeof(buf)) {
		snprintf(err, len, "event list too long");
		return -1;
	}
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == max) {
			snprintf(err, len, "more than %d events", max);
			return -1;
		}
		if (parse_one(tok, &ev[n], err, len))
			return -1;
		n++;
	}
	if (!n) {
		snprintf(err, len, "no event");
		return -1;
	}
	return n;
}

/* Tokens of the raw syntax that belong to a set, not to a counter. */
static const char *const set_tokens[] = { "tbs=", "mux=", "muxsamples=", "muxrnd=", "rnd=", "seed=",
					  "mem=", "ldlat=", "fmt=", "fmt." };

static int is_set_token(const char *tok)
{
	size_t i;

	for (i = 0; i < sizeof(set_tokens) / sizeof(set_tokens[0]); i++)
		if (!strncmp(tok, set_tokens[i], strlen(set_tokens[i])))
			return 1;
	return 0;
}

int kpmc_split_set_tokens(const char *set, char *events, size_t elen, char *tokens, size_t tlen,
			  char *err, size_t len)
{
	size_t e = 0, t = 0, n;
	const char *p = set, *end;

	if (!elen || !tlen) {
		snprintf(err, len, "no room");
		return -1;
	}
	events[0] = tokens[0] = '\0';
	while (*p) {
		end = strchr(p, ',');
		n = end ? (size_t)(end - p) : strlen(p);
		if (n) {
			char *dst = is_set_token(p) ? tokens : events;
			size_t *used = dst == tokens ? &t : &e, room = dst == tokens ? tlen : elen;

			if (*used + n + 2 > room) {
				snprintf(err, len, "event list too long");
				return -1;
			}
			if (*used)
				dst[(*used)++] = ',';
			memcpy(dst + *used, p, n);
			*used += n;
			dst[*used] = '\0';
		}
		p += n + (end ? 1 : 0);
	}
	return 0;
}

/* PMCTrack's mnemonics, as ARM, Intel and AMD name them in libpfm4. */
static const struct {
	const char *mnemonic;
	const char *const names[5];
} mnemonics[] = {
	{ "instr", { "INST_RETIRED", "INSTRUCTION_RETIRED", "RETIRED_INSTRUCTIONS" } },
	{ "cycles", { "CPU_CYCLES", "UNHALTED_CORE_CYCLES", "CYCLES_NOT_IN_HALT" } },
	/* Intel's architectural names are libpfm4's ix86arch table; skl and later say LONGEST_LAT_CACHE. */
	{ "llc_misses", { "L2D_CACHE_REFILL", "LLC_MISSES", "L2_CACHE_MISS", "LONGEST_LAT_CACHE:MISS" } },
	{ "llc_references", { "L2D_CACHE", "LLC_REFERENCES", "L2_REQUEST_G1",
			      "LONGEST_LAT_CACHE:REFERENCE" } },
	{ "l1d_misses", { "L1D_CACHE_REFILL", "L1D.REPLACEMENT", "DATA_CACHE_REFILLS_FROM_SYSTEM" } },
	{ "branches", { "BR_PRED", "BRANCH_INSTRUCTIONS_RETIRED", "RETIRED_BRANCH_INSTRUCTIONS" } },
	{ "branch_misses", { "BR_MIS_PRED", "MISPREDICTED_BRANCH_RETIRED",
			     "RETIRED_MISPREDICTED_BRANCH_INSTRUCTIONS",
			     "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED" } },
};

const char *const *kpmc_mnemonic_candidates(const char *mnemonic)
{
	size_t i;

	for (i = 0; i < sizeof(mnemonics) / sizeof(mnemonics[0]); i++)
		if (!strcmp(mnemonics[i].mnemonic, mnemonic))
			return mnemonics[i].names;
	return NULL;
}

int kpmc_assign_counters(const struct kpmc_counter_layout *l, const uint64_t *code,
			 const struct kpmc_event_spec *ev, int n, int *slot,
			 char *err, size_t len)
{
	unsigned int used = 0, s;
	int i;

	/* Fixed counters first: they free general ones. */
	for (i = 0; i < n; i++) {
		slot[i] = -1;
		for (s = 0; s < l->nr_fixed; s++)
			if (!(used & (1u << s)) && l->fixed_event[s] == code[i]) {
				slot[i] = (int)s;
				used |= 1u << s;
				break;
			}
	}
	for (i = 0; i < n; i++) {
		if (slot[i] >= 0)
			continue;
		for (s = l->nr_fixed; s < l->nr_counters && (used & (1u << s)); s++)
			;
		if (s >= l->nr_counters) {
			snprintf(err, len, "'%s' does not fit: all %u general counters are taken (use several -c to multiplex)",
				 ev[i].name, l->nr_counters - l->nr_fixed);
			return -1;
		}
		slot[i] = (int)s;
		used |= 1u << s;
	}
	return 0;
}

/* Intel family 6 models libpfm4 4.13 names (core PMUs of the big cores). */
static const struct {
	unsigned int model;
	const char *pmu;
} intel_models[] = {
	{ 0x3c, "hsw" }, { 0x45, "hsw" }, { 0x46, "hsw" }, { 0x3f, "hsw_ep" },
	{ 0x3d, "bdw" }, { 0x47, "bdw" }, { 0x4f, "bdw_ep" }, { 0x56, "bdw_ep" },
	{ 0x4e, "skl" }, { 0x5e, "skl" }, { 0x8e, "skl" }, { 0x9e, "skl" },
	{ 0xa5, "skl" }, { 0xa6, "skl" }, { 0x55, "skx" },
	{ 0x7d, "icl" }, { 0x7e, "icl" }, { 0x6a, "icx" }, { 0x6c, "icx" },
	{ 0x8f, "spr" },
	/* Hybrid: the P-core table; E-core events are "adl_grt::NAME". */
	{ 0x97, "adl_glc" }, { 0x9a, "adl_glc" }, { 0xb7, "adl_glc" }, { 0xba, "adl_glc" },
	{ 0xbf, "adl_glc" },
};

const char *kpmc_libpfm_pmu(const char *backend, const char *pmu_line)
{
	unsigned int family, model;
	size_t i;

	if (!strcmp(backend, "amd")) {
		if (sscanf(pmu_line, "AMD family %xh model %xh", &family, &model) != 2)
			return NULL;
		if (family == 0x17)
			return model < 0x30 ? "amd64_fam17h_zen1" : "amd64_fam17h_zen2";
		if (family == 0x19)
			return (model >= 0x10 && model <= 0x1f) || (model >= 0x60 && model <= 0xaf) ?
			       "amd64_fam19h_zen4" : "amd64_fam19h_zen3";
		/* Zen 5 and later: the newest table libpfm4 4.13 has. */
		return family > 0x19 ? "amd64_fam19h_zen4" : NULL;
	}
	if (!strcmp(backend, "intel")) {
		if (sscanf(pmu_line, "Intel family %xh model %xh", &family, &model) != 2 ||
		    family != 6)
			return NULL;
		for (i = 0; i < sizeof(intel_models) / sizeof(intel_models[0]); i++)
			if (intel_models[i].model == model)
				return intel_models[i].pmu;
	}
	return NULL;
}

uint64_t kpmc_x86_code(uint64_t evtsel)
{
	return (evtsel & 0xff) | ((evtsel >> 32) & 0xf) << 8 |	/* event */
	       ((evtsel >> 8) & 0xff) << 12 |			/* umask */
	       ((evtsel >> 24) & 0xff) << 20 |			/* cmask */
	       ((evtsel >> 18) & 1) << 28 | ((evtsel >> 23) & 1) << 29;
}

/* Append to out[*used..len); -1 when it does not fit. */
static int append(char *out, size_t *used, size_t len, const char *fmt, ...)
{
	va_list ap;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(out + *used, len - *used, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= len - *used)
		return -1;
	*used += (size_t)w;
	return 0;
}

/* ",umaskN=0xUM,cmaskN=C,edgeN=1,invN=1", those that are set. */
static int split_modifiers(uint64_t code, unsigned int s, char *out, size_t *used, size_t len)
{
	unsigned int umask = (code >> 12) & 0xff, cmask = (code >> 20) & 0xff;

	if ((umask && append(out, used, len, ",umask%u=0x%x", s, umask)) ||
	    (cmask && append(out, used, len, ",cmask%u=%u", s, cmask)) ||
	    ((code >> 28 & 1) && append(out, used, len, ",edge%u=1", s)) ||
	    ((code >> 29 & 1) && append(out, used, len, ",inv%u=1", s)))
		return -1;
	return 0;
}

int kpmc_raw_config(const uint64_t *code, const struct kpmc_event_spec *ev, const int *slot,
		    int n, const struct kpmc_counter_layout *l, char *out, size_t len)
{
	size_t used = 0;
	int i;

	out[0] = '\0';
	for (i = 0; i < n; i++) {
		unsigned int s = (unsigned int)slot[i];
		const char *sep = i ? "," : "";

		if (s < l->nr_fixed) {
			if (append(out, &used, len, "%spmc%u", sep, s))
				return -1;
		} else if (l->split_modifiers) {
			if (append(out, &used, len, "%spmc%u=0x%llx", sep, s,
				   (unsigned long long)(code[i] & 0xfff)) ||
			    split_modifiers(code[i], s, out, &used, len))
				return -1;
		} else if (append(out, &used, len, "%spmc%u=0x%llx", sep, s,
				  (unsigned long long)code[i])) {
			return -1;
		}
		if (ev[i].usr >= 0 &&
		    append(out, &used, len, ",usr%u=%d,os%u=%d", s, ev[i].usr, s, ev[i].os))
			return -1;
		if (ev[i].ebs &&
		    append(out, &used, len, ",ebs%u=%llu", s, (unsigned long long)ev[i].ebs))
			return -1;
	}
	return (int)used;
}

/* Is tok a counter's event token ("pmcN" or "pmcN=CODE"), and which N? */
static int counter_token(const char *tok, unsigned int *n)
{
	char *end;

	if (strncmp(tok, "pmc", 3) || !isdigit((unsigned char)tok[3]))
		return 0;
	*n = (unsigned int)strtoul(tok + 3, &end, 10);
	return *end == '\0' || *end == '=';
}

int kpmc_counter_names(const char *events, const char *raw, char names[][96], unsigned int n)
{
	struct kpmc_event_spec ev[KPMC_MAX_EVENTS];
	char buf[1024], why[128], *t, *save = NULL;
	int is_raw = kpmc_config_is_raw(events), nev = 0, i = 0;
	char evbuf[512], tokens[512];

	for (unsigned int k = 0; k < n; k++)
		names[k][0] = '\0';
	if (!is_raw) {
		if (kpmc_split_set_tokens(events, evbuf, sizeof(evbuf), tokens, sizeof(tokens), why,
					  sizeof(why)))
			return -1;
		nev = kpmc_parse_event_list(evbuf, ev, KPMC_MAX_EVENTS, why, sizeof(why));
		if (nev < 0)
			return -1;
	}
	if (strlen(raw) >= sizeof(buf))
		return -1;
	strcpy(buf, raw);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		unsigned int pmc;

		if (!counter_token(t, &pmc))
			continue;
		if (pmc >= n)
			return -1;
		if (is_raw) {
			snprintf(names[pmc], 96, "%s", t);
			continue;
		}
		if (i >= nev)
			return -1;
		snprintf(names[pmc], 96, "%s", ev[i].name);
		/* The modifiers the name was given with stay in it: cycles:u is not cycles. */
		if (ev[i].usr == 1 && ev[i].os == 0)
			strncat(names[pmc], ":u", 95 - strlen(names[pmc]));
		else if (ev[i].usr == 0 && ev[i].os == 1)
			strncat(names[pmc], ":k", 95 - strlen(names[pmc]));
		else if (ev[i].usr == 1 && ev[i].os == 1)
			strncat(names[pmc], ":uk", 95 - strlen(names[pmc]));
		i++;
	}
	return is_raw || i == nev ? 0 : -1;
}
