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

#include "a64_sample.h"
#include "arm64_hw.h"

static int fetch_user_insn(void *ctx, u64 pc, u32 *insn)
{
	__le32 v;

	if (copy_from_user_nofault(&v, (const void __user *)(unsigned long)pc, sizeof(v)))
		return -EFAULT;
	*insn = le32_to_cpu(v);
	return 0;
}

void kpmc_arm64_mem_sample(struct pt_regs *regs, bool kernel_allowed,
			   struct kpmc_mem_access *out)
{
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
	kpmc_a64_locate_access(&r, fetch_user_insn, NULL, out);
}
