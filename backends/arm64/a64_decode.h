/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decoder of A64 loads and stores for memory sampling: a sample lands at a
 * PC, the instruction there is decoded and the data address it accessed is
 * computed from the registers saved with the sample. Pure code
 * (backends/arm64/a64_decode.c): compiled into the module and into the unit tests.
 */
#ifndef KPMC_A64_DECODE_H
#define KPMC_A64_DECODE_H

#include "kpmc/pure.h"

enum kpmc_a64_kind {
	KPMC_A64_NOT_MEM = 0,
	KPMC_A64_LOAD,
	KPMC_A64_STORE,
	KPMC_A64_LOAD_STORE,	/* atomic read-modify-write, swap, compare-and-swap */
};

/* kpmc_a64_access.flags */
#define KPMC_A64_PAIR		(1u << 0)	/* two registers (LDP, LDXP, CASP...) */
#define KPMC_A64_WRITEBACK	(1u << 1)	/* pre- or post-index: the base was updated */
#define KPMC_A64_SIMD		(1u << 2)	/* SIMD&FP registers */
#define KPMC_A64_EXCLUSIVE	(1u << 3)	/* load/store exclusive */
#define KPMC_A64_ACQREL		(1u << 4)	/* acquire, release or both */
#define KPMC_A64_LITERAL	(1u << 5)	/* PC-relative: no base register */
#define KPMC_A64_UNPRIV		(1u << 6)	/* LDTR/STTR: EL0's permissions */
#define KPMC_A64_PREFETCH	(1u << 7)	/* PRFM/PRFUM (see kpmc_a64_decode) */

#define KPMC_A64_NO_REG		0xff

/*
 * Registers as saved at the sample. pc is always the address of the
 * instruction decoded, whatever after says: a caller that holds the PC of
 * the next instruction to run passes it minus 4.
 */
struct kpmc_a64_regs {
	u64 x[31];
	u64 sp;
	u64 pc;
};

struct kpmc_a64_access {
	u64 addr;	/* effective address of the first byte accessed */
	u32 size;	/* bytes accessed in all (a pair, a structure: all registers) */
	u8 kind;	/* enum kpmc_a64_kind */
	u8 flags;	/* KPMC_A64_* */
	u8 base_reg;	/* Rn (31: SP), or KPMC_A64_NO_REG for a literal */
	u8 index_reg;	/* Rm of a register offset or post-index, or KPMC_A64_NO_REG */
};

/*
 * Decode insn (the 32-bit word as fetched, in host order) and compute the
 * address it accesses from r.
 *
 * after false: r holds the registers from before the instruction executed.
 * after true: from after it executed (a sample's registers when the PC is
 * past it): base write-back is undone (pre-index: the new base is the
 * address; post-index: the address is the new base minus the offset), and
 * -EAGAIN is returned when the instruction overwrote a register its address
 * was computed from: a load into its own base or index (ldr x0, [x0];
 * ldp x1, x2, [x1]; an atomic's or a swap's loaded value), the status
 * register of a store-exclusive or the compare register of a CAS naming the
 * base. Write-back to the base register is only undone, never a clobber.
 *
 * Returns:
 * 0		a load or store; *out filled.
 * -EAGAIN	a load or store whose address is lost (after only); *out is
 *		filled but for addr (0).
 * -ENOENT	not a data access (*out zeroed, kind KPMC_A64_NOT_MEM). PRFM and
 *		PRFUM are hints that neither fault nor load: they return -ENOENT
 *		too, with KPMC_A64_PREFETCH, base_reg and the address prefetched
 *		filled in (size 0), for callers that want it.
 * -EOPNOTSUPP	an access this decoder does not handle (backends/arm64/a64_decode.c
 *		lists them): its address is unknown, and it should not be
 *		skipped over as if it were not an access.
 */
int kpmc_a64_decode(u32 insn, const struct kpmc_a64_regs *r, bool after,
		    struct kpmc_a64_access *out);

/*
 * Does insn change the flow of control (B, BL, B.cond, BC.cond, CBZ, CBNZ,
 * TBZ, TBNZ, CB<cc>, BR, BLR, RET, ERET, DRPS and their pointer
 * authentication forms)? A walk back from a PC stays within a basic block
 * by stopping at one. Exception generation (SVC, HVC, SMC, BRK...) is not a
 * branch here: callers check for it on their own.
 */
bool kpmc_a64_is_branch(u32 insn);

#endif /* KPMC_A64_DECODE_H */
