// SPDX-License-Identifier: GPL-2.0
/*
 * Reassembly of fmt=callstack's STACK parts. The kernel puts a sample and
 * its parts in the ring together, whole or not at all, so in a stream read
 * whole the parts of a sample come right after it, in order. Nothing here
 * relies on that: parts are kept per thread until the sample's last one
 * comes, and whatever breaks the sequence (a part out of order, a thread's
 * next record, the end of the stream) gives the sample up, told once.
 */
#include "stackparts.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A thread's state: its last sample, and the stack being put together. */
struct thread_parts {
	uint32_t tid, pid;
	bool used;
	bool have_sample;
	uint64_t sample;		/* nsample of its last TBS/EBS record */
	bool assembling;
	uint64_t nsample;		/* of the stack being assembled */
	unsigned int next, parts;	/* next part wanted, of parts */
	size_t len;
	bool broken;			/* the sample below was given up: its parts are ignored */
	uint64_t broken_nsample;
	uint64_t *buf;			/* KPMC_CALLSTACK_MAX_BYTES, 8-byte aligned */
};

struct kpmc_stack_parts {
	struct thread_parts *slots;	/* open addressing by tid */
	size_t cap, nr;
	struct kpmc_stack_stats stats;
};

struct kpmc_stack_parts *kpmc_stack_parts_new(void)
{
	return calloc(1, sizeof(struct kpmc_stack_parts));
}

void kpmc_stack_parts_free(struct kpmc_stack_parts *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->cap; i++)
		free(p->slots[i].buf);
	free(p->slots);
	free(p);
}

const struct kpmc_stack_stats *kpmc_stack_parts_stats(const struct kpmc_stack_parts *p)
{
	return &p->stats;
}

static size_t slot_index(uint32_t tid, size_t cap)
{
	return (size_t)(tid * 2654435761u) & (cap - 1);
}

static struct thread_parts *lookup(struct kpmc_stack_parts *p, uint32_t tid)
{
	size_t i;

	if (!p->cap)
		return NULL;
	for (i = slot_index(tid, p->cap); p->slots[i].used; i = (i + 1) & (p->cap - 1))
		if (p->slots[i].tid == tid)
			return &p->slots[i];
	return NULL;
}

/* Keep the table at most half full: probes stay short. */
static int grow(struct kpmc_stack_parts *p)
{
	size_t cap = p->cap ? 2 * p->cap : 64, i, j;
	struct thread_parts *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -1;
	for (i = 0; i < p->cap; i++) {
		if (!p->slots[i].used)
			continue;
		for (j = slot_index(p->slots[i].tid, cap); slots[j].used; j = (j + 1) & (cap - 1))
			;
		slots[j] = p->slots[i];
	}
	free(p->slots);
	p->slots = slots;
	p->cap = cap;
	return 0;
}

static struct thread_parts *lookup_or_insert(struct kpmc_stack_parts *p, uint32_t tid)
{
	struct thread_parts *t = lookup(p, tid);
	size_t i;

	if (t)
		return t;
	if (2 * (p->nr + 1) > p->cap && grow(p))
		return NULL;
	for (i = slot_index(tid, p->cap); p->slots[i].used; i = (i + 1) & (p->cap - 1))
		;
	t = &p->slots[i];
	t->used = true;
	t->tid = tid;
	p->nr++;
	return t;
}

static void tell(kpmc_stack_fn fn, void *arg, enum kpmc_stack_event_kind kind,
		 const struct thread_parts *t, uint64_t nsample, const struct kpmc_stack *s,
		 const char *why)
{
	struct kpmc_stack_event ev = {
		.kind = kind, .pid = t->pid, .tid = t->tid, .nsample = nsample,
		.stack = s, .why = why,
	};

	if (fn)
		fn(&ev, arg);
}

/* Give up the stack t is assembling: its remaining parts are ignored. */
static void give_up(struct kpmc_stack_parts *p, struct thread_parts *t, const char *why,
		    kpmc_stack_fn fn, void *arg)
{
	char reason[160];

	snprintf(reason, sizeof(reason), "%s after %u of its %u parts", why, t->next, t->parts);
	t->assembling = false;
	t->broken = true;
	t->broken_nsample = t->nsample;
	p->stats.incomplete++;
	tell(fn, arg, KPMC_STACK_INCOMPLETE, t, t->nsample, NULL, reason);
}

int kpmc_callstack_decode(const void *payload, size_t len, struct kpmc_stack *s, char *why,
			  size_t why_len)
{
	const struct kpmc_callstack *cs = payload;
	size_t frames;

	if (len < sizeof(*cs)) {
		snprintf(why, why_len, "payload of %zu bytes, shorter than its %zu-byte header", len,
			 sizeof(*cs));
		return -1;
	}
	frames = (size_t)cs->nr_kernel + cs->nr_user;
	if (cs->nr_kernel > KPMC_STACK_MAX_DEPTH || cs->nr_user > KPMC_STACK_MAX_DEPTH) {
		snprintf(why, why_len, "%u kernel and %u user frames, more than %d of a mode",
			 cs->nr_kernel, cs->nr_user, KPMC_STACK_MAX_DEPTH);
		return -1;
	}
	if (len != sizeof(*cs) + frames * sizeof(uint64_t)) {
		snprintf(why, why_len, "payload of %zu bytes for %u kernel and %u user frames (%zu bytes)",
			 len, cs->nr_kernel, cs->nr_user, sizeof(*cs) + frames * sizeof(uint64_t));
		return -1;
	}
	s->nr_kernel = cs->nr_kernel;
	s->nr_user = cs->nr_user;
	s->flags = cs->flags;
	s->kernel = (const uint64_t *)cs->ip;
	s->user = (const uint64_t *)cs->ip + cs->nr_kernel;
	return 0;
}

/* The last part came: decode and tell. */
static void complete(struct kpmc_stack_parts *p, struct thread_parts *t, kpmc_stack_fn fn,
		     void *arg)
{
	struct kpmc_stack s = { .pid = t->pid, .tid = t->tid, .nsample = t->nsample };
	char why[160];

	t->assembling = false;
	if (kpmc_callstack_decode(t->buf, t->len, &s, why, sizeof(why))) {
		p->stats.malformed++;
		tell(fn, arg, KPMC_STACK_MALFORMED, t, t->nsample, NULL, why);
		return;
	}
	p->stats.stacks++;
	tell(fn, arg, KPMC_STACK_COMPLETE, t, t->nsample, &s, NULL);
}

static int add_part(struct kpmc_stack_parts *p, const struct kpmc_record *rec, kpmc_stack_fn fn,
		    void *arg)
{
	const struct kpmc_format_part *part = &rec->part;
	struct thread_parts *t = lookup_or_insert(p, rec->tid);
	char why[160];

	if (!t)
		return -1;
	t->pid = rec->pid;
	if (!part->parts || part->part >= part->parts || part->bytes > KPMC_FORMAT_PART_BYTES) {
		if (t->assembling)
			give_up(p, t, "a malformed part came in its place", fn, arg);
		snprintf(why, sizeof(why), "part %u of %u with %u bytes", part->part, part->parts,
			 part->bytes);
		p->stats.malformed++;
		tell(fn, arg, KPMC_STACK_MALFORMED, t, rec->nsample, NULL, why);
		return 1;
	}
	if (t->broken && t->broken_nsample == rec->nsample && part->part)
		return 1;	/* a sample already given up */
	if (t->assembling && (part->part != t->next || rec->nsample != t->nsample ||
			      part->parts != t->parts))
		give_up(p, t, part->part ? "a part out of order came" : "the next stack began", fn,
			arg);
	if (!t->assembling) {
		if (part->part) {
			/* Its first parts never came: tell once, ignore the rest. */
			snprintf(why, sizeof(why), "part %u of %u came without the parts before it",
				 part->part, part->parts);
			t->broken = true;
			t->broken_nsample = rec->nsample;
			p->stats.incomplete++;
			tell(fn, arg, KPMC_STACK_INCOMPLETE, t, rec->nsample, NULL, why);
			return 1;
		}
		if (!t->buf) {
			t->buf = malloc(KPMC_CALLSTACK_MAX_BYTES);
			if (!t->buf)
				return -1;
		}
		if (!t->have_sample || t->sample != rec->nsample)
			p->stats.orphans++;
		t->assembling = true;
		t->broken = false;
		t->nsample = rec->nsample;
		t->parts = part->parts;
		t->next = 0;
		t->len = 0;
	}
	if (t->len + part->bytes > KPMC_CALLSTACK_MAX_BYTES) {
		t->assembling = false;
		t->broken = true;
		t->broken_nsample = t->nsample;
		snprintf(why, sizeof(why), "parts of more than %zu bytes, the largest callstack",
			 (size_t)KPMC_CALLSTACK_MAX_BYTES);
		p->stats.malformed++;
		tell(fn, arg, KPMC_STACK_MALFORMED, t, rec->nsample, NULL, why);
		return 1;
	}
	memcpy((char *)t->buf + t->len, part->data, part->bytes);
	t->len += part->bytes;
	if (++t->next == t->parts)
		complete(p, t, fn, arg);
	return 1;
}

int kpmc_stack_parts_add(struct kpmc_stack_parts *p, const struct kpmc_record *rec,
			 kpmc_stack_fn fn, void *arg)
{
	struct thread_parts *t;

	switch (rec->kind) {
	case KPMC_REC_STACK:
		return add_part(p, rec, fn, arg);
	case KPMC_REC_FORMAT:
		p->stats.other_parts++;
		if (rec->part.parts && rec->part.part + 1 == rec->part.parts)
			p->stats.other_payloads++;
		return 1;
	case KPMC_REC_LOST:
		return 0;
	case KPMC_REC_TBS:
	case KPMC_REC_EBS:
		t = lookup_or_insert(p, rec->tid);
		if (!t)
			return -1;
		t->pid = rec->pid;
		if (t->assembling)
			give_up(p, t, "its thread's next sample came", fn, arg);
		t->have_sample = true;
		t->sample = rec->nsample;
		return 0;
	}
	/* Any other record of a thread: no part of its earlier sample follows. */
	t = p->nr ? lookup(p, rec->tid) : NULL;
	if (t && t->assembling)
		give_up(p, t, "its thread's next record came", fn, arg);
	return 0;
}

void kpmc_stack_parts_flush(struct kpmc_stack_parts *p, kpmc_stack_fn fn, void *arg)
{
	size_t i;

	for (i = 0; i < p->cap; i++)
		if (p->slots[i].used && p->slots[i].assembling)
			give_up(p, &p->slots[i], "the stream ended", fn, arg);
}
