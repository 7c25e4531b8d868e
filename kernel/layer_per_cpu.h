/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-cpu layer's functions (tests/host/kernel_layers.txt): thread.c, system.c: the thread table and its states; system-wide
 * monitoring of CPUs.
 * Included by its own files and by the layers above.
 */
#ifndef KPMC_LAYER_PER_CPU_H
#define KPMC_LAYER_PER_CPU_H

#include "types.h"

/* thread.c: the thread table and its states. Lookups under rcu_read_lock() or the lock. */
int kpmc_threads_init(void);
void kpmc_threads_exit(void);
/* Thread states, those counting or armed, and the thread table's buckets. */
void kpmc_threads_count(unsigned int *known, unsigned int *counting, unsigned int *buckets);
void kpmc_live_objects(int *threads, int *configs);
extern atomic_t kpmc_threads_lost;
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

/* system.c */
bool kpmc_system_active(void);
/* cgroup_fd: an open directory of the cgroup v2 tree to count alone; -1: none. */
int kpmc_system_start(struct kpmc_thread *owner, const char *cpulist, size_t len,
		      bool exclude_idle, int cgroup_fd);
/*
 * The in-kernel API's cgroup counting (a view without a session): start
 * (process context; conf and cgrp referenced by the view), read (any
 * context: returns the configured counters' mask), stop (process context;
 * the final counts first, counts may be NULL).
 */
struct kpmc_system_view *kpmc_system_kernel_start(struct kpmc_shared_config *conf,
						  struct cgroup *cgrp, char *why, size_t len);
u32 kpmc_system_kernel_read(const struct kpmc_system_view *v, u64 *counts, u64 *run_ns);
void kpmc_system_kernel_stop(struct kpmc_system_view *v, u64 *counts, u64 *run_ns);
/* The caller's session's system-wide counting stops: all of it, or start id (its records' detail). */
int kpmc_system_stop(struct kpmc_thread *owner, u32 id);
void kpmc_system_session_closed(struct kpmc_session *s);
void kpmc_system_switch(struct kpmc_cpu *c, struct task_struct *prev,
			struct task_struct *next);
enum hrtimer_restart kpmc_system_tick(struct kpmc_cpu *c, struct hrtimer *timer);
void kpmc_system_exit(void);
/* A task moved between cgroups (hook context): its CPUs look again at what they count. */
void kpmc_system_task_moved(struct task_struct *task, bool threadgroup);
/* Once the hooks are gone: no look of that kind is pending any more. */
void kpmc_system_moves_sync(void);
void kpmc_system_init(void);
/* This CPU (IRQs off), counting system-wide: fold before / reload after a PMU reset. */
void kpmc_system_cpu_save(struct kpmc_cpu *c, u64 now);
void kpmc_system_cpu_reload(struct kpmc_cpu *c);
/* CPU hotplug, process context on that CPU, CPU hotplug lock held. */
void kpmc_system_cpu_online(unsigned int cpu);
void kpmc_system_cpu_offline(unsigned int cpu);

#endif /* KPMC_LAYER_PER_CPU_H */
