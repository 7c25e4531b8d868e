/* SPDX-License-Identifier: GPL-2.0 */
/* The PMU backends built into kpmc, listed by backends/registry.c. */
#ifndef KPMC_BACKENDS_H
#define KPMC_BACKENDS_H

#include "kpmc/backend.h"

extern const struct kpmc_backend kpmc_arm64_pmuv3_backend;
extern const struct kpmc_backend kpmc_intel_backend;
extern const struct kpmc_backend kpmc_amd_backend;
extern const struct kpmc_backend kpmc_perf_backend;

#endif /* KPMC_BACKENDS_H */
