/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * libkpmc's memory samples (memsample.c): registered data objects, the
 * attribution of a sample's address to an object and its multi-dimensional
 * index, the samples kept, the Mitos-style CSV. records.c hands it the
 * session's MEM records.
 */
#ifndef KPMC_LIB_MEMSAMPLE_H
#define KPMC_LIB_MEMSAMPLE_H

#include <stdint.h>
#include <stddef.h>
#include <uapi/linux/kpmc.h>

#include "kpmc.h"

/*
 * Pure: the index of addr in an object at base of ndims dimensions dims[]
 * (dims[0] outermost, row-major) of elem-byte elements: 0 and idx[] filled
 * (idx[0] outermost), or -1 if addr is not in it.
 */
int kpmc_mem_index(uint64_t base, size_t elem, const size_t *dims, unsigned int ndims,
		   uint64_t addr, uint64_t *idx);

/* A MEM record of the session (rec_lock held); time: the thread's on-CPU ns at it, 0 unknown. */
void kpmc_lib_mem_take(const struct kpmc_record *r, uint64_t time_ns);
/* Forget the samples kept (a new kpmc_start); rec_lock held. */
void kpmc_lib_mem_forget(void);
/* Each sample kept, and how many (rec_lock held). */
void kpmc_lib_mem_each(kpmc_mem_fn fn, void *arg, long *n);
void kpmc_lib_mem_csv(FILE *f, long *n);

#endif
