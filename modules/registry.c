// SPDX-License-Identifier: GPL-2.0
/* Monitoring modules built into kpmc; index N is what `activate N` names. */
#include "modules.h"

const struct kpmc_monitoring_module *const kpmc_mm_table[] = {
	&kpmc_mm_passthrough,
	&kpmc_mm_rates,
	&kpmc_mm_metrics,
	&kpmc_mm_schedstats,
	&kpmc_mm_rapl,
	&kpmc_mm_cmt,
	NULL,
};
