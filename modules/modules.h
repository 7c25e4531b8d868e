/* SPDX-License-Identifier: GPL-2.0 */
/* The monitoring modules built into kpmc, listed by modules/registry.c. */
#ifndef KPMC_MODULES_H
#define KPMC_MODULES_H

#include "kpmc/monmod.h"

extern const struct kpmc_monitoring_module kpmc_monmod_passthrough;
extern const struct kpmc_monitoring_module kpmc_monmod_rates;
extern const struct kpmc_monitoring_module kpmc_monmod_metrics;
extern const struct kpmc_monitoring_module kpmc_monmod_schedstats;
extern const struct kpmc_monitoring_module kpmc_monmod_rapl;
extern const struct kpmc_monitoring_module kpmc_monmod_cmt;

#endif /* KPMC_MODULES_H */
