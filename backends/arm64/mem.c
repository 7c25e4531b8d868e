// SPDX-License-Identifier: GPL-2.0
/*
 * Memory samples on arm64 PMUs without SPE (the "decoded" source): at an
 * overflow interrupt in user mode, the instructions before the interrupted
 * PC are read from the task's memory without faulting and decoded
 * (backends/arm64/a64_sample.c, backends/arm64/a64_decode.c); the address comes from the
 * saved registers.
 */
#include <linux/uaccess.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/bits.h>
#include <linux/kernel.h>

#include "a64_sample.h"
#include "arm64_hw.h"

/*
 * The instructions around the interrupted PC, read from the task's memory
 * without faulting in at most two copies (the window may straddle a page
 * boundary), not one per instruction the walk looks at.
 */
struct text_window {
	u64 start;
	u32 valid;			/* bit i: words[i] was read */
	__le32 words[KPMC_A64_WINDOW];
};

static void window_read(struct text_window *w, u64 pc)
{
	u64 end = pc + 4 * KPMC_A64_TARGET_SCAN, from, to;

	w->start = pc - 4 * KPMC_A64_WALK_MAX;
	w->valid = 0;
	for (from = w->start; from < end; from = to) {
		to = min(end, (from | (PAGE_SIZE - 1)) + 1);
		if (!copy_from_user_nofault(&w->words[(from - w->start) / 4],
					    (const void __user *)(unsigned long)from, to - from))
			w->valid |= GENMASK((to - w->start) / 4 - 1, (from - w->start) / 4);
	}
}

static int fetch_user_insn(void *ctx, u64 pc, u32 *insn)
{
	const struct text_window *w = ctx;
	u64 i = (pc - w->start) / 4;

	if (pc < w->start || pc % 4 || i >= KPMC_A64_WINDOW || !(w->valid & BIT(i)))
		return -EFAULT;
	*insn = le32_to_cpu(w->words[i]);
	return 0;
}

void kpmc_arm64_mem_sample(struct pt_regs *regs, bool kernel_allowed,
			   struct kpmc_mem_access *out)
{
	struct text_window w;
	struct kpmc_a64_regs r;

	/*
	 * A user-only counter's interrupt is often taken in EL1 (the skid
	 * across svc, an interrupt masked at entry): its pc is a kernel text
	 * address, which such a set's owner may not see.
	 */
	if (!user_mode(regs)) {
		out->flags = KPMC_MEM_F_KERNEL;
		out->ip = kernel_allowed ? instruction_pointer(regs) : 0;
		return;
	}
	/* AArch32 tasks run another instruction set. */
	if (compat_user_mode(regs))
		return;
	memcpy(r.x, regs->regs, sizeof(r.x));
	r.sp = regs->sp;
	r.pc = regs->pc;
	/* An unaligned PC reads nothing: every fetch fails, no access is found. */
	if (r.pc % 4 || r.pc < 4 * KPMC_A64_WALK_MAX)
		return;
	window_read(&w, r.pc);
	kpmc_a64_locate_access(&r, fetch_user_insn, &w, out);
}
