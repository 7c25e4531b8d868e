// SPDX-License-Identifier: GPL-2.0
/*
 * ARMv8 PMUv3 backend: programs PMEVTYPERn/PMEVCNTRn, PMCCFILTR/PMCCNTR and
 * PMCNTENSET/CLR directly.
 *
 * pmc0 is the fixed 64-bit cycle counter and pmcN, N >= 1, is event counter
 * N-1. claim() reserves exactly those counters in perf's per-CPU allocator
 * (arm_pmu's used_mask), whose index of a counter depends on the kernel
 * (perf_index(); the numbering itself is decided in kpmc/compat.h).
 *
 * perf internals relied on, verified on each supported kernel (5.10, 6.1,
 * 6.12, 7.x) by the guest suites: struct arm_pmu's per-CPU hw_events with
 * used_mask, which armv8pmu_get_event_idx() consults before taking a
 * counter; armpmu_enable() starting the PMU whenever used_mask is not empty;
 * the handle_irq and start members, which kpmc stands in front of.
 */
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/perf/arm_pmu.h>
#include <linux/smp.h>
#include <asm/sysreg.h>
#include <asm/virt.h>
#include <uapi/linux/kpmc.h>

#include "kpmc/compat.h"
#include "backends.h"

#define PMUV3_CYCLE_BIT		31
#define PMUV3_CPU_CYCLES	0x11
/* Event counters we expose: pmc1..pmc15. */
#define PMUV3_MAX_EVENT_COUNTERS	(KPMC_MAX_COUNTERS - 1)

struct pmuv3 {
	unsigned int nr_event_counters;
	unsigned int pmuver;		/* ID_AA64DFR0_EL1.PMUVer */
	u64 evtype_mask;		/* event number bits of PMEVTYPER */
	u64 common_events;		/* PMCEID0: common events 0x00-0x1f.. as a 64-bit map */
	struct arm_pmu *perf_pmu;	/* the kernel's armv8 perf PMU, for claim() */
	/* perf's interrupt handler, while ours stands in front of it. */
	irqreturn_t (*perf_handle_irq)(struct arm_pmu *pmu);
	/* perf's PMU enable, while ours stands in front of it (user access). */
	void (*perf_start)(struct arm_pmu *pmu);
	u32 claimed_bits;		/* PMOVS/PMINTEN bits of the claimed counters */
};

static struct pmuv3 pmuv3;

/* The core wants EL0 reads of the counters on this CPU (its fast-path thread runs). */
static DEFINE_PER_CPU(bool, pmuv3_user_granted);

/*
 * System registers of event counters are named by a constant in the
 * instruction, so the counter number must be a compile-time constant.
 */
#define PMUV3_CASE(i, stmt)	case i: stmt(i); break
#define PMUV3_EACH_COUNTER(x, stmt)		\
	do {					\
		switch (x) {			\
		PMUV3_CASE(0, stmt);		\
		PMUV3_CASE(1, stmt);		\
		PMUV3_CASE(2, stmt);		\
		PMUV3_CASE(3, stmt);		\
		PMUV3_CASE(4, stmt);		\
		PMUV3_CASE(5, stmt);		\
		PMUV3_CASE(6, stmt);		\
		PMUV3_CASE(7, stmt);		\
		PMUV3_CASE(8, stmt);		\
		PMUV3_CASE(9, stmt);		\
		PMUV3_CASE(10, stmt);		\
		PMUV3_CASE(11, stmt);		\
		PMUV3_CASE(12, stmt);		\
		PMUV3_CASE(13, stmt);		\
		PMUV3_CASE(14, stmt);		\
		}				\
	} while (0)

static u64 read_event_counter(unsigned int n)
{
	u64 v = 0;

#define READ_CNTR(i) (v = read_sysreg_s(SYS_PMEVCNTRn_EL0(i)))
	PMUV3_EACH_COUNTER(n, READ_CNTR);
#undef READ_CNTR
	return v;
}

static void write_event_counter(unsigned int n, u64 v)
{
#define WRITE_CNTR(i) write_sysreg_s(v, SYS_PMEVCNTRn_EL0(i))
	PMUV3_EACH_COUNTER(n, WRITE_CNTR);
#undef WRITE_CNTR
}

static void write_event_type(unsigned int n, u64 v)
{
#define WRITE_TYPER(i) write_sysreg_s(v, SYS_PMEVTYPERn_EL0(i))
	PMUV3_EACH_COUNTER(n, WRITE_TYPER);
#undef WRITE_TYPER
}

/* perf's index (used_mask bit) of pmc slot. */
static inline unsigned int perf_index(unsigned int slot)
{
	return slot == 0 ? KPMC_ARMPMU_IDX_CYCLE : KPMC_ARMPMU_IDX_EVENT0 + slot - 1;
}

/* Hardware enable bit of pmc slot. */
static inline u32 slot_bit(unsigned int slot)
{
	return slot == 0 ? BIT(PMUV3_CYCLE_BIT) : BIT(slot - 1);
}

static int pmuv3_check_event(const struct kpmc_pmu_desc *pmu, unsigned int slot,
			     u64 event, char *why, size_t len)
{
	if (event & ~pmuv3.evtype_mask) {
		snprintf(why, len, "event 0x%llx does not fit PMEVTYPER (max 0x%llx)",
			 event, pmuv3.evtype_mask);
		return -EINVAL;
	}
	/* Common events are architected: PMCEID says which this CPU has. */
	if (event < 0x40 && !(pmuv3.common_events & BIT_ULL(event))) {
		snprintf(why, len, "event 0x%llx is not implemented by this PMU (PMCEID)",
			 event);
		return -EINVAL;
	}
	return 0;
}

static struct arm_pmu *find_perf_pmu(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.disabled = 1,
	};
	struct perf_event *ev;
	struct arm_pmu *pmu = NULL;

	/* A disabled event is never scheduled, so this takes no counter. */
	ev = perf_event_create_kernel_counter(&attr, raw_smp_processor_id(),
					      NULL, NULL, NULL);
	if (IS_ERR(ev))
		return NULL;
	if (ev->pmu && ev->pmu->name && !strncmp(ev->pmu->name, "armv8", 5))
		pmu = to_arm_pmu(ev->pmu);
	perf_event_release_kernel(ev);
	return pmu;
}

static int pmuv3_probe(struct kpmc_pmu_desc *desc, char *why, size_t len)
{
	u64 dfr0 = read_sysreg(id_aa64dfr0_el1);
	u64 midr = read_cpuid_id();
	unsigned int ver = (dfr0 >> KPMC_DFR0_PMUVER_SHIFT) & 0xf;
	unsigned int n, i;

	if (ver == 0 || ver == 0xf) {
		snprintf(why, len, "no PMUv3: ID_AA64DFR0_EL1.PMUVer is 0x%x", ver);
		return -ENODEV;
	}
	n = KPMC_PMCR_N(read_sysreg(pmcr_el0));
	pmuv3.pmuver = ver;
	pmuv3.nr_event_counters = min_t(unsigned int, n, PMUV3_MAX_EVENT_COUNTERS);
	/* PMUv3 has 10-bit event numbers, PMUv3p1 and later 16-bit. */
	pmuv3.evtype_mask = ver == 1 ? 0x3ff : 0xffff;
	pmuv3.common_events = read_sysreg(pmceid0_el0);
	pmuv3.perf_pmu = find_perf_pmu();
	if (!pmuv3.perf_pmu) {
		snprintf(why, len,
			 "PMUv3 present but the kernel's armv8 perf PMU was not found, so kpmc cannot reserve counters from perf");
		return -ENODEV;
	}

	snprintf(desc->model, sizeof(desc->model),
		 "ARMv8 PMUv3 (PMUVer 0x%x, MIDR 0x%08llx)", ver, midr);
	desc->nr_fixed = 1;
	desc->nr_counters = 1 + pmuv3.nr_event_counters;
	desc->width[0] = 64;
	desc->fixed_event[0] = PMUV3_CPU_CYCLES;
	desc->fixed_name[0] = "cycles";
	for (i = 1; i < desc->nr_counters; i++)
		desc->width[i] = 32;
	desc->check_event = pmuv3_check_event;
	desc->has_basic_events = true;
	desc->event_instructions = 0x08;	/* INST_RETIRED */
	desc->event_cycles = PMUV3_CPU_CYCLES;
	return 0;
}

static void pmuv3_remove(void)
{
	pmuv3.perf_pmu = NULL;
}

static void pmuv3_enable_pmcr(void *unused)
{
	write_sysreg(read_sysreg(pmcr_el0) | ARMV8_PMU_PMCR_E | ARMV8_PMU_PMCR_LC,
		     pmcr_el0);
	isb();
}

/*
 * The PMU interrupt is perf's (armv8pmu_handle_irq reads and clears every
 * overflow flag). While kpmc holds counters, this handler runs first: it
 * takes and clears the flags of kpmc's counters and passes the interrupt on
 * to perf, which then sees only its own.
 */
static irqreturn_t pmuv3_handle_irq(struct arm_pmu *pmu)
{
	u32 ours = read_sysreg(pmovsclr_el0) & READ_ONCE(pmuv3.claimed_bits);
	irqreturn_t ret = IRQ_NONE;

	if (ours) {
		write_sysreg(ours, pmovsclr_el0);
		isb();
		kpmc_pmu_overflow();
		ret = IRQ_HANDLED;
	}
	if (pmuv3.perf_handle_irq(pmu) == IRQ_HANDLED)
		ret = IRQ_HANDLED;
	return ret;
}

/*
 * perf's armv8pmu_start() rewrites PMUSERENR_EL0 whenever perf enables the
 * PMU (any perf event scheduled on this CPU, after kpmc's switch hook ran):
 * with perf_user_access off it clears it. Left so, a kpmc thread whose page
 * says "user read" would take an undefined-instruction trap on its next read;
 * so after perf's own start, kpmc's grant is put back on the CPUs where a
 * fast-path thread is current. Elsewhere perf's choice stands.
 */
static void pmuv3_start_pmu(struct arm_pmu *pmu)
{
	pmuv3.perf_start(pmu);
	if (this_cpu_read(pmuv3_user_granted)) {
		write_sysreg(ARMV8_PMU_USERENR_ER | ARMV8_PMU_USERENR_CR, pmuserenr_el0);
		isb();
	}
}

static void pmuv3_user_access(bool grant)
{
	this_cpu_write(pmuv3_user_granted, grant);
	write_sysreg(grant ? ARMV8_PMU_USERENR_ER | ARMV8_PMU_USERENR_CR : 0, pmuserenr_el0);
	isb();
}

/* EL0 reads the cycle counter directly, an event counter through PMSELR_EL0. */
static int pmuv3_user_index(const struct kpmc_hw_config *hw, unsigned int index)
{
	unsigned int slot = hw->slot[index];

	return slot == 0 ? KPMC_PAGE_ARM64_CYCLE_INDEX : (int)slot - 1;
}

static void pmuv3_release_slots(u32 mask, int upto_cpu)
{
	int cpu;
	unsigned int slot;

	for_each_possible_cpu(cpu) {
		struct pmu_hw_events *hw = per_cpu_ptr(pmuv3.perf_pmu->hw_events, cpu);

		if (cpu == upto_cpu)
			break;
		for (slot = 0; slot < KPMC_MAX_COUNTERS; slot++)
			if (mask & BIT(slot))
				clear_bit(perf_index(slot), hw->used_mask);
	}
}

static int pmuv3_claim(u32 mask, char *why, size_t len)
{
	unsigned int slot, busy;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pmu_hw_events *hw = per_cpu_ptr(pmuv3.perf_pmu->hw_events, cpu);

		for (slot = 0; slot < KPMC_MAX_COUNTERS; slot++) {
			if (!(mask & BIT(slot)) ||
			    !test_and_set_bit(perf_index(slot), hw->used_mask))
				continue;
			/* perf holds it: give back what we took on this CPU and before. */
			busy = slot;
			while (slot--)
				if (mask & BIT(slot))
					clear_bit(perf_index(slot), hw->used_mask);
			pmuv3_release_slots(mask, cpu);
			snprintf(why, len,
				 "counter pmc%u is in use by perf on CPU %d (stop the perf user, or the NMI watchdog, first)",
				 busy, cpu);
			return -EBUSY;
		}
	}
	for (slot = 0; slot < KPMC_MAX_COUNTERS; slot++)
		if (mask & BIT(slot))
			pmuv3.claimed_bits |= slot_bit(slot);
	pmuv3.perf_handle_irq = pmuv3.perf_pmu->handle_irq;
	WRITE_ONCE(pmuv3.perf_pmu->handle_irq, pmuv3_handle_irq);
	pmuv3.perf_start = pmuv3.perf_pmu->start;
	WRITE_ONCE(pmuv3.perf_pmu->start, pmuv3_start_pmu);
	on_each_cpu(pmuv3_enable_pmcr, NULL, 1);
	return 0;
}

/*
 * The PMU came back reset (CPU PM exit, or this CPU came online: arm_pmu
 * resets it either way, and enables it only for perf's own events): enable
 * it for kpmc's counters again, EL0 access off until the core grants it.
 * The used_mask claim is per possible CPU and survives both.
 */
static void pmuv3_cpu_reset(void)
{
	pmuv3_enable_pmcr(NULL);
	this_cpu_write(pmuv3_user_granted, false);
	write_sysreg(0, pmuserenr_el0);
	isb();
}

static void pmuv3_disable_counters(void *info)
{
	u32 bits = *(u32 *)info;

	write_sysreg(bits, pmcntenclr_el0);
	write_sysreg(bits, pmintenclr_el1);
	/* No kpmc thread counts any more: EL0 goes back to perf's policy (off). */
	if (this_cpu_read(pmuv3_user_granted))
		pmuv3_user_access(false);
	isb();
}

static void pmuv3_unclaim(u32 mask)
{
	u32 bits = 0;
	unsigned int slot;

	for (slot = 0; slot < KPMC_MAX_COUNTERS; slot++)
		if (mask & BIT(slot))
			bits |= slot_bit(slot);
	on_each_cpu(pmuv3_disable_counters, &bits, 1);
	WRITE_ONCE(pmuv3.perf_pmu->handle_irq, pmuv3.perf_handle_irq);
	WRITE_ONCE(pmuv3.perf_pmu->start, pmuv3.perf_start);
	/* No CPU is still inside pmuv3_handle_irq (hard IRQs are RCU readers). */
	synchronize_rcu();
	pmuv3.claimed_bits = 0;
	pmuv3_release_slots(mask, -1);
}

static int pmuv3_encode(const struct kpmc_config *cfg, struct kpmc_hw_config *hw,
			char *why, size_t len)
{
	unsigned int slot;

	memset(hw, 0, sizeof(*hw));
	for (slot = 0; slot < KPMC_MAX_COUNTERS; slot++) {
		const struct kpmc_counter_req *req = &cfg->ctr[slot];
		u64 sel;

		if (!(cfg->mask & BIT(slot)))
			continue;
		sel = slot == 0 ? 0 : (req->event & pmuv3.evtype_mask);
		if (!req->usr)
			sel |= ARMV8_PMU_EXCLUDE_EL0;
		if (!req->os)
			sel |= ARMV8_PMU_EXCLUDE_EL1;
		else if (is_kernel_in_hyp_mode())
			sel |= ARMV8_PMU_INCLUDE_EL2;
		hw->slot[hw->nr] = slot;
		hw->selector[hw->nr] = sel;
		hw->width_mask[hw->nr] = slot == 0 ? ~0ULL : 0xffffffffULL;
		hw->enable_bits |= slot_bit(slot);
		if (cfg->ebs_period && cfg->ebs_slot == slot) {
			hw->sampling = true;
			hw->sampling_index = hw->nr;
			hw->irq_bits = slot_bit(slot);
		}
		hw->nr++;
		hw->mask |= BIT(slot);
	}
	return 0;
}

static void pmuv3_load(const struct kpmc_hw_config *hw, const u64 *start)
{
	unsigned int i;

	write_sysreg(hw->enable_bits, pmcntenclr_el0);
	/* A previous configuration may have sampled on one of these counters. */
	write_sysreg(hw->enable_bits & ~hw->irq_bits, pmintenclr_el1);
	if (hw->irq_bits)
		write_sysreg(hw->irq_bits, pmintenset_el1);
	isb();
	for (i = 0; i < hw->nr; i++) {
		unsigned int slot = hw->slot[i];

		if (slot == 0) {
			write_sysreg_s(hw->selector[i], SYS_PMCCFILTR_EL0);
			write_sysreg(start[i], pmccntr_el0);
		} else {
			write_event_type(slot - 1, hw->selector[i]);
			write_event_counter(slot - 1, start[i]);
		}
	}
	write_sysreg(hw->enable_bits, pmcntenset_el0);
	isb();
}

static void pmuv3_start(const struct kpmc_hw_config *hw)
{
	write_sysreg(hw->enable_bits, pmcntenset_el0);
	isb();
}

static void pmuv3_stop(const struct kpmc_hw_config *hw)
{
	write_sysreg(hw->enable_bits, pmcntenclr_el0);
	isb();
}

static void pmuv3_read(const struct kpmc_hw_config *hw, u64 *raw)
{
	unsigned int i;

	for (i = 0; i < hw->nr; i++) {
		unsigned int slot = hw->slot[i];

		raw[i] = slot == 0 ? read_sysreg(pmccntr_el0) :
				     read_event_counter(slot - 1);
	}
}

static void pmuv3_write(const struct kpmc_hw_config *hw, unsigned int index, u64 value)
{
	unsigned int slot = hw->slot[index];

	if (slot == 0)
		write_sysreg(value, pmccntr_el0);
	else
		write_event_counter(slot - 1, value);
}

const struct kpmc_backend kpmc_arm64_pmuv3_backend = {
	.name = "arm64-pmuv3",
	.probe = pmuv3_probe,
	.remove = pmuv3_remove,
	.claim = pmuv3_claim,
	.unclaim = pmuv3_unclaim,
	.encode = pmuv3_encode,
	.load = pmuv3_load,
	.start = pmuv3_start,
	.stop = pmuv3_stop,
	.read = pmuv3_read,
	.write = pmuv3_write,
	.user_index = pmuv3_user_index,
	.user_access = pmuv3_user_access,
	.cpu_reset = pmuv3_cpu_reset,
};
