/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmdakpmc's totals kept across its own restarts: a counter that PCP has
 * served must never go back because the agent was killed and started
 * again. Written (to a temporary file, then renamed) before a fetch serves
 * totals that changed; read when the agent starts counting the same
 * configuration again (sig: the kernel's form of it).
 */
#ifndef KPMC_PMDA_STATE_H
#define KPMC_PMDA_STATE_H

#include "pmda_counts.h"

/* 0, or -1 with errno. */
int kpmc_pmda_state_save(const char *path, const char *sig, const struct kpmc_pmda_counts *c);

/*
 * Restore into c (empty) what path holds for sig. The number of tasks
 * restored; 0 when there is no file or it is for another configuration;
 * -1 when it is malformed (c left empty).
 */
int kpmc_pmda_state_load(const char *path, const char *sig, struct kpmc_pmda_counts *c);

#endif
