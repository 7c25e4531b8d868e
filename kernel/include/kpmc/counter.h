/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counter-width arithmetic. Hardware counters are narrower than the 64-bit
 * per-thread totals (32-bit event counters on PMUv3); a delta read modulo the
 * counter width is exact as long as the counter is folded at least once per
 * wrap, which the core guarantees with its fold timer.
 */
#ifndef KPMC_COUNTER_H
#define KPMC_COUNTER_H

#include "pure.h"

static inline u64 kpmc_width_mask(unsigned int width)
{
	return width >= 64 ? ~(u64)0 : (((u64)1 << width) - 1);
}

/* Events counted between two raw readings of a counter of the given mask. */
static inline u64 kpmc_counter_delta(u64 now, u64 before, u64 mask)
{
	return (now - before) & mask;
}

#endif /* KPMC_COUNTER_H */
