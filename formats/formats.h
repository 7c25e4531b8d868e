/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sampling formats built into kpmc.ko, listed by formats/registry.c: the
 * third kind of plug-in, beside backends/ and modules/. Each registers itself
 * with the format registry (kernel/format.c) as a format in its own module
 * would, with a record kind of its own; the registry names none of them.
 */
#ifndef KPMC_FORMATS_H
#define KPMC_FORMATS_H

/* mem.c: every sample's data access, decoded (mem=1, fmt=mem). */
int kpmc_format_mem_init(void);
/* callstack.c: user and kernel call stacks (fmt=callstack). */
int kpmc_format_callstack_init(void);
void kpmc_format_callstack_exit(void);

#endif
