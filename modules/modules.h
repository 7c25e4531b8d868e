/* SPDX-License-Identifier: GPL-2.0 */
/* The monitoring modules built into kpmc, listed by modules/registry.c. */
#ifndef KPMC_MODULES_H
#define KPMC_MODULES_H

#include "kpmc/mm.h"

extern const struct kpmc_monitoring_module kpmc_mm_passthrough;
extern const struct kpmc_monitoring_module kpmc_mm_rates;
extern const struct kpmc_monitoring_module kpmc_mm_metrics;
extern const struct kpmc_monitoring_module kpmc_mm_schedstats;
extern const struct kpmc_monitoring_module kpmc_mm_rapl;
extern const struct kpmc_monitoring_module kpmc_mm_cmt;

#endif /* KPMC_MODULES_H */
