/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test workloads' loop: n iterations of exactly two user instructions
 * (decrement, branch), no memory access, no atomics. n must be > 0.
 */
#ifndef KPMC_TEST_SPIN_H
#define KPMC_TEST_SPIN_H

static inline void spin(unsigned long n)
{
#if defined(__aarch64__)
	__asm__ volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#elif defined(__x86_64__)
	__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
#else
#error "spin.h: add the two-instruction loop for this architecture"
#endif
}

#endif
