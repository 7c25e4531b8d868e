/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The configs layer's functions (tests/host/kernel_layers.txt): config_obj.c: shared configurations.
 * Included by its own files and by the layers above.
 */
#ifndef KPMC_LAYER_CONFIGS_H
#define KPMC_LAYER_CONFIGS_H

#include "types.h"

/* config_obj.c: shared configurations (struct kpmc_shared_config). */
struct kpmc_shared_config *kpmc_shared_config_new(const struct kpmc_config_sets *sets,
						  char *why, size_t len);
int kpmc_shared_config_prepare(const struct kpmc_shared_config *c, bool user_limited,
			       char *why, size_t len);
void kpmc_shared_config_put(struct kpmc_shared_config *c);
int kpmc_configs_live(void);

#endif /* KPMC_LAYER_CONFIGS_H */
