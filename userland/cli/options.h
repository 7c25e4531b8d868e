/* SPDX-License-Identifier: GPL-2.0 */
/* Command-line values of kpmc that need checking. Pure: no I/O. */
#ifndef KPMC_OPTIONS_H
#define KPMC_OPTIONS_H

#include <stddef.h>

/*
 * A sampling period in seconds ("0.1", "2", "0.005") to whole milliseconds;
 * -1 for junk, negative, zero, under 1 ms, or over a day.
 */
long kpmc_parse_period_ms(const char *secs);

/*
 * --wakeup's value: "watermark", or a delay in ms written in decimal, 0 to
 * 60000 (the module's "wakeup=" bounds). 0 if it is one, else -1.
 */
int kpmc_check_wakeup(const char *s);

/*
 * --anchor's value: "pmcN" with N a counter index (decimal, below
 * KPMC_MAX_COUNTERS); N + 1, or 0 if it is not one.
 */
unsigned int kpmc_parse_anchor(const char *s);

/*
 * -G's value: a cgroup's path below the cgroup v2 mount ("jobs/a"): not
 * empty, no leading '/', no "." or ".." component, no empty component,
 * printable, at most 200 bytes. 0 if it is one, else -1.
 */
int kpmc_check_cgroup_path(const char *s);

/*
 * Does the raw event set `config` ("pmc0,pmc1=0x8,usr1=1,mux=4") count
 * counter n (a token "pmcN" or "pmcN=...")?
 */
int kpmc_config_counts_pmc(const char *config, unsigned int n);

/*
 * The n event sets of -c options joined by ';', each with ",tbs=MS" when
 * tbs_ms > 0, into out; -1 if it does not fit.
 */
int kpmc_build_config(const char *const *configs, int n, long tbs_ms, char *out, size_t len);

/*
 * kpmc mem's sampling event for the memory source /proc/kpmc/info names
 * (info: its text): "pmc0" (the cycle counter) for decoded instructions,
 * the first general counter counting MEM_TRANS_RETIRED.LOAD_LATENCY with
 * ldlat=30 for PEBS (perf mem's default threshold), cycles for IBS, perf's
 * raw load-latency event or hardware cycles through the perf backend.
 * 0 and out, or -1 if info names no source ("memory_sampling: none").
 */
int kpmc_mem_default_event(const char *info, char *out, size_t len);

#endif
