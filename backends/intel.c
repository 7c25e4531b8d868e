// SPDX-License-Identifier: GPL-2.0
/*
 * Intel architectural performance monitoring, versions 1 to 5 (CPUID 0AH).
 *
 * Counter numbering follows PMCTrack: with fixed counters (version 2 and
 * later) pmc0 is fixed counter 0 (instructions retired), pmc1 fixed counter 1
 * (core cycles), pmc2 fixed counter 2 (reference cycles), and pmc3.. are the
 * general-purpose counters IA32_PMC0..; on version 1 (no fixed counters)
 * pmc0.. are the general-purpose counters. An event is pmcN=0xEV with
 * umaskN=0xUM, or pmcN=0xUMEV (perf's raw layout).
 *
 * Only MSRs, CPUID and the PMI glue of x86_hw.h touch the machine, so the
 * unit tests run this file unchanged against a model of the MSRs.
 */
#include "x86_hw.h"

#define INTEL_FIXED_SLOTS	3
#define INTEL_MAX_GP		(KPMC_MAX_COUNTERS - INTEL_FIXED_SLOTS)

static struct {
	unsigned int version;
	unsigned int nr_gp, gp_width;
	unsigned int nr_fixed, fixed_width;	/* fixed counters present */
	u32 fixed_present;			/* bit j: fixed counter j exists */
	unsigned int fixed_slots;		/* pmc numbers given to fixed counters */
	unsigned int arch_len;			/* architectural events CPUID enumerates */
	u32 arch_unavailable;			/* CPUID.0AH:EBX */
	bool full_width;			/* IA32_A_PMCx writable */
	u64 claimed_status;			/* GLOBAL_STATUS bits of our counters */
} intel;

/* The architectural events, as CPUID.0AH:EBX bit i names them. */
static const struct {
	u8 event, umask;
	const char *name;
} intel_arch_events[] = {
	{ 0x3c, 0x00, "core cycles" },
	{ 0xc0, 0x00, "instructions retired" },
	{ 0x3c, 0x01, "reference cycles" },
	{ 0x2e, 0x4f, "LLC references" },
	{ 0x2e, 0x41, "LLC misses" },
	{ 0xc4, 0x00, "branch instructions retired" },
	{ 0xc5, 0x00, "branch mispredicts retired" },
	{ 0xa4, 0x01, "topdown slots" },
};

static bool slot_is_fixed(unsigned int slot)
{
	return slot < intel.fixed_slots;
}

static unsigned int slot_gp(unsigned int slot)
{
	return slot - intel.fixed_slots;
}

static u64 width_mask(unsigned int bits)
{
	return bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
}

/* The event and umask a request means, whichever way the umask was given. */
static void split_event(const struct kpmc_counter_req *req, u8 *event, u8 *umask)
{
	*event = req->event & 0xff;
	*umask = (req->mods & KPMC_MOD_UMASK) ? req->umask : (req->event >> 8) & 0xff;
}

static int intel_check_event(const struct kpmc_pmu_desc *pmu, unsigned int slot,
			     u64 event, char *why, size_t len)
{
	if (event > 0xffff) {
		snprintf(why, len, "Intel events are 0xEV or 0xUMEV (event and umask bytes)");
		return -EINVAL;
	}
	return 0;
}

static int intel_check_request(const struct kpmc_pmu_desc *pmu, unsigned int slot,
			       const struct kpmc_counter_req *req, char *why, size_t len)
{
	unsigned int i;
	u8 ev, um;

	if (req->any && (intel.version < 3 || intel.version >= 5)) {
		snprintf(why, len, "AnyThread (any%u=1) needs perfmon version 3 or 4; this is version %u",
			 slot, intel.version);
		return -EINVAL;
	}
	if (slot_is_fixed(slot)) {
		if (!(intel.fixed_present & (1u << slot))) {
			snprintf(why, len, "fixed counter %u does not exist on this CPU", slot);
			return -EINVAL;
		}
		return 0;
	}
	if ((req->mods & KPMC_MOD_UMASK) && req->event > 0xff) {
		snprintf(why, len, "umask given twice (in the event 0x%llx and umask%u)",
			 (unsigned long long)req->event, slot);
		return -EINVAL;
	}
	split_event(req, &ev, &um);
	for (i = 0; i < intel.arch_len && i < ARRAY_SIZE(intel_arch_events); i++) {
		if (intel_arch_events[i].event != ev || intel_arch_events[i].umask != um)
			continue;
		if (intel.arch_unavailable & (1u << i)) {
			snprintf(why, len,
				 "architectural event %s (0x%02x/0x%02x) is not available on this CPU (CPUID.0AH:EBX bit %u)",
				 intel_arch_events[i].name, ev, um, i);
			return -EINVAL;
		}
	}
	return 0;
}

static int intel_probe(struct kpmc_pmu_desc *desc, char *why, size_t len)
{
	u32 r[4];
	unsigned int i, family, model;

	if (!kpmc_x86_vendor_is("GenuineIntel")) {
		snprintf(why, len, "not an Intel CPU");
		return -ENODEV;
	}
	kpmc_x86_cpuid(0, 0, r);
	if (r[0] < 0xa) {
		snprintf(why, len, "no architectural PMU: CPUID leaf 0AH is not implemented");
		return -ENODEV;
	}
	memset(&intel, 0, sizeof(intel));
	kpmc_x86_cpuid(0xa, 0, r);
	intel.version = r[0] & 0xff;
	if (!intel.version) {
		snprintf(why, len,
			 "no architectural PMU: CPUID.0AH reports version 0 (running under a hypervisor without vPMU?)");
		return -ENODEV;
	}
	intel.nr_gp = (r[0] >> 8) & 0xff;
	intel.gp_width = (r[0] >> 16) & 0xff;
	intel.arch_len = (r[0] >> 24) & 0xff;
	intel.arch_unavailable = r[1];
	if (!intel.nr_gp || intel.gp_width < 32 || intel.gp_width > 64) {
		snprintf(why, len, "CPUID.0AH reports %u general counters of %u bits: not usable",
			 intel.nr_gp, intel.gp_width);
		return -ENODEV;
	}
	if (intel.version >= 2) {
		intel.nr_fixed = r[3] & 0x1f;
		intel.fixed_width = (r[3] >> 5) & 0xff;
		intel.fixed_present = (1u << (intel.nr_fixed < 3 ? intel.nr_fixed : 3)) - 1;
		/* Version 5 enumerates fixed counters as a bitmap too. */
		if (intel.version >= 5)
			intel.fixed_present |= r[2] & 0x7;
		intel.fixed_slots = INTEL_FIXED_SLOTS;
	}
	if (intel.nr_gp > INTEL_MAX_GP)
		intel.nr_gp = INTEL_MAX_GP;
	/* PDCM says IA32_PERF_CAPABILITIES exists; bit 13 is full-width writes. */
	kpmc_x86_cpuid(1, 0, r);
	if (r[2] & (1u << 15))
		intel.full_width = kpmc_x86_rdmsr(MSR_X86_PERF_CAPABILITIES) & (1ULL << 13);
	family = (r[0] >> 8) & 0xf;
	model = (r[0] >> 4) & 0xf;
	if (family == 0x6 || family == 0xf)
		model |= ((r[0] >> 16) & 0xf) << 4;
	if (family == 0xf)
		family += (r[0] >> 20) & 0xff;

	/* Family and model name the microarchitecture: the CLI's libpfm4 event table. */
	snprintf(desc->model, sizeof(desc->model),
		 "Intel family %xh model %xh: arch perfmon v%u: %u general x %u bits, %u fixed x %u bits%s",
		 family, model, intel.version, intel.nr_gp, intel.gp_width, intel.nr_fixed,
		 intel.fixed_width, intel.full_width ? ", full-width writes" : "");
	desc->nr_fixed = intel.fixed_slots;
	desc->nr_counters = intel.fixed_slots + intel.nr_gp;
	for (i = 0; i < intel.fixed_slots; i++)
		desc->width[i] = intel.fixed_width;
	for (; i < desc->nr_counters; i++)
		desc->width[i] = intel.gp_width;
	if (intel.fixed_slots) {
		/* Fixed counters' events in PMCTrack's and perf's raw (umask<<8 | event) form. */
		desc->fixed_event[0] = 0xc0;
		desc->fixed_name[0] = "instructions";
		desc->fixed_event[1] = 0x3c;
		desc->fixed_name[1] = "cycles";
		desc->fixed_event[2] = 0x300;
		desc->fixed_name[2] = "ref-cycles";
	}
	desc->check_event = intel_check_event;
	desc->has_basic_events = true;
	desc->event_instructions = 0xc0;
	desc->event_cycles = 0x3c;
	desc->check_request = intel_check_request;
	desc->modifiers = KPMC_MOD_UMASK | KPMC_MOD_CMASK | KPMC_MOD_EDGE | KPMC_MOD_INV |
			  KPMC_MOD_ANY;
	return 0;
}

/* GLOBAL_CTRL / GLOBAL_STATUS bit of a slot. */
static u64 slot_global_bit(unsigned int slot)
{
	return slot_is_fixed(slot) ? 1ULL << (32 + slot) : 1ULL << slot_gp(slot);
}

static int intel_encode(const struct kpmc_config *cfg, struct kpmc_hw_config *hw,
			char *why, size_t len)
{
	unsigned int slot;

	memset(hw, 0, sizeof(*hw));
	if (cfg->ebs_period && intel.version < 2) {
		snprintf(why, len, "perfmon version 1 has no overflow status: no ebs");
		return -EINVAL;
	}
	for (slot = 0; slot < KPMC_MAX_COUNTERS; slot++) {
		const struct kpmc_counter_req *req = &cfg->ctr[slot];
		bool pmi = cfg->ebs_period && cfg->ebs_slot == slot;
		unsigned int n = hw->nr;

		if (!(cfg->mask & (1u << slot)))
			continue;
		if (slot_is_fixed(slot)) {
			/* IA32_FIXED_CTR_CTRL nibble: OS, USR, AnyThread, PMI. */
			hw->selector[n] = (req->os ? 1 : 0) | (req->usr ? 2 : 0) |
					  (req->any ? 4 : 0) | (pmi ? 8 : 0);
			hw->width_mask[n] = width_mask(intel.fixed_width);
		} else {
			struct kpmc_counter_req r = *req;
			u8 ev, um;

			split_event(req, &ev, &um);
			r.umask = um;
			hw->selector[n] = kpmc_x86_evtsel(ev, &r, pmi) | X86_EVTSEL_EN;
			hw->width_mask[n] = width_mask(intel.gp_width);
		}
		hw->slot[n] = slot;
		hw->enable_bits |= slot_global_bit(slot);
		if (pmi) {
			hw->sampling = true;
			hw->sampling_index = n;
			hw->irq_bits = slot_global_bit(slot);
		}
		hw->nr++;
		hw->mask |= 1u << slot;
	}
	return 0;
}

static void write_counter(unsigned int slot, u64 value, u64 mask)
{
	if (slot_is_fixed(slot))
		kpmc_x86_wrmsr(MSR_X86_FIXED_CTR0 + slot, value & mask);
	else if (intel.full_width)
		kpmc_x86_wrmsr(MSR_X86_PMC0_FULL + slot_gp(slot), value & mask);
	else
		/* Legacy writes take 32 bits and sign-extend bit 31 (SDM 18.2.6). */
		kpmc_x86_wrmsr(MSR_X86_PMC0 + slot_gp(slot), value & 0xffffffffULL);
}

static void intel_load(const struct kpmc_hw_config *hw, const u64 *start)
{
	u64 fixed_ctrl = 0;
	unsigned int i;

	if (intel.version >= 2)
		kpmc_x86_wrmsr(MSR_X86_PERF_GLOBAL_CTRL, 0);
	else
		/* No global control: a previous configuration's enables must go. */
		for (i = 0; i < intel.nr_gp; i++)
			kpmc_x86_wrmsr(MSR_X86_PERFEVTSEL0 + i, 0);
	for (i = 0; i < hw->nr; i++) {
		unsigned int slot = hw->slot[i];

		if (slot_is_fixed(slot))
			fixed_ctrl |= hw->selector[i] << (4 * slot);
		else
			kpmc_x86_wrmsr(MSR_X86_PERFEVTSEL0 + slot_gp(slot), hw->selector[i]);
		write_counter(slot, start[i], hw->width_mask[i]);
	}
	if (intel.version >= 2) {
		kpmc_x86_wrmsr(MSR_X86_FIXED_CTR_CTRL, fixed_ctrl);
		kpmc_x86_wrmsr(MSR_X86_PERF_GLOBAL_CTRL, hw->enable_bits);
	}
}

static void set_gp_enables(const struct kpmc_hw_config *hw, bool on)
{
	unsigned int i;

	for (i = 0; i < hw->nr; i++)
		if (!slot_is_fixed(hw->slot[i]))
			kpmc_x86_wrmsr(MSR_X86_PERFEVTSEL0 + slot_gp(hw->slot[i]),
				       on ? hw->selector[i] : hw->selector[i] & ~X86_EVTSEL_EN);
}

static void intel_start(const struct kpmc_hw_config *hw)
{
	if (intel.version >= 2)
		kpmc_x86_wrmsr(MSR_X86_PERF_GLOBAL_CTRL, hw->enable_bits);
	else
		set_gp_enables(hw, true);
}

static void intel_stop(const struct kpmc_hw_config *hw)
{
	if (intel.version >= 2)
		kpmc_x86_wrmsr(MSR_X86_PERF_GLOBAL_CTRL, 0);
	else
		set_gp_enables(hw, false);
}

static void intel_read(const struct kpmc_hw_config *hw, u64 *raw)
{
	unsigned int i;

	for (i = 0; i < hw->nr; i++) {
		unsigned int slot = hw->slot[i];
		u32 msr = slot_is_fixed(slot) ? MSR_X86_FIXED_CTR0 + slot :
						MSR_X86_PMC0 + slot_gp(slot);

		raw[i] = kpmc_x86_rdmsr(msr) & hw->width_mask[i];
	}
}

static void intel_write(const struct kpmc_hw_config *hw, unsigned int index, u64 value)
{
	write_counter(hw->slot[index], value, hw->width_mask[index]);
}

/* PMI: take and clear the overflow bits of kpmc's counters. */
static bool intel_pmi(void)
{
	u64 ours = kpmc_x86_rdmsr(MSR_X86_PERF_GLOBAL_STATUS) & intel.claimed_status;

	if (!ours)
		return false;
	kpmc_x86_wrmsr(MSR_X86_PERF_GLOBAL_OVF_CTRL, ours);
	return true;
}

static void intel_quiesce(void *unused)
{
	unsigned int i;

	if (intel.version >= 2) {
		kpmc_x86_wrmsr(MSR_X86_PERF_GLOBAL_CTRL, 0);
		kpmc_x86_wrmsr(MSR_X86_FIXED_CTR_CTRL, 0);
	}
	for (i = 0; i < intel.nr_gp; i++)
		kpmc_x86_wrmsr(MSR_X86_PERFEVTSEL0 + i, 0);
}

static int intel_claim(u32 mask, char *why, size_t len)
{
	int err = kpmc_x86_reserve(intel.nr_gp, MSR_X86_PERFEVTSEL0, MSR_X86_PMC0, 1, why, len);
	unsigned int slot;

	if (err)
		return err;
	intel.claimed_status = 0;
	for (slot = 0; slot < intel.fixed_slots + intel.nr_gp; slot++)
		if ((mask & (1u << slot)) && (!slot_is_fixed(slot) ||
					      (intel.fixed_present & (1u << slot))))
			intel.claimed_status |= slot_global_bit(slot);
	kpmc_x86_on_each_cpu(intel_quiesce, NULL);
	if (intel.version >= 2)
		kpmc_x86_pmi_attach(intel_pmi);
	return 0;
}

static void intel_unclaim(u32 mask)
{
	kpmc_x86_on_each_cpu(intel_quiesce, NULL);
	if (intel.version >= 2)
		kpmc_x86_pmi_detach();
	intel.claimed_status = 0;
	kpmc_x86_unreserve(intel.nr_gp, MSR_X86_PERFEVTSEL0, MSR_X86_PMC0, 1);
}

const struct kpmc_backend kpmc_intel_backend = {
	.name = "intel",
	.probe = intel_probe,
	.claim = intel_claim,
	.unclaim = intel_unclaim,
	.encode = intel_encode,
	.load = intel_load,
	.start = intel_start,
	.stop = intel_stop,
	.read = intel_read,
	.write = intel_write,
};
