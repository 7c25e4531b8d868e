// SPDX-License-Identifier: GPL-2.0
/* Monitoring modules built into kpmc; index N is what `activate N` names. */
#include "modules.h"

const struct kpmc_monitoring_module *const kpmc_monmod_table[] = {
	&kpmc_monmod_passthrough,
	&kpmc_monmod_rates,
	&kpmc_monmod_metrics,
	&kpmc_monmod_schedstats,
	&kpmc_monmod_rapl,
	&kpmc_monmod_cmt,
	NULL,
};
