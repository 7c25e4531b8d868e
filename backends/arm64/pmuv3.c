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
 * big.LITTLE: every core type is its own arm_pmu with its own PMCR.N and
 * PMCEID. The backend keeps a table of types, found per CPU, and a per-CPU
 * pointer to its CPU's type. The pmc numbers are the union (1 + the most
 * event counters any type has); a configuration is encoded once, and on a
 * CPU whose type lacks a counter, or the event a counter is set to (PMCEID),
 * that counter is never programmed (a PMEVCNTRn beyond PMCR.N is
 * UNPREDICTABLE): it reads back what it was set to and the core reports it
 * as not counted (the uncounted op).
 *
 * perf internals relied on, verified on each supported kernel (5.10, 6.1,
 * 6.12, 7.x) by the guest suites: struct arm_pmu's per-CPU hw_events with
 * used_mask, which armv8pmu_get_event_idx() consults before taking a
 * counter; armpmu_enable() starting the PMU whenever used_mask is not empty;
 * the handle_irq and start members, which kpmc stands in front of;
 * armpmu_event_init() refusing CPUs outside supported_cpus.
 *
 * Only arm64_hw.h touches the machine, so the unit tests run this file
 * unchanged against a register-level model (tests/unit/arm64_model.c).
 */
#include <uapi/linux/kpmc.h>

#include "arm64_hw.h"
#include "../backends.h"

#define PMUV3_CPU_CYCLES	0x11
/* Event counters we expose: pmc1..pmc15. */
#define PMUV3_MAX_EVENT_COUNTERS	(KPMC_MAX_COUNTERS - 1)
#define PMUV3_MAX_TYPES		KPMC_MAX_CORE_TYPES
/* Common events PMCEID enumerates: 0x00-0x3f, and 0x4000-0x403f (PMUv3p1). */
#define PMUV3_EXT_BASE		0x4000

/* One core type: one arm_pmu. */
struct pmuv3_type {
	struct arm_pmu *pmu;
	u64 midr;
	unsigned int pmuver;		/* ID_AA64DFR0_EL1.PMUVer */
	unsigned int nr_event_counters;	/* PMCR.N, at most 15 */
	/*
	 * Implemented common events: [0] bit e is event e (0x00-0x3f),
	 * [1] bit e is event 0x4000 + e. PMCEID0_EL0[31:0] are 0x00-0x1f,
	 * PMCEID1_EL0[31:0] 0x20-0x3f, and their upper halves the same for
	 * 0x4000-0x401f and 0x4020-0x403f.
	 */
	u64 events[2];
	/* perf's handlers while kpmc's stand in front of them. */
	irqreturn_t (*perf_handle_irq)(struct arm_pmu *pmu);
	void (*perf_start)(struct arm_pmu *pmu);
	bool hooked;
};

static struct {
	struct pmuv3_type type[PMUV3_MAX_TYPES];
	unsigned int nr_types;
	u64 evtype_mask;		/* event number bits every type's PMEVTYPER has */
	bool claimed;			/* between claim() and unclaim() */
	u32 claimed_mask;		/* the pmcN claimed */
	u32 claimed_bits;		/* their PMOVS/PMINTEN bits */
	struct kpmc_pmu_desc *desc;	/* probe's, for types found later */
} pmuv3;

struct pmuv3_cpu {
	struct pmuv3_type *type;	/* NULL: not found yet */
	bool claimed;			/* kpmc's bits are set in this CPU's used_mask */
	bool granted;			/* EL0 may read the counters (a fast-path thread runs) */
	u32 enabled;			/* PMCNTEN bits the last load() set */
	u64 kept[KPMC_MAX_COUNTERS];	/* by hw index: counters this type does not count */
	/* absent_on() of the configuration load() put here, for the hot paths. */
	const struct kpmc_hw_config *absent_hw;
	const struct pmuv3_type *absent_type;
	u32 absent;
};

PMUV3_PER_CPU(struct pmuv3_cpu, pmuv3_cpu_state);

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

static bool type_has_event(const struct pmuv3_type *t, u64 ev)
{
	if (ev < 64)
		return t->events[0] & BIT_ULL(ev);
	if (ev >= PMUV3_EXT_BASE && ev < PMUV3_EXT_BASE + 64)
		return t->events[1] & BIT_ULL(ev - PMUV3_EXT_BASE);
	/* IMPLEMENTATION DEFINED events are not enumerated: trust the user. */
	return true;
}

static bool type_has_slot(const struct pmuv3_type *t, unsigned int slot)
{
	return slot == 0 || slot - 1 < t->nr_event_counters;
}

/* The pmc slots type t has, as a mask. */
static u32 type_slots(const struct pmuv3_type *t)
{
	return BIT(0) | (u32)(BIT(t->nr_event_counters) - 1) << 1;
}

/* The PMCNTEN bits of the counters type t has. */
static u32 enable_bits_of_type(const struct pmuv3_type *t)
{
	return BIT(PMUV3_CYCLE_BIT) | (u32)(BIT(t->nr_event_counters) - 1);
}

/*
 * Hot path: the counters of hw (bits by hw index) that do not count on a
 * CPU of type t. O(counters), no locks.
 */
static u32 absent_on(const struct kpmc_hw_config *hw, const struct pmuv3_type *t)
{
	u32 absent = 0;
	unsigned int i;

	if (unlikely(!t))
		return BIT(hw->nr) - 1;
	for (i = 0; i < hw->nr; i++) {
		unsigned int slot = hw->slot[i];

		if (slot && (!type_has_slot(t, slot) ||
			     !type_has_event(t, hw->selector[i] & pmuv3.evtype_mask)))
			absent |= BIT(i);
	}
	return absent;
}

/*
 * The type whose counters kpmc may program on CPU c: none where the claim
 * failed (a CPU that came online with perf's per-CPU events already on its
 * counters), so nothing is written there and everything reads uncounted.
 */
static inline const struct pmuv3_type *counting_type(const struct pmuv3_cpu *c)
{
	return c->claimed ? c->type : NULL;
}

/*
 * absent_on() for this CPU: per sample, read, write and uncounted would each
 * walk hw's counters again; load() keeps the answer for what it loaded. The
 * type is part of the key: a claim won or lost since then changes it.
 */
static inline u32 absent_here(struct pmuv3_cpu *c, const struct kpmc_hw_config *hw)
{
	const struct pmuv3_type *t = counting_type(c);

	if (c->absent_hw == hw && c->absent_type == t)
		return c->absent;
	return absent_on(hw, t);
}

/* The PMCNTEN bits of the counters of hw, except those in absent. */
static u32 enable_bits(const struct kpmc_hw_config *hw, u32 absent)
{
	u32 bits = 0;
	unsigned int i;

	for (i = 0; i < hw->nr; i++)
		if (!(absent & BIT(i)))
			bits |= slot_bit(hw->slot[i]);
	return bits;
}

static int pmuv3_check_event(const struct kpmc_pmu_desc *pmu, unsigned int slot,
			     u64 event, char *why, size_t len)
{
	/* Pairs with discover()'s release: entries below nr are whole. */
	unsigned int t, nr = smp_load_acquire(&pmuv3.nr_types);
	bool any_event = false;

	if (event & ~pmuv3.evtype_mask) {
		snprintf(why, len, "event 0x%llx does not fit PMEVTYPER (max 0x%llx)",
			 (unsigned long long)event, (unsigned long long)pmuv3.evtype_mask);
		return -EINVAL;
	}
	/* Accepted if some core type has both the counter and the event. */
	for (t = 0; t < nr; t++) {
		const struct pmuv3_type *p = &pmuv3.type[t];

		if (!type_has_event(p, event))
			continue;
		any_event = true;
		if (type_has_slot(p, slot))
			return 0;
	}
	if (!any_event)
		snprintf(why, len, "event 0x%llx is not implemented by this PMU (PMCEID)",
			 (unsigned long long)event);
	else
		snprintf(why, len,
			 "event 0x%llx is implemented only by core types without counter pmc%u",
			 (unsigned long long)event, slot);
	return -EINVAL;
}

/* ---- discovery ---- */

struct pmuv3_id {
	u64 pmcr, pmceid0, pmceid1, midr, dfr0;
};

static void read_id(void *info)
{
	struct pmuv3_id *id = info;

	id->pmcr = pmuv3_read(PMUV3_PMCR);
	id->pmceid0 = pmuv3_read(PMUV3_PMCEID0);
	id->pmceid1 = pmuv3_read(PMUV3_PMCEID1);
	id->midr = pmuv3_read(PMUV3_MIDR);
	id->dfr0 = pmuv3_read(PMUV3_DFR0);
}

static void fill_type(struct pmuv3_type *t, const struct pmuv3_id *id)
{
	t->midr = id->midr;
	t->pmuver = PMUV3_DFR0_PMUVER(id->dfr0);
	t->nr_event_counters = min_t(unsigned int, PMUV3_PMCR_N(id->pmcr),
				     PMUV3_MAX_EVENT_COUNTERS);
	t->events[0] = (id->pmceid0 & 0xffffffffULL) | (id->pmceid1 & 0xffffffffULL) << 32;
	t->events[1] = (id->pmceid0 >> 32) | (id->pmceid1 >> 32) << 32;
}

/* CPU list of type t, e.g. "0-1,4". */
static void type_cpus(const struct pmuv3_type *t, char *buf, size_t len)
{
	unsigned int cpu, first = 0, used = 0;
	bool in = false;
	int last = -2;

	buf[0] = '\0';
	pmuv3_for_each_possible_cpu(cpu) {
		if (!pmuv3_pmu_has_cpu(t->pmu, cpu))
			continue;
		if ((int)cpu == last + 1 && in) {
			last = cpu;
			continue;
		}
		if (in && used < len)
			used += last > (int)first ?
				snprintf(buf + used, len - used, "-%d", last) : 0;
		if (used < len)
			used += snprintf(buf + used, len - used, "%s%u", used ? "," : "", cpu);
		first = cpu;
		last = cpu;
		in = true;
	}
	if (in && last > (int)first && used < len)
		snprintf(buf + used, len - used, "-%d", last);
}

/* /proc/kpmc/info's words on type t (desc->core_type[t]). */
static void describe_type(unsigned int t)
{
	const struct pmuv3_type *p = &pmuv3.type[t];
	struct kpmc_core_type *ct;

	if (!pmuv3.desc || t >= KPMC_MAX_CORE_TYPES)
		return;
	ct = &pmuv3.desc->core_type[t];
	snprintf(ct->name, sizeof(ct->name), "%s", pmuv3_pmu_name(p->pmu));
	type_cpus(p, ct->cpus, sizeof(ct->cpus));
	ct->counters = type_slots(p);
	snprintf(ct->detail, sizeof(ct->detail), "MIDR 0x%08llx, PMUVer 0x%x, %u event counters",
		 (unsigned long long)p->midr, p->pmuver, p->nr_event_counters);
	ct->events[0] = p->events[0];
	ct->events[1] = p->events[1];
	if (pmuv3.desc->nr_core_types < t + 1)
		pmuv3.desc->nr_core_types = t + 1;
}

static void hook_type(struct pmuv3_type *t);

/*
 * The type of online CPU cpu, found and added to the table if new, and
 * given to every CPU its arm_pmu supports (process context). NULL with the
 * reason in why.
 */
static struct pmuv3_type *discover(unsigned int cpu, char *why, size_t len)
{
	struct pmuv3_cpu *c = pmuv3_on(pmuv3_cpu_state, cpu);
	struct pmuv3_type *t = NULL;
	struct pmuv3_id id;
	struct arm_pmu *pmu;
	unsigned int i, other;

	if (c->type)
		return c->type;
	/* Another CPU of a known type: its arm_pmu lists this one. */
	for (i = 0; i < pmuv3.nr_types; i++)
		if (pmuv3_pmu_has_cpu(pmuv3.type[i].pmu, cpu))
			t = &pmuv3.type[i];
	if (!t) {
		pmu = pmuv3_find_pmu(cpu);
		if (!pmu) {
			snprintf(why, len,
				 "PMUv3 present but no armv8 perf PMU covers CPU %u, so kpmc cannot reserve counters from perf",
				 cpu);
			return NULL;
		}
		if (pmuv3.nr_types == PMUV3_MAX_TYPES) {
			snprintf(why, len, "more than %u PMU types (CPU %u's is %s)",
				 PMUV3_MAX_TYPES, cpu, pmuv3_pmu_name(pmu));
			return NULL;
		}
		if (pmuv3_call_on(cpu, read_id, &id)) {
			snprintf(why, len, "CPU %u went offline while kpmc read its PMU", cpu);
			return NULL;
		}
		if (PMUV3_DFR0_PMUVER(id.dfr0) == 0 || PMUV3_DFR0_PMUVER(id.dfr0) == 0xf) {
			snprintf(why, len, "no PMUv3 on CPU %u: ID_AA64DFR0_EL1.PMUVer is 0x%x",
				 cpu, (unsigned int)PMUV3_DFR0_PMUVER(id.dfr0));
			return NULL;
		}
		t = &pmuv3.type[pmuv3.nr_types];
		memset(t, 0, sizeof(*t));
		t->pmu = pmu;
		fill_type(t, &id);
		/* Readers of the table (check_event, the IRQ) see a whole entry. */
		smp_store_release(&pmuv3.nr_types, pmuv3.nr_types + 1);
		/* PMUv3 has 10-bit event numbers, PMUv3p1 and later 16-bit. */
		if (t->pmuver == 1)
			pmuv3.evtype_mask = 0x3ff;
		describe_type(t - pmuv3.type);
		if (pmuv3.claimed)
			hook_type(t);
	}
	pmuv3_for_each_possible_cpu(other)
		if (pmuv3_pmu_has_cpu(t->pmu, other))
			WRITE_ONCE(pmuv3_on(pmuv3_cpu_state, other)->type, t);
	WRITE_ONCE(c->type, t);
	return t;
}

static int pmuv3_probe(struct kpmc_pmu_desc *desc, char *why, size_t len)
{
	unsigned int cpu, t, max_n = 0, ver;
	u64 dfr0 = pmuv3_read(PMUV3_DFR0);
	char err[KPMC_ERR_MAX];

	ver = PMUV3_DFR0_PMUVER(dfr0);
	if (ver == 0 || ver == 0xf) {
		snprintf(why, len, "no PMUv3: ID_AA64DFR0_EL1.PMUVer is 0x%x", ver);
		return -ENODEV;
	}
	memset(&pmuv3, 0, sizeof(pmuv3));
	pmuv3_for_each_possible_cpu(cpu)
		memset(pmuv3_on(pmuv3_cpu_state, cpu), 0, sizeof(struct pmuv3_cpu));
	pmuv3.evtype_mask = 0xffff;
	pmuv3.desc = desc;
	desc->nr_core_types = 0;
	err[0] = '\0';
	/* CPUs offline now are found at cpu_online(). */
	pmuv3_for_each_possible_cpu(cpu)
		if (pmuv3_cpu_is_online(cpu))
			discover(cpu, err, sizeof(err));
	if (!pmuv3.nr_types) {
		snprintf(why, len, "%s", err[0] ? err : "no online CPU has a PMUv3 perf PMU");
		return -ENODEV;
	}
	for (t = 0; t < pmuv3.nr_types; t++)
		max_n = max_t(unsigned int, max_n, pmuv3.type[t].nr_event_counters);

	if (pmuv3.nr_types == 1)
		snprintf(desc->model, sizeof(desc->model),
			 "ARMv8 PMUv3 (PMUVer 0x%x, MIDR 0x%08llx)", pmuv3.type[0].pmuver,
			 (unsigned long long)pmuv3.type[0].midr);
	else
		snprintf(desc->model, sizeof(desc->model),
			 "ARMv8 PMUv3, %u core types (PMUVer 0x%x, MIDR 0x%08llx, ...)",
			 pmuv3.nr_types, pmuv3.type[0].pmuver,
			 (unsigned long long)pmuv3.type[0].midr);
	desc->nr_fixed = 1;
	desc->nr_counters = 1 + max_n;
	desc->width[0] = 64;
	desc->fixed_event[0] = PMUV3_CPU_CYCLES;
	desc->fixed_name[0] = "cycles";
	for (t = 1; t < desc->nr_counters; t++)
		desc->width[t] = 32;
	desc->check_event = pmuv3_check_event;
	/* No SPE here: the access comes from the instruction (arm64_mem.c). */
	desc->mem_source = "decoded instructions";
	desc->has_basic_events = true;
	desc->event_instructions = 0x08;	/* INST_RETIRED */
	desc->event_cycles = PMUV3_CPU_CYCLES;
	return 0;
}

static void pmuv3_remove(void)
{
	pmuv3.nr_types = 0;
	pmuv3.desc = NULL;
}

/* ---- claiming counters from perf ---- */

/* The type whose arm_pmu is pmu (a handful of types: a short walk). */
static struct pmuv3_type *type_of_pmu(const struct arm_pmu *pmu)
{
	/* Pairs with discover()'s release: entries below nr are whole. */
	unsigned int t, nr = smp_load_acquire(&pmuv3.nr_types);

	for (t = 0; t < nr; t++)
		if (pmuv3.type[t].pmu == pmu)
			return &pmuv3.type[t];
	return NULL;
}

/*
 * The PMU interrupt is perf's (armv8pmu_handle_irq reads and clears every
 * overflow flag). While kpmc holds counters, this handler runs first: it
 * takes and clears the flags of kpmc's counters and passes the interrupt on
 * to the handler of perf's PMU that raised it, which then sees only its own.
 * When every flag set was kpmc's, perf's handler would find none of its own
 * and return at once: it is not called (a sample's worth of instructions).
 * A flag of perf's set after the read keeps the interrupt asserted (it is
 * level-triggered while PMOVS & PMINTEN), so it comes back for it.
 */
static irqreturn_t pmuv3_handle_irq(struct arm_pmu *pmu)
{
	u32 flags = pmuv3_read(PMUV3_PMOVSCLR);
	u32 ours = flags & READ_ONCE(pmuv3.claimed_bits);
	struct pmuv3_type *t = type_of_pmu(pmu);
	irqreturn_t ret = IRQ_NONE;

	if (ours) {
		pmuv3_write(PMUV3_PMOVSCLR, ours);
		pmuv3_isb();
		kpmc_pmu_overflow();
		ret = IRQ_HANDLED;
		if (flags == ours)
			return ret;
	}
	if (t && t->perf_handle_irq && t->perf_handle_irq(pmu) == IRQ_HANDLED)
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
	struct pmuv3_cpu *c = pmuv3_this(pmuv3_cpu_state);
	struct pmuv3_type *t = type_of_pmu(pmu);

	if (t && t->perf_start)
		t->perf_start(pmu);
	if (c->granted) {
		pmuv3_write(PMUV3_PMUSERENR, PMUV3_USERENR_ER | PMUV3_USERENR_CR);
		pmuv3_isb();
	}
}

static void hook_type(struct pmuv3_type *t)
{
	if (t->hooked)
		return;
	t->perf_handle_irq = t->pmu->handle_irq;
	t->perf_start = t->pmu->start;
	WRITE_ONCE(t->pmu->handle_irq, pmuv3_handle_irq);
	WRITE_ONCE(t->pmu->start, pmuv3_start_pmu);
	t->hooked = true;
}

static void unhook_type(struct pmuv3_type *t)
{
	if (!t->hooked)
		return;
	WRITE_ONCE(t->pmu->handle_irq, t->perf_handle_irq);
	WRITE_ONCE(t->pmu->start, t->perf_start);
	t->hooked = false;
}

/* Give back the counters of mask on cpu, if kpmc holds them there. */
static void release_cpu(unsigned int cpu, u32 mask)
{
	struct pmuv3_cpu *c = pmuv3_on(pmuv3_cpu_state, cpu);
	unsigned long *used;
	unsigned int slot;

	if (!c->claimed)
		return;
	used = pmuv3_used_mask(c->type->pmu, cpu);
	for (slot = 0; slot < KPMC_MAX_COUNTERS; slot++)
		if (mask & BIT(slot) & type_slots(c->type))
			clear_bit(perf_index(slot), used);
	c->claimed = false;
}

/*
 * Take the counters of mask that cpu's type has from perf on cpu (its type
 * known): all, or none and -EBUSY with who holds them in why.
 */
static int claim_cpu(unsigned int cpu, u32 mask, char *why, size_t len)
{
	struct pmuv3_cpu *c = pmuv3_on(pmuv3_cpu_state, cpu);
	unsigned long *used = pmuv3_used_mask(c->type->pmu, cpu);
	u32 have = mask & type_slots(c->type);
	unsigned int slot, busy;

	if (c->claimed)
		return 0;
	for (slot = 0; slot < KPMC_MAX_COUNTERS; slot++) {
		if (!(have & BIT(slot)) || !test_and_set_bit(perf_index(slot), used))
			continue;
		busy = slot;
		while (slot--)
			if (have & BIT(slot))
				clear_bit(perf_index(slot), used);
		snprintf(why, len,
			 "counter pmc%u is in use by perf on CPU %u (stop the perf user, or the NMI watchdog, first)",
			 busy, cpu);
		return -EBUSY;
	}
	c->claimed = true;
	return 0;
}

static void pmuv3_enable_pmcr(void *unused)
{
	pmuv3_write(PMUV3_PMCR, pmuv3_read(PMUV3_PMCR) | PMUV3_PMCR_E | PMUV3_PMCR_LC);
	pmuv3_isb();
}

static int pmuv3_claim(u32 mask, char *why, size_t len)
{
	unsigned int slot, cpu, t;
	int err;

	/* Every CPU of a known type, online or not: hotplug cannot race a claim. */
	pmuv3_for_each_possible_cpu(cpu) {
		if (!pmuv3_on(pmuv3_cpu_state, cpu)->type)
			continue;
		err = claim_cpu(cpu, mask, why, len);
		if (err) {
			pmuv3_for_each_possible_cpu(cpu)
				release_cpu(cpu, mask);
			return err;
		}
	}
	pmuv3.claimed_bits = 0;
	for (slot = 0; slot < KPMC_MAX_COUNTERS; slot++)
		if (mask & BIT(slot))
			pmuv3.claimed_bits |= slot_bit(slot);
	pmuv3.claimed_mask = mask;
	for (t = 0; t < pmuv3.nr_types; t++)
		hook_type(&pmuv3.type[t]);
	pmuv3.claimed = true;
	pmuv3_on_each_cpu(pmuv3_enable_pmcr, NULL);
	return 0;
}

static void pmuv3_user_access(bool grant);

static void pmuv3_disable_counters(void *info)
{
	u32 bits = *(u32 *)info;
	struct pmuv3_cpu *c = pmuv3_this(pmuv3_cpu_state);

	if (c->type) {
		/* Only counters this CPU has (the others are RAZ/WI anyway). */
		bits &= enable_bits_of_type(c->type);
		pmuv3_write(PMUV3_PMCNTENCLR, bits);
		pmuv3_write(PMUV3_PMINTENCLR, bits);
	}
	/* No kpmc thread counts any more: EL0 goes back to perf's policy (off). */
	if (c->granted)
		pmuv3_user_access(false);
	c->enabled = 0;
	pmuv3_isb();
}

static void pmuv3_unclaim(u32 mask)
{
	u32 bits = 0;
	unsigned int slot, cpu, t;

	for (slot = 0; slot < KPMC_MAX_COUNTERS; slot++)
		if (mask & BIT(slot))
			bits |= slot_bit(slot);
	pmuv3_on_each_cpu(pmuv3_disable_counters, &bits);
	for (t = 0; t < pmuv3.nr_types; t++)
		unhook_type(&pmuv3.type[t]);
	pmuv3_sync_irqs();
	pmuv3.claimed = false;
	pmuv3.claimed_bits = 0;
	pmuv3.claimed_mask = 0;
	pmuv3_for_each_possible_cpu(cpu)
		release_cpu(cpu, mask);
}

/* ---- the CPU lifecycle ---- */

static void pmuv3_cpu_reset(void)
{
	struct pmuv3_cpu *c = pmuv3_this(pmuv3_cpu_state);

	/* arm_pmu's reset cleared PMCR.E; perf sets it only while it counts. */
	if (pmuv3.claimed && c->type)
		pmuv3_enable_pmcr(NULL);
	c->granted = false;
	c->enabled = 0;
	pmuv3_write(PMUV3_PMUSERENR, 0);
	pmuv3_isb();
}

static int pmuv3_cpu_online(unsigned int cpu)
{
	char why[KPMC_ERR_MAX];
	int err;

	if (!discover(cpu, why, sizeof(why)))
		return -ENODEV;
	if (pmuv3.claimed) {
		err = claim_cpu(cpu, pmuv3.claimed_mask, why, sizeof(why));
		if (err)
			return err;
	}
	pmuv3_cpu_reset();
	return 0;
}

/* ---- user-space reads ---- */

static void zero_slot(unsigned int slot)
{
	if (slot == 0)
		pmuv3_write(PMUV3_PMCCNTR, 0);
	else
		pmuv3_write_evcntr(slot - 1, 0);
}

/*
 * EL0 reads every counter once granted, so counters the loaded
 * configuration does not use are zeroed first: they may hold another
 * thread's counts (upstream's armv8pmu_enable_user_access does the same).
 * Counters perf holds for its own events are left alone.
 */
static void zero_unused(struct pmuv3_cpu *c)
{
	unsigned long *used = pmuv3_used_mask(c->type->pmu, pmuv3_cpu());
	unsigned int slot;

	for (slot = 0; slot <= c->type->nr_event_counters; slot++) {
		if (c->enabled & slot_bit(slot))
			continue;
		if (!(pmuv3.claimed_mask & BIT(slot)) && test_bit(perf_index(slot), used))
			continue;
		zero_slot(slot);
	}
}

/*
 * load() while EL0 may read: a direct switch between two threads that both
 * read their counters at EL0 keeps the grant, so zero_unused() does not run
 * again. The counters the previous load enabled and this one does not hold
 * the previous thread's counts: zero them (stopped first, in case a caller
 * left them running). The others are zero already (zero_unused() at the
 * grant, and every load since) or perf's. Hot path: O(counters), registers only.
 */
static void zero_stale(u32 stale)
{
	unsigned int slot;

	if (stale & BIT(PMUV3_CYCLE_BIT))
		zero_slot(0);
	stale &= ~BIT(PMUV3_CYCLE_BIT);
	for (slot = 1; stale; slot++, stale >>= 1)
		if (stale & 1)
			zero_slot(slot);
}

static void pmuv3_user_access(bool grant)
{
	struct pmuv3_cpu *c = pmuv3_this(pmuv3_cpu_state);

	if (grant && c->type)
		zero_unused(c);
	c->granted = grant;
	pmuv3_write(PMUV3_PMUSERENR, grant ? PMUV3_USERENR_ER | PMUV3_USERENR_CR : 0);
	pmuv3_isb();
}

/*
 * EL0 reads the cycle counter directly, an event counter through PMSELR_EL0;
 * a counter this CPU does not count it cannot read (-1: through read()).
 */
static int pmuv3_user_index(const struct kpmc_hw_config *hw, unsigned int index)
{
	unsigned int slot = hw->slot[index];

	if (absent_on(hw, counting_type(pmuv3_this(pmuv3_cpu_state))) & BIT(index))
		return -1;
	return slot == 0 ? KPMC_PAGE_ARM64_CYCLE_INDEX : (int)slot - 1;
}

/* ---- the configuration and the hot path ---- */

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
			sel |= PMUV3_EVTYPE_U;
		if (!req->os)
			sel |= PMUV3_EVTYPE_P;
		else if (pmuv3_kernel_in_hyp())
			sel |= PMUV3_EVTYPE_NSH;
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
	struct pmuv3_cpu *c = pmuv3_this(pmuv3_cpu_state);
	u32 absent = absent_on(hw, counting_type(c));
	u32 en = enable_bits(hw, absent);
	u32 stale = c->granted ? c->enabled & ~en : 0;
	unsigned int i;

	c->absent_hw = hw;
	c->absent_type = counting_type(c);
	c->absent = absent;

	pmuv3_write(PMUV3_PMCNTENCLR, en | stale);
	/* A previous configuration may have sampled on one of these counters. */
	pmuv3_write(PMUV3_PMINTENCLR, en & ~hw->irq_bits);
	if (hw->irq_bits & en)
		pmuv3_write(PMUV3_PMINTENSET, hw->irq_bits & en);
	pmuv3_isb();
	if (stale)
		zero_stale(stale);
	for (i = 0; i < hw->nr; i++) {
		unsigned int slot = hw->slot[i];

		if (absent & BIT(i)) {
			c->kept[i] = start[i];
		} else if (slot == 0) {
			pmuv3_write(PMUV3_PMCCFILTR, hw->selector[i]);
			pmuv3_write(PMUV3_PMCCNTR, start[i]);
		} else {
			pmuv3_write_evtyper(slot - 1, hw->selector[i]);
			pmuv3_write_evcntr(slot - 1, start[i]);
		}
	}
	c->enabled = en;
	pmuv3_write(PMUV3_PMCNTENSET, en);
	pmuv3_isb();
}

static void pmuv3_start(const struct kpmc_hw_config *hw)
{
	struct pmuv3_cpu *c = pmuv3_this(pmuv3_cpu_state);

	pmuv3_write(PMUV3_PMCNTENSET, enable_bits(hw, absent_here(c, hw)));
	pmuv3_isb();
}

static void pmuv3_stop(const struct kpmc_hw_config *hw)
{
	struct pmuv3_cpu *c = pmuv3_this(pmuv3_cpu_state);

	pmuv3_write(PMUV3_PMCNTENCLR, enable_bits(hw, absent_here(c, hw)));
	pmuv3_isb();
}

static void pmuv3_read_counters(const struct kpmc_hw_config *hw, u64 *raw)
{
	struct pmuv3_cpu *c = pmuv3_this(pmuv3_cpu_state);
	u32 absent = absent_here(c, hw);
	unsigned int i;

	for (i = 0; i < hw->nr; i++) {
		unsigned int slot = hw->slot[i];

		if (absent & BIT(i))
			raw[i] = c->kept[i];
		else if (slot == 0)
			raw[i] = pmuv3_read(PMUV3_PMCCNTR);
		else
			raw[i] = pmuv3_read_evcntr(slot - 1) & hw->width_mask[i];
	}
}

static void pmuv3_write_counter(const struct kpmc_hw_config *hw, unsigned int index, u64 value)
{
	struct pmuv3_cpu *c = pmuv3_this(pmuv3_cpu_state);
	unsigned int slot = hw->slot[index];

	if (absent_here(c, hw) & BIT(index))
		c->kept[index] = value;
	else if (slot == 0)
		pmuv3_write(PMUV3_PMCCNTR, value);
	else
		pmuv3_write_evcntr(slot - 1, value);
}

static u32 pmuv3_uncounted(const struct kpmc_hw_config *hw)
{
	u32 absent = absent_here(pmuv3_this(pmuv3_cpu_state), hw), pmcs = 0;
	unsigned int i;

	for (i = 0; absent && i < hw->nr; i++)
		if (absent & BIT(i))
			pmcs |= BIT(hw->slot[i]);
	return pmcs;
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
	.read = pmuv3_read_counters,
	.write = pmuv3_write_counter,
	.uncounted = pmuv3_uncounted,
	.user_index = pmuv3_user_index,
	.user_access = pmuv3_user_access,
	.cpu_came_online = pmuv3_cpu_online,
	.cpu_reset = pmuv3_cpu_reset,
	.mem_sample = kpmc_arm64_mem_sample,
};
