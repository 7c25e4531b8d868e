// SPDX-License-Identifier: GPL-2.0
/*
 * AMD core performance counters, family 17h and later (Zen 1-5): six 48-bit
 * counters through the core extension MSRs (PerfCtrExtCore), the four legacy
 * K7 MSRs when that is absent, and PerfMonV2's global control and overflow
 * status where CPUID 80000022H says so. pmc0.. are the counters; an event is
 * pmcN=0xEEE (12 bits) with umaskN=0xUM.
 *
 * Only MSRs, CPUID and the PMI glue of x86_hw.h touch the machine, so the
 * unit tests run this file unchanged against a model of the MSRs.
 */
#include "x86_hw.h"
#include "amd_ibs.h"

#define AMD_WIDTH	48

static struct {
	unsigned int nr;		/* counters */
	u32 ctl0, ctr0, stride;		/* MSR of counter i: ctl0 + i * stride, ... */
	bool v2;			/* PerfMonV2: global control and status */
	u32 claimed;			/* counters kpmc holds */
} amd;

static int amd_check_event(const struct kpmc_pmu_desc *pmu, unsigned int slot,
			   u64 event, char *why, size_t len)
{
	if (event > 0xfff) {
		snprintf(why, len, "AMD events have 12 bits (0x000-0xfff); give the unit mask as umask%u",
			 slot);
		return -EINVAL;
	}
	return 0;
}

static int amd_probe(struct kpmc_pmu_desc *desc, char *why, size_t len)
{
	u32 r[4];
	unsigned int family, model, i;

	if (!kpmc_x86_vendor_is("AuthenticAMD") && !kpmc_x86_vendor_is("HygonGenuine")) {
		snprintf(why, len, "not an AMD CPU");
		return -ENODEV;
	}
	kpmc_x86_cpuid(1, 0, r);
	family = (r[0] >> 8) & 0xf;
	model = (r[0] >> 4) & 0xf;
	if (family == 0xf) {
		family += (r[0] >> 20) & 0xff;
		model |= ((r[0] >> 16) & 0xf) << 4;
	}
	if (family < 0x17) {
		snprintf(why, len, "AMD family %xh: kpmc supports family 17h (Zen) and later", family);
		return -ENODEV;
	}
	memset(&amd, 0, sizeof(amd));
	kpmc_x86_cpuid(0x80000000, 0, r);
	if (r[0] >= 0x80000001) {
		kpmc_x86_cpuid(0x80000001, 0, r);
		if (r[2] & (1u << 23)) {	/* PerfCtrExtCore */
			amd.nr = 6;
			amd.ctl0 = MSR_AMD_F15H_PERF_CTL0;
			amd.ctr0 = MSR_AMD_F15H_PERF_CTR0;
			amd.stride = 2;
		}
	}
	if (!amd.nr) {
		amd.nr = 4;
		amd.ctl0 = MSR_AMD_K7_EVNTSEL0;
		amd.ctr0 = MSR_AMD_K7_PERFCTR0;
		amd.stride = 1;
	}
	kpmc_x86_cpuid(0x80000000, 0, r);
	if (r[0] >= 0x80000022) {
		kpmc_x86_cpuid(0x80000022, 0, r);
		if (r[0] & 1) {
			/* EBX[3:0]: how many core counters PerfMonV2 gives. */
			amd.v2 = true;
			if ((r[1] & 0xf) && amd.stride == 2)
				amd.nr = r[1] & 0xf;
		}
	}
	/* Family and model name the Zen generation: the CLI's libpfm4 event table. */
	snprintf(desc->model, sizeof(desc->model), "AMD family %xh model %xh: %u counters x %u bits%s%s",
		 family, model, amd.nr, AMD_WIDTH, amd.stride == 2 ? " (core extension MSRs)" : " (legacy MSRs)",
		 amd.v2 ? ", PerfMonV2" : "");
	desc->nr_fixed = 0;
	desc->nr_counters = amd.nr;
	for (i = 0; i < amd.nr; i++)
		desc->width[i] = AMD_WIDTH;
	desc->check_event = amd_check_event;
	desc->has_basic_events = true;
	desc->event_instructions = 0xc0;	/* retired instructions */
	desc->event_cycles = 0x76;		/* cycles not in halt */
	desc->modifiers = KPMC_MOD_UMASK | KPMC_MOD_CMASK | KPMC_MOD_EDGE | KPMC_MOD_INV;
	amd_ibs_probe(desc);
	return 0;
}

static u32 ctl_msr(unsigned int i)
{
	return amd.ctl0 + i * amd.stride;
}

static u32 ctr_msr(unsigned int i)
{
	return amd.ctr0 + i * amd.stride;
}

static int amd_encode(const struct kpmc_config *cfg, struct kpmc_hw_config *hw,
		      char *why, size_t len)
{
	unsigned int slot;

	memset(hw, 0, sizeof(*hw));
	for (slot = 0; slot < KPMC_MAX_COUNTERS; slot++) {
		const struct kpmc_counter_req *req = &cfg->ctr[slot];
		bool pmi = cfg->ebs_period && cfg->ebs_slot == slot;
		unsigned int n = hw->nr;

		if (!(cfg->mask & (1u << slot)))
			continue;
		if (pmi && cfg->mem) {
			int err = amd_ibs_encode(cfg, req, why, len);

			if (err)
				return err;
			/* IBS samples; the counter only counts (amd_ibs.c). */
			hw->sampling_external = true;
		}
		/* Event bits 11:8 live in PerfEvtSel bits 35:32. */
		hw->selector[n] = kpmc_x86_evtsel(req->event & 0xff, req, pmi && !cfg->mem) |
				  ((req->event >> 8) & 0xfULL) << 32 | X86_EVTSEL_EN;
		hw->width_mask[n] = (1ULL << AMD_WIDTH) - 1;
		hw->slot[n] = slot;
		hw->enable_bits |= 1ULL << slot;
		if (pmi) {
			hw->sampling = true;
			hw->sampling_index = n;
			hw->irq_bits = 1ULL << slot;
		}
		hw->nr++;
		hw->mask |= 1u << slot;
	}
	return 0;
}

static void set_enables(const struct kpmc_hw_config *hw, bool on)
{
	unsigned int i;

	if (amd.v2) {
		kpmc_x86_wrmsr(MSR_AMD_PERF_CNTR_GLOBAL_CTL, on ? hw->enable_bits : 0);
		return;
	}
	for (i = 0; i < hw->nr; i++)
		kpmc_x86_wrmsr(ctl_msr(hw->slot[i]),
			       on ? hw->selector[i] : hw->selector[i] & ~X86_EVTSEL_EN);
}

/* IBS samples every mode: may a sample show a kernel op's addresses? */
static bool counts_kernel(const struct kpmc_hw_config *hw)
{
	return hw->selector[hw->sampling_index] & X86_EVTSEL_OS;
}

static void amd_release(struct kpmc_hw_config *hw)
{
	if (hw->sampling_external)
		amd_ibs_release();
}

static void amd_load(const struct kpmc_hw_config *hw, const u64 *start)
{
	unsigned int i;

	if (amd.v2)
		kpmc_x86_wrmsr(MSR_AMD_PERF_CNTR_GLOBAL_CTL, 0);
	/* A previous configuration's counters must not go on counting. */
	for (i = 0; i < amd.nr; i++)
		if (!(hw->mask & (1u << i)))
			kpmc_x86_wrmsr(ctl_msr(i), 0);
	for (i = 0; i < hw->nr; i++) {
		kpmc_x86_wrmsr(ctl_msr(hw->slot[i]), hw->selector[i]);
		kpmc_x86_wrmsr(ctr_msr(hw->slot[i]), start[i] & hw->width_mask[i]);
	}
	if (hw->sampling_external)
		amd_ibs_arm(start[hw->sampling_index], hw->width_mask[hw->sampling_index],
			    counts_kernel(hw));
	if (amd.v2)
		kpmc_x86_wrmsr(MSR_AMD_PERF_CNTR_GLOBAL_CTL, hw->enable_bits);
}

static void amd_start(const struct kpmc_hw_config *hw)
{
	/* IBS again from where the sampling counter stands. */
	if (hw->sampling_external) {
		unsigned int i = hw->sampling_index;

		amd_ibs_resume(ctr_msr(hw->slot[i]), hw->width_mask[i], counts_kernel(hw));
	}
	set_enables(hw, true);
}

static void amd_stop(const struct kpmc_hw_config *hw)
{
	if (hw->sampling_external)
		amd_ibs_stop();
	set_enables(hw, false);
}

static void amd_read(const struct kpmc_hw_config *hw, u64 *raw)
{
	unsigned int i;

	for (i = 0; i < hw->nr; i++)
		raw[i] = kpmc_x86_rdmsr(ctr_msr(hw->slot[i])) & hw->width_mask[i];
}

static void amd_write(const struct kpmc_hw_config *hw, unsigned int index, u64 value)
{
	kpmc_x86_wrmsr(ctr_msr(hw->slot[index]), value & hw->width_mask[index]);
	if (hw->sampling_external && index == hw->sampling_index)
		amd_ibs_arm(value, hw->width_mask[index], counts_kernel(hw));
}

static bool amd_mem_pending(const struct kpmc_hw_config *hw)
{
	return amd_ibs_pending();
}

/*
 * PMI: PerfMonV2 names the overflowed counters; before it, an armed counter
 * counts up from a negative value, so one that interrupts and has bit 47
 * clear has wrapped.
 */
static bool amd_pmi(void)
{
	/* IBS's NMI comes through its own LVT entry: nothing to re-arm for it. */
	bool ibs_sample = amd_ibs_nmi();
	u64 ours = 0;
	unsigned int i;

	if (amd.v2) {
		ours = kpmc_x86_rdmsr(MSR_AMD_PERF_CNTR_GLOBAL_STATUS) & amd.claimed;
		if (ours) {
			kpmc_x86_wrmsr(MSR_AMD_PERF_CNTR_GLOBAL_STATUS_CLR, ours);
			kpmc_x86_pmi_rearm();
		}
		return ours || ibs_sample;
	}
	for (i = 0; i < amd.nr; i++) {
		if (!(amd.claimed & (1u << i)) ||
		    !(kpmc_x86_rdmsr(ctl_msr(i)) & X86_EVTSEL_INT))
			continue;
		if (!(kpmc_x86_rdmsr(ctr_msr(i)) & (1ULL << (AMD_WIDTH - 1))))
			ours |= 1ULL << i;
	}
	if (ours)
		kpmc_x86_pmi_rearm();
	return ours || ibs_sample;
}

static void amd_quiesce(void *unused)
{
	unsigned int i;

	if (amd.v2)
		kpmc_x86_wrmsr(MSR_AMD_PERF_CNTR_GLOBAL_CTL, 0);
	for (i = 0; i < amd.nr; i++)
		kpmc_x86_wrmsr(ctl_msr(i), 0);
	amd_ibs_stop();
}

static int amd_claim(u32 mask, char *why, size_t len)
{
	int err = kpmc_x86_reserve(amd.nr, amd.ctl0, amd.ctr0, amd.stride, why, len);

	if (err)
		return err;
	err = amd_ibs_claim(why, len);
	if (err) {
		kpmc_x86_unreserve(amd.nr, amd.ctl0, amd.ctr0, amd.stride);
		return err;
	}
	amd.claimed = mask & ((1u << amd.nr) - 1);
	kpmc_x86_on_each_cpu(amd_quiesce, NULL);
	kpmc_x86_pmi_attach(amd_pmi);
	return 0;
}

static void amd_unclaim(u32 mask)
{
	kpmc_x86_on_each_cpu(amd_quiesce, NULL);
	kpmc_x86_pmi_detach();
	amd_ibs_unclaim();
	amd.claimed = 0;
	kpmc_x86_unreserve(amd.nr, amd.ctl0, amd.ctr0, amd.stride);
}

const struct kpmc_backend kpmc_amd_backend = {
	.name = "amd",
	.probe = amd_probe,
	.claim = amd_claim,
	.unclaim = amd_unclaim,
	.encode = amd_encode,
	.release = amd_release,
	.load = amd_load,
	.start = amd_start,
	.stop = amd_stop,
	.read = amd_read,
	.write = amd_write,
	.mem_sample = amd_ibs_mem_sample,
	.mem_pending = amd_mem_pending,
	.remove = amd_ibs_remove,
};
