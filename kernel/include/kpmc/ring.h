/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Index arithmetic of a session's record ring. Positions are free-running
 * 64-bit counts, so "full" and "empty" never alias and no slot is wasted;
 * the slot of a position is its low bits (capacity is a power of two).
 * Callers serialize producers and the consumer; this file holds no lock.
 */
#ifndef KPMC_RING_H
#define KPMC_RING_H

#include "pure.h"

struct kpmc_ring_pos {
	u64 head;		/* records ever produced */
	u64 tail;		/* records ever consumed */
	u64 dropped;		/* records refused because the ring was full */
	u64 unreported;		/* of those, not yet told in a LOST record */
	u32 capacity;		/* slots; a power of two */
};

static inline bool kpmc_ring_capacity_valid(u32 capacity)
{
	return capacity && !(capacity & (capacity - 1));
}

static inline u64 kpmc_ring_used(const struct kpmc_ring_pos *r)
{
	return r->head - r->tail;
}

/*
 * Slot for the next record, or -1 when full (the record is counted as
 * dropped). The producer fills the slot, then calls kpmc_ring_produced().
 */
static inline long kpmc_ring_reserve(struct kpmc_ring_pos *r)
{
	if (kpmc_ring_used(r) >= r->capacity) {
		r->dropped++;
		r->unreported++;
		return -1;
	}
	return (long)(r->head & (r->capacity - 1));
}

static inline void kpmc_ring_produced(struct kpmc_ring_pos *r)
{
	r->head++;
}

/*
 * How many records the consumer may take now, at most max, starting at slot
 * *first; they may wrap around the end of the slot array.
 */
static inline u32 kpmc_ring_peek(const struct kpmc_ring_pos *r, u32 max,
				 u32 *first)
{
	u64 used = kpmc_ring_used(r);

	*first = (u32)(r->tail & (r->capacity - 1));
	return used < max ? (u32)used : max;
}

static inline void kpmc_ring_consumed(struct kpmc_ring_pos *r, u32 n)
{
	r->tail += n;
}

/*
 * Loss is told in-band: before the next record that fits, or to a reader that
 * emptied the ring, a LOST record carries the count of records dropped since
 * the previous one. Returns that count (0: nothing to tell) and clears it;
 * the caller puts the LOST record in a slot it has (reserve, or the read).
 */
static inline u64 kpmc_ring_take_unreported(struct kpmc_ring_pos *r)
{
	u64 n = r->unreported;

	r->unreported = 0;
	return n;
}

/* Does the ring have room for one more record? */
static inline bool kpmc_ring_has_room(const struct kpmc_ring_pos *r)
{
	return kpmc_ring_used(r) < r->capacity;
}

#endif /* KPMC_RING_H */
