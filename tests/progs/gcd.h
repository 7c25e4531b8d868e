/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory-sampling checkers' arithmetic: a sample's loop start must lie
 * on a lattice of one repetition's instruction count, found as the greatest
 * common divisor of the starts' differences.
 */
#ifndef KPMC_TEST_GCD_H
#define KPMC_TEST_GCD_H

#include <stdint.h>

static inline uint64_t gcd(uint64_t x, uint64_t y)
{
	while (y) {
		uint64_t r = x % y;

		x = y;
		y = r;
	}
	return x;
}

#endif
