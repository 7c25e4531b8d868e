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
 * Hybrid parts (CPUID.07H:EDX[15], Alder Lake and later) have one PMU per
 * core type (CPUID.1AH:EAX[31:24]: 40h Core/P, 20h Atom/E), with their own
 * counter counts, read by CPUID.0AH on a CPU of that type. The pmc numbers
 * are their union; a configuration is checked against every type, refused
 * only if some counter counts on none, and a counter a CPU's type lacks is
 * left alone there: it reads back what it was set to (nothing accumulates)
 * and the core reports it as not counted (the uncounted op).
 *
 * Only MSRs, CPUID and the PMI glue of x86_hw.h touch the machine, so the
 * unit tests run this file unchanged against a model of the MSRs.
 */
#include "x86_hw.h"
#include "intel_pebs.h"

#define INTEL_FIXED_SLOTS	3
#define INTEL_MAX_GP		(KPMC_MAX_COUNTERS - INTEL_FIXED_SLOTS)

#define INTEL_MAX_TYPES		KPMC_MAX_CORE_TYPES

/* One core type's PMU (the only one on a non-hybrid part). */
/* The longest sampling period a legacy (32-bit, sign-extending) write starts exactly. */
#define INTEL_LEGACY_MAX_PERIOD	0x7fffffffULL

struct intel_pmu {
	u8 core_type;				/* CPUID.1AH:EAX[31:24]; 0: not hybrid */
	unsigned int version;
	unsigned int nr_gp, gp_width;
	unsigned int nr_fixed, fixed_width;	/* fixed counters present */
	u32 fixed_present;			/* bit j: fixed counter j exists */
	unsigned int arch_len;			/* architectural events CPUID enumerates */
	u32 arch_unavailable;			/* CPUID.0AH:EBX */
	bool full_width;			/* IA32_A_PMCx writable */
	u32 slots;				/* the pmc numbers this type has */
};

static struct {
	struct intel_pmu type[INTEL_MAX_TYPES];
	unsigned int nr_types;
	unsigned int fixed_slots;		/* pmc numbers given to fixed counters */
	unsigned int nr_gp;			/* the most any type has */
	u64 claimed_status;			/* GLOBAL_STATUS bits of our counters */
	bool hybrid;				/* CPUID.07H:EDX[15], whatever types were found */
} intel;

/*
 * Per CPU, its index in intel.type[], cached at probe: no CPUID on hot paths.
 * INTEL_TYPE_NONE: a hybrid CPU of a core type no CPU had at probe, whose
 * counters kpmc cannot know: it programs none there (all read uncounted).
 */
#define INTEL_TYPE_NONE		INTEL_MAX_TYPES
static u8 intel_cpu_type[KPMC_X86_MAX_CPUS];

/*
 * An encoding's own part (hw->priv), where it has one: a hybrid part's per
 * type (hw itself holds type 0's), a memory-sampling set's PEBS.
 */
struct intel_enc {
	bool by_type;
	u32 absent[INTEL_MAX_TYPES];		/* by hw index: counters the type lacks */
	u64 enable_bits[INTEL_MAX_TYPES];
	bool mem;
	struct intel_pebs_enc pebs;
};

static unsigned int type_here(void)
{
	return intel.hybrid ? intel_cpu_type[kpmc_x86_cpu()] : 0;
}

/* A type-NONE CPU: the global controls (every hybrid part has v5) and nothing else. */
static const struct intel_pmu *pmu_here(unsigned int *t)
{
	*t = type_here();
	return &intel.type[*t == INTEL_TYPE_NONE ? 0 : *t];
}

static u32 absent_on(const struct kpmc_hw_config *hw, unsigned int t)
{
	const struct intel_enc *e = hw->priv;

	if (t == INTEL_TYPE_NONE)
		return (1u << hw->nr) - 1;
	return e && e->by_type ? e->absent[t] : 0;
}

static u64 enable_on(const struct kpmc_hw_config *hw, unsigned int t)
{
	const struct intel_enc *e = hw->priv;

	if (t == INTEL_TYPE_NONE)
		return 0;
	return e && e->by_type ? e->enable_bits[t] : hw->enable_bits;
}

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

/* May type p count req on slot? 0, or -EINVAL with the reason. */
static int check_on(const struct intel_pmu *p, unsigned int slot,
		    const struct kpmc_counter_req *req, char *why, size_t len)
{
	unsigned int i;
	u8 ev, um;

	if (!(p->slots & (1u << slot))) {
		if (slot_is_fixed(slot))
			snprintf(why, len, "fixed counter %u does not exist on this CPU", slot);
		else
			snprintf(why, len, "%u general counters (pmc%u-pmc%u)",
				 p->nr_gp, intel.fixed_slots,
				 intel.fixed_slots + p->nr_gp - 1);
		return -EINVAL;
	}
	if (req->any && (p->version < 3 || p->version >= 5)) {
		snprintf(why, len, "AnyThread (any%u=1) needs perfmon version 3 or 4; this is version %u",
			 slot, p->version);
		return -EINVAL;
	}
	if (slot_is_fixed(slot))
		return 0;
	split_event(req, &ev, &um);
	for (i = 0; i < p->arch_len && i < ARRAY_SIZE(intel_arch_events); i++) {
		if (intel_arch_events[i].event != ev || intel_arch_events[i].umask != um)
			continue;
		if (p->arch_unavailable & (1u << i)) {
			snprintf(why, len,
				 "architectural event %s (0x%02x/0x%02x) is not available on this CPU (CPUID.0AH:EBX bit %u)",
				 intel_arch_events[i].name, ev, um, i);
			return -EINVAL;
		}
	}
	return 0;
}

static const char *type_name(const struct intel_pmu *p)
{
	return p->core_type == 0x40 ? "P-core" : p->core_type == 0x20 ? "E-core" : "core type";
}

/*
 * The types that cannot count req on slot, as a mask; why names them and
 * says why ("E-core (0x20): 6 general counters (pmc3-pmc8)"), the reason
 * once when it is the same for all.
 */
static u32 check_types(unsigned int slot, const struct kpmc_counter_req *req,
		       char *why, size_t len)
{
	char one[KPMC_ERR_MAX], first[KPMC_ERR_MAX], names[KPMC_ERR_MAX];
	size_t used = 0, nused = 0;
	bool same = true;
	unsigned int t;
	u32 bad = 0;

	if (intel.nr_types == 1)
		return check_on(&intel.type[0], slot, req, why, len) ? 1 : 0;
	why[0] = names[0] = '\0';
	for (t = 0; t < intel.nr_types; t++) {
		const struct intel_pmu *p = &intel.type[t];

		if (!check_on(p, slot, req, one, sizeof(one)))
			continue;
		if (!bad)
			memcpy(first, one, sizeof(first));
		same &= !strcmp(first, one);
		bad |= 1u << t;
		if (nused < sizeof(names))
			nused += snprintf(names + nused, sizeof(names) - nused, "%s%s (0x%02x)",
					  nused ? ", " : "", type_name(p), p->core_type);
		if (used < len)
			used += snprintf(why + used, len - used, "%s%s (0x%02x): %s",
					 used ? "; " : "", type_name(p), p->core_type, one);
	}
	if (bad && same)
		snprintf(why, len, "%s: %s", names, first);
	return bad;
}

static int intel_check_request(const struct kpmc_pmu_desc *pmu, unsigned int slot,
			       const struct kpmc_counter_req *req, char *why, size_t len)
{
	if ((req->mods & KPMC_MOD_UMASK) && req->event > 0xff && !slot_is_fixed(slot)) {
		snprintf(why, len, "umask given twice (in the event 0x%llx and umask%u)",
			 (unsigned long long)req->event, slot);
		return -EINVAL;
	}
	/* On a hybrid part, a counter some type can count is accepted. */
	if (check_types(slot, req, why, len) == (1u << intel.nr_types) - 1)
		return -EINVAL;
	return 0;
}

/* Fill p from CPUID.0AH as a CPU of its type reports it; 0 or -ENODEV. */
static int read_pmu(struct intel_pmu *p, const u32 r[4], char *why, size_t len)
{
	p->version = r[0] & 0xff;
	if (!p->version) {
		snprintf(why, len,
			 "no architectural PMU: CPUID.0AH reports version 0 (running under a hypervisor without vPMU?)");
		return -ENODEV;
	}
	p->nr_gp = (r[0] >> 8) & 0xff;
	p->gp_width = (r[0] >> 16) & 0xff;
	p->arch_len = (r[0] >> 24) & 0xff;
	p->arch_unavailable = r[1];
	if (!p->nr_gp || p->gp_width < 32 || p->gp_width > 64) {
		snprintf(why, len, "CPUID.0AH reports %u general counters of %u bits: not usable",
			 p->nr_gp, p->gp_width);
		return -ENODEV;
	}
	if (p->version >= 2) {
		p->nr_fixed = r[3] & 0x1f;
		p->fixed_width = (r[3] >> 5) & 0xff;
		p->fixed_present = (1u << (p->nr_fixed < 3 ? p->nr_fixed : 3)) - 1;
		/* Version 5 enumerates fixed counters as a bitmap too. */
		if (p->version >= 5)
			p->fixed_present |= r[2] & 0x7;
	}
	if (p->nr_gp > INTEL_MAX_GP)
		p->nr_gp = INTEL_MAX_GP;
	return 0;
}

static void read_core_type(void *unused)
{
	u32 r[4];

	kpmc_x86_cpuid(0x1a, 0, r);
	intel_cpu_type[kpmc_x86_cpu()] = r[0] >> 24;
}

/* "0-3,8": the CPUs of type index t. */
static void cpu_list(unsigned int t, char *out, size_t len)
{
	unsigned int cpu, n = kpmc_x86_nr_cpus(), first;
	size_t used = 0;

	out[0] = '\0';
	for (cpu = 0; cpu < n && used < len; cpu++) {
		if (intel_cpu_type[cpu] != t)
			continue;
		for (first = cpu; cpu + 1 < n && intel_cpu_type[cpu + 1] == t; cpu++)
			;
		used += snprintf(out + used, len - used, first == cpu ? "%s%u" : "%s%u-%u",
				 used ? "," : "", first, cpu);
	}
}

/*
 * Sort the CPUs into core types (intel_cpu_type[] becomes indices) and read
 * each type's PMU on one of its CPUs. CPUs offline now are taken as type 0.
 */
static int probe_hybrid(char *why, size_t len)
{
	unsigned int cpu, t, n = kpmc_x86_nr_cpus();
	unsigned int first[INTEL_MAX_TYPES];
	u32 r[4];
	int err;

	if (n > KPMC_X86_MAX_CPUS)
		n = KPMC_X86_MAX_CPUS;
	memset(intel_cpu_type, 0, sizeof(intel_cpu_type));
	kpmc_x86_on_each_cpu(read_core_type, NULL);
	for (cpu = 0; cpu < n; cpu++) {
		u8 raw = intel_cpu_type[cpu];

		if (!raw) {
			intel_cpu_type[cpu] = 0xff;	/* offline: sorted below */
			continue;
		}
		for (t = 0; t < intel.nr_types && intel.type[t].core_type != raw; t++)
			;
		if (t == INTEL_MAX_TYPES) {
			snprintf(why, len, "hybrid CPU with more than %u core types", INTEL_MAX_TYPES);
			return -ENODEV;
		}
		if (t == intel.nr_types) {
			intel.type[t].core_type = raw;
			first[t] = cpu;
			intel.nr_types++;
		}
		intel_cpu_type[cpu] = t;
	}
	if (!intel.nr_types) {
		snprintf(why, len, "hybrid CPU, but CPUID.1AH names no core type");
		return -ENODEV;
	}
	for (cpu = 0; cpu < n; cpu++)
		if (intel_cpu_type[cpu] == 0xff)
			intel_cpu_type[cpu] = 0;
	for (t = 0; t < intel.nr_types; t++) {
		err = kpmc_x86_cpuid_on(first[t], 0xa, 0, r);
		if (!err)
			err = read_pmu(&intel.type[t], r, why, len);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Alder Lake and Raptor Lake P-cores have 8 general and 4 fixed counters
 * while CPUID.0AH enumerates the 6 and 3 both core types share (the kernel's
 * perf corrects it the same way); kpmc numbers 3 fixed counters.
 */
static void hybrid_quirks(unsigned int family, unsigned int model)
{
	unsigned int t;

	if (family != 6 || (model != 0x97 && model != 0x9a && model != 0xb7 &&
			    model != 0xba && model != 0xbf))
		return;
	for (t = 0; t < intel.nr_types; t++)
		if (intel.type[t].core_type == 0x40 && intel.type[t].nr_gp < 8)
			intel.type[t].nr_gp = 8;
}

static int intel_probe(struct kpmc_pmu_desc *desc, char *why, size_t len)
{
	u32 r[4];
	unsigned int i, t, family, model, max_leaf;
	bool full_width = false, hybrid = false;
	int err;

	if (!kpmc_x86_vendor_is("GenuineIntel")) {
		snprintf(why, len, "not an Intel CPU");
		return -ENODEV;
	}
	kpmc_x86_cpuid(0, 0, r);
	max_leaf = r[0];
	if (max_leaf < 0xa) {
		snprintf(why, len, "no architectural PMU: CPUID leaf 0AH is not implemented");
		return -ENODEV;
	}
	memset(&intel, 0, sizeof(intel));
	if (max_leaf >= 0x1a) {
		kpmc_x86_cpuid(7, 0, r);
		hybrid = r[3] & (1u << 15);
	}
	intel.hybrid = hybrid;
	if (hybrid) {
		err = probe_hybrid(why, len);
	} else {
		intel.nr_types = 1;
		kpmc_x86_cpuid(0xa, 0, r);
		err = read_pmu(&intel.type[0], r, why, len);
	}
	if (err)
		return err;
	/* PDCM says IA32_PERF_CAPABILITIES exists; bit 13 is full-width writes. */
	kpmc_x86_cpuid(1, 0, r);
	if (r[2] & (1u << 15))
		full_width = kpmc_x86_rdmsr(MSR_X86_PERF_CAPABILITIES) & (1ULL << 13);
	family = (r[0] >> 8) & 0xf;
	model = (r[0] >> 4) & 0xf;
	if (family == 0x6 || family == 0xf)
		model |= ((r[0] >> 16) & 0xf) << 4;
	if (family == 0xf)
		family += (r[0] >> 20) & 0xff;
	if (hybrid)
		hybrid_quirks(family, model);

	if (intel.type[0].version >= 2)
		intel.fixed_slots = INTEL_FIXED_SLOTS;
	for (t = 0; t < intel.nr_types; t++) {
		struct intel_pmu *p = &intel.type[t];

		p->full_width = full_width;
		p->slots = (p->fixed_present & ((1u << intel.fixed_slots) - 1)) |
			   ((1u << p->nr_gp) - 1) << intel.fixed_slots;
		if (p->nr_gp > intel.nr_gp)
			intel.nr_gp = p->nr_gp;
	}

	/* Family and model name the microarchitecture: the CLI's libpfm4 event table. */
	{
		const struct intel_pmu *p = &intel.type[0];

		snprintf(desc->model, sizeof(desc->model),
			 "Intel family %xh model %xh: arch perfmon v%u: %u general x %u bits, %u fixed x %u bits%s%s",
			 family, model, p->version, intel.nr_gp, p->gp_width, p->nr_fixed,
			 p->fixed_width, full_width ? ", full-width writes" : "",
			 intel.nr_types > 1 ? ", hybrid" : "");
	}
	desc->nr_fixed = intel.fixed_slots;
	desc->nr_counters = intel.fixed_slots + intel.nr_gp;
	/* A pmc's width: the narrowest of the types that have it. */
	for (i = 0; i < desc->nr_counters; i++) {
		desc->width[i] = 64;
		for (t = 0; t < intel.nr_types; t++) {
			const struct intel_pmu *p = &intel.type[t];
			unsigned int w = slot_is_fixed(i) ? p->fixed_width : p->gp_width;

			if ((p->slots & (1u << i)) && w < desc->width[i])
				desc->width[i] = w;
		}
	}
	if (intel.nr_types > 1) {
		desc->nr_core_types = intel.nr_types;
		for (t = 0; t < intel.nr_types; t++) {
			const struct intel_pmu *p = &intel.type[t];
			struct kpmc_core_type *ct = &desc->core_type[t];

			snprintf(ct->name, sizeof(ct->name), "%s (0x%02x)", type_name(p),
				 p->core_type);
			cpu_list(t, ct->cpus, sizeof(ct->cpus));
			ct->counters = p->slots;
			snprintf(ct->detail, sizeof(ct->detail),
				 "v%u: %u general x %u bits, %u fixed x %u bits", p->version,
				 p->nr_gp, p->gp_width, p->nr_fixed, p->fixed_width);
		}
	}
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
	intel_pebs_probe(desc, hybrid);
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
	struct intel_enc enc;
	u32 all = (1u << intel.nr_types) - 1;
	unsigned int slot, t;

	memset(hw, 0, sizeof(*hw));
	memset(&enc, 0, sizeof(enc));
	if (cfg->ebs_period && intel.type[0].version < 2) {
		snprintf(why, len, "perfmon version 1 has no overflow status: no ebs");
		return -EINVAL;
	}
	why[0] = '\0';
	for (slot = 0; slot < KPMC_MAX_COUNTERS; slot++) {
		const struct kpmc_counter_req *req = &cfg->ctr[slot];
		bool pmi = cfg->ebs_period && cfg->ebs_slot == slot;
		unsigned int n = hw->nr, w = 64;
		char note[KPMC_ERR_MAX];
		u32 bad;

		if (!(cfg->mask & (1u << slot)))
			continue;
		bad = check_types(slot, req, note, sizeof(note));
		if (bad == all) {
			snprintf(why, len, "pmc%u: %s", slot, note);
			return -EINVAL;
		}
		/* Counted where it can be; why keeps where it cannot. */
		if (bad && !why[0])
			snprintf(why, len, "pmc%u is not counted on %s", slot, note);
		for (t = 0; t < intel.nr_types; t++) {
			const struct intel_pmu *p = &intel.type[t];

			if (bad & (1u << t)) {
				enc.absent[t] |= 1u << n;
				continue;
			}
			/*
			 * Without full-width writes a counter takes 32 bits,
			 * sign-extended from bit 31 (SDM 18.2.6): a sampling
			 * start of -period is only exact up to 2^31 - 1, perf's
			 * max_period there too.
			 */
			if (pmi && !p->full_width &&
			    cfg->ebs_period + cfg->ebs_range > INTEL_LEGACY_MAX_PERIOD) {
				snprintf(why, len,
					 "ebs%u=%llu%s: this CPU's counters take 32-bit writes (no full-width writes): a period is at most %llu",
					 slot, (unsigned long long)cfg->ebs_period,
					 cfg->ebs_range ? " with rnd" : "",
					 (unsigned long long)INTEL_LEGACY_MAX_PERIOD);
				return -EINVAL;
			}
			enc.enable_bits[t] |= slot_global_bit(slot);
			if ((slot_is_fixed(slot) ? p->fixed_width : p->gp_width) < w)
				w = slot_is_fixed(slot) ? p->fixed_width : p->gp_width;
		}
		if (slot_is_fixed(slot)) {
			/* IA32_FIXED_CTR_CTRL nibble: OS, USR, AnyThread, PMI. */
			hw->selector[n] = (req->os ? 1 : 0) | (req->usr ? 2 : 0) |
					  (req->any ? 4 : 0) | (pmi ? 8 : 0);
		} else {
			struct kpmc_counter_req r = *req;
			u8 ev, um;

			split_event(req, &ev, &um);
			r.umask = um;
			/*
			 * A PEBS counter interrupts through the DS buffer's
			 * threshold (GLOBAL_STATUS bit 62), not its own
			 * overflow: without INT its overflow raises no second
			 * PMI for the same sample.
			 */
			hw->selector[n] = kpmc_x86_evtsel(ev, &r, pmi && !cfg->mem) | X86_EVTSEL_EN;
			if (pmi && cfg->mem) {
				int err = intel_pebs_encode(cfg, (int)slot_gp(slot),
							    &hw->selector[n], &enc.pebs, why, len);

				if (err)
					return err;
				enc.mem = true;
			}
		}
		if (pmi && cfg->mem && slot_is_fixed(slot)) {
			int err = intel_pebs_encode(cfg, -1, NULL, &enc.pebs, why, len);

			if (err)
				return err;
		}
		hw->width_mask[n] = width_mask(w);
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
	enc.by_type = intel.nr_types > 1;
	if (enc.by_type || enc.mem) {
		hw->priv = kpmc_x86_zalloc(sizeof(enc));
		if (!hw->priv) {
			snprintf(why, len, "out of memory");
			return -ENOMEM;
		}
		memcpy(hw->priv, &enc, sizeof(enc));
	}
	return 0;
}

static void intel_release(struct kpmc_hw_config *hw)
{
	kpmc_x86_free(hw->priv);
	hw->priv = NULL;
}

static void write_counter(const struct intel_pmu *p, unsigned int slot, u64 value, u64 mask)
{
	u64 own = width_mask(slot_is_fixed(slot) ? p->fixed_width : p->gp_width);

	/*
	 * Wider than the encoding (another core type's counter is narrower):
	 * sign-extend, so that the distance to overflow stays the same.
	 */
	if (own != mask && (value & (mask ^ (mask >> 1))))
		value |= ~mask;
	if (slot_is_fixed(slot))
		kpmc_x86_wrmsr(MSR_X86_FIXED_CTR0 + slot, value & own);
	else if (p->full_width)
		kpmc_x86_wrmsr(MSR_X86_PMC0_FULL + slot_gp(slot), value & own);
	else
		/* Legacy writes take 32 bits and sign-extend bit 31 (SDM 18.2.6). */
		kpmc_x86_wrmsr(MSR_X86_PMC0 + slot_gp(slot), value & 0xffffffffULL);
}

/* A memory-sampling set: its PEBS on, before the counters are enabled. */
static void pebs_on(const struct kpmc_hw_config *hw)
{
	const struct intel_enc *e = hw->priv;

	if (e && e->mem)
		intel_pebs_load(&e->pebs);
}

static void pebs_off(const struct kpmc_hw_config *hw)
{
	const struct intel_enc *e = hw->priv;

	if (e && e->mem)
		intel_pebs_stop();
}

static void intel_load(const struct kpmc_hw_config *hw, const u64 *start)
{
	unsigned int t, i;
	const struct intel_pmu *p = pmu_here(&t);
	u32 absent = absent_on(hw, t);
	u64 *kept = absent ? kpmc_x86_cpu_values() : NULL;
	u64 fixed_ctrl = 0;

	if (p->version >= 2)
		kpmc_x86_wrmsr(MSR_X86_PERF_GLOBAL_CTRL, 0);
	else
		/* No global control: a previous configuration's enables must go. */
		for (i = 0; i < p->nr_gp; i++)
			kpmc_x86_wrmsr(MSR_X86_PERFEVTSEL0 + i, 0);
	for (i = 0; i < hw->nr; i++) {
		unsigned int slot = hw->slot[i];

		if (absent & (1u << i)) {
			kept[i] = start[i];
			continue;
		}
		if (slot_is_fixed(slot))
			fixed_ctrl |= hw->selector[i] << (4 * slot);
		else
			kpmc_x86_wrmsr(MSR_X86_PERFEVTSEL0 + slot_gp(slot), hw->selector[i]);
		write_counter(p, slot, start[i], hw->width_mask[i]);
	}
	if (p->version >= 2) {
		kpmc_x86_wrmsr(MSR_X86_FIXED_CTR_CTRL, fixed_ctrl);
		pebs_on(hw);
		kpmc_x86_wrmsr(MSR_X86_PERF_GLOBAL_CTRL, enable_on(hw, t));
	}
}

/* Version 1 has no global control, and no hybrid parts: every counter is present. */
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
	unsigned int t;
	const struct intel_pmu *p = pmu_here(&t);

	if (p->version >= 2) {
		pebs_on(hw);
		kpmc_x86_wrmsr(MSR_X86_PERF_GLOBAL_CTRL, enable_on(hw, t));
	} else {
		set_gp_enables(hw, true);
	}
}

static void intel_stop(const struct kpmc_hw_config *hw)
{
	unsigned int t;
	const struct intel_pmu *p = pmu_here(&t);

	if (p->version >= 2) {
		/* PEBS off first: no assist between the two writes. */
		pebs_off(hw);
		kpmc_x86_wrmsr(MSR_X86_PERF_GLOBAL_CTRL, 0);
	} else {
		set_gp_enables(hw, false);
	}
}

static void intel_read(const struct kpmc_hw_config *hw, u64 *raw)
{
	unsigned int i;
	u32 absent = absent_on(hw, type_here());
	const u64 *kept = absent ? kpmc_x86_cpu_values() : NULL;

	for (i = 0; i < hw->nr; i++) {
		unsigned int slot = hw->slot[i];
		u32 msr = slot_is_fixed(slot) ? MSR_X86_FIXED_CTR0 + slot :
						MSR_X86_PMC0 + slot_gp(slot);

		if (absent & (1u << i))
			raw[i] = kept[i];
		else
			raw[i] = kpmc_x86_rdmsr(msr) & hw->width_mask[i];
	}
}

static void intel_write(const struct kpmc_hw_config *hw, unsigned int index, u64 value)
{
	unsigned int t;
	const struct intel_pmu *p = pmu_here(&t);

	if (absent_on(hw, t) & (1u << index))
		kpmc_x86_cpu_values()[index] = value;
	else
		write_counter(p, hw->slot[index], value, hw->width_mask[index]);
}

static u32 intel_uncounted(const struct kpmc_hw_config *hw)
{
	u32 absent = absent_on(hw, type_here()), pmcs = 0;
	unsigned int i;

	for (i = 0; absent && i < hw->nr; i++)
		if (absent & (1u << i))
			pmcs |= 1u << hw->slot[i];
	return pmcs;
}

/* PMI: take and clear the overflow bits of kpmc's counters. */
static bool intel_pmi(void)
{
	u64 ours = kpmc_x86_rdmsr(MSR_X86_PERF_GLOBAL_STATUS) & intel.claimed_status;

	if (!ours)
		return false;
	if (ours & X86_GLOBAL_STATUS_PEBS_BUFFER)
		intel_pebs_drain();
	kpmc_x86_wrmsr(MSR_X86_PERF_GLOBAL_OVF_CTRL, ours);
	kpmc_x86_pmi_rearm();
	return true;
}

static void intel_quiesce(void *unused)
{
	unsigned int t, i;
	const struct intel_pmu *p = pmu_here(&t);

	if (p->version >= 2) {
		kpmc_x86_wrmsr(MSR_X86_PERF_GLOBAL_CTRL, 0);
		kpmc_x86_wrmsr(MSR_X86_FIXED_CTR_CTRL, 0);
	}
	for (i = 0; t != INTEL_TYPE_NONE && i < p->nr_gp; i++)
		kpmc_x86_wrmsr(MSR_X86_PERFEVTSEL0 + i, 0);
	intel_pebs_quiesce();
}

static int intel_claim(u32 mask, char *why, size_t len)
{
	int err = kpmc_x86_reserve(intel.nr_gp, MSR_X86_PERFEVTSEL0, MSR_X86_PMC0, 1, why, len);
	unsigned int slot, t;
	u32 present = 0;

	if (err)
		return err;
	for (t = 0; t < intel.nr_types; t++)
		present |= intel.type[t].slots;
	intel.claimed_status = 0;
	for (slot = 0; slot < KPMC_MAX_COUNTERS; slot++)
		if (mask & present & (1u << slot))
			intel.claimed_status |= slot_global_bit(slot);
	/* PEBS's PMI: only kpmc's counters can be PEBS-enabled while it holds them. */
	if (intel_pebs_usable())
		intel.claimed_status |= X86_GLOBAL_STATUS_PEBS_BUFFER;
	kpmc_x86_on_each_cpu(intel_quiesce, NULL);
	if (intel.type[0].version >= 2)
		kpmc_x86_pmi_attach(intel_pmi);
	return 0;
}

/*
 * A CPU comes online (hotplug or resume; process context, on that CPU). On
 * a hybrid part, a CPU offline at probe was taken as type 0: read its core
 * type now, before any thread counts there, so that no MSR its type lacks is
 * ever written. A core type no CPU had at probe has no encodings and no
 * known counters: kpmc counts nothing on such a CPU, and says so.
 */
static int intel_cpu_online(unsigned int cpu)
{
	unsigned int t;
	char note[128];
	u32 r[4];
	u8 raw;

	if (intel.hybrid && cpu < KPMC_X86_MAX_CPUS) {
		kpmc_x86_cpuid(0x1a, 0, r);
		raw = r[0] >> 24;
		for (t = 0; t < intel.nr_types && intel.type[t].core_type != raw; t++)
			;
		if (t == intel.nr_types) {
			snprintf(note, sizeof(note),
				 "CPU %u has core type 0x%x, which no CPU had at load: kpmc counts nothing there (reload kpmc with it online)",
				 cpu, raw);
			kpmc_x86_note(note);
			t = INTEL_TYPE_NONE;
		}
		intel_cpu_type[cpu] = t;
	}
	if (intel.claimed_status)
		intel_quiesce(NULL);
	return 0;
}

static void intel_unclaim(u32 mask)
{
	kpmc_x86_on_each_cpu(intel_quiesce, NULL);
	if (intel.type[0].version >= 2)
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
	.release = intel_release,
	.load = intel_load,
	.start = intel_start,
	.stop = intel_stop,
	.read = intel_read,
	.write = intel_write,
	.uncounted = intel_uncounted,
	.cpu_came_online = intel_cpu_online,
	.mem_sample = intel_pebs_mem_sample,
	.remove = intel_pebs_remove,
};
