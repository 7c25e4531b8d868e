/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counting layer's functions (tests/host/kernel_layers.txt): counting.c: the IRQs-off counting path.
 * Included by its own files and by the layers above.
 */
#ifndef KPMC_LAYER_COUNTING_H
#define KPMC_LAYER_COUNTING_H

#include "types.h"

/* counting.c: the counting path and its per-CPU timers (stopped before the table goes). */
void kpmc_counting_init(void);
void kpmc_counting_stop(void);
/* The CPU's PMU loses its state / lost it (IRQs off, this CPU). */
void kpmc_cpu_save(void);
void kpmc_cpu_reload(void);
void kpmc_cpu_restore(void);

/* counting.c: on t's CPU with IRQs off (c: this CPU's state). */
bool kpmc_fold(struct kpmc_cpu *c, struct kpmc_thread *t, u64 now);
void kpmc_set_idle(struct kpmc_thread *t);
void kpmc_counting_start(struct kpmc_thread *t);
void kpmc_sampling_take(struct kpmc_cpu *c, struct kpmc_thread *t, bool loaded);
void kpmc_switch_in(struct kpmc_cpu *c, struct kpmc_thread *t,
		    struct kpmc_thread *prev, u64 now);
void kpmc_stop_current(struct kpmc_thread *t, enum kpmc_record_kind kind);
void kpmc_detach_done(struct kpmc_thread *t);
/* Any context: is t the thread loaded on some CPU now? */
bool kpmc_thread_loaded(const struct kpmc_thread *t);
/* IRQs off: t, taken from counting by its session's close, is loaded nowhere: idle now. */
void kpmc_detach_unloaded(struct kpmc_thread *t);
/* Process context: every CPU's loaded thread of s, stopping, takes its last record now. */
void kpmc_stop_loaded_of_session(struct kpmc_session *s);

#endif /* KPMC_LAYER_COUNTING_H */
