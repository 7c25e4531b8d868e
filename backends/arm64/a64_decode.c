// SPDX-License-Identifier: GPL-2.0
/*
 * Decoder of A64 loads and stores for memory sampling: the effective data
 * address of the access, from the registers saved with a sample. Pure code:
 * also compiled into the userland unit tests.
 *
 * Decoded (the Arm ARM's "Loads and Stores" group):
 *  - load/store register: unsigned offset, unscaled (LDUR), pre- and
 *    post-index, unprivileged (LDTR), register offset; all sizes, signed
 *    loads, SIMD&FP B/H/S/D/Q; PRFM/PRFUM as hints (-ENOENT, see header)
 *  - load register (literal): W, X, SW, SIMD&FP S/D/Q, PRFM
 *  - load/store pair: LDP/STP/LDPSW/LDNP/STNP (and STGP, the store of a
 *    pair of a tagged granule), all indexing forms, SIMD&FP S/D/Q
 *  - exclusive, ordered and compare-and-swap: LDXR/STXR/LDAXR/STLXR,
 *    LDXP/STXP/LDAXP/STLXP, LDAR/STLR, LDLAR/STLLR, CAS, CASP
 *  - LDAPUR/STLUR (RCpc, unscaled immediate), LDAPR
 *  - atomic memory operations: LDADD .. LDUMIN, SWP (and their ST aliases)
 *  - SIMD LD1-LD4/ST1-ST4, multiple and single structures, LD1R-LD4R, no
 *    offset and post-index by immediate or by register
 *
 * -EOPNOTSUPP (accesses whose address this code does not compute): LDRAA/
 * LDRAB (the base holds a pointer authentication code), memory tagging
 * (LDG, STG, STZG, ST2G, LDGM, STGM...), LD64B/ST64B, CPY/SET (FEAT_MOPS),
 * RCpc3 (LDIAPP, STILP, SIMD LDAPUR/STLUR), LSE128, RCW*, GCS stores, SVE and
 * SME loads and stores, DC ZVA and the other cache maintenance by address,
 * and any encoding of the load/store group left unallocated in Armv8.0:
 * a newer extension may have made it an access.
 */
#include "a64_decode.h"

#define REG_SP		31	/* in Rn: SP; in Rt, Rt2, Rs, Rm: the zero register */

/*
 * How the address is formed. Write-back is not a clobber: it is undone.
 * clobbered is what the access itself wrote (a load's Rt, a store-exclusive's
 * status...), reads what the address came from.
 */
enum idx_mode { IDX_OFFSET, IDX_PRE, IDX_POST };

struct ea {
	u64 base;		/* Rn (SP for 31) as in r */
	u64 off;		/* added to the base, or the write-back amount */
	enum idx_mode mode;
	u32 reads;		/* bit n: Xn is part of the address */
	u32 clobbered;		/* bit n: the access wrote Xn */
};

static inline u32 field(u32 insn, unsigned int lsb, unsigned int width)
{
	return (insn >> lsb) & ((1u << width) - 1);
}

/* Two's complement sign extension of the low bits of v, without signed types. */
static inline u64 sext(u64 v, unsigned int bits)
{
	u64 m = 1ull << (bits - 1);

	v &= (m << 1) - 1;
	return (v ^ m) - m;
}

/* Bit of an X register that can be written or read; none for SP and XZR. */
static inline u32 xbit(unsigned int n)
{
	return n == REG_SP ? 0 : 1u << n;
}

static inline u64 base_val(const struct kpmc_a64_regs *r, unsigned int n)
{
	return n == REG_SP ? r->sp : r->x[n];
}

static inline u64 zr_val(const struct kpmc_a64_regs *r, unsigned int n)
{
	return n == REG_SP ? 0 : r->x[n];
}

/* A base register address: reads Rn. */
static void ea_base(struct ea *e, const struct kpmc_a64_regs *r, u32 insn)
{
	unsigned int rn = field(insn, 5, 5);

	e->base = base_val(r, rn);
	e->reads = xbit(rn);
}

/*
 * The address, now that the form is known: undo write-back when r is from
 * after the access, or give up when the access overwrote what it came from.
 */
static int ea_finish(const struct ea *e, bool after, struct kpmc_a64_access *out)
{
	if (after && (e->reads & e->clobbered))
		return -EAGAIN;
	switch (e->mode) {
	case IDX_PRE:
		out->addr = after ? e->base : e->base + e->off;
		break;
	case IDX_POST:
		out->addr = after ? e->base - e->off : e->base;
		break;
	default:
		out->addr = e->base + e->off;
		break;
	}
	return 0;
}

/*
 * Size (log2 bytes) and direction of a load/store register from size, V and
 * opc; false when unallocated. *prefetch: PRFM's encoding (size 3, opc 2).
 */
static bool reg_access(u32 insn, unsigned int *scale, u8 *kind, bool *prefetch)
{
	unsigned int size = field(insn, 30, 2), opc = field(insn, 22, 2);
	bool simd = field(insn, 26, 1);

	*prefetch = false;
	*scale = size;
	*kind = (opc & 1) ? KPMC_A64_LOAD : KPMC_A64_STORE;
	if (simd) {
		/* opc 1x: the 128-bit Q form, only with size 00. */
		if (opc & 2) {
			if (size)
				return false;
			*scale = 4;
		}
		return true;
	}
	switch (opc) {
	case 2:		/* LDRSB/LDRSH/LDRSW to X; PRFM with size 11 */
		*kind = KPMC_A64_LOAD;
		if (size == 3)
			*prefetch = true;
		return true;
	case 3:		/* LDRSB/LDRSH to W */
		return size < 2;
	default:
		return true;
	}
}

/* The register a load writes: none for SIMD&FP, nor for a store. */
static u32 loaded(u32 insn, u8 kind, unsigned int rt)
{
	if (kind != KPMC_A64_LOAD || field(insn, 26, 1))
		return 0;
	return xbit(rt);
}

/* LDR/STR: immediate forms, register offset, atomics, LDRAA. */
static int dec_register(u32 insn, const struct kpmc_a64_regs *r, bool after,
			struct kpmc_a64_access *out)
{
	unsigned int rt = field(insn, 0, 5), scale;
	struct ea e = { 0 };
	bool prefetch;
	u8 kind;
	int rc;

	/* Bit 24: unsigned offset; else bit 21 and 11-10 tell the form. */
	if (!field(insn, 24, 1) && field(insn, 21, 1)) {
		if (field(insn, 10, 1))
			return -EOPNOTSUPP;	/* LDRAA/LDRAB */
		if (!field(insn, 11, 1))
			return -EOPNOTSUPP;	/* atomics: dec_atomic() takes them */
	}
	if (!reg_access(insn, &scale, &kind, &prefetch))
		return -EOPNOTSUPP;
	ea_base(&e, r, insn);
	if (field(insn, 24, 1)) {
		/* Unsigned offset: imm12 scaled by the access size. */
		e.off = (u64)field(insn, 10, 12) << scale;
	} else if (field(insn, 21, 1)) {
		/* Register offset: Xm or Wm extended, shifted by the size if S. */
		unsigned int rm = field(insn, 16, 5), option = field(insn, 13, 3);
		u64 m = zr_val(r, rm);

		switch (option) {
		case 2:			/* UXTW */
			m = (u32)m;
			break;
		case 6:			/* SXTW */
			m = sext(m, 32);
			break;
		case 3:			/* LSL (UXTX) */
		case 7:			/* SXTX */
			break;
		default:
			return -EOPNOTSUPP;
		}
		if (field(insn, 12, 1))
			m <<= scale;
		e.off = m;
		e.reads |= xbit(rm);
		out->index_reg = rm;
	} else {
		/* imm9 forms: 00 unscaled, 01 post-index, 10 unprivileged, 11 pre-index. */
		unsigned int idx = field(insn, 10, 2);

		e.off = sext(field(insn, 12, 9), 9);
		if (idx == 2) {
			if (field(insn, 26, 1) || prefetch)
				return -EOPNOTSUPP;
			out->flags |= KPMC_A64_UNPRIV;
		} else if (idx != 0) {
			if (prefetch)
				return -EOPNOTSUPP;
			e.mode = idx == 1 ? IDX_POST : IDX_PRE;
			out->flags |= KPMC_A64_WRITEBACK;
		}
	}
	out->base_reg = field(insn, 5, 5);
	if (prefetch) {
		/* A hint: not an access to report, but the address for whoever asks. */
		out->flags |= KPMC_A64_PREFETCH;
		rc = ea_finish(&e, after, out);
		return rc ? rc : -ENOENT;
	}
	if (field(insn, 26, 1))
		out->flags |= KPMC_A64_SIMD;
	e.clobbered = loaded(insn, kind, rt);
	out->kind = kind;
	out->size = 1u << scale;
	return ea_finish(&e, after, out);
}

/* LDADD .. LDUMIN, SWP, LDAPR: size 111 0 00 A R 1 Rs o3 opc 00 Rn Rt. */
static int dec_atomic(u32 insn, const struct kpmc_a64_regs *r, bool after,
		      struct kpmc_a64_access *out)
{
	unsigned int o3 = field(insn, 15, 1), opc = field(insn, 12, 3);
	struct ea e = { 0 };

	if (field(insn, 26, 1))
		return -EOPNOTSUPP;
	/* o3 with opc other than SWP's and LDAPR's: LD64B/ST64B, RCW*. */
	if (o3 && opc != 0 && opc != 4)
		return -EOPNOTSUPP;
	out->kind = KPMC_A64_LOAD_STORE;
	if (o3 && opc == 4) {
		/* LDAPR: A=1 R=0 Rs=11111; a load-acquire, not an atomic. */
		if (field(insn, 22, 2) != 2 || field(insn, 16, 5) != 31)
			return -EOPNOTSUPP;
		out->kind = KPMC_A64_LOAD;
	}
	if (field(insn, 22, 2))
		out->flags |= KPMC_A64_ACQREL;
	ea_base(&e, r, insn);
	/* The old value goes to Rt (the ST* aliases have Rt = XZR). */
	e.clobbered = xbit(field(insn, 0, 5));
	out->base_reg = field(insn, 5, 5);
	out->size = 1u << field(insn, 30, 2);
	return ea_finish(&e, after, out);
}

/* LDR (literal): opc 011 V 00 imm19 Rt; the address is relative to the insn. */
static int dec_literal(u32 insn, const struct kpmc_a64_regs *r,
		       struct kpmc_a64_access *out)
{
	unsigned int opc = field(insn, 30, 2);
	u64 addr = r->pc + (sext(field(insn, 5, 19), 19) << 2);

	out->base_reg = KPMC_A64_NO_REG;
	out->flags = KPMC_A64_LITERAL;
	out->addr = addr;
	if (!field(insn, 26, 1) && opc == 3) {
		out->flags |= KPMC_A64_PREFETCH;	/* PRFM (literal) */
		return -ENOENT;
	}
	if (field(insn, 26, 1)) {
		if (opc == 3)
			return -EOPNOTSUPP;
		out->flags |= KPMC_A64_SIMD;
		out->size = 4u << opc;	/* S, D, Q */
	} else {
		out->size = opc == 1 ? 8 : 4;	/* W, X, SW */
	}
	out->kind = KPMC_A64_LOAD;
	return 0;
}

/* LDP/STP and co.: opc 101 V 0 idx L imm7 Rt2 Rn Rt. */
static int dec_pair(u32 insn, const struct kpmc_a64_regs *r, bool after,
		    struct kpmc_a64_access *out)
{
	unsigned int opc = field(insn, 30, 2), idx = field(insn, 23, 2);
	bool load = field(insn, 22, 1), simd = field(insn, 26, 1);
	unsigned int scale;
	struct ea e = { 0 };

	if (simd) {
		if (opc == 3)
			return -EOPNOTSUPP;
		scale = 2 + opc;		/* S, D, Q */
		out->flags |= KPMC_A64_SIMD;
	} else if (opc == 0) {
		scale = 2;			/* W */
	} else if (opc == 2) {
		scale = 3;			/* X */
	} else if (opc == 1 && idx != 0) {
		/* LDPSW, or STGP: a pair of X at a 16-byte granule's offset. */
		scale = load ? 2 : 4;
	} else {
		return -EOPNOTSUPP;
	}
	ea_base(&e, r, insn);
	e.off = sext(field(insn, 15, 7), 7) << scale;
	if (idx == 1 || idx == 3) {
		e.mode = idx == 1 ? IDX_POST : IDX_PRE;
		out->flags |= KPMC_A64_WRITEBACK;
	}
	if (opc == 1 && !simd && !load)
		scale = 3;		/* STGP stores two X registers */
	if (load && !simd)
		e.clobbered = xbit(field(insn, 0, 5)) | xbit(field(insn, 10, 5));
	out->kind = load ? KPMC_A64_LOAD : KPMC_A64_STORE;
	out->flags |= KPMC_A64_PAIR;
	out->size = 2u << scale;
	out->base_reg = field(insn, 5, 5);
	return ea_finish(&e, after, out);
}

/*
 * Exclusive, ordered, compare-and-swap:
 * size 001000 o2 L o1 Rs o0 Rt2 Rn Rt. The address is the base, no offset.
 */
static int dec_exclusive(u32 insn, const struct kpmc_a64_regs *r, bool after,
			 struct kpmc_a64_access *out)
{
	unsigned int size = field(insn, 30, 2), rs = field(insn, 16, 5);
	bool o2 = field(insn, 23, 1), load = field(insn, 22, 1);
	bool o1 = field(insn, 21, 1), o0 = field(insn, 15, 1);
	unsigned int rt = field(insn, 0, 5), rt2 = field(insn, 10, 5);
	struct ea e = { 0 };

	ea_base(&e, r, insn);
	out->size = 1u << size;
	if (o1 && rt2 != 31 && !(!o2 && size >= 2))
		return -EOPNOTSUPP;	/* CAS and CASP have Rt2 = 11111 */
	if (!o2 && !o1) {
		/* LDXR/LDAXR, STXR/STLXR: Rs gets a store's status. */
		out->flags = KPMC_A64_EXCLUSIVE | (o0 ? KPMC_A64_ACQREL : 0);
		e.clobbered = load ? xbit(rt) : xbit(rs);
	} else if (!o2 && size >= 2) {
		/* LDXP/LDAXP, STXP/STLXP: two W or two X. */
		out->flags = KPMC_A64_EXCLUSIVE | KPMC_A64_PAIR | (o0 ? KPMC_A64_ACQREL : 0);
		out->size = size == 3 ? 16 : 8;
		e.clobbered = load ? xbit(rt) | xbit(rt2) : xbit(rs);
	} else if (!o2) {
		/* CASP: the old pair goes to Rs, Rs+1 (even: Rs+1 is at most 31). */
		out->kind = KPMC_A64_LOAD_STORE;
		out->flags = KPMC_A64_PAIR | (load || o0 ? KPMC_A64_ACQREL : 0);
		out->size = size == 1 ? 16 : 8;
		e.clobbered = xbit(rs) | (rs < 31 ? xbit(rs + 1) : 0);
	} else if (!o1) {
		/* LDAR/LDLAR, STLR/STLLR. */
		out->flags = KPMC_A64_ACQREL;
		e.clobbered = load ? xbit(rt) : 0;
	} else {
		/* CAS: the old value goes to Rs. */
		out->kind = KPMC_A64_LOAD_STORE;
		out->flags = load || o0 ? KPMC_A64_ACQREL : 0;
		e.clobbered = xbit(rs);
	}
	if (!out->kind)
		out->kind = load ? KPMC_A64_LOAD : KPMC_A64_STORE;
	out->base_reg = field(insn, 5, 5);
	return ea_finish(&e, after, out);
}

/* LDAPUR/STLUR (RCpc, unscaled): size 011001 opc 0 imm9 00 Rn Rt. */
static int dec_rcpc_unscaled(u32 insn, const struct kpmc_a64_regs *r, bool after,
			     struct kpmc_a64_access *out)
{
	unsigned int size = field(insn, 30, 2), opc = field(insn, 22, 2);
	struct ea e = { 0 };

	/* Bit 21 or bits 11-10 set: LSE128, RCW*, CPY/SET, GCSSTR... */
	if (field(insn, 21, 1) || field(insn, 10, 2))
		return -EOPNOTSUPP;
	/* opc 10: sign extended to X (no 64-bit form), 11: to W (B, H only). */
	if ((opc == 2 && size == 3) || (opc == 3 && size >= 2))
		return -EOPNOTSUPP;
	ea_base(&e, r, insn);
	e.off = sext(field(insn, 12, 9), 9);
	out->kind = opc ? KPMC_A64_LOAD : KPMC_A64_STORE;
	if (opc)
		e.clobbered = xbit(field(insn, 0, 5));
	out->flags = KPMC_A64_ACQREL;
	out->size = 1u << size;
	out->base_reg = field(insn, 5, 5);
	return ea_finish(&e, after, out);
}

/*
 * Advanced SIMD load/store structures:
 * multiple: 0 Q 0011000 L 000000 opcode size Rn Rt (post-index: 0011001 L 0 Rm)
 * single:   0 Q 0011010 L R 00000 opcode S size Rn Rt (post-index: 0011011 L R Rm)
 * The bytes accessed are contiguous from the base: for LDn/STn as many
 * registers (or elements) as the list holds. Post-index adds that amount
 * (Rm = 31) or Xm.
 */
static int dec_struct(u32 insn, const struct kpmc_a64_regs *r, bool after,
		      struct kpmc_a64_access *out)
{
	unsigned int opcode = field(insn, 12, 4), size = field(insn, 10, 2);
	unsigned int rn = field(insn, 5, 5), rm = field(insn, 16, 5);
	bool q = field(insn, 30, 1), load = field(insn, 22, 1);
	struct ea e = { 0 };
	u32 bytes;

	if (!field(insn, 24, 1)) {
		/* Multiple structures: registers in the list, by opcode. */
		static const u8 nregs[16] = {
			[0] = 4, [2] = 4, [4] = 3, [6] = 3, [7] = 1, [8] = 2, [10] = 2,
		};

		if (!nregs[opcode])
			return -EOPNOTSUPP;
		/* LD2-LD4 of one 64-bit element per register is reserved. */
		if (size == 3 && !q && opcode != 2 && opcode != 6 && opcode != 7 &&
		    opcode != 10)
			return -EOPNOTSUPP;
		bytes = nregs[opcode] * (q ? 16 : 8);
	} else {
		/* Single structure: selem elements of esize from opcode, S, size. */
		unsigned int op = opcode >> 1, selem;
		bool s = opcode & 1;

		selem = ((op & 1) << 1 | field(insn, 21, 1)) + 1;
		switch (op >> 1) {
		case 0:			/* B */
			bytes = 1;
			break;
		case 1:			/* H */
			if (size & 1)
				return -EOPNOTSUPP;
			bytes = 2;
			break;
		case 2:			/* S, or D with size 01 and S 0 */
			if (size == 0)
				bytes = 4;
			else if (size == 1 && !s)
				bytes = 8;
			else
				return -EOPNOTSUPP;
			break;
		default:		/* LDnR: replicate, loads only */
			if (!load || s)
				return -EOPNOTSUPP;
			bytes = 1u << size;
			break;
		}
		bytes *= selem;
	}
	out->kind = load ? KPMC_A64_LOAD : KPMC_A64_STORE;
	out->flags = KPMC_A64_SIMD;
	out->size = bytes;
	out->base_reg = rn;
	ea_base(&e, r, insn);
	if (field(insn, 23, 1)) {
		e.mode = IDX_POST;
		out->flags |= KPMC_A64_WRITEBACK;
		if (rm == 31) {
			e.off = bytes;
		} else {
			/* The base moved by Xm: lost if Xm was the base itself. */
			if (after && rm == rn)
				return -EAGAIN;
			e.off = r->x[rm];
			e.reads |= xbit(rm);
			out->index_reg = rm;
		}
	}
	return ea_finish(&e, after, out);
}

/* SVE, SME and system instructions that access memory: not decoded. */
static bool other_access(u32 insn)
{
	/* SVE memory: 1xx 0010 ... */
	if ((insn & 0x9e000000) == 0x84000000)
		return true;
	/* SME: 1 xx 0000; its loads and stores are under 111 (ZA) and 101 (SME2). */
	if ((insn & 0x9e000000) == 0x80000000 && ((insn >> 29) == 7 || (insn >> 29) == 5))
		return true;
	/*
	 * SYS/SYSL op1=3, CRn=7: DC ZVA (memset's zeroing), DC CVAC, DC CIVAC,
	 * IC IVAU..., GCS push and pop; but not the prediction restrictions
	 * (CRm=3). op1=0, CRn=7, CRm=6, op2 odd: DC IVAC and its tag forms.
	 */
	if ((insn & 0xffd8f000) == 0xd5087000) {
		unsigned int op1 = field(insn, 16, 3), crm = field(insn, 8, 4);

		if (op1 == 3 && crm != 3)
			return true;
		if (op1 == 0 && crm == 6 && field(insn, 5, 1))
			return true;
	}
	return false;
}

int kpmc_a64_decode(u32 insn, const struct kpmc_a64_regs *r, bool after,
		    struct kpmc_a64_access *out)
{
	int rc;

	memset(out, 0, sizeof(*out));
	out->index_reg = KPMC_A64_NO_REG;
	/* Loads and stores: op0 bits 28-25 = x1x0. */
	if ((insn & 0x0a000000) != 0x08000000) {
		if (other_access(insn))
			return -EOPNOTSUPP;
		return -ENOENT;
	}
	if ((insn & 0x3b000000) == 0x18000000)
		rc = dec_literal(insn, r, out);
	else if ((insn & 0x3a000000) == 0x28000000)
		rc = dec_pair(insn, r, after, out);
	else if ((insn & 0x3b200c00) == 0x38200000)
		rc = dec_atomic(insn, r, after, out);
	else if ((insn & 0x3a000000) == 0x38000000)
		rc = dec_register(insn, r, after, out);
	else if ((insn & 0x3f000000) == 0x08000000)
		rc = dec_exclusive(insn, r, after, out);
	else if ((insn & 0x3f000000) == 0x19000000)
		rc = dec_rcpc_unscaled(insn, r, after, out);
	else if ((insn & 0xbfbf0000) == 0x0c000000 || (insn & 0xbfa00000) == 0x0c800000 ||
		 (insn & 0xbf9f0000) == 0x0d000000 || (insn & 0xbf800000) == 0x0d800000)
		rc = dec_struct(insn, r, after, out);
	else
		rc = -EOPNOTSUPP;	/* memory tags, RCpc3, unallocated... */
	/* Half-decoded fields of a form given up on must not look like an access. */
	if (rc == -EOPNOTSUPP) {
		memset(out, 0, sizeof(*out));
		out->index_reg = KPMC_A64_NO_REG;
	}
	return rc;
}

bool kpmc_a64_is_branch(u32 insn)
{
	/*
	 * Branches, exception generation and system: op0 bits 28-26 = 101.
	 * Everything there is a branch but exception generation (0xd4) and
	 * system instructions (0xd5): B, BL, B.cond, BC.cond, CBZ, CBNZ, TBZ,
	 * TBNZ, CB<cc> (FEAT_CMPBR), the branches to a register (0xd6, 0xd7).
	 */
	if ((insn & 0x1c000000) != 0x14000000)
		return false;
	return (insn >> 24) != 0xd4 && (insn >> 24) != 0xd5;
}
