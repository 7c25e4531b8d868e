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
 *
 * IBS counts cycles in every mode: a counter that counts user mode only
 * reaches its overflow later than IBS fires, and IBS may tag kernel ops,
 * which such a set reports without their addresses.
 */
#include "amd_ibs.h"

#define IBS_OP_MAXCNT		0xffffULL		/* period >> 4, bits 15:0 */
#define IBS_OP_EN		(1ULL << 17)
#define IBS_OP_VAL		(1ULL << 18)
#define IBS_OP_MAXCNT_EXT_SHIFT	20			/* OpCntExt: bits 22:16 of period >> 4 */
#define IBS_OP_CURCNT_SHIFT	32			/* bits 58:32 */
#define IBS_CTL_LVT_VALID	(1ULL << 8)

/* CPUID 8000_0001H ECX, 8000_001BH EAX */
#define CPUID_IBS		(1u << 10)
#define IBS_CAP_FFV		(1u << 0)
#define IBS_CAP_OPSAM		(1u << 2)
#define IBS_CAP_OPCNTEXT	(1u << 6)
#define IBS_CAP_ZEN4		(1u << 11)

/* IBS_OP_DATA3 */
#define D3_LD			(1ULL << 0)
#define D3_ST			(1ULL << 1)
#define D3_L1TLB_MISS		(1ULL << 2)
#define D3_L2TLB_MISS		(1ULL << 3)
#define D3_DC_MISS		(1ULL << 7)
#define D3_LOCKED		(1ULL << 15)
#define D3_LINADDR_VALID	(1ULL << 17)
#define D3_L2_MISS		(1ULL << 20)		/* Zen 4 */
#define D3_WIDTH(d)		(((d) >> 22) & 0xf)	/* Zen 4 */
#define D3_MISS_LAT(d)		(((d) >> 32) & 0xffff)
/* IBS_OP_DATA2 */
#define D2_SRC(d)		((d) & 7)
#define D2_RMT_NODE		(1ULL << 4)
#define D2_HIT_MODIFIED		(1ULL << 5)
#define D2_SRC_HI(d)		(((d) >> 6) & 3)	/* Zen 4 */

/* Canonical addresses from here up are the kernel's. */
#define KERNEL_START		0xffff800000000000ULL

/*
 * The shortest period kpmc gives IBS (IbsOpMaxCnt 9, as perf's IBS
 * driver's minimum): a counter at or past its overflow samples then.
 */
#define IBS_MIN_PERIOD		0x90

struct ibs_cpu {
	struct kpmc_mem_access pending;
	bool valid;		/* pending holds a sample the core has not taken */
	bool armed;		/* kpmc's sampling is on here */
	bool kernel;		/* the sampling counter counts kernel mode */
	bool late;		/* an NMI of a sample kpmc discarded may still come */
};

static struct {
	bool usable, ext, zen4;
	char why[KPMC_ERR_MAX];
	unsigned int sets;	/* mem=1 sets encoded and not released */
	struct ibs_cpu *cpu;	/* while claimed */
	unsigned int nr_cpus;
} ibs;

static u64 max_period(void)
{
	return (ibs.ext ? 0x7fffffULL : IBS_OP_MAXCNT) << 4;
}

static struct ibs_cpu *here(void)
{
	unsigned int cpu = kpmc_x86_cpu();

	return ibs.cpu && cpu < ibs.nr_cpus ? &ibs.cpu[cpu] : NULL;
}

void amd_ibs_probe(struct kpmc_pmu_desc *desc)
{
	u32 r[4];

	memset(&ibs, 0, sizeof(ibs));
	kpmc_x86_cpuid(0x80000001, 0, r);
	if (!(r[2] & CPUID_IBS)) {
		snprintf(ibs.why, sizeof(ibs.why), "mem=1: this CPU has no IBS (CPUID 8000_0001H:ECX[10])");
		return;
	}
	kpmc_x86_cpuid(0x80000000, 0, r);
	if (r[0] < 0x8000001b) {
		snprintf(ibs.why, sizeof(ibs.why),
			 "mem=1: this CPU has no IBS capability leaf (CPUID 8000_001BH)");
		return;
	}
	kpmc_x86_cpuid(0x8000001b, 0, r);
	if (!(r[0] & IBS_CAP_FFV)) {
		snprintf(ibs.why, sizeof(ibs.why),
			 "mem=1: this CPU's IBS capabilities are not valid (CPUID 8000_001BH:EAX[0])");
		return;
	}
	if (!(r[0] & IBS_CAP_OPSAM)) {
		snprintf(ibs.why, sizeof(ibs.why),
			 "mem=1: this CPU's IBS has no op sampling (CPUID 8000_001BH:EAX[2])");
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
	amd_ibs_unclaim();
}

/* On each CPU: is IBS Op enabled there by someone else (perf's ibs_op)? */
static void find_other_user(void *info)
{
	struct ibs_cpu *c = here();

	if ((kpmc_x86_rdmsr(MSR_AMD_IBS_OP_CTL) & IBS_OP_EN) && !(c && c->armed))
		*(bool *)info = true;
}

static bool other_user(void)
{
	bool found = false;

	kpmc_x86_on_each_cpu(find_other_user, &found);
	return found;
}

#define IBS_BUSY "mem=1: IBS op sampling is in use on a CPU (perf's ibs_op PMU?)"

int amd_ibs_encode(const struct kpmc_config *cfg, const struct kpmc_counter_req *req,
		   char *why, size_t len)
{
	if (!ibs.usable) {
		snprintf(why, len, "%s", ibs.why);
		return -EOPNOTSUPP;
	}
	/* IBS counts plain cycles: the counter must count what IBS counts. */
	if (req->event != 0x76 || req->umask || req->cmask || req->edge || req->inv) {
		snprintf(why, len,
			 "mem=1: IBS samples by cycles: the sampling counter pmc%u must count plain cycles (0x76 without umask, cmask, edge or inv)",
			 cfg->ebs_slot);
		return -EINVAL;
	}
	if (cfg->ebs_period + cfg->ebs_range > max_period()) {
		snprintf(why, len, "mem=1: ebs%u: IBS periods are at most %llu cycles here",
			 cfg->ebs_slot, (unsigned long long)max_period());
		return -EINVAL;
	}
	/*
	 * encode and release run in concurrent process contexts. Every CPU
	 * is asked (an IPI to each) only when kpmc's first mem=1 set comes:
	 * any user may write configurations, and one more set changes
	 * nothing the answer was about (claim asks again when it takes IBS).
	 */
	if (__atomic_add_fetch(&ibs.sets, 1, __ATOMIC_RELAXED) == 1 && other_user()) {
		__atomic_sub_fetch(&ibs.sets, 1, __ATOMIC_RELAXED);
		snprintf(why, len, IBS_BUSY);
		return -EBUSY;
	}
	return 0;
}

void amd_ibs_release(void)
{
	__atomic_sub_fetch(&ibs.sets, 1, __ATOMIC_RELAXED);
}

int amd_ibs_claim(char *why, size_t len)
{
	if (!ibs.usable)
		return 0;
	/*
	 * IBS has no reservation: a mem=1 set would share it with perf's
	 * sampling. Without such a set the counters are still of use.
	 */
	if (__atomic_load_n(&ibs.sets, __ATOMIC_RELAXED) && other_user()) {
		snprintf(why, len, IBS_BUSY);
		return -EBUSY;
	}
	ibs.nr_cpus = kpmc_x86_nr_cpus();
	ibs.cpu = kpmc_x86_zalloc(ibs.nr_cpus * sizeof(*ibs.cpu));
	if (!ibs.cpu) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* After every CPU stopped and the NMI handler is detached. */
void amd_ibs_unclaim(void)
{
	kpmc_x86_free(ibs.cpu);
	ibs.cpu = NULL;
}

/*
 * IBS armed here is turned off or set anew. A sample it already took has
 * its NMI on the way, which will find IbsOpVal clear: the handler claims
 * that one NMI rather than leave it to the kernel as an unknown one.
 */
static void disarm(struct ibs_cpu *c)
{
	if (kpmc_x86_rdmsr(MSR_AMD_IBS_OP_CTL) & IBS_OP_VAL)
		c->late = true;
	c->armed = false;
}

void amd_ibs_arm(u64 value, u64 width_mask, bool kernel)
{
	struct ibs_cpu *c = here();
	u64 d = (0 - value) & width_mask, cnt, ctl;

	if (!c)
		return;
	if (c->armed)
		disarm(c);
	c->valid = false;
	c->kernel = kernel;
	/* At or past its overflow already (a late sample): sample soon. */
	if (d > max_period() || d < IBS_MIN_PERIOD)
		d = IBS_MIN_PERIOD;
	/* IBS samples when CurCnt reaches MaxCnt * 16: start CurCnt at the rest. */
	cnt = (d + 15) >> 4;
	ctl = (cnt & IBS_OP_MAXCNT) | IBS_OP_EN;
	if (ibs.ext)
		ctl |= (cnt >> 16) << IBS_OP_MAXCNT_EXT_SHIFT;
	ctl |= ((cnt << 4) - d) << IBS_OP_CURCNT_SHIFT;
	c->armed = true;
	kpmc_x86_wrmsr(MSR_AMD_IBS_OP_CTL, ctl);
}

void amd_ibs_resume(u32 ctr_msr, u64 width_mask, bool kernel)
{
	struct ibs_cpu *c = here();

	if (c && !c->armed && !c->valid)
		amd_ibs_arm(kpmc_x86_rdmsr(ctr_msr), width_mask, kernel);
}

void amd_ibs_stop(void)
{
	struct ibs_cpu *c = here();

	/* Only kpmc's own sampling: IBS may be perf's on a CPU kpmc never armed. */
	if (c && c->armed) {
		disarm(c);
		kpmc_x86_wrmsr(MSR_AMD_IBS_OP_CTL, 0);
	}
}

bool amd_ibs_pending(void)
{
	struct ibs_cpu *c = here();

	return c && c->valid;
}

/* Zen 4's DataSrc (DataSrcHi:DataSrc) of a load that missed the DC. */
static u32 zen4_level(u64 d2, u64 d3)
{
	switch (D2_SRC_HI(d2) << 3 | D2_SRC(d2)) {
	case 0:		/* nothing beyond the DC said: L2, unless it missed there too */
		return d3 & D3_L2_MISS ? KPMC_MEM_LVL_NA : KPMC_MEM_LVL_L2;
	case 1:		/* the local L3, or another core's cache in the CCX */
		return KPMC_MEM_LVL_L3;
	case 2:		/* another CCX's cache, same node */
		return KPMC_MEM_LVL_PEER_CACHE;
	case 3:
		return d2 & D2_RMT_NODE ? KPMC_MEM_LVL_REMOTE_RAM : KPMC_MEM_LVL_RAM;
	case 5:		/* a CCX's cache on another node */
		return KPMC_MEM_LVL_REMOTE_CACHE;
	case 6:		/* persistent memory */
	case 8:		/* extension memory (CXL) */
		return KPMC_MEM_LVL_EXT_MEM;
	case 7:
		return KPMC_MEM_LVL_IO;
	case 12:	/* peer agent memory: another node's */
		return KPMC_MEM_LVL_REMOTE_RAM;
	}
	return KPMC_MEM_LVL_NA;
}

static u32 source_of(u64 d2, u64 d3)
{
	u32 lvl = KPMC_MEM_LVL_NA, snoop = KPMC_MEM_SNOOP_NA, src;

	if (!(d3 & D3_DC_MISS)) {
		lvl = KPMC_MEM_LVL_L1;
	} else if (!(d3 & D3_LD)) {
		/* DataSrc is a load's: a store's miss says no more. */
	} else if (ibs.zen4) {
		lvl = zen4_level(d2, d3);
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
	if (d3 & D3_LOCKED)
		src |= KPMC_MEM_SRC_LOCKED;
	return src;
}

/* The tagged op's registers, into a. */
static void decode(const struct ibs_cpu *c, struct kpmc_mem_access *a)
{
	u64 d2, d3, w;

	memset(a, 0, sizeof(*a));
	/* IBS tags the op itself: exact, no skid. */
	a->flags = KPMC_MEM_F_HARDWARE | KPMC_MEM_F_EXACT;
	a->ip = kpmc_x86_rdmsr(MSR_AMD_IBS_OP_RIP);
	if (a->ip >= KERNEL_START) {
		a->flags |= KPMC_MEM_F_KERNEL;
		/* A set that does not count kernel mode sees no kernel address. */
		if (!c->kernel) {
			a->ip = 0;
			a->flags &= ~KPMC_MEM_F_EXACT;
			return;
		}
	}
	d3 = kpmc_x86_rdmsr(MSR_AMD_IBS_OP_DATA3);
	if (!(d3 & (D3_LD | D3_ST)))
		return;
	a->op = (d3 & D3_LD) && (d3 & D3_ST) ? KPMC_MEM_OP_LOAD_STORE :
		d3 & D3_LD ? KPMC_MEM_OP_LOAD : KPMC_MEM_OP_STORE;
	if (d3 & D3_LINADDR_VALID) {
		a->addr = kpmc_x86_rdmsr(MSR_AMD_IBS_DC_LINADDR);
		a->flags |= KPMC_MEM_F_ADDR;
	}
	w = D3_WIDTH(d3);
	if (ibs.zen4 && w >= 1 && w <= 7)
		a->size = 1u << (w - 1);
	/* IbsDcMissLat: loads that missed the DC only. */
	if ((d3 & D3_LD) && (d3 & D3_DC_MISS)) {
		a->latency = D3_MISS_LAT(d3);
		a->flags |= KPMC_MEM_F_LATENCY;
	}
	d2 = (d3 & D3_LD) && (d3 & D3_DC_MISS) ? kpmc_x86_rdmsr(MSR_AMD_IBS_OP_DATA2) : 0;
	a->source = source_of(d2, d3);
	a->flags |= KPMC_MEM_F_SOURCE;
}

bool amd_ibs_nmi(void)
{
	struct ibs_cpu *c = here();

	if (!c)
		return false;
	/* Only a sample kpmc armed for: IBS may be perf's on this CPU. */
	if (c->armed && (kpmc_x86_rdmsr(MSR_AMD_IBS_OP_CTL) & IBS_OP_VAL)) {
		decode(c, &c->pending);
		c->valid = true;
		c->armed = false;
		c->late = false;
		/* Val and En clear: no sample until the core re-arms. */
		kpmc_x86_wrmsr(MSR_AMD_IBS_OP_CTL, 0);
		return true;
	}
	if (c->late) {
		c->late = false;
		return true;
	}
	return false;
}

void amd_ibs_mem_sample(struct pt_regs *regs, bool kernel_allowed,
			struct kpmc_mem_access *out)
{
	struct ibs_cpu *c = here();

	if (!c || !c->valid)
		return;
	c->valid = false;
	*out = c->pending;
	/*
	 * decode() hid the kernel ops of a counter that counts user mode
	 * only; the owner's right decides too (a kernel-mode counter beside
	 * it does not make the sample the owner's to see).
	 */
	if (!kernel_allowed && (out->flags & KPMC_MEM_F_KERNEL)) {
		out->ip = 0;
		out->addr = 0;
		out->flags &= ~(KPMC_MEM_F_ADDR | KPMC_MEM_F_EXACT);
	}
}
