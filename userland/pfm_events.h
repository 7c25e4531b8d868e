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

/* kpmc -L [FILTER]: the events of the PMUs libpfm4 detects here. */
int kpmc_pfm_list(FILE *f, const char *filter);

#endif
