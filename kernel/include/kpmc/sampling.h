/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Randomized sampling periods (perfmon2's answer to samples that lock step
 * with a loop): each period is drawn uniformly from [P - R, P + R] by a
 * xorshift64* generator. The stream depends only on the seed, so a trace can
 * be reproduced, and every record carries the period actually used.
 * Pure: also compiled into the unit tests.
 */
#ifndef KPMC_SAMPLING_H
#define KPMC_SAMPLING_H

#include "pure.h"

/* Any seed gives a usable (non-zero) generator state. */
static inline u64 kpmc_rand_init(u64 seed)
{
	return seed ^ 0x9e3779b97f4a7c15ULL ? seed ^ 0x9e3779b97f4a7c15ULL : 1;
}

static inline u64 kpmc_rand_next(u64 *state)
{
	u64 x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* The next period: period itself when range is 0. Needs range < period. */
static inline u64 kpmc_next_period(u64 *state, u64 period, u64 range)
{
	if (!range)
		return period;
	return period - range + kpmc_rand_next(state) % (2 * range + 1);
}

/*
 * Counter value that overflows after period events on a counter of the
 * given width mask (the counter counts up and interrupts on wrap to 0).
 */
static inline u64 kpmc_overflow_start(u64 period, u64 width_mask)
{
	return (0 - period) & width_mask;
}

/*
 * Multiplexing (perfmon2's two switch modes): has the set that runs had its
 * turn, by on-CPU time (its slice, slice_ns) or by samples taken
 * (mux_samples)?
 */
static inline bool kpmc_mux_due(u64 set_run_ns, u32 set_samples, u64 slice_ns,
				u32 mux_samples)
{
	if (slice_ns && set_run_ns >= slice_ns)
		return true;
	return mux_samples && set_samples >= mux_samples;
}

/*
 * A set's next time slice: mux_ms, or with rnd_ms drawn uniformly from
 * [mux_ms - rnd_ms, mux_ms + rnd_ms] at nanosecond grain. A fixed slice lets
 * a program whose phases repeat with the rotation's cycle show each set the
 * same phase every turn (the count scaled from it is off by the phase's
 * share); a drawn one cannot stay in step. 0 without mux_ms.
 */
static inline u64 kpmc_mux_slice_ns(u64 *state, u32 mux_ms, u32 rnd_ms)
{
	return kpmc_next_period(state, (u64)mux_ms * 1000000ULL, (u64)rnd_ms * 1000000ULL);
}

/*
 * A randomized rotation's order: each cycle visits every set once, in an
 * order drawn afresh (Fisher-Yates). Drawn slice lengths alone let a set's
 * turn drift only slowly through a program's period (the slices' spread
 * adds up like a random walk); a fresh order puts each set anywhere in the
 * next cycle.
 */
static inline void kpmc_mux_shuffle(u64 *state, u8 *order, unsigned int nr)
{
	unsigned int i, j;
	u8 x;

	for (i = 0; i < nr; i++)
		order[i] = (u8)i;
	for (i = nr; i > 1; i--) {
		j = (unsigned int)(kpmc_rand_next(state) % i);
		x = order[i - 1];
		order[i - 1] = order[j];
		order[j] = x;
	}
}

/* The slices' generator: the set's seed, apart from its sampling periods' stream. */
#define KPMC_MUX_SEED_SALT	0x6d75787274696d65ULL

/* Round-robin over nr sets. */
static inline unsigned int kpmc_mux_next_set(unsigned int set, unsigned int nr)
{
	return set + 1 < nr ? set + 1 : 0;
}

#endif /* KPMC_SAMPLING_H */
