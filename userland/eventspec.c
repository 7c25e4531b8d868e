// SPDX-License-Identifier: GPL-2.0
#include "eventspec.h"

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

/* PMCTrack's mnemonics, as ARM, Intel and AMD name them in libpfm4. */
static const struct {
	const char *mnemonic;
	const char *const names[5];
} mnemonics[] = {
	{ "instr", { "INST_RETIRED", "INSTRUCTION_RETIRED", "RETIRED_INSTRUCTIONS" } },
	{ "cycles", { "CPU_CYCLES", "UNHALTED_CORE_CYCLES", "CYCLES_NOT_IN_HALT" } },
	{ "llc_misses", { "L2D_CACHE_REFILL", "LLC_MISSES", "L2_CACHE_MISS" } },
	{ "llc_references", { "L2D_CACHE", "LLC_REFERENCES", "L2_REQUEST_G1" } },
	{ "l1d_misses", { "L1D_CACHE_REFILL", "L1D.REPLACEMENT", "DATA_CACHE_REFILLS_FROM_SYSTEM" } },
	{ "branches", { "BR_PRED", "BRANCH_INSTRUCTIONS_RETIRED", "RETIRED_BRANCH_INSTRUCTIONS" } },
	{ "branch_misses", { "BR_MIS_PRED", "MISPREDICTED_BRANCH_RETIRED",
			     "RETIRED_MISPREDICTED_BRANCH_INSTRUCTIONS" } },
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

int kpmc_raw_config(const uint64_t *code, const struct kpmc_event_spec *ev, const int *slot,
		    int n, const struct kpmc_counter_layout *l, char *out, size_t len)
{
	size_t used = 0;
	int i, w;

	out[0] = '\0';
	for (i = 0; i < n; i++) {
		unsigned int s = (unsigned int)slot[i];

		if (s < l->nr_fixed)
			w = snprintf(out + used, len - used, "%spmc%u", i ? "," : "", s);
		else
			w = snprintf(out + used, len - used, "%spmc%u=0x%llx", i ? "," : "", s,
				     (unsigned long long)code[i]);
		if (w < 0 || (size_t)w >= len - used)
			return -1;
		used += (size_t)w;
		if (ev[i].usr >= 0) {
			w = snprintf(out + used, len - used, ",usr%u=%d,os%u=%d", s, ev[i].usr, s, ev[i].os);
			if (w < 0 || (size_t)w >= len - used)
				return -1;
			used += (size_t)w;
		}
		if (ev[i].ebs) {
			w = snprintf(out + used, len - used, ",ebs%u=%llu", s,
				     (unsigned long long)ev[i].ebs);
			if (w < 0 || (size_t)w >= len - used)
				return -1;
			used += (size_t)w;
		}
	}
	return (int)used;
}
