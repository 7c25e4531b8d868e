/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory samples from decoded A64 instructions: given the registers an
 * overflow interrupt saved, find the load or store the sample hit and the
 * address it accessed. Pure code (backends/arm64/a64_sample.c): compiled into the
 * module and into the unit tests.
 */
#ifndef KPMC_A64_SAMPLE_H
#define KPMC_A64_SAMPLE_H

#include "kpmc/pure.h"
#include "a64_decode.h"
#include <uapi/linux/kpmc.h>

/* How far back from the interrupted PC a sample looks for its access. */
#define KPMC_A64_WALK_MAX	8
/* How far from the PC on a branch back into the walked instructions is looked for. */
#define KPMC_A64_TARGET_SCAN	16
/*
 * Every instruction a walk may read: [pc - 4 * KPMC_A64_WALK_MAX,
 * pc + 4 * KPMC_A64_TARGET_SCAN), for a fetch that reads them at once.
 */
#define KPMC_A64_WINDOW		(KPMC_A64_WALK_MAX + KPMC_A64_TARGET_SCAN)

/*
 * Read the instruction at pc into *insn without faulting: 0, or an error
 * (unmapped, not executable...).
 */
typedef int (*kpmc_a64_fetch_fn)(void *ctx, u64 pc, u32 *insn);

/*
 * r: the registers at the interrupt, r->pc the next instruction to run.
 * Walks back from r->pc - 4 through at most KPMC_A64_WALK_MAX instructions,
 * stopping at a branch and never crossing into the target of a direct
 * branch among the KPMC_A64_TARGET_SCAN instructions from r->pc on, to the
 * most recent load or store, and fills out:
 * ip, op, size, skid (instructions walked over), flags. Its address is in
 * addr (KPMC_MEM_F_ADDR) when no instruction after it (nor the access
 * itself) may have written a register the address came from, but for a
 * constant added to the register itself, taken back; otherwise
 * KPMC_MEM_F_CLOBBERED. KPMC_MEM_F_EXACT when the access is at r->pc - 4.
 * Nothing found: op NONE, ip = r->pc.
 */
void kpmc_a64_locate_access(const struct kpmc_a64_regs *r, kpmc_a64_fetch_fn fetch,
			    void *ctx, struct kpmc_mem_access *out);

#endif /* KPMC_A64_SAMPLE_H */
