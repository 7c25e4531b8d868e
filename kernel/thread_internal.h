/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Between the files that make up per-thread monitoring: thread.c (the
 * table and the states), lifecycle.c (the scheduler's lifecycle hooks,
 * attach, a session's close), counting.c (the IRQs-off counting path),
 * control.c (what /proc asks) and kernel_api.c (in-kernel queries). Not
 * for backends, monitoring modules or anything else.
 */
#ifndef KPMC_THREAD_INTERNAL_H
#define KPMC_THREAD_INTERNAL_H

#include "core.h"

/* thread.c: the table. Lookups under rcu_read_lock() or the lock. */
extern raw_spinlock_t kpmc_threads_lock;
struct kpmc_thread *kpmc_thread_lookup(struct task_struct *task);
struct kpmc_thread *kpmc_thread_alloc(struct task_struct *task, gfp_t gfp);
struct kpmc_thread *kpmc_thread_alloc_fork(struct task_struct *child);
void kpmc_thread_discard(struct kpmc_thread *t);
/* Frees t (an RCU callback, or directly for one never published). */
void kpmc_thread_free_rcu(struct rcu_head *head);
void kpmc_thread_set_ids(struct kpmc_thread *t, struct task_struct *task);
/* Under kpmc_threads_lock; after an add, with the lock dropped, grow_if_full. */
void kpmc_thread_table_add(struct kpmc_thread *t);
void kpmc_thread_table_del(struct kpmc_thread *t);
void kpmc_thread_table_grow_if_full(void);
void kpmc_thread_list_in(struct kpmc_thread *t, struct kpmc_session *s);
void kpmc_session_threads_walk_locked(struct kpmc_session *s,
				      void (*visit)(struct kpmc_thread *t, void *arg), void *arg);
void kpmc_session_threads_forget_locked(struct kpmc_session *s);

/* lifecycle.c */
int kpmc_thread_insert(struct kpmc_thread *t, struct task_struct *task);

/* The set t counts now: its configuration, encoding and generation. */
static inline const struct kpmc_config *tcfg(const struct kpmc_thread *t)
{
	return &t->conf->sets.set[t->set];
}

static inline const struct kpmc_hw_config *thw(const struct kpmc_thread *t)
{
	return &t->conf->hw[t->set];
}

static inline u64 tgen(const struct kpmc_thread *t)
{
	return t->conf->generation + t->set;
}

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

/* config_obj.c */
int kpmc_configs_live(void);

#endif /* KPMC_THREAD_INTERNAL_H */
