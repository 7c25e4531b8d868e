// SPDX-License-Identifier: GPL-2.0
/*
 * The backends built for this architecture, in probe order. Adding a PMU is
 * adding a backend file and a line here; the core never names a backend.
 */
#include "backends.h"

const struct kpmc_backend *const kpmc_backend_table[] = {
#ifdef CONFIG_ARM64
	&kpmc_arm64_pmuv3_backend,
#endif
#ifdef CONFIG_X86
	&kpmc_intel_backend,
	&kpmc_amd_backend,
#endif
	/* Last: the fallback when no direct backend fits. */
	&kpmc_perf_backend,
	NULL,
};
