/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The life layer's functions (tests/host/kernel_layers.txt): lifecycle.c, cpu_state.c: threads' lives; CPU hotplug, PM, suspend.
 * Included by its own files and by the layers above.
 */
#ifndef KPMC_LAYER_LIFE_H
#define KPMC_LAYER_LIFE_H

#include "types.h"

/* lifecycle.c: the scheduler's lifecycle hooks, attach's insert, a session's close and stop. */
struct kpmc_thread *kpmc_thread_of_current(bool create);
void kpmc_threads_session_closed(struct kpmc_session *s);
/* Thread states the last close or stop of a session visited. */
unsigned int kpmc_threads_last_sweep(void);
void kpmc_threads_session_stop(struct kpmc_session *s);
int kpmc_thread_insert(struct kpmc_thread *t, struct task_struct *task);

/* cpu_state.c: CPU hotplug, CPU PM and suspend notifications. */
int kpmc_cpu_state_init(void);
void kpmc_cpu_state_exit(void);

#endif /* KPMC_LAYER_LIFE_H */
