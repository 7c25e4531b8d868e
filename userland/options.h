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
 * The n event sets of -c options joined by ';', each with ",tbs=MS" when
 * tbs_ms > 0, into out; -1 if it does not fit.
 */
int kpmc_build_config(const char *const *configs, int n, long tbs_ms, char *out, size_t len);

#endif
