/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rules layer's functions (tests/host/kernel_layers.txt): privilege.c: perf's rules for who may count what.
 * Included by its own files and by the layers above.
 */
#ifndef KPMC_LAYER_RULES_H
#define KPMC_LAYER_RULES_H

#include "types.h"

/* privilege.c: perf's rules for who may count what. */
void kpmc_privilege_init(void);
void kpmc_privilege_exit(void);
int kpmc_perf_paranoid(void);
/*
 * May an owner count conf (cpu_wide: system-wide)? capable: the owner is
 * CAP_PERFMON (kpmc_session_capable()). 0, or -EACCES and why.
 */
int kpmc_may_count(const struct kpmc_shared_config *conf, bool cpu_wide, bool capable,
		   char *why, size_t len);

#endif /* KPMC_LAYER_RULES_H */
