/* SPDX-License-Identifier: GPL-2.0 */
/*
 * READ_ONCE, WRITE_ONCE and barrier for the backends' pure parts that the
 * unit tests build (intel_pebs.c, perf_mem.c): the kernel's own, or plain
 * stand-ins in user space (each only if the test has none of its own).
 */
#ifndef KPMC_PURE_ONCE_H
#define KPMC_PURE_ONCE_H

#ifdef __KERNEL__
#include <linux/compiler.h>
#else
#ifndef barrier
#define barrier()		__asm__ __volatile__("" ::: "memory")
#endif
#ifndef READ_ONCE
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#endif
#ifndef WRITE_ONCE
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
#endif
#endif

#endif /* KPMC_PURE_ONCE_H */
