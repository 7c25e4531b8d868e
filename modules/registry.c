// SPDX-License-Identifier: GPL-2.0
/* Monitoring modules built into kpmc; index N is what `activate N` names. */
#include "kpmc/mm.h"

extern const struct kpmc_monitoring_module kpmc_mm_passthrough;
extern const struct kpmc_monitoring_module kpmc_mm_rates;

const struct kpmc_monitoring_module *const kpmc_mm_table[] = {
	&kpmc_mm_passthrough,
	&kpmc_mm_rates,
	NULL,
};
