/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The base layer's functions (tests/host/kernel_layers.txt): defer.c, monmod.c, reject.c: deferred work, the active monitoring
 * module, refusals told.
 * Included by its own files and by the layers above.
 */
#ifndef KPMC_LAYER_BASE_H
#define KPMC_LAYER_BASE_H

#include "types.h"

/* reject.c: why a request was refused, to the thread's last_error and dmesg. */
void kpmc_reject(struct kpmc_thread *t, const char *file, const char *fmt, ...) __printf(3, 4);

/* defer.c: run work in process context later (kpmc's workqueue); flushed at unload. */
int kpmc_defer_init(void);
void kpmc_defer_exit(void);
void kpmc_defer(struct work_struct *work);
void kpmc_defer_delayed(struct delayed_work *work, unsigned long delay);
void kpmc_defer_rcu(struct rcu_work *work);
void kpmc_flush_deferred(void);

/* monmod.c */
int kpmc_monmod_index(void);
int kpmc_monmod_activate(unsigned int index);
/* t: the thread the sample is for, NULL for a CPU's (system-wide) sample. */
void kpmc_monmod_sample(struct kpmc_sample *s, struct kpmc_thread *t);
void kpmc_monmod_thread_start(struct kpmc_thread *t);
u32 kpmc_monmod_read_virt(struct kpmc_thread *t, u64 virt[KPMC_MAX_VIRT]);
/* The monitored thread on this CPU changes (either may be NULL); IRQs off. */
void kpmc_monmod_switch(struct kpmc_thread *out, struct kpmc_thread *in);
void kpmc_monmod_exit(void);
int kpmc_monmod_available(unsigned int index, char *why, size_t len);
const struct kpmc_monitoring_module *kpmc_monmod_active(void);

#endif /* KPMC_LAYER_BASE_H */
