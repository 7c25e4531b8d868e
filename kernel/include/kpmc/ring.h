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

/*
 * The mapped ring (struct kpmc_ring_control): the reader advances data_tail
 * in a page it can write, so the kernel takes it as a hint only. A tail
 * behind the kernel's would let the reader take records again (ignored: the
 * kernel's stands); one past head would free slots never filled (taken as
 * head: the reader dropped everything there was).
 */
static inline u64 kpmc_ring_clamp_tail(const struct kpmc_ring_pos *r, u64 reader_tail)
{
	u64 ahead = reader_tail - r->tail;

	/* Free-running counts never come near 2^63: "ahead" that big is behind. */
	if (ahead >> 63)
		return r->tail;
	if (ahead > kpmc_ring_used(r))
		return r->head;
	return reader_tail;
}

/* Bytes the data area maps: the records, in whole pages (page_size a power of two). */
static inline u64 kpmc_ring_data_bytes(u32 capacity, u32 record_size, u64 page_size)
{
	return ((u64)capacity * record_size + page_size - 1) & ~(page_size - 1);
}

/* What an mmap of the monitor file asks for (offset in pages, length in bytes). */
enum kpmc_ring_map_part {
	KPMC_RING_MAP_CONTROL,		/* page 0, one page */
	KPMC_RING_MAP_DATA,		/* page 1, the data area's bytes exactly */
	KPMC_RING_MAP_BAD_OFFSET,
	KPMC_RING_MAP_BAD_LENGTH,
};

static inline enum kpmc_ring_map_part kpmc_ring_map_part(u64 pgoff, u64 len, u64 page_size,
							 u64 data_bytes)
{
	if (pgoff == 0)
		return len == page_size ? KPMC_RING_MAP_CONTROL : KPMC_RING_MAP_BAD_LENGTH;
	if (pgoff == 1)
		return len == data_bytes ? KPMC_RING_MAP_DATA : KPMC_RING_MAP_BAD_LENGTH;
	return KPMC_RING_MAP_BAD_OFFSET;
}

/*
 * No-loss mode: a thread whose sample leaves more than high records in the
 * ring waits, at its return to user mode, until the reader has brought the
 * ring down to low. Until it gets there the ring must still take what the
 * thread produces: the sample that crossed the mark, the rest of that
 * interrupt (a time-based sample, a MUX record), a sample at a switch-out on
 * the way, and a spare record (EXIT, DETACH) -- three samples of up to
 * per_sample records and two single records: the headroom above high.
 */
#define KPMC_NOLOSS_SAMPLES_IN_FLIGHT	3
#define KPMC_NOLOSS_SINGLES_IN_FLIGHT	2

static inline u64 kpmc_ring_noloss_headroom(u32 per_sample)
{
	return (u64)KPMC_NOLOSS_SAMPLES_IN_FLIGHT * per_sample + KPMC_NOLOSS_SINGLES_IN_FLIGHT;
}

/*
 * The marks for a ring of capacity records whose samples are at most
 * per_sample records each: 0, or -ENOSPC when the headroom does not fit.
 * low is a quarter of the ring (the reader's wakeup mark), at most high, so
 * that a released thread runs a while before it waits again.
 */
static inline int kpmc_ring_noloss_marks(u32 capacity, u32 per_sample, u32 *high, u32 *low)
{
	u64 room = kpmc_ring_noloss_headroom(per_sample);

	if (!per_sample || room > capacity)
		return -ENOSPC;
	*high = capacity - (u32)room;
	*low = capacity / 4 < *high ? capacity / 4 : *high;
	return 0;
}

/* The smallest ring no-loss mode accepts for samples of per_sample records. */
static inline u64 kpmc_ring_noloss_min_capacity(u32 per_sample)
{
	u64 room = kpmc_ring_noloss_headroom(per_sample ? per_sample : 1);
	u64 cap = 2;

	while (cap < room)
		cap <<= 1;
	return cap;
}

#endif /* KPMC_RING_H */
