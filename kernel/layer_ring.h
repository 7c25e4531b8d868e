/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ring layer's functions (tests/host/kernel_layers.txt): ring.c: a
 * session's ring of records as an object with its own lifetime (reserve
 * and commit, lost records, the reader's wake-ups, the mapped control
 * page, no-loss waits). Producers write to it directly; the session owns
 * one reference.
 * Included by its own file and by the layers above.
 */
#ifndef KPMC_LAYER_RING_H
#define KPMC_LAYER_RING_H

#include "types.h"

struct kpmc_ring;
struct vm_area_struct;
struct seq_file;

/* Records per new ring (the module's ring_records). */
extern unsigned int kpmc_ring_records;

/*
 * Process context: a ring of kpmc_ring_records slots, read by the thread
 * group opener_group (a reference is taken) and, later, by whoever reads,
 * polls or maps it; ERR_PTR and why on failure.
 */
struct kpmc_ring *kpmc_ring_new(struct pid *opener_group, char *why, size_t len);
/* Any context, NMI excepted. */
void kpmc_ring_put(struct kpmc_ring *r);
u32 kpmc_ring_capacity(struct kpmc_ring *r);
/* Process context: the reader is gone; its slots go, no-loss waits end. */
void kpmc_ring_close(struct kpmc_ring *r);
/* 0, or -EINVAL and why: a ring size the module accepts (a power of two, 2 to 2^20). */
int kpmc_ring_records_valid(u32 records, char *why, size_t len);

/* Producers: any context. A closed ring takes nothing. */
void kpmc_ring_push(struct kpmc_ring *r, const struct kpmc_record *rec);
/* n records of one sample: all, or none (each counted dropped). */
void kpmc_ring_push_n(struct kpmc_ring *r, const struct kpmc_record *recs, unsigned int n);
/* n records were dropped for another reason than a full ring (a format's buffer). */
void kpmc_ring_lose(struct kpmc_ring *r, unsigned int n);
void kpmc_ring_counts(struct kpmc_ring *r, u64 *used, u64 *dropped);

/*
 * Process context, before the ring's first record: a size of records
 * (0: unchanged) and no-loss mode; whole or not at all, why on failure.
 */
int kpmc_ring_configure(struct kpmc_ring *r, u32 records, bool noloss, char *why, size_t len);
/* KPMC_WAKEUP_DEFAULT, KPMC_WAKEUP_WATERMARK or a delay in ms. */
void kpmc_ring_set_wakeup(struct kpmc_ring *r, int policy);
/*
 * The most records one sample can take (a sample and its format's parts):
 * no-loss mode keeps room for that many in flight. Process context;
 * -ENOSPC (and why) in no-loss mode with a ring too small for it.
 */
int kpmc_ring_set_headroom(struct kpmc_ring *r, unsigned int records_per_sample,
			   char *why, size_t len);

/* The reader (the monitor file): the calling thread's group becomes r's reader. */
ssize_t kpmc_ring_read(struct kpmc_ring *r, char __user *buf, size_t len, bool nonblock);
__poll_t kpmc_ring_poll(struct kpmc_ring *r, struct file *f, poll_table *pt);
/* The control page or the records (UAPI kpmc_ring_control). */
int kpmc_ring_mmap(struct kpmc_ring *r, struct vm_area_struct *vma, char *why, size_t len);

/* /proc/kpmc/info: the no-loss waits and how they ended, over all rings. */
void kpmc_rings_show(struct seq_file *m);
/* Unload: blocked readers return, no-loss waits end, mapped readers are told. */
void kpmc_rings_shutdown(void);
/* Unload, after the sessions: every wait has left, every ring is freed. */
void kpmc_rings_exit(void);

#endif /* KPMC_LAYER_RING_H */
