// SPDX-License-Identifier: GPL-2.0
/*
 * perf's description of a sampled access (union perf_mem_data_src, the
 * address, the weight) in kpmc's terms. perf has two ways to say where data
 * came from: the numbered level (lvl_num, with remote and snoopx, since
 * 4.14) and the older level bits (mem_lvl), which drivers still fill where
 * they have nothing better; the numbered level wins when it says something.
 */
#include <linux/perf_event.h>

#include "perf_mem.h"

#define DS_FIELD(v, shift, bits)	(((v) >> (shift)) & ((1ULL << (bits)) - 1))

/*
 * CXL and I/O levels are numbered from 6.2 on, transfers from a peer cache
 * from 5.19: their values, for older headers.
 */
#define LVLNUM_CXL	0x09
#define LVLNUM_IO	0x0a
#define SNOOPX_PEER	0x02

static u32 level_from_number(u32 num, bool remote, u32 snoopx)
{
	switch (num) {
	case PERF_MEM_LVLNUM_L1:
		return KPMC_MEM_LVL_L1;
	case PERF_MEM_LVLNUM_L2:
		return KPMC_MEM_LVL_L2;
	case PERF_MEM_LVLNUM_L3:
		if (remote)
			return KPMC_MEM_LVL_REMOTE_CACHE;
		/* AMD: another CCX's L3 on the same node. */
		return snoopx & SNOOPX_PEER ? KPMC_MEM_LVL_PEER_CACHE : KPMC_MEM_LVL_L3;
	case PERF_MEM_LVLNUM_ANY_CACHE:
		return remote ? KPMC_MEM_LVL_REMOTE_CACHE : KPMC_MEM_LVL_PEER_CACHE;
	case PERF_MEM_LVLNUM_LFB:
		return KPMC_MEM_LVL_LFB;
	case PERF_MEM_LVLNUM_RAM:
		return remote ? KPMC_MEM_LVL_REMOTE_RAM : KPMC_MEM_LVL_RAM;
	case PERF_MEM_LVLNUM_PMEM:
	case LVLNUM_CXL:
		return KPMC_MEM_LVL_EXT_MEM;
	case LVLNUM_IO:
		return KPMC_MEM_LVL_IO;
	}
	/* L4 (a memory-side cache), NA: nothing kpmc names more exactly. */
	return num == PERF_MEM_LVLNUM_L4 ? KPMC_MEM_LVL_L3_MISS : KPMC_MEM_LVL_NA;
}

static u32 level_from_bits(u32 lvl)
{
	if (lvl & PERF_MEM_LVL_L1)
		return KPMC_MEM_LVL_L1;
	if (lvl & PERF_MEM_LVL_LFB)
		return KPMC_MEM_LVL_LFB;
	if (lvl & PERF_MEM_LVL_L2)
		return KPMC_MEM_LVL_L2;
	/* "Missed L3, source unknown" sets MISS with L3. */
	if (lvl & PERF_MEM_LVL_L3)
		return lvl & PERF_MEM_LVL_MISS ? KPMC_MEM_LVL_L3_MISS : KPMC_MEM_LVL_L3;
	if (lvl & PERF_MEM_LVL_LOC_RAM)
		return KPMC_MEM_LVL_RAM;
	if (lvl & (PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2))
		return KPMC_MEM_LVL_REMOTE_RAM;
	if (lvl & (PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2))
		return KPMC_MEM_LVL_REMOTE_CACHE;
	if (lvl & PERF_MEM_LVL_IO)
		return KPMC_MEM_LVL_IO;
	if (lvl & PERF_MEM_LVL_UNC)
		return KPMC_MEM_LVL_UNCACHED;
	return KPMC_MEM_LVL_NA;
}

static u32 snoop_of(u32 snoop)
{
	if (snoop & PERF_MEM_SNOOP_HITM)
		return KPMC_MEM_SNOOP_HITM;
	if (snoop & PERF_MEM_SNOOP_HIT)
		return KPMC_MEM_SNOOP_HIT;
	if (snoop & PERF_MEM_SNOOP_MISS)
		return KPMC_MEM_SNOOP_MISS;
	if (snoop & PERF_MEM_SNOOP_NONE)
		return KPMC_MEM_SNOOP_NONE;
	return KPMC_MEM_SNOOP_NA;
}

static u32 source_of(u64 ds)
{
	u32 lvl = DS_FIELD(ds, PERF_MEM_LVL_SHIFT, 14);
	u32 num = DS_FIELD(ds, PERF_MEM_LVLNUM_SHIFT, 4);
	u32 tlb = DS_FIELD(ds, PERF_MEM_TLB_SHIFT, 7);
	u32 level = KPMC_MEM_LVL_NA, src;

	if (num && num != PERF_MEM_LVLNUM_NA)
		level = level_from_number(num, DS_FIELD(ds, PERF_MEM_REMOTE_SHIFT, 1),
					  DS_FIELD(ds, PERF_MEM_SNOOPX_SHIFT, 2));
	if (level == KPMC_MEM_LVL_NA)
		level = level_from_bits(lvl);
	src = KPMC_MEM_SRC(level, snoop_of(DS_FIELD(ds, PERF_MEM_SNOOP_SHIFT, 5)));
	/* A second-level TLB miss is reported as a miss at L2 (Intel's STLB). */
	if (tlb & PERF_MEM_TLB_MISS) {
		src |= KPMC_MEM_SRC_TLB1_MISS;
		if (tlb & PERF_MEM_TLB_L2)
			src |= KPMC_MEM_SRC_TLB2_MISS;
	}
	if (DS_FIELD(ds, PERF_MEM_LOCK_SHIFT, 2) & PERF_MEM_LOCK_LOCKED)
		src |= KPMC_MEM_SRC_LOCKED;
	return src;
}

void kpmc_perf_mem_convert(const struct kpmc_perf_mem_sample *s, struct kpmc_mem_access *out)
{
	u32 op = s->has_data_src ? DS_FIELD(s->data_src, PERF_MEM_OP_SHIFT, 5) : 0;

	memset(out, 0, sizeof(*out));
	out->ip = s->ip;
	out->flags = KPMC_MEM_F_HARDWARE;
	if (s->exact)
		out->flags |= KPMC_MEM_F_EXACT;
	if (s->kernel)
		out->flags |= KPMC_MEM_F_KERNEL;
	if ((op & PERF_MEM_OP_LOAD) && (op & PERF_MEM_OP_STORE))
		out->op = KPMC_MEM_OP_LOAD_STORE;
	else if (op & PERF_MEM_OP_LOAD)
		out->op = KPMC_MEM_OP_LOAD;
	else if (op & PERF_MEM_OP_STORE)
		out->op = KPMC_MEM_OP_STORE;
	/* perf reports address 0 where it has none. */
	if (s->has_addr && s->addr) {
		out->addr = s->addr;
		out->flags |= KPMC_MEM_F_ADDR;
	}
	/* The low 32 bits: the load's latency (Ice Lake and later put more above). */
	if (s->has_weight && (u32)s->weight) {
		out->latency = (u32)s->weight;
		out->flags |= KPMC_MEM_F_LATENCY;
	}
	if (s->has_data_src) {
		u32 src = source_of(s->data_src);

		if (src) {
			out->source = src;
			out->flags |= KPMC_MEM_F_SOURCE;
		}
	}
}

void kpmc_perf_mem_keep(struct kpmc_perf_mem_slot *slot, const struct kpmc_perf_mem_sample *s)
{
	WRITE_ONCE(slot->seq, slot->seq + 1);
	barrier();
	slot->s = *s;
	barrier();
	WRITE_ONCE(slot->seq, slot->seq + 1);
}

/*
 * The handler runs to its end before this CPU comes back here, so seq is
 * even whenever it is read here; a copy it overlapped is done again, whole,
 * of the newer sample.
 */
bool kpmc_perf_mem_take(struct kpmc_perf_mem_slot *slot, bool kernel_allowed,
			struct kpmc_mem_access *out)
{
	struct kpmc_perf_mem_sample s;
	u32 seq;

	do {
		seq = READ_ONCE(slot->seq);
		if (seq == slot->taken)
			return false;
		barrier();
		s = slot->s;
		barrier();
	} while (READ_ONCE(slot->seq) != seq);
	slot->taken = seq;
	/* A set that may not count kernel mode learns no kernel address. */
	if (s.kernel && !kernel_allowed) {
		s.ip = 0;
		s.addr = 0;
		s.has_addr = false;
	}
	kpmc_perf_mem_convert(&s, out);
	return true;
}

void kpmc_perf_mem_discard(struct kpmc_perf_mem_slot *slot)
{
	slot->taken = READ_ONCE(slot->seq);
}
