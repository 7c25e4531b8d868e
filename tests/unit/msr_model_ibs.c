// SPDX-License-Identifier: GPL-2.0
/*
 * The MSR model's AMD IBS Op sampler (AMD PPR, IBS registers): IBS_OP_CTL
 * counts cycles from IbsOpCurCnt up to IbsOpMaxCnt * 16 (its upper bits in
 * 26:20 where CPUID says OpCntExt), tags the op then, fills IBS_OP_RIP,
 * DATA2, DATA3 and DC_LINADDR from the op the test queued, sets IbsOpVal
 * (counting stops until software clears it) and raises IBS's NMI. Values
 * IBS would reject, or kpmc must not write, fail the test.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "msr_model.h"

#define OP_CTL		0xc0011033
#define OP_MAXCNT	0xffffULL
#define OP_EN		(1ULL << 17)
#define OP_VAL		(1ULL << 18)
#define OP_CNT_CTL	(1ULL << 19)
#define OP_MAXCNT_EXT	(0x7fULL << 20)
#define OP_CURCNT	(0x7ffffffULL << 32)

void model_ibs_queue_op(const struct model_ibs_op *op)
{
	if (m.ibs_queued == sizeof(m.ibs_queue) / sizeof(m.ibs_queue[0]))
		fail_msg("model_ibs_queue_op: the queue holds %u ops", m.ibs_queued);
	if (!m.ibs_zen4 && op->data_src > 7)
		fail_msg("IBS DataSrc %u: Zen 1's DataSrc has 3 bits", op->data_src);
	m.ibs_queue[m.ibs_queued++] = *op;
}

static u64 max_count(u64 ctl)
{
	return ((ctl & OP_MAXCNT) | ((ctl & OP_MAXCNT_EXT) >> 20) << 16) << 4;
}

/* IBS tags the next queued op: its registers, IbsOpVal, the NMI. */
static void tag(void)
{
	static const struct model_ibs_op not_memory;
	const struct model_ibs_op *op = m.ibs_next < m.ibs_queued ?
					&m.ibs_queue[m.ibs_next++] : &not_memory;

	m.ibs_rip = op->rip;
	m.ibs_linaddr = op->linaddr;	/* kept even when not valid, as stale */
	m.ibs_data2 = (op->data_src & 7) | (u64)(op->rmt_node ? 1 : 0) << 4 |
		      (u64)(op->hit_modified ? 1 : 0) << 5 | (u64)((op->data_src >> 3) & 3) << 6;
	m.ibs_data3 = (u64)op->load | (u64)op->store << 1 | (u64)op->tlb1_miss << 2 |
		      (u64)op->tlb2_miss << 3 | (u64)op->dc_miss << 7 | (u64)op->locked << 15 |
		      (u64)op->linaddr_valid << 17 | (u64)op->l2_miss << 20 |
		      (u64)(op->width & 0xf) << 22 | (u64)op->latency << 32;
	m.ibs_op_ctl |= OP_VAL;
	m.ibs_samples++;
	/* Its own LVT entry (IBS_CTL's offset): not masked on delivery. */
	m.pmis++;
	if (m.pmi && m.pmi())
		kpmc_pmu_overflow();
}

void model_ibs_cycles(u64 n)
{
	u64 ctl = m.ibs_op_ctl, max, cur;

	if (!(ctl & OP_EN) || (ctl & OP_VAL))
		return;
	max = max_count(ctl);
	cur = (ctl & OP_CURCNT) >> 32;
	if (cur + n < max) {
		m.ibs_op_ctl = (ctl & ~OP_CURCNT) | (cur + n) << 32;
		return;
	}
	m.ibs_op_ctl = (ctl & ~OP_CURCNT) | max << 32;
	tag();
}

bool model_ibs_rdmsr(u32 msr, u64 *v)
{
	switch (msr) {
	case OP_CTL: *v = m.ibs_op_ctl; return true;
	case 0xc0011034: *v = m.ibs_rip; return true;
	case 0xc0011035: *v = 0; return true;		/* IBS_OP_DATA: branch, retire timing */
	case 0xc0011036: *v = m.ibs_data2; return true;
	case 0xc0011037: *v = m.ibs_data3; return true;
	case 0xc0011038: *v = m.ibs_linaddr; return true;
	case 0xc001103a: *v = m.ibs_lvt_valid ? 1ULL << 8 | 1 : 0; return true;	/* offset 1 */
	}
	return false;
}

bool model_ibs_wrmsr(u32 msr, u64 v)
{
	u64 reserved = ~(OP_MAXCNT | OP_EN | OP_VAL | OP_CNT_CTL | OP_CURCNT |
			 (m.ibs_opcntext ? OP_MAXCNT_EXT : 0));

	if (msr != OP_CTL)
		return false;
	if (v & reserved)
		fail_msg("IBS_OP_CTL 0x%llx: reserved bits 0x%llx", (unsigned long long)v,
			 (unsigned long long)(v & reserved));
	if (v & OP_CNT_CTL)
		fail_msg("IBS_OP_CTL 0x%llx: IbsOpCntCtl (dispatched ops), kpmc counts cycles",
			 (unsigned long long)v);
	if ((v & OP_EN) && ((v & OP_CURCNT) >> 32) >= max_count(v))
		fail_msg("IBS_OP_CTL 0x%llx: IbsOpCurCnt at or past IbsOpMaxCnt * 16",
			 (unsigned long long)v);
	m.ibs_op_ctl = v;
	return true;
}
