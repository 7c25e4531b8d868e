/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The requests layer's functions (tests/host/kernel_layers.txt): control.c: what /proc asks of threads.
 * Included by its own files and by the layers above.
 */
#ifndef KPMC_LAYER_REQUESTS_H
#define KPMC_LAYER_REQUESTS_H

#include "types.h"

/* control.c: what /proc (and the kernel's requests) ask of threads. */
int kpmc_thread_set_config(struct kpmc_thread *t, const struct kpmc_config_sets *sets);
int kpmc_thread_start_self(struct kpmc_thread *t);
int kpmc_thread_stop_self(struct kpmc_thread *t);
int kpmc_thread_attach(struct kpmc_thread *owner, pid_t tid, bool at_exec);
int kpmc_thread_detach(struct kpmc_thread *owner, pid_t tid);
int kpmc_threads_stop_all(struct kpmc_thread *owner);
int kpmc_thread_attach_kernel(struct task_struct *task, struct kpmc_shared_config *conf,
			      char *why, size_t len);
int kpmc_thread_detach_kernel(struct task_struct *task);
int kpmc_thread_read_self(struct kpmc_thread *t, struct kpmc_self_all *out);

#endif /* KPMC_LAYER_REQUESTS_H */
