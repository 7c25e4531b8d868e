/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event names on the command line (kpmc -c instr,cycles:u,llc_misses:ebs=1000000):
 * parsing the list, PMCTrack's mnemonics, and putting the events on counters
 * (fixed counters first where one counts the event). Pure: no I/O, no libpfm.
 */
#ifndef KPMC_EVENTSPEC_H
#define KPMC_EVENTSPEC_H

#include <stddef.h>
#include <stdint.h>

#define KPMC_MAX_EVENTS	16

struct kpmc_event_spec {
	char name[96];		/* a mnemonic or a libpfm4 event string */
	int usr, os;		/* -1: default (user only) */
	uint64_t ebs;		/* sampling period; 0: none */
};

/* Is s a raw configuration (pmcN tokens) rather than event names? */
int kpmc_config_is_raw(const char *s);

/* "a,b:u,c:ebs=N"; returns the count, or -1 with the reason in err. */
int kpmc_parse_event_list(const char *s, struct kpmc_event_spec *ev, int max,
			  char *err, size_t len);

/*
 * A set of event names may carry the set's own tokens of the raw syntax
 * (tbs=, mux=, muxsamples=, rnd=, seed=): "instr,cycles:ebs=1000000,mux=20"
 * gives events "instr,cycles:ebs=1000000" and tokens "mux=20" (either may be
 * empty). 0, or -1 with the reason in err.
 */
int kpmc_split_set_tokens(const char *set, char *events, size_t elen, char *tokens, size_t tlen,
			  char *err, size_t len);

/* libpfm4 names to try for a PMCTrack mnemonic (NULL-terminated), or NULL. */
const char *const *kpmc_mnemonic_candidates(const char *mnemonic);

/* What the counters are: from /proc/kpmc/info. */
struct kpmc_counter_layout {
	unsigned int nr_counters;
	unsigned int nr_fixed;
	uint64_t fixed_event[16];
	/*
	 * General counters' codes are kpmc_x86_code() values, written as the
	 * event plus umaskN/cmaskN/edgeN/invN (the AMD backend: 12-bit events).
	 */
	int split_modifiers;
	char pmu[160];		/* the "pmu:" line: which libpfm4 table */
};

/*
 * The libpfm4 PMU whose event table fits the "pmu:" line of /proc/kpmc/info
 * (x86: the family and model the backend reports), or NULL: let libpfm4
 * detect it.
 */
const char *kpmc_libpfm_pmu(const char *backend, const char *pmu_line);

/*
 * An x86 event select value (libpfm4's encoding) as a code of a layout with
 * split_modifiers: event bits 0-11 (AMD's 11:8 come from select bits 35:32),
 * umask 12-19, cmask 20-27, edge bit 28, inv bit 29.
 */
uint64_t kpmc_x86_code(uint64_t evtsel);

/*
 * Counter for each of n encoded events: a fixed counter that counts it, else
 * the next free general counter. 0, or -1 with the reason in err.
 */
int kpmc_assign_counters(const struct kpmc_counter_layout *l, const uint64_t *code,
			 const struct kpmc_event_spec *ev, int n, int *slot,
			 char *err, size_t len);

/* The raw configuration for the assigned events ("pmc0,pmc1=0x8,usr1=1,os1=0,..."). */
int kpmc_raw_config(const uint64_t *code, const struct kpmc_event_spec *ev, const int *slot,
		    int n, const struct kpmc_counter_layout *l, char *out, size_t len);

/*
 * What each counter of raw (the kernel's form of events, from
 * kpmc_config_to_raw: one pmcN token per event, in the events' order)
 * counts: names[N] = the event as events names it ("instr", "cycles:u"), or
 * the raw token itself when events is raw; "" for unused counters. 0, or -1
 * when raw has a pmcN token past the counters or not one per event.
 */
int kpmc_counter_names(const char *events, const char *raw, char names[][96], unsigned int n);

#endif
