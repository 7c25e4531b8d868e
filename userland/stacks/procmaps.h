/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The executable mappings of the monitored processes, read from
 * /proc/PID/maps while they live and written into the trace as map lines
 * (path, addresses, file offset, GNU build-id), so that their call stacks
 * can be symbolized later, elsewhere. A mapping made and unmade between two
 * reads is missed.
 */
#ifndef KPMC_PROCMAPS_H
#define KPMC_PROCMAPS_H

#include <stdio.h>
#include <sys/types.h>

struct kpmc_procmaps;

struct kpmc_procmaps *kpmc_procmaps_new(void);
void kpmc_procmaps_free(struct kpmc_procmaps *pm);
/* Read pid's mappings from now on, at each kpmc_procmaps_read. -1 if out of memory. */
int kpmc_procmaps_watch(struct kpmc_procmaps *pm, pid_t pid);
/*
 * Read the mappings of every watched process still alive; a map line to
 * out for each executable mapping not written before. The number of lines
 * written.
 */
unsigned int kpmc_procmaps_read(struct kpmc_procmaps *pm, FILE *out);

#endif
