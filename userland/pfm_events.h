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

/* kpmc -L [FILTER]: the events of the PMUs libpfm4 detects here. */
int kpmc_pfm_list(FILE *f, const char *filter);

#endif
