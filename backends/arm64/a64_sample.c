// SPDX-License-Identifier: GPL-2.0
/*
 * Memory samples from decoded A64 instructions (the "decoded" source of
 * memory sampling on arm64 PMUs without SPE): the overflow interrupt saved
 * the registers at the next instruction to run; the access the sample hit
 * is the load or store just before it. Real cores take the interrupt a few
 * instructions late (skid), so the search walks back, within what must be
 * one basic block: it stops at a branch, and it never crosses into an
 * instruction that a branch after the PC jumps to (a loop's head: what
 * ran before it is the loop's end, not the instruction above it). It gives
 * the address when no instruction it walked over may have changed the
 * registers the address is made of, or when the only change was a
 * constant added to or taken from a base (a pointer bumped after the
 * load), which it undoes. Pure code: also compiled into the userland unit
 * tests.
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

/* Register 31 as a destination is SP in these forms, XZR (no write) elsewhere. */
static bool rd31_is_sp(u32 insn)
{
	u32 op = (insn >> 23) & 0x3f;		/* bits 28-23 */

	/* ADD/SUB (immediate, and with tags) without S. */
	if ((op == 0x22 || op == 0x23) && !(insn & (1u << 29)))
		return true;
	/* Logical (immediate) but ANDS. */
	if (op == 0x24 && ((insn >> 29) & 3) != 3)
		return true;
	/* ADD/SUB (extended register) without S. */
	return (insn & 0x1f200000) == 0x0b200000 && !(insn & (1u << 29));
}

/*
 * X registers (and SP) a non-memory instruction may write, over-approximated:
 * a wrong "may" only costs an address, a missed write would give a wrong one.
 * Rd (bits 4-0), register 31 by the instruction's class; the SIMD&FP data
 * processing instructions write V registers, but for the conversions to a
 * general register and the copies to one (FMOV, FCVT*, UMOV, SMOV).
 */
static u32 may_write(u32 insn)
{
	unsigned int rd = insn & 31;

	if ((insn & 0x0e000000) == 0x0e000000 &&
	    (insn & 0x5f20fc00) != 0x1e200000 && (insn & 0x9fe08400) != 0x0e000400)
		return 0;
	if (rd == 31)
		return rd31_is_sp(insn) ? SP_BIT : 0;
	return 1u << rd;
}

/*
 * ADD or SUB (immediate, 64-bit) of a register to itself: what it added,
 * as the register's value before it = value after - *delta; false for
 * anything else. Register 31 is SP here only without S (with S it is XZR,
 * which may_write() already counts as no write).
 */
static bool constant_bump(u32 insn, unsigned int *reg, u64 *delta)
{
	unsigned int rd = insn & 31, rn = (insn >> 5) & 31;
	u64 imm = (insn >> 10) & 0xfff;

	/* sf=1, bits 28-23 = 100010: ADD/ADDS/SUB/SUBS Xd, Xn, #imm{, LSL #12}. */
	if ((insn & 0x9f800000) != 0x91000000 || rd != rn)
		return false;
	if (rd == 31 && (insn & (1u << 29)))
		return false;
	if (insn & (1u << 22))
		imm <<= 12;
	*reg = rd;
	*delta = (insn & (1u << 30)) ? -imm : imm;
	return true;
}

/* v's low bits, a two's complement number, sign-extended (no signed types). */
static u64 sign_extend(u64 v, unsigned int bits)
{
	u64 m = 1ull << (bits - 1);

	return (v ^ m) - m;
}

/* A direct branch's target (B, BL, B.cond, BC.cond, CBZ, CBNZ, TBZ, TBNZ), or false. */
static bool branch_target(u32 insn, u64 pc, u64 *target)
{
	u64 words;

	if ((insn & 0x7c000000) == 0x14000000)			/* B, BL: imm26 */
		words = sign_extend(insn & 0x03ffffff, 26);
	else if ((insn & 0xfe000000) == 0x54000000 ||		/* B.cond, BC.cond: imm19 */
		 (insn & 0x7e000000) == 0x34000000)		/* CBZ, CBNZ: imm19 */
		words = sign_extend((insn >> 5) & 0x7ffff, 19);
	else if ((insn & 0x7e000000) == 0x36000000)		/* TBZ, TBNZ: imm14 */
		words = sign_extend((insn >> 5) & 0x3fff, 14);
	else
		return false;
	*target = pc + 4 * words;
	return true;
}

/*
 * Does a direct branch among the instructions from pc on (up to the first
 * branch that cannot fall through, or KPMC_A64_TARGET_SCAN of them) jump to
 * an address in (lo, hi]? Then the instruction at lo may not be the one that
 * ran before what follows it: a loop's body ends in a branch to its head.
 */
static bool jumped_into(kpmc_a64_fetch_fn fetch, void *ctx, u64 pc, u64 lo, u64 hi)
{
	unsigned int k;
	u64 target;
	u32 insn;

	for (k = 0; k < KPMC_A64_TARGET_SCAN; k++, pc += 4) {
		if (fetch(ctx, pc, &insn))
			return false;
		if (branch_target(insn, pc, &target) && target > lo && target <= hi)
			return true;
		/* B, BR, RET and their kin: nothing after them follows this block. */
		if ((insn & 0xfc000000) == 0x14000000 || (insn & 0xfe000000) == 0xd6000000)
			return false;
	}
	return false;
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
	unsigned int k, reg;
	u64 delta;
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
			/* A branch after the PC into what was walked over: pc did not just run. */
			if (jumped_into(fetch, ctx, r->pc, pc, r->pc))
				return;
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
		/*
		 * A constant added to a register nothing later wrote: its value
		 * before is known, so the address it makes still is.
		 */
		if (constant_bump(insn, &reg, &delta) && !(reg_bit(reg) & written)) {
			if (reg == 31)
				at.sp -= delta;
			else
				at.x[reg] -= delta;
			continue;
		}
		written |= may_write(insn);
	}
}
