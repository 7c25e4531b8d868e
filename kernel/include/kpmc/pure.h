/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types for kpmc's pure logic (config parser, counter arithmetic, ring
 * indices): these files are compiled into the module and, unchanged, into
 * the userland unit tests, so they may use nothing but what is defined here.
 */
#ifndef KPMC_PURE_H
#define KPMC_PURE_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/kernel.h>
#else
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>
#include <stdio.h>
#include <errno.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#endif

#endif /* KPMC_PURE_H */
