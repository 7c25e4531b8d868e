/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The formats layer's functions (tests/host/kernel_layers.txt): format.c: the sampling formats' registry (kpmc/format.h) and their step.
 * Included by its own files and by the layers above.
 */
#ifndef KPMC_LAYER_FORMATS_H
#define KPMC_LAYER_FORMATS_H

#include "types.h"

/* format.c: the sampling formats' registry (kpmc/format.h) and their step. */
struct kpmc_format;
struct kpmc_format_sample;
struct seq_file;
int kpmc_formats_init(void);
void kpmc_formats_exit(void);
/* Process context: fmt=name with its options; holds the format's module. */
struct kpmc_format *kpmc_format_get(const char *name, const char *args, void **priv,
				    char *why, size_t len);
void kpmc_format_put(struct kpmc_format *f, void *priv);
unsigned int kpmc_format_parts(const struct kpmc_format *f, const void *priv);
/* Hot path (any context but NMI): the sample and what f adds, to the ring. */
void kpmc_format_emit(struct kpmc_session *session, struct kpmc_format *f, void *priv,
		      const struct kpmc_record *sample, struct kpmc_format_sample *fs);
void kpmc_formats_show(struct seq_file *m);

#endif /* KPMC_LAYER_FORMATS_H */
