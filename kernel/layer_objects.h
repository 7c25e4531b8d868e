/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The objects layer's functions (tests/host/kernel_layers.txt): pmu.c, session.c, record.c, selfpage.c: the PMU claim, sessions,
 * records, the fast read path's page.
 * Included by its own files and by the layers above.
 */
#ifndef KPMC_LAYER_OBJECTS_H
#define KPMC_LAYER_OBJECTS_H

#include "types.h"

/* pmu.c: the backend chosen at load (kpmc/backend.h), and the claim of its counters. */
extern struct kpmc_pmu_desc kpmc_pmu;
extern char kpmc_no_pmu_reason[KPMC_ERR_MAX];
void kpmc_pmu_init(void);
void kpmc_pmu_exit(void);
/*
 * Users of the PMU claim: a thread counting or armed, a system-wide session;
 * the two exclude each other. get: process context, claims for the first
 * user; or why not (-EBUSY: the other kind owns the counters). get_more:
 * any context, a thread only while another thread holds the claim (a fork).
 * put: any context; the claim goes back after the last.
 */
enum kpmc_pmu_user { KPMC_USER_THREAD, KPMC_USER_SYSTEM };
int kpmc_pmu_get(enum kpmc_pmu_user who, char *why, size_t len);
bool kpmc_pmu_get_more(void);
void kpmc_pmu_put(enum kpmc_pmu_user who);
unsigned int kpmc_pmu_user_count(bool *claimed);
bool kpmc_pmu_claimed_now(void);
void kpmc_pmu_settle(void);
/* Unload: every user gone; the counters go back to perf. */
void kpmc_pmu_shutdown(void);

/* session.c */
struct kpmc_session *kpmc_session_open(char *why, size_t len);
struct kpmc_session *kpmc_session_of_current(void);
void kpmc_session_get(struct kpmc_session *s);
void kpmc_session_put(struct kpmc_session *s);
bool kpmc_session_tryget(struct kpmc_session *s);
void kpmc_session_close(struct kpmc_session *s);
void kpmc_session_release(struct kpmc_session *s);
/* Process context, the owner's: may what s's owner monitors be counted as CAP_PERFMON's? */
bool kpmc_session_capable(const struct kpmc_session *s);
struct pid_namespace *kpmc_session_pid_ns(const struct kpmc_session *s);
/*
 * record.c: a record of counts acc (hw slot order) over run_ns, with the
 * active monitoring module's virtual counters; the caller adds who and why.
 */
void kpmc_record_build(struct kpmc_record *rec, enum kpmc_record_kind kind,
		       const struct kpmc_config *cfg, const struct kpmc_hw_config *hw,
		       const u64 *acc, u64 run_ns, struct kpmc_thread *t);
/*
 * A write to the monitor file: "ring=N", "ring=N,noloss", "noloss",
 * "wakeup=MS|watermark" or "unprivileged".
 */
int kpmc_session_command(struct kpmc_session *s, const char *buf, size_t len,
			 char *why, size_t whylen);
unsigned int kpmc_sessions_live(void);
void kpmc_sessions_exit(void);

/* selfpage.c: the fast read path (struct kpmc_self_page). Hot path: IRQs off, t's CPU. */
void kpmc_selfpage_sync(struct kpmc_cpu *c, struct kpmc_thread *t);
void kpmc_selfpage_leave(struct kpmc_cpu *c);
int kpmc_selfpage_mmap(struct kpmc_thread *t, struct vm_area_struct *vma);
void kpmc_selfpage_free(struct kpmc_thread *t);

#endif /* KPMC_LAYER_OBJECTS_H */
