/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmdakpmc's totals kept across its own restarts: a counter that PCP has
 * served must never go back because the agent (or the machine) went down
 * and started again. The agent serves the totals as of its last save, and
 * saves at most every 'save' seconds of the configuration, however often
 * clients fetch: written to a temporary file, flushed to disk, renamed over
 * the old one, the directory flushed too. Read when the agent starts
 * counting the same configuration again (sig: the kernel's form of it).
 */
#ifndef KPMC_PMDA_STATE_H
#define KPMC_PMDA_STATE_H

#include "pmda_counts.h"

/* 0, or -1 with errno. */
int kpmc_pmda_state_save(const char *path, const char *sig, const struct kpmc_pmda_counts *c);

/*
 * Is a save due at now_ms (a monotonic clock), the last one at last_ms (-1:
 * none yet)? Only when the totals changed (dirty), and save_s seconds after
 * the last.
 */
int kpmc_pmda_state_due(long long last_ms, long long now_ms, unsigned int save_s, int dirty);

/*
 * Restore into c (empty) what path holds for sig. The number of tasks
 * restored; 0 when there is no file or it is for another configuration;
 * -1 when it is malformed (c left empty).
 */
int kpmc_pmda_state_load(const char *path, const char *sig, struct kpmc_pmda_counts *c);

#endif
