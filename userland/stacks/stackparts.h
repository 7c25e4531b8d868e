/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fmt=callstack in a record stream: each sample's STACK parts put back
 * together (per thread and nsample) and decoded into its frames; samples
 * whose parts did not all come, and payloads that are not a struct
 * kpmc_callstack, are told and counted, never trusted. FORMAT records
 * (other formats) are counted and skipped. Pure: no I/O.
 */
#ifndef KPMC_STACKPARTS_H
#define KPMC_STACKPARTS_H

#include <stddef.h>
#include <stdint.h>
#include <uapi/linux/kpmc.h>

/* The largest struct kpmc_callstack: the depth limit in both modes. */
#define KPMC_CALLSTACK_MAX_FRAMES	(2 * KPMC_STACK_MAX_DEPTH)
#define KPMC_CALLSTACK_MAX_BYTES	(sizeof(struct kpmc_callstack) + \
					 KPMC_CALLSTACK_MAX_FRAMES * sizeof(uint64_t))

/* One sample's call stack, decoded. */
struct kpmc_stack {
	uint32_t pid, tid;
	uint64_t nsample;
	unsigned int nr_kernel, nr_user;
	unsigned int flags;		/* KPMC_STACK_F_* */
	const uint64_t *kernel;		/* nr_kernel addresses, innermost first */
	const uint64_t *user;		/* nr_user addresses, innermost first */
};

enum kpmc_stack_event_kind {
	KPMC_STACK_COMPLETE,		/* stack is the sample's */
	KPMC_STACK_INCOMPLETE,		/* some of the sample's parts never came */
	KPMC_STACK_MALFORMED,		/* parts or payload not as the ABI says */
};

struct kpmc_stack_event {
	enum kpmc_stack_event_kind kind;
	uint32_t pid, tid;
	uint64_t nsample;
	const struct kpmc_stack *stack;	/* KPMC_STACK_COMPLETE */
	const char *why;		/* the others: what was wrong */
};

typedef void (*kpmc_stack_fn)(const struct kpmc_stack_event *ev, void *arg);

struct kpmc_stack_stats {
	unsigned long long stacks;		/* complete, well-formed */
	unsigned long long incomplete;		/* samples with parts missing */
	unsigned long long malformed;		/* parts or payloads not a callstack's */
	unsigned long long orphans;		/* stacks with no sample of theirs just before */
	unsigned long long other_parts;		/* FORMAT records (other formats) skipped */
	unsigned long long other_payloads;	/* ... of which last parts */
};

struct kpmc_stack_parts;

struct kpmc_stack_parts *kpmc_stack_parts_new(void);
void kpmc_stack_parts_free(struct kpmc_stack_parts *p);
/*
 * Every record of the stream, in order (any kind: a thread's other records
 * tell that its parts stopped coming). fn hears each stack completed and
 * each sample given up on. 1 if rec was a STACK or FORMAT part, 0 if not,
 * -1 out of memory.
 */
int kpmc_stack_parts_add(struct kpmc_stack_parts *p, const struct kpmc_record *rec,
			 kpmc_stack_fn fn, void *arg);
/* The end of the stream: stacks still waiting for parts are incomplete. */
void kpmc_stack_parts_flush(struct kpmc_stack_parts *p, kpmc_stack_fn fn, void *arg);
const struct kpmc_stack_stats *kpmc_stack_parts_stats(const struct kpmc_stack_parts *p);

/*
 * A reassembled payload as a stack (pid, tid, nsample left to the caller);
 * frames point into payload. 0, or -1 with why.
 */
int kpmc_callstack_decode(const void *payload, size_t len, struct kpmc_stack *s, char *why,
			  size_t why_len);

#endif
