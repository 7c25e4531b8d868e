// SPDX-License-Identifier: GPL-2.0
/*
 * Memory samples from AMD IBS Op (instruction-based sampling of ops; AMD
 * PPR, "IBS" registers; family 10h and later, with Zen 4's extensions).
 *
 * IBS is a sampler beside the counters: it counts cycles (IbsOpCntCtl = 0)
 * up to IbsOpMaxCnt * 16, tags the op dispatched then, and when that op
 * retires sets IbsOpVal, fills its registers (the op's RIP; load or store,
 * data TLB and cache behaviour, the miss latency, the data source; the data
 * linear address) and raises an NMI through the APIC's extended LVT entry
 * the kernel set up at boot (IBS_CTL says which). A mem=1 set's sampling
 * counter counts cycles too, without its own interrupt
 * (hw->sampling_external): each time the core sets that counter, IBS is
 * armed to fire when the counter would have overflowed, so a sample comes
 * at the period the core drew, and the core takes it when the backend says
 * one is pending. The tagged op is the sample itself: no skid.
 */
#include "amd_ibs.h"

#define IBS_OP_MAXCNT		0xffffULL		/* period >> 4, bits 15:0 */
#define IBS_OP_EN		(1ULL << 17)
#define IBS_OP_VAL		(1ULL << 18)
#define IBS_OP_MAXCNT_EXT_SHIFT	20			/* OpCntExt: period bits 26:20 of >> 4 */
#define IBS_OP_CURCNT_SHIFT	32			/* bits 58:32 */
#define IBS_CTL_LVT_VALID	(1ULL << 8)

/* CPUID 8000_001B EAX */
#define IBS_CAP_OPSAM		(1u << 2)
#define IBS_CAP_OPCNTEXT	(1u << 6)
#define IBS_CAP_ZEN4		(1u << 11)

/* IBS_OP_DATA3 */
#define D3_LD			(1ULL << 0)
#define D3_ST			(1ULL << 1)
#define D3_L1TLB_MISS		(1ULL << 2)
#define D3_L2TLB_MISS		(1ULL << 3)
#define D3_DC_MISS		(1ULL << 7)
#define D3_LINADDR_VALID	(1ULL << 17)
#define D3_WIDTH(d)		(((d) >> 22) & 0xf)
#define D3_MISS_LAT(d)		(((d) >> 32) & 0xffff)
/* IBS_OP_DATA2 */
#define D2_SRC(d)		((d) & 7)
#define D2_RMT_NODE		(1ULL << 4)
#define D2_HIT_MODIFIED		(1ULL << 5)
#define D2_SRC_HI(d)		(((d) >> 6) & 3)

/* The shortest period IBS takes (perf's minimum, IbsOpMaxCnt 9). */
#define IBS_MIN_PERIOD		0x90

struct ibs_cpu {
	struct kpmc_mem_access pending;
	bool valid;
	bool armed;			/* kpmc's sampling is on here */
};

static struct {
	bool usable, ext, zen4;
	char why[KPMC_ERR_MAX];
	struct ibs_cpu *cpu;
	unsigned int nr_cpus;
} ibs;

static u64 max_period(void)
{
	return ((ibs.ext ? 0x7fffffULL : IBS_OP_MAXCNT) << 4);
}

void amd_ibs_probe(struct kpmc_pmu_desc *desc)
{
	u32 r[4];

	memset(&ibs, 0, sizeof(ibs));
	kpmc_x86_cpuid(0x80000001, 0, r);
	if (!(r[2] & (1u << 10))) {
		snprintf(ibs.why, sizeof(ibs.why), "mem=1: this CPU has no IBS (CPUID 8000_0001H:ECX[10])");
		return;
	}
	kpmc_x86_cpuid(0x8000001b, 0, r);
	if (!(r[0] & IBS_CAP_OPSAM)) {
		snprintf(ibs.why, sizeof(ibs.why), "mem=1: this CPU's IBS has no op sampling");
		return;
	}
	if (!(kpmc_x86_rdmsr(MSR_AMD_IBS_CTL) & IBS_CTL_LVT_VALID)) {
		snprintf(ibs.why, sizeof(ibs.why),
			 "mem=1: the kernel did not set up IBS's interrupt (IBS_CTL.LvtOffsetVal clear)");
		return;
	}
	ibs.usable = true;
	ibs.ext = r[0] & IBS_CAP_OPCNTEXT;
	ibs.zen4 = r[0] & IBS_CAP_ZEN4;
	desc->mem_source = ibs.zen4 ? "IBS Op (Zen 4 data sources)" : "IBS Op";
	desc->mem_ldlat = false;
}

void amd_ibs_remove(void)
{
	kpmc_x86_free(ibs.cpu);
	ibs.cpu = NULL;
}

static struct ibs_cpu *here(void);

int amd_ibs_encode(const struct kpmc_config *cfg, u64 event, char *why, size_t len)
{
	struct ibs_cpu *c;

	if (!ibs.usable) {
		snprintf(why, len, "%s", ibs.why);
		return -EOPNOTSUPP;
	}
	if (event != 0x76) {
		snprintf(why, len,
			 "mem=1: IBS samples by cycles: the sampling counter pmc%u must count cycles (0x76), not 0x%llx",
			 cfg->ebs_slot, (unsigned long long)event);
		return -EINVAL;
	}
	if (cfg->ebs_period + cfg->ebs_range > max_period()) {
		snprintf(why, len, "mem=1: ebs%u: IBS periods are at most %llu cycles here",
			 cfg->ebs_slot, (unsigned long long)max_period());
		return -EINVAL;
	}
	/* perf's ibs_op may be sampling on this CPU: IBS has one user. */
	c = here();
	if ((kpmc_x86_rdmsr(MSR_AMD_IBS_OP_CTL) & IBS_OP_EN) && !(c && c->armed)) {
		snprintf(why, len, "mem=1: IBS op sampling is in use (perf's ibs_op PMU?)");
		return -EBUSY;
	}
	if (!ibs.cpu) {
		ibs.nr_cpus = kpmc_x86_nr_cpus();
		ibs.cpu = kpmc_x86_zalloc(ibs.nr_cpus * sizeof(*ibs.cpu));
		if (!ibs.cpu) {
			snprintf(why, len, "out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}

static struct ibs_cpu *here(void)
{
	unsigned int cpu = kpmc_x86_cpu();

	return ibs.cpu && cpu < ibs.nr_cpus ? &ibs.cpu[cpu] : NULL;
}

void amd_ibs_arm(u64 value, u64 width_mask)
{
	struct ibs_cpu *c = here();
	u64 d = (0 - value) & width_mask, cnt, ctl;

	if (!c)
		return;
	c->valid = false;
	/* Past its overflow already (a late sample): sample at once. */
	if (d > max_period() || d < IBS_MIN_PERIOD)
		d = IBS_MIN_PERIOD;
	/* MaxCnt * 16 cycles from CurCnt: start CurCnt at the remainder. */
	cnt = (d + 15) >> 4;
	ctl = (cnt & IBS_OP_MAXCNT) | IBS_OP_EN;
	if (ibs.ext)
		ctl |= (cnt >> 16) << IBS_OP_MAXCNT_EXT_SHIFT;
	ctl |= ((cnt << 4) - d) << IBS_OP_CURCNT_SHIFT;
	c->armed = true;
	kpmc_x86_wrmsr(MSR_AMD_IBS_OP_CTL, ctl);
}

void amd_ibs_stop(void)
{
	struct ibs_cpu *c = here();

	/* Only kpmc's own sampling: IBS may be perf's on a CPU kpmc never armed. */
	if (c && c->armed) {
		c->armed = false;
		kpmc_x86_wrmsr(MSR_AMD_IBS_OP_CTL, 0);
	}
}

static u32 source_of(u64 d2, u64 d3)
{
	u32 lvl = KPMC_MEM_LVL_NA, snoop = KPMC_MEM_SNOOP_NA, src;

	if (!(d3 & D3_DC_MISS)) {
		lvl = KPMC_MEM_LVL_L1;
	} else if (ibs.zen4) {
		switch (D2_SRC_HI(d2) << 3 | D2_SRC(d2)) {
		case 0:
			lvl = KPMC_MEM_LVL_L2;
			break;
		case 1:		/* the local L3, or another core's L1/L2 in the CCX */
			lvl = KPMC_MEM_LVL_L3;
			break;
		case 2:		/* another CCX's cache, same node */
			lvl = KPMC_MEM_LVL_PEER_CACHE;
			break;
		case 3:
			lvl = d2 & D2_RMT_NODE ? KPMC_MEM_LVL_REMOTE_RAM : KPMC_MEM_LVL_RAM;
			break;
		case 5:		/* a CCX's cache on another node */
			lvl = KPMC_MEM_LVL_REMOTE_CACHE;
			break;
		case 6:		/* persistent memory */
		case 8:		/* extension memory (CXL) */
			lvl = KPMC_MEM_LVL_EXT_MEM;
			break;
		case 7:
			lvl = KPMC_MEM_LVL_IO;
			break;
		case 12:	/* peer agent memory: another node's */
			lvl = KPMC_MEM_LVL_REMOTE_RAM;
			break;
		}
	} else {
		switch (D2_SRC(d2)) {
		case 0:		/* nothing beyond the DC said: L2 */
			lvl = KPMC_MEM_LVL_L2;
			break;
		case 2:		/* L3 or another core's cache */
			lvl = KPMC_MEM_LVL_L3;
			snoop = d2 & D2_HIT_MODIFIED ? KPMC_MEM_SNOOP_HITM : KPMC_MEM_SNOOP_HIT;
			break;
		case 3:
			lvl = d2 & D2_RMT_NODE ? KPMC_MEM_LVL_REMOTE_RAM : KPMC_MEM_LVL_RAM;
			break;
		case 4:
			lvl = KPMC_MEM_LVL_REMOTE_CACHE;
			break;
		case 7:
			lvl = KPMC_MEM_LVL_IO;
			break;
		}
	}
	src = KPMC_MEM_SRC(lvl, snoop);
	if (d3 & D3_L1TLB_MISS)
		src |= KPMC_MEM_SRC_TLB1_MISS;
	if (d3 & D3_L2TLB_MISS)
		src |= KPMC_MEM_SRC_TLB2_MISS;
	return src;
}

bool amd_ibs_nmi(void)
{
	struct ibs_cpu *c = here();
	struct kpmc_mem_access *a;
	u64 d2, d3, w;

	/* Only a sample kpmc armed for: IBS may be perf's on this CPU. */
	if (!c || !c->armed || !(kpmc_x86_rdmsr(MSR_AMD_IBS_OP_CTL) & IBS_OP_VAL))
		return false;
	a = &c->pending;
	memset(a, 0, sizeof(*a));
	a->ip = kpmc_x86_rdmsr(MSR_AMD_IBS_OP_RIP);
	/* IBS tags the op itself: exact. */
	a->flags = KPMC_MEM_F_HARDWARE | KPMC_MEM_F_EXACT;
	if (a->ip >= 0xffff800000000000ULL)
		a->flags |= KPMC_MEM_F_KERNEL;
	d3 = kpmc_x86_rdmsr(MSR_AMD_IBS_OP_DATA3);
	if (d3 & (D3_LD | D3_ST)) {
		d2 = kpmc_x86_rdmsr(MSR_AMD_IBS_OP_DATA2);
		a->op = (d3 & D3_LD) && (d3 & D3_ST) ? KPMC_MEM_OP_LOAD_STORE :
			d3 & D3_LD ? KPMC_MEM_OP_LOAD : KPMC_MEM_OP_STORE;
		if (d3 & D3_LINADDR_VALID) {
			a->addr = kpmc_x86_rdmsr(MSR_AMD_IBS_DC_LINADDR);
			a->flags |= KPMC_MEM_F_ADDR;
		}
		w = D3_WIDTH(d3);
		if (ibs.zen4 && w >= 1 && w <= 7)
			a->size = 1u << (w - 1);
		if ((d3 & D3_LD) && (d3 & D3_DC_MISS)) {
			a->latency = D3_MISS_LAT(d3);
			a->flags |= KPMC_MEM_F_LATENCY;
		}
		/* The data source is the load's; a store's says nothing of where data came from. */
		if (d3 & D3_LD) {
			a->source = source_of(d2, d3);
			a->flags |= KPMC_MEM_F_SOURCE;
		}
	}
	c->valid = true;
	c->armed = false;
	/* Val and En clear: no sample until the core re-arms. */
	kpmc_x86_wrmsr(MSR_AMD_IBS_OP_CTL, 0);
	return true;
}

bool amd_ibs_pending(void)
{
	struct ibs_cpu *c = here();

	return c && c->valid;
}

void amd_ibs_mem_sample(struct pt_regs *regs, struct kpmc_mem_access *out)
{
	struct ibs_cpu *c = here();

	if (!c || !c->valid)
		return;
	c->valid = false;
	*out = c->pending;
}
