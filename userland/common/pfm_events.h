/* SPDX-License-Identifier: GPL-2.0 */
/* Event names through libpfm4: encode for kpmc's backend, list, suggest. */
#ifndef KPMC_PFM_EVENTS_H
#define KPMC_PFM_EVENTS_H

#include <stdint.h>
#include <stdio.h>
#include "eventspec.h"

/*
 * The raw code kpmc's backend (as /proc/kpmc/info names it) wants for e:
 * arm64-pmuv3: the event number; intel: umask << 8 | event; amd:
 * kpmc_x86_code(); perf: type << 32 | config. pmu_line (info's "pmu:") picks
 * libpfm4's table for x86 backends, whatever libpfm4 detects here. 0, or -1
 * with the reason (and close matches) in err.
 */
int kpmc_pfm_encode(const char *backend, const char *pmu_line, const struct kpmc_event_spec *e,
		    uint64_t *code, char *err, size_t len);

/*
 * The backend and counter layout from kpmc's info file (/proc/kpmc/info):
 * 0, or -1 when it reports no usable PMU.
 */
int kpmc_read_layout(const char *info_path, char *backend, size_t blen,
		     struct kpmc_counter_layout *l);

/*
 * One event set by name ("instr,cycles:u,INST_RETIRED:ebs=1000000", plus
 * the set's tokens of the raw syntax: tbs=, mux=, ...) as the raw
 * configuration for the PMU info_path describes: encode each name for this
 * PMU, put the events on counters. The length written, or -1 with the reason
 * (an unknown name: with close matches) in err.
 */
int kpmc_names_to_raw(const char *info_path, const char *set, char *out, size_t len,
		      char *err, size_t elen);

/*
 * A whole configuration, sets separated by ';', each raw (pmcN tokens, kept
 * as it is) or by name (kpmc_names_to_raw). The length written, or -1 with
 * the reason in err.
 */
int kpmc_config_to_raw(const char *info_path, const char *config, char *out, size_t len,
		       char *err, size_t elen);

/*
 * The architected events each PMU type implements, as kpmc's info file
 * gives them (arm64: "core_typeN_events:", from PMCEID): bit e of map[t][0]
 * is event e, of map[t][1] event 0x4000 + e.
 */
#define KPMC_MAX_EVENT_TYPES	4
struct kpmc_event_maps {
	unsigned int nr;
	char name[KPMC_MAX_EVENT_TYPES][32];	/* perf's PMU, e.g. armv8_pmuv3_0 */
	uint64_t map[KPMC_MAX_EVENT_TYPES][2];
};

/* 0 and the maps, or -1 when info lists none (another backend, no module). */
int kpmc_read_event_maps(const char *info_path, struct kpmc_event_maps *m);

/*
 * Does type (-1: any type) implement architected event code? 1 or 0; -1
 * when code is implementation defined (PMCEID cannot say).
 */
int kpmc_event_implemented(const struct kpmc_event_maps *m, int type, uint64_t code);

/*
 * kpmc -L [FILTER]: the events of the PMUs libpfm4 detects here. With the
 * arm64-pmuv3 backend (info_path lists PMCEID maps): the common events some
 * core type implements, with their numbers, named by libpfm4 or, where its
 * table lacks one, by perf (sysfs_dir/PMU/events); then, after a '#' line,
 * libpfm4's implementation-defined events.
 */
int kpmc_pfm_list(FILE *f, const char *filter, const char *info_path, const char *sysfs_dir);

#endif
