// SPDX-License-Identifier: GPL-2.0
/*
 * Memory samples from Intel PEBS (precise event-based sampling), the Intel
 * backend's memory-sampling source (SDM vol. 3B, "PEBS" and "Load Latency
 * Performance Monitoring Facility").
 *
 * A mem=1 set samples on a general-purpose counter counting a PEBS memory
 * event. When that counter overflows, the processor's PEBS assist writes a
 * record (registers, the eventing instruction, the data linear address,
 * and for load latency the latency and data source) into the PEBS buffer of
 * this CPU's debug-store (DS) area and reloads the counter from the DS
 * area's reset value; with a one-record interrupt threshold every record
 * raises a PMI (GLOBAL_STATUS bit 62). The reset value is 0: after the
 * assist the counter has just passed its overflow, as a counter that wraps
 * without PEBS, so the core's fold sees the sample due and takes it.
 *
 * The DS area belongs to whoever holds the counters: the kernel's perf
 * installs its own when it reserves the PMU, and kpmc reserves every
 * general-purpose counter from perf before it programs any, so perf can
 * neither own the DS area while kpmc does nor take it from kpmc.
 *
 * Record formats (IA32_PERF_CAPABILITIES[11:8]): 1 (Nehalem) adds the data
 * address, data source and latency to format 0's registers; 2 (Haswell) the
 * eventing IP (the access itself, not the next instruction); 3 (Skylake) a
 * TSC. Format 0 has no data address; format 4 (adaptive PEBS, Ice Lake on)
 * has a configurable layout kpmc does not build yet: both are refused, as are
 * hybrid parts (a layout per core type) and kernels with page-table
 * isolation (the DS area would have to be mapped in every process's user
 * page tables, which only the kernel's perf can do, in the cpu_entry_area).
 */
#include "intel_pebs.h"

/* The DS save area, 64-bit layout: BTS (unused), then PEBS, then per-counter reset values. */
enum {
	DS_PEBS_BASE = 4,
	DS_PEBS_INDEX,
	DS_PEBS_MAX,
	DS_PEBS_THRESHOLD,
	DS_PEBS_RESET,			/* one per general-purpose counter */
	DS_WORDS = DS_PEBS_RESET + 8,
};

/* Record words (u64) common to formats 1-3. */
enum {
	REC_IP = 1,			/* format 1: the instruction after the access */
	REC_DLA = 19,			/* data linear address */
	REC_DSE = 20,			/* data source encoding */
	REC_LAT = 21,			/* load latency, cycles */
	REC_REAL_IP = 22,		/* format 2 on: the eventing instruction */
	REC_WORDS_MAX = 25,		/* format 3's 200 bytes */
};

static const unsigned int record_words[] = { 0, 22, 24, 25 };
static const char *const source_name[] = {
	NULL,
	"PEBS load latency (record format 1: the next instruction's IP)",
	"PEBS load latency (record format 2)",
	"PEBS load latency (record format 3)",
};

#define PEBS_RECORDS	2		/* room for one more assist before the PMI is served */

struct pebs_cpu {
	u64 ds[DS_WORDS];
	u64 buffer[PEBS_RECORDS * REC_WORDS_MAX];
	struct kpmc_mem_access pending;
	bool valid;
	u16 op;				/* the loaded set's: its records' access kind */
	bool load_latency;		/* its records carry latency and data source */
};

static struct {
	unsigned int format;		/* 0: PEBS not usable here */
	char why[KPMC_ERR_MAX];		/* why not */
	struct pebs_cpu *cpu;		/* per CPU, from the first mem=1 encode */
	unsigned int nr_cpus;
} pebs;

/* The event of a MEM_TRANS_RETIRED.LOAD_LATENCY set: loads slower than the threshold. */
#define EV_LOAD_LATENCY		0xcd
#define UM_LOAD_LATENCY		0x01
#define EV_MEM_INST_RETIRED	0xd0
#define UM_ALL_LOADS		0x81
#define UM_ALL_STORES		0x82
#define LDLAT_DEFAULT		3

void intel_pebs_probe(struct kpmc_pmu_desc *desc, bool hybrid)
{
	u32 r[4];

	memset(&pebs, 0, sizeof(pebs));
	kpmc_x86_cpuid(1, 0, r);
	if (hybrid) {
		snprintf(pebs.why, sizeof(pebs.why),
			 "mem=1: PEBS on hybrid parts (a record layout per core type) is not supported: use the perf backend");
	} else if (!(r[3] & (1u << 21)) || !(r[2] & (1u << 15)) ||
		   (kpmc_x86_rdmsr(MSR_X86_MISC_ENABLE) & (1ULL << 12))) {
		snprintf(pebs.why, sizeof(pebs.why),
			 "mem=1: this CPU has no PEBS (CPUID DS/PDCM, or IA32_MISC_ENABLE says unavailable)");
	} else {
		unsigned int f = (kpmc_x86_rdmsr(MSR_X86_PERF_CAPABILITIES) >> 8) & 0xf;

		if (f == 0 || f >= ARRAY_SIZE(record_words))
			snprintf(pebs.why, sizeof(pebs.why),
				 "mem=1: PEBS record format %u (%s) is not supported: use the perf backend",
				 f, f ? "adaptive PEBS" : "no data address");
		else if (kpmc_x86_pti_active())
			snprintf(pebs.why, sizeof(pebs.why),
				 "mem=1: page-table isolation is on: PEBS's DS area would need the user page tables (perf's cpu_entry_area); use the perf backend or pti=off");
		else
			pebs.format = f;
	}
	if (!pebs.format)
		return;
	desc->mem_source = source_name[pebs.format];
	desc->mem_ldlat = true;
}

bool intel_pebs_usable(void)
{
	return pebs.format != 0;
}

void intel_pebs_remove(void)
{
	kpmc_x86_free(pebs.cpu);
	pebs.cpu = NULL;
}

/* The data source of a load-latency record (dse[3:0]) in kpmc's terms. */
static const u32 load_source[16] = {
	KPMC_MEM_SRC(KPMC_MEM_LVL_L3_MISS, KPMC_MEM_SNOOP_NA),
	KPMC_MEM_SRC(KPMC_MEM_LVL_L1, KPMC_MEM_SNOOP_NONE),
	KPMC_MEM_SRC(KPMC_MEM_LVL_LFB, KPMC_MEM_SNOOP_NONE),
	KPMC_MEM_SRC(KPMC_MEM_LVL_L2, KPMC_MEM_SNOOP_NONE),
	KPMC_MEM_SRC(KPMC_MEM_LVL_L3, KPMC_MEM_SNOOP_NONE),
	KPMC_MEM_SRC(KPMC_MEM_LVL_L3, KPMC_MEM_SNOOP_MISS),	/* other cores snooped, clean miss */
	KPMC_MEM_SRC(KPMC_MEM_LVL_L3, KPMC_MEM_SNOOP_HIT),
	KPMC_MEM_SRC(KPMC_MEM_LVL_L3, KPMC_MEM_SNOOP_HITM),
	KPMC_MEM_SRC(KPMC_MEM_LVL_REMOTE_CACHE, KPMC_MEM_SNOOP_HIT),
	KPMC_MEM_SRC(KPMC_MEM_LVL_REMOTE_CACHE, KPMC_MEM_SNOOP_HITM),
	KPMC_MEM_SRC(KPMC_MEM_LVL_RAM, KPMC_MEM_SNOOP_HIT),		/* shared */
	KPMC_MEM_SRC(KPMC_MEM_LVL_REMOTE_RAM, KPMC_MEM_SNOOP_HIT),
	KPMC_MEM_SRC(KPMC_MEM_LVL_RAM, KPMC_MEM_SNOOP_MISS),	/* exclusive */
	KPMC_MEM_SRC(KPMC_MEM_LVL_REMOTE_RAM, KPMC_MEM_SNOOP_MISS),
	KPMC_MEM_SRC(KPMC_MEM_LVL_IO, KPMC_MEM_SNOOP_NONE),
	KPMC_MEM_SRC(KPMC_MEM_LVL_UNCACHED, KPMC_MEM_SNOOP_NONE),
};
#define DSE_STLB_MISS	(1ULL << 4)
#define DSE_LOCKED	(1ULL << 5)

int intel_pebs_encode(const struct kpmc_config *cfg, int gp, u8 event, u8 umask,
		      struct intel_pebs_enc *out, char *why, size_t len)
{
	memset(out, 0, sizeof(*out));
	if (!pebs.format) {
		snprintf(why, len, "%s", pebs.why);
		return -EOPNOTSUPP;
	}
	if (gp < 0) {
		snprintf(why, len,
			 "mem=1: ebs%u is a fixed counter; PEBS memory sampling needs a general-purpose counter",
			 cfg->ebs_slot);
		return -EINVAL;
	}
	if (event == EV_LOAD_LATENCY && umask == UM_LOAD_LATENCY) {
		out->op = KPMC_MEM_OP_LOAD;
		out->ldlat = cfg->mem_ldlat ? cfg->mem_ldlat : LDLAT_DEFAULT;
		out->pebs_enable = 1ULL << (32 + gp);
	} else if (event == EV_MEM_INST_RETIRED && (umask == UM_ALL_LOADS || umask == UM_ALL_STORES)) {
		if (cfg->mem_ldlat) {
			snprintf(why, len,
				 "ldlat: only MEM_TRANS_RETIRED.LOAD_LATENCY (0x1cd) has a latency threshold");
			return -EINVAL;
		}
		out->op = umask == UM_ALL_LOADS ? KPMC_MEM_OP_LOAD : KPMC_MEM_OP_STORE;
	} else {
		snprintf(why, len,
			 "mem=1: pmc%u counts event 0x%x umask 0x%x; PEBS samples 0x1cd (MEM_TRANS_RETIRED.LOAD_LATENCY), 0x81d0 (MEM_INST_RETIRED.ALL_LOADS), 0x82d0 (.ALL_STORES)",
			 cfg->ebs_slot, event, umask);
		return -EINVAL;
	}
	out->gp = (unsigned int)gp;
	out->pebs_enable |= 1ULL << gp;
	if (!pebs.cpu) {
		pebs.nr_cpus = kpmc_x86_nr_cpus();
		pebs.cpu = kpmc_x86_zalloc(pebs.nr_cpus * sizeof(*pebs.cpu));
		if (!pebs.cpu) {
			snprintf(why, len, "out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}

/* Hot path: point the DS area at this CPU's buffer and turn PEBS on for e's counter. */
void intel_pebs_load(const struct intel_pebs_enc *e)
{
	unsigned int cpu = kpmc_x86_cpu();
	struct pebs_cpu *c;
	u64 base;

	if (!pebs.cpu || cpu >= pebs.nr_cpus)
		return;
	c = &pebs.cpu[cpu];
	base = (u64)(unsigned long)c->buffer;
	c->ds[DS_PEBS_BASE] = base;
	c->ds[DS_PEBS_INDEX] = base;
	c->ds[DS_PEBS_MAX] = base + PEBS_RECORDS * record_words[pebs.format] * 8;
	/* One record: a PMI per sample. */
	c->ds[DS_PEBS_THRESHOLD] = base + record_words[pebs.format] * 8;
	c->ds[DS_PEBS_RESET + e->gp] = 0;
	c->valid = false;
	c->op = e->op;
	c->load_latency = e->ldlat != 0;
	kpmc_x86_wrmsr(MSR_X86_DS_AREA, (u64)(unsigned long)c->ds);
	if (e->ldlat)
		kpmc_x86_wrmsr(MSR_X86_PEBS_LD_LAT, e->ldlat);
	kpmc_x86_wrmsr(MSR_X86_PEBS_ENABLE, e->pebs_enable);
}

void intel_pebs_stop(void)
{
	kpmc_x86_wrmsr(MSR_X86_PEBS_ENABLE, 0);
}

void intel_pebs_quiesce(void)
{
	if (!pebs.format)
		return;
	kpmc_x86_wrmsr(MSR_X86_PEBS_ENABLE, 0);
	kpmc_x86_wrmsr(MSR_X86_DS_AREA, 0);
}

/* A kernel address: the upper half of the canonical 48- or 57-bit space. */
static bool kernel_address(u64 ip)
{
	return ip >= 0xffff800000000000ULL;
}

void intel_pebs_drain(void)
{
	unsigned int cpu = kpmc_x86_cpu(), words = record_words[pebs.format];
	struct pebs_cpu *c;
	const u64 *rec;
	u64 dse;

	if (!pebs.cpu || cpu >= pebs.nr_cpus)
		return;
	c = &pebs.cpu[cpu];
	/* The latest record: the one this PMI is for (a second is the next sample's). */
	if (c->ds[DS_PEBS_INDEX] < c->ds[DS_PEBS_BASE] + words * 8)
		return;
	rec = (const u64 *)(unsigned long)(c->ds[DS_PEBS_INDEX] - words * 8);
	memset(&c->pending, 0, sizeof(c->pending));
	c->pending.flags = KPMC_MEM_F_HARDWARE | KPMC_MEM_F_ADDR;
	c->pending.addr = rec[REC_DLA];
	if (pebs.format >= 2) {
		c->pending.ip = rec[REC_REAL_IP];
		c->pending.flags |= KPMC_MEM_F_EXACT;
	} else {
		/* Format 1 has the IP after the access: one instruction of skid. */
		c->pending.ip = rec[REC_IP];
		c->pending.skid = 1;
	}
	if (kernel_address(c->pending.ip))
		c->pending.flags |= KPMC_MEM_F_KERNEL;
	c->pending.op = c->op;
	dse = rec[REC_DSE];
	if (c->load_latency) {
		/* A load-latency record: latency and data source. */
		c->pending.latency = (u32)rec[REC_LAT];
		c->pending.source = load_source[dse & 0xf];
		if (dse & DSE_STLB_MISS)
			c->pending.source |= KPMC_MEM_SRC_TLB1_MISS | KPMC_MEM_SRC_TLB2_MISS;
		if (dse & DSE_LOCKED)
			c->pending.source |= KPMC_MEM_SRC_LOCKED;
		c->pending.flags |= KPMC_MEM_F_LATENCY | KPMC_MEM_F_SOURCE;
	}
	c->valid = true;
	c->ds[DS_PEBS_INDEX] = c->ds[DS_PEBS_BASE];
}

void intel_pebs_mem_sample(struct pt_regs *regs, struct kpmc_mem_access *out)
{
	unsigned int cpu = kpmc_x86_cpu();
	struct pebs_cpu *c;

	if (!pebs.cpu || cpu >= pebs.nr_cpus)
		return;
	c = &pebs.cpu[cpu];
	if (!c->valid)
		return;
	c->valid = false;
	*out = c->pending;
}
