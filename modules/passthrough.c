// SPDX-License-Identifier: GPL-2.0
/* The default monitoring module: records carry the raw counts, nothing added. */
#include "modules.h"

const struct kpmc_monitoring_module kpmc_monmod_passthrough = {
	.name = "passthrough",
	.description = "per-thread counts as measured, no derived values",
};
