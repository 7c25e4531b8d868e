// SPDX-License-Identifier: GPL-2.0
/*
 * Memory samples from decoded A64 instructions (the "decoded" source of
 * memory sampling on arm64 PMUs without SPE): the overflow interrupt saved
 * the registers at the next instruction to run; the access the sample hit
 * is the load or store just before it. Real cores take the interrupt a few
 * instructions late (skid), so the search walks back, within what must be
 * one basic block (it stops at a branch), and gives the address only if no
 * instruction it walked over may have changed the registers the address is
 * made of. Pure code: also compiled into the userland unit tests.
 */
#include "a64_sample.h"

#define SP_BIT	(1u << 31)

/* Exception generation (SVC, HVC, SMC, BRK...): the kernel ran in between. */
static bool is_exception(u32 insn)
{
	return (insn >> 24) == 0xd4;
}

/* Bit of X register n (0-30), or SP_BIT for 31 (SP as a base, or Rd of ADD). */
static u32 reg_bit(unsigned int n)
{
	return n == 31 ? SP_BIT : 1u << n;
}

/*
 * X registers an instruction may write, over-approximated: a wrong "may"
 * only costs an address, a missed write would give a wrong one. Loads and
 * stores: every register field (Rt, Rt2, Rn for write-back, Rs for a
 * store-exclusive's status); anything else: Rd, bits 4-0.
 */
static u32 may_write(u32 insn, bool memory)
{
	if (memory)
		return reg_bit(insn & 31) | reg_bit((insn >> 10) & 31) |
		       reg_bit((insn >> 5) & 31) | reg_bit((insn >> 16) & 31);
	return reg_bit(insn & 31);
}

/* Registers the address of a memory instruction is made of: its base and index. */
static u32 address_regs(const struct kpmc_a64_access *a)
{
	u32 regs = 0;

	if (a->base_reg != KPMC_A64_NO_REG)
		regs |= reg_bit(a->base_reg);
	if (a->index_reg != KPMC_A64_NO_REG)
		regs |= 1u << a->index_reg;	/* an index is never SP */
	return regs;
}

static void fill(struct kpmc_mem_access *out, u64 ip, u32 skid, const struct kpmc_a64_access *a)
{
	out->ip = ip;
	out->skid = skid;
	out->size = a->size;
	out->op = a->kind == KPMC_A64_LOAD ? KPMC_MEM_OP_LOAD :
		  a->kind == KPMC_A64_STORE ? KPMC_MEM_OP_STORE : KPMC_MEM_OP_LOAD_STORE;
	out->flags |= KPMC_MEM_F_DECODED;
	if (a->flags & KPMC_A64_PAIR)
		out->flags |= KPMC_MEM_F_PAIR;
	if (a->flags & KPMC_A64_SIMD)
		out->flags |= KPMC_MEM_F_SIMD;
	if (a->flags & (KPMC_A64_EXCLUSIVE | KPMC_A64_ACQREL) || a->kind == KPMC_A64_LOAD_STORE)
		out->flags |= KPMC_MEM_F_ATOMIC;
}

void kpmc_a64_locate_access(const struct kpmc_a64_regs *r, kpmc_a64_fetch_fn fetch,
			    void *ctx, struct kpmc_mem_access *out)
{
	struct kpmc_a64_regs at = *r;
	struct kpmc_a64_access a;
	u32 written = 0, insn;
	unsigned int k;
	int rc;

	out->ip = r->pc;
	for (k = 0; k < KPMC_A64_WALK_MAX; k++) {
		u64 pc = r->pc - 4 * (u64)(k + 1);

		if (fetch(ctx, pc, &insn))
			return;
		if (kpmc_a64_is_branch(insn) || is_exception(insn))
			return;
		at.pc = pc;
		memset(&a, 0, sizeof(a));
		rc = kpmc_a64_decode(insn, &at, true, &a);
		if (rc == 0 || rc == -EAGAIN) {
			fill(out, pc, k, &a);
			if (rc == 0 && !(address_regs(&a) & written)) {
				out->addr = a.addr;
				out->flags |= KPMC_MEM_F_ADDR;
				if (k == 0)
					out->flags |= KPMC_MEM_F_EXACT;
			} else {
				out->flags |= KPMC_MEM_F_CLOBBERED;
			}
			return;
		}
		/* Forms the decoder does not know (-EOPNOTSUPP): give up, never guess. */
		if (rc != -ENOENT)
			return;
		written |= may_write(insn, false);
	}
}
