// SPDX-License-Identifier: GPL-2.0
/*
 * The MSR model's PEBS (Intel precise event-based sampling), as the SDM
 * describes it: when a PEBS-enabled general-purpose counter overflows, the
 * assist writes a record at the DS area's PEBS index (formats 1-3: the fixed
 * layouts; format 4: adaptive records, the basic group and, for a counter
 * whose EVTSEL asks for it, the groups MSR_PEBS_DATA_CFG selects), reloads
 * the counter from the DS area's reset value, and at the interrupt threshold
 * sets GLOBAL_STATUS bit 62 and raises the PMI. The model reads and writes
 * the DS area as this process's memory, where the backend allocated it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "msr_model.h"

/* DS save area words (64-bit layout). */
enum { DS_BASE = 4, DS_INDEX, DS_MAX, DS_THRESHOLD, DS_RESET };

#define TSC_STAMP		123456789ULL
#define EVTSEL_ADAPTIVE		(1ULL << 34)
#define DATA_CFG_MEMINFO	(1ULL << 0)

/* A format 1-3 record of the access m.pebs_next into rec (words of it). */
static unsigned int fixed_record(u64 *rec, unsigned int gp, bool load_latency)
{
	static const unsigned int words[] = { 0, 22, 24, 25 };
	unsigned int w = words[m.pebs_format];

	memset(rec, 0, w * 8);
	rec[0] = 0x246;				/* RFLAGS */
	rec[1] = m.pebs_next.ip;
	rec[18] = 1ULL << gp;			/* applicable counters (format 3; status before) */
	rec[19] = m.pebs_next.addr;
	rec[20] = m.pebs_next.dse;
	if (load_latency)
		rec[21] = m.pebs_next.latency;
	if (m.pebs_format >= 2)
		rec[22] = m.pebs_next.eventing_ip;
	if (m.pebs_format >= 3)
		rec[24] = TSC_STAMP;
	return w;
}

/* An adaptive record: the basic group, then the memory-info group if asked for. */
static unsigned int adaptive_record(u64 *rec, unsigned int gp, bool load_latency)
{
	bool meminfo = (m.sel[gp] & EVTSEL_ADAPTIVE) && (m.pebs_data_cfg & DATA_CFG_MEMINFO);
	unsigned int w = meminfo ? 8 : 4;

	if ((m.sel[gp] & EVTSEL_ADAPTIVE) && (m.pebs_data_cfg & ~DATA_CFG_MEMINFO))
		fail_msg("MSR_PEBS_DATA_CFG 0x%llx: groups the model lacks",
			 (unsigned long long)m.pebs_data_cfg);
	memset(rec, 0, w * 8);
	rec[0] = (u64)(w * 8) << 48 | (meminfo ? DATA_CFG_MEMINFO : 0);
	rec[1] = m.pebs_next.eventing_ip;
	rec[2] = 1ULL << gp;
	rec[3] = TSC_STAMP;
	if (meminfo) {
		rec[4] = m.pebs_next.addr;
		rec[5] = m.pebs_next.dse;
		if (load_latency)
			rec[6] = m.pebs_next.latency;
	}
	return w;
}

bool model_pebs_assist(unsigned int gp, u64 remainder)
{
	u64 *ds = (u64 *)(uintptr_t)m.ds_area;
	/*
	 * The load-latency facility: before Ice Lake a PEBS_ENABLE bit per
	 * counter, from Ice Lake on the event itself (MEM_TRANS_RETIRED.
	 * LOAD_LATENCY).
	 */
	bool load_latency = m.pebs_format >= 4 ? (m.sel[gp] & 0xffff) == 0x01cd :
						 !!(m.pebs_enable & (1ULL << (32 + gp)));
	/* The largest record the model writes: format 3's 25 words. */
	u64 rec[25];
	unsigned int w;

	if (!ds || m.pebs_format > 4)
		fail_msg("PEBS assist without a DS area, or of a format the model lacks");
	w = m.pebs_format == 4 ? adaptive_record(rec, gp, load_latency) :
				 fixed_record(rec, gp, load_latency);
	if (ds[DS_INDEX] + w * 8 > ds[DS_MAX]) {
		m.pebs_dropped++;
	} else {
		memcpy((void *)(uintptr_t)ds[DS_INDEX], rec, w * 8);
		ds[DS_INDEX] += w * 8;
		m.pebs_records++;
	}
	m.ctr[gp] = (ds[DS_RESET + gp] + remainder) &
		    (m.gp_width >= 64 ? ~0ULL : (1ULL << m.gp_width) - 1);
	if (ds[DS_INDEX] >= ds[DS_THRESHOLD]) {
		m.global_status |= 1ULL << 62;
		return true;
	}
	return false;
}

void model_pebs_load(const struct model_pebs_access *a, bool user)
{
	m.pebs_next = *a;
	/* The facility counts loads slower than the threshold. */
	if (a->latency > m.ld_lat)
		model_inject(0xcd, 0x01, user, 1);
}
