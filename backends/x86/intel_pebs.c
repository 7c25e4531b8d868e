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
 * TSC. Format 4 (adaptive PEBS, Ice Lake on) builds each record from the
 * groups MSR_PEBS_DATA_CFG selects, for counters whose EVTSEL asks for an
 * adaptive record: kpmc takes the basic group (the eventing IP) and the
 * memory-info group (address, data source, latency), 64 bytes, on the cores
 * whose memory-info latency is one field (Ice Lake, Tiger Lake, Rocket
 * Lake). Refused: format 0 (no data address), adaptive PEBS without the
 * memory-info group (no PEBS_BASELINE) or on later cores (the latency field
 * splits into instruction and cache latency, and load latency there needs
 * an auxiliary event beside it), hybrid parts (a layout per core type), and
 * kernels with page-table isolation (the DS area would have to be mapped in
 * every process's user page tables, which only the kernel's perf can do, in
 * the cpu_entry_area).
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

/*
 * Adaptive records (format 4): the basic group, then the memory-info group
 * (what MSR_PEBS_DATA_CFG selects; the other groups stay off).
 */
enum {
	AREC_FORMAT,			/* [47:0] the groups present, [63:48] record size */
	AREC_IP,			/* the eventing instruction */
	AREC_COUNTERS,			/* applicable counters */
	AREC_TSC,
	AREC_DLA,			/* memory-info group: data linear address */
	AREC_AUX,			/* data source, as formats 1-3's dse */
	AREC_LAT,			/* load latency, cycles */
	AREC_TSX,
	AREC_WORDS,
};
#define AREC_GROUP_MEMINFO	(1ULL << 0)
#define AREC_SIZE_SHIFT		48
#define AREC_BASIC_WORDS	4
#define MSR_X86_PEBS_DATA_CFG	0x3f2
#define PEBS_DATA_CFG_MEMINFO	(1ULL << 0)
/* IA32_PERFEVTSELx.Adaptive_Record: this counter's records take the configured groups. */
#define X86_EVTSEL_ADAPTIVE	(1ULL << 34)
/* IA32_PERF_CAPABILITIES.PEBS_BASELINE: adaptive PEBS's groups exist. */
#define PERF_CAP_PEBS_BASELINE	(1ULL << 14)

/* By record format: 4 is the adaptive layout kpmc configures. */
static const unsigned int record_words[] = { 0, 22, 24, 25, AREC_WORDS };

#define PEBS_RECORDS	2		/* room for one more assist before the PMI is served */

/*
 * The pending sample is written by the PMI, an NMI, which can come while
 * mem_sample() copies it out (IRQs off do not hold it off): seq is bumped
 * before and after each write, so a copy that saw it change is taken again;
 * taken is the seq of the last sample handed over or discarded.
 */
struct pebs_cpu {
	u64 ds[DS_WORDS];
	u64 buffer[PEBS_RECORDS * REC_WORDS_MAX];
	struct kpmc_mem_access pending;
	u32 seq, taken;
	u16 op;				/* the loaded set's: its records' access kind */
	bool load_latency;		/* its records carry latency and data source */
};

static struct {
	unsigned int format;		/* 0: PEBS not usable here */
	bool adaptive;			/* format 4: records as MSR_PEBS_DATA_CFG builds them */
	char why[KPMC_ERR_MAX];		/* why not */
	char source[96];		/* desc->mem_source */
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

/*
 * Family 6 models with adaptive PEBS whose memory-info latency is a single
 * field: Ice Lake (client, server, Xeon D), Tiger Lake, Rocket Lake.
 */
static bool adaptive_decoded(u32 cpuid1_eax)
{
	static const u8 models[] = { 0x6a, 0x6c, 0x7d, 0x7e, 0x8c, 0x8d, 0xa7 };
	unsigned int model = ((cpuid1_eax >> 4) & 0xf) | ((cpuid1_eax >> 16) & 0xf) << 4;
	unsigned int i;

	if (((cpuid1_eax >> 8) & 0xf) != 6)
		return false;
	for (i = 0; i < ARRAY_SIZE(models); i++)
		if (models[i] == model)
			return true;
	return false;
}

/* Record format f (1-4 from PERF_CAPABILITIES caps) is decoded here, or why not. */
static bool format_usable(unsigned int f, u64 caps, u32 cpuid1_eax)
{
	if (f == 0) {
		snprintf(pebs.why, sizeof(pebs.why),
			 "mem=1: PEBS record format 0 (no data address) is not supported: use the perf backend");
		return false;
	}
	if (f < 4)
		return true;
	if (!(caps & PERF_CAP_PEBS_BASELINE)) {
		snprintf(pebs.why, sizeof(pebs.why),
			 "mem=1: PEBS record format %u (adaptive PEBS) without PEBS_BASELINE has no memory-info group: use the perf backend",
			 f);
		return false;
	}
	/*
	 * Later cores split the memory-info latency into instruction and
	 * cache latency, and want an auxiliary event beside load latency.
	 */
	if (f != 4 || !adaptive_decoded(cpuid1_eax)) {
		snprintf(pebs.why, sizeof(pebs.why),
			 "mem=1: adaptive PEBS (record format %u) is decoded on Ice Lake, Tiger Lake and Rocket Lake cores only: use the perf backend",
			 f);
		return false;
	}
	return true;
}

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
		u64 caps = kpmc_x86_rdmsr(MSR_X86_PERF_CAPABILITIES);
		unsigned int f = (caps >> 8) & 0xf;

		if (format_usable(f, caps, r[0]) && kpmc_x86_pti_active())
			snprintf(pebs.why, sizeof(pebs.why),
				 "mem=1: page-table isolation is on: PEBS's DS area would need the user page tables (perf's cpu_entry_area); use the perf backend or pti=off");
		else if (!pebs.why[0])
			pebs.format = f;
	}
	if (!pebs.format)
		return;
	pebs.adaptive = pebs.format >= 4;
	snprintf(pebs.source, sizeof(pebs.source), "PEBS load latency (%srecord format %u%s)",
		 pebs.adaptive ? "adaptive " : "", pebs.format,
		 pebs.format == 1 ? ": the next instruction's IP" : "");
	desc->mem_source = pebs.source;
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

/*
 * The CPUs' DS areas, the first time a mem=1 set is encoded: configuration
 * writes run concurrently, and every CPU must use the one array (a DS_AREA
 * into another would record where no drain reads), so the first published
 * wins and a racing loser frees its own.
 */
static int alloc_cpus(char *why, size_t len)
{
	struct pebs_cpu *mine, *none = NULL;

	if (__atomic_load_n(&pebs.cpu, __ATOMIC_ACQUIRE))
		return 0;
	pebs.nr_cpus = kpmc_x86_nr_cpus();
	mine = kpmc_x86_zalloc(pebs.nr_cpus * sizeof(*mine));
	if (!mine) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	if (!__atomic_compare_exchange_n(&pebs.cpu, &none, mine, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		kpmc_x86_free(mine);
	return 0;
}

/* EVTSEL fields with which a counter's PEBS records are undefined (SDM). */
#define PEBS_INVALID_EVTSEL	(X86_EVTSEL_EDGE | X86_EVTSEL_ANY | X86_EVTSEL_INV | \
				 (0xffULL << X86_EVTSEL_CMASK_SHIFT))

int intel_pebs_encode(const struct kpmc_config *cfg, int gp, u64 *evtsel,
		      struct intel_pebs_enc *out, char *why, size_t len)
{
	u8 event, umask;

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
	event = *evtsel & 0xff;
	umask = (*evtsel >> 8) & 0xff;
	if (*evtsel & PEBS_INVALID_EVTSEL) {
		snprintf(why, len,
			 "mem=1: pmc%u has edge, inv, any or cmask, with which PEBS records nothing defined",
			 cfg->ebs_slot);
		return -EINVAL;
	}
	/*
	 * MEM_INST_RETIRED counts on IA32_PMC0-3 only, as does load latency
	 * before Ice Lake (which takes any general-purpose counter).
	 */
	if (gp > 3 && !(pebs.adaptive && event == EV_LOAD_LATENCY)) {
		snprintf(why, len,
			 "mem=1: pmc%u is IA32_PMC%d; this PEBS event samples on IA32_PMC0-3 only",
			 cfg->ebs_slot, gp);
		return -EINVAL;
	}
	if (event == EV_LOAD_LATENCY && umask == UM_LOAD_LATENCY) {
		out->op = KPMC_MEM_OP_LOAD;
		out->ldlat = cfg->mem_ldlat ? cfg->mem_ldlat : LDLAT_DEFAULT;
		/*
		 * Before Ice Lake, PEBS_ENABLE[32 + n] turns the facility on
		 * for counter n. Ice Lake's (perfmon v5) has no such bits:
		 * there PEBS_ENABLE[32 + n] enables PEBS on fixed counter n,
		 * and the event with LD_LAT's threshold is the facility.
		 */
		if (!pebs.adaptive)
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
	if (pebs.adaptive)
		*evtsel |= X86_EVTSEL_ADAPTIVE;
	return alloc_cpus(why, len);
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
	/* A sample kept for the set this CPU ran before is not this one's. */
	c->taken = READ_ONCE(c->seq);
	c->op = e->op;
	c->load_latency = e->ldlat != 0;
	kpmc_x86_wrmsr(MSR_X86_DS_AREA, (u64)(unsigned long)c->ds);
	if (e->ldlat)
		kpmc_x86_wrmsr(MSR_X86_PEBS_LD_LAT, e->ldlat);
	/* The counter's EVTSEL asks for adaptive records: of these groups. */
	if (pebs.adaptive)
		kpmc_x86_wrmsr(MSR_X86_PEBS_DATA_CFG, PEBS_DATA_CFG_MEMINFO);
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
	if (pebs.adaptive)
		kpmc_x86_wrmsr(MSR_X86_PEBS_DATA_CFG, 0);
	kpmc_x86_wrmsr(MSR_X86_DS_AREA, 0);
}

/* A kernel address: the upper half of the canonical 48- or 57-bit space. */
static bool kernel_address(u64 ip)
{
	return ip >= 0xffff800000000000ULL;
}

/*
 * The latest record between base and index, or NULL. Adaptive records give
 * their own size: walk them (at most PEBS_RECORDS), trusting no size that
 * would leave the buffer or be smaller than the basic group.
 */
static const u64 *latest_record(const struct pebs_cpu *c)
{
	u64 at = c->ds[DS_PEBS_BASE], end = c->ds[DS_PEBS_INDEX], last = 0;
	unsigned int n;

	if (!pebs.adaptive) {
		u64 size = record_words[pebs.format] * 8;

		return end >= at + size ? (const u64 *)(unsigned long)(end - size) : NULL;
	}
	for (n = 0; n < PEBS_RECORDS && at < end; n++) {
		u64 size = *(const u64 *)(unsigned long)at >> AREC_SIZE_SHIFT;

		if (size < AREC_BASIC_WORDS * 8 || size > end - at)
			break;
		last = at;
		at += size;
	}
	return last ? (const u64 *)(unsigned long)last : NULL;
}

/* A load-latency record's data source (dse, or adaptive's memory aux info) in kpmc's terms. */
static u32 decode_source(u64 dse)
{
	u32 source = load_source[dse & 0xf];

	if (dse & DSE_STLB_MISS)
		source |= KPMC_MEM_SRC_TLB1_MISS | KPMC_MEM_SRC_TLB2_MISS;
	if (dse & DSE_LOCKED)
		source |= KPMC_MEM_SRC_LOCKED;
	return source;
}

void intel_pebs_drain(void)
{
	unsigned int cpu = kpmc_x86_cpu();
	struct kpmc_mem_access *p;
	struct pebs_cpu *c;
	const u64 *rec;
	u64 dse, lat;

	if (!pebs.cpu || cpu >= pebs.nr_cpus)
		return;
	c = &pebs.cpu[cpu];
	/* The latest record: the one this PMI is for. */
	rec = latest_record(c);
	c->ds[DS_PEBS_INDEX] = c->ds[DS_PEBS_BASE];
	if (!rec)
		return;
	WRITE_ONCE(c->seq, c->seq + 1);
	barrier();
	p = &c->pending;
	memset(p, 0, sizeof(*p));
	p->flags = KPMC_MEM_F_HARDWARE;
	if (pebs.adaptive) {
		/* The basic group's IP is the eventing instruction's. */
		p->ip = rec[AREC_IP];
		p->flags |= KPMC_MEM_F_EXACT;
		/* No memory-info group (should not be: kpmc asked for it): the IP alone. */
		if (!(rec[AREC_FORMAT] & AREC_GROUP_MEMINFO) ||
		    (rec[AREC_FORMAT] >> AREC_SIZE_SHIFT) < AREC_WORDS * 8)
			goto out;
		p->addr = rec[AREC_DLA];
		dse = rec[AREC_AUX];
		lat = rec[AREC_LAT];
	} else {
		if (pebs.format >= 2) {
			p->ip = rec[REC_REAL_IP];
			p->flags |= KPMC_MEM_F_EXACT;
		} else {
			/* Format 1 has the IP after the access: one instruction of skid. */
			p->ip = rec[REC_IP];
			p->skid = 1;
		}
		p->addr = rec[REC_DLA];
		dse = rec[REC_DSE];
		lat = rec[REC_LAT];
	}
	p->flags |= KPMC_MEM_F_ADDR;
	if (c->load_latency) {
		/* A load-latency record: latency and data source. */
		p->latency = (u32)lat;
		p->source = decode_source(dse);
		p->flags |= KPMC_MEM_F_LATENCY | KPMC_MEM_F_SOURCE;
	}
out:
	if (kernel_address(p->ip))
		p->flags |= KPMC_MEM_F_KERNEL;
	p->op = c->op;
	barrier();
	WRITE_ONCE(c->seq, c->seq + 1);
}

/*
 * The PMI runs to its end before this CPU comes back here, so seq is even
 * whenever it is read here; a copy it overlapped is done again, whole, of
 * the newer sample.
 */
void intel_pebs_mem_sample(struct pt_regs *regs, bool kernel_allowed,
			   struct kpmc_mem_access *out)
{
	unsigned int cpu = kpmc_x86_cpu();
	struct pebs_cpu *c;
	u32 seq;

	if (!pebs.cpu || cpu >= pebs.nr_cpus)
		return;
	c = &pebs.cpu[cpu];
	do {
		seq = READ_ONCE(c->seq);
		if (seq == c->taken)
			return;
		barrier();
		*out = c->pending;
		barrier();
	} while (READ_ONCE(c->seq) != seq);
	c->taken = seq;
	/* A set that may not count kernel mode learns no kernel address. */
	if (!kernel_allowed && (out->flags & KPMC_MEM_F_KERNEL)) {
		out->ip = 0;
		out->addr = 0;
		out->flags &= ~(KPMC_MEM_F_ADDR | KPMC_MEM_F_EXACT);
	}
}
