// SPDX-License-Identifier: GPL-2.0
/*
 * The arm64 PMUv3 backend, unchanged, against the big.LITTLE register model
 * (arm64_model.c): CPUs 0-1 a Cortex-A57-like type with 6 event counters,
 * CPUs 2-3 a Cortex-A53-like type with 4 and another PMCEID. Discovery of
 * both arm_pmus, the PMCEID map, claiming in both PMUs' allocators, exact
 * counts of a thread that migrates between types, counters and events a
 * type lacks (uncounted, never written), the CPU lifecycle ops, and the
 * zeroing of unused counters before EL0 may read them. Built twice: with
 * perf's counter numbering of 5.10-6.1 and of 6.12 and later.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "arm64_hw.h"
#include "kpmc/counter.h"

extern const struct kpmc_backend kpmc_arm64_pmuv3_backend;
static const struct kpmc_backend *const be = &kpmc_arm64_pmuv3_backend;

static struct kpmc_pmu_desc desc;
static char why[KPMC_ERR_MAX];
static unsigned long overflows;

void kpmc_pmu_overflow(void)
{
	overflows++;
}

static int probe(void)
{
	memset(&desc, 0, sizeof(desc));
	why[0] = '\0';
	overflows = 0;
	return be->probe(&desc, why, sizeof(why));
}

static int setup(void **state)
{
	(void)state;
	arm_model_init();
	return 0;
}

/* Parse and encode s for the probed PMU; 0 or the error, reason in why. */
static int configure(const char *s, struct kpmc_hw_config *hw)
{
	struct kpmc_config c;
	int r = kpmc_config_parse(s, strlen(s), &desc, &c, why, sizeof(why));

	return r ? r : be->encode(&c, hw, why, sizeof(why));
}

static void test_probe_two_types(void **state)
{
	(void)state;
	assert_int_equal(probe(), 0);
	/* One perf event per type; the other CPU of each comes from supported_cpus. */
	assert_int_equal(am.find_pmu_calls, 2);
	assert_string_equal(desc.model,
			    "ARMv8 PMUv3, 2 core types (PMUVer 0x4, MIDR 0x411fd070, ...)");
	assert_int_equal(desc.nr_fixed, 1);
	assert_int_equal(desc.nr_counters, 7);
	assert_int_equal(desc.width[0], 64);
	assert_int_equal(desc.width[6], 32);
	assert_int_equal(desc.nr_core_types, 2);
	assert_string_equal(desc.core_type[0].name, "armv8_cortex_a57");
	assert_string_equal(desc.core_type[0].cpus, "0-1");
	assert_int_equal(desc.core_type[0].counters, 0x7f);
	assert_string_equal(desc.core_type[0].detail,
			    "MIDR 0x411fd070, PMUVer 0x4, 6 event counters");
	assert_string_equal(desc.core_type[1].name, "armv8_cortex_a53");
	assert_string_equal(desc.core_type[1].cpus, "2-3");
	assert_int_equal(desc.core_type[1].counters, 0x1f);
	assert_string_equal(desc.core_type[1].detail,
			    "MIDR 0x410fd034, PMUVer 0x4, 4 event counters");
	/* [0]: PMCEID0[31:0] | PMCEID1[31:0] << 32; [1]: the upper halves. */
	assert_true(desc.core_type[0].events[0] == (0xfULL << 32 | 0x0fffffffULL));
	assert_true(desc.core_type[0].events[1] == 1ULL << 32);
	assert_true(desc.core_type[1].events[0] == (0x7ULL << 32 | 0x2fffffffULL));
	assert_true(desc.core_type[1].events[1] == 1ULL << 3);
}

static void test_probe_no_pmu(void **state)
{
	unsigned int cpu;

	(void)state;
	for (cpu = 0; cpu < ARM_MODEL_CPUS; cpu++)
		am.cpu[cpu].dfr0 = 0;
	assert_int_equal(probe(), -ENODEV);
	assert_string_equal(why, "no PMUv3: ID_AA64DFR0_EL1.PMUVer is 0x0");
}

static void expect_refused(const char *cfg, const char *reason)
{
	struct kpmc_hw_config hw;

	assert_int_not_equal(configure(cfg, &hw), 0);
	assert_non_null(strstr(why, reason));
}

static void test_pmceid_map(void **state)
{
	struct kpmc_hw_config hw;

	(void)state;
	assert_int_equal(probe(), 0);
	/* STALL_FRONTEND: PMCEID1 bit 3 of the big type, not PMCEID0 bit 35. */
	assert_int_equal(configure("pmc1=0x23", &hw), 0);
	/* 0x4003: the LITTLE type's PMCEID0[35]; 0x4020: the big type's PMCEID1[32]. */
	assert_int_equal(configure("pmc1=0x4003", &hw), 0);
	assert_int_equal(configure("pmc1=0x4020", &hw), 0);
	expect_refused("pmc1=0x24", "event 0x24 is not implemented by this PMU (PMCEID)");
	expect_refused("pmc1=0x4021", "event 0x4021 is not implemented by this PMU (PMCEID)");
	expect_refused("pmc1=0x1c", "event 0x1c is not implemented by this PMU (PMCEID)");
	/* BUS_CYCLES only on LITTLE, which has pmc1-pmc4. */
	assert_int_equal(configure("pmc4=0x1d", &hw), 0);
	expect_refused("pmc5=0x1d",
		       "event 0x1d is implemented only by core types without counter pmc5");
	/* Implementation-defined events are not enumerated: accepted. */
	assert_int_equal(configure("pmc6=0xc0", &hw), 0);
	expect_refused("pmc1=0x10000", "does not fit PMEVTYPER");
}

/* perf's used_mask bits of the pmcN in pmcs, in this kernel's numbering. */
static unsigned long pbits(unsigned int pmcs)
{
	unsigned long bits = 0;
	unsigned int slot;

	for (slot = 0; slot < KPMC_MAX_COUNTERS; slot++)
		if (pmcs & 1u << slot)
			bits |= 1UL << (slot ? KPMC_ARMPMU_IDX_EVENT0 + slot - 1 :
					KPMC_ARMPMU_IDX_CYCLE);
	return bits;
}

/* Every CPU's perf used_mask word. */
static void used(unsigned long out[ARM_MODEL_CPUS])
{
	unsigned int cpu;

	for (cpu = 0; cpu < ARM_MODEL_CPUS; cpu++)
		out[cpu] = am.pmu[am.cpu[cpu].type].used_mask[cpu][0];
}

static void test_claim_both_pmus(void **state)
{
	irqreturn_t (*perf_irq)(struct arm_pmu *pmu) = am.pmu[0].handle_irq;
	void (*perf_start)(struct arm_pmu *pmu) = am.pmu[0].start;
	unsigned long u[ARM_MODEL_CPUS];
	unsigned int cpu;

	(void)state;
	assert_int_equal(probe(), 0);
	/* perf's own: event counter 2 (pmc3) on CPU 2; then event counter 5 (pmc6) on CPU 1. */
	am.pmu[1].used_mask[2][0] = pbits(1u << 3);
	am.pmu[0].used_mask[1][0] = pbits(1u << 6);
	assert_int_equal(be->claim(0x43, why, sizeof(why)), -EBUSY);
	assert_string_equal(why,
			    "counter pmc6 is in use by perf on CPU 1 (stop the perf user, or the NMI watchdog, first)");
	used(u);
	assert_int_equal(u[0], 0);
	assert_int_equal(u[1], pbits(1u << 6));
	assert_int_equal(u[2], pbits(1u << 3));
	assert_int_equal(u[3], 0);
	assert_ptr_equal(am.pmu[0].handle_irq, perf_irq);
	assert_ptr_equal(am.pmu[1].handle_irq, perf_irq);

	am.pmu[0].used_mask[1][0] = 0;
	assert_int_equal(be->claim(0x43, why, sizeof(why)), 0);
	used(u);
	assert_int_equal(u[0], pbits(0x43));
	assert_int_equal(u[1], pbits(0x43));
	assert_int_equal(u[2], pbits(0x03 | 1u << 3));	/* LITTLE has no pmc6 */
	assert_int_equal(u[3], pbits(0x03));
	for (cpu = 0; cpu < ARM_MODEL_CPUS; cpu++)
		assert_int_equal(am.cpu[cpu].pmcr & (PMUV3_PMCR_E | PMUV3_PMCR_LC),
				 PMUV3_PMCR_E | PMUV3_PMCR_LC);
	/* Both PMUs' handlers are kpmc's, in front of perf's. */
	for (cpu = 0; cpu < ARM_MODEL_TYPES; cpu++) {
		assert_ptr_not_equal(am.pmu[cpu].handle_irq, perf_irq);
		assert_ptr_not_equal(am.pmu[cpu].start, perf_start);
	}
	arm_model_cpu(3);
	/* Every flag kpmc's: perf's handler would find none, and is not called. */
	am.cpu[3].ovs = 0x1;
	assert_int_equal(am.pmu[1].handle_irq(&am.pmu[1]), IRQ_HANDLED);
	assert_int_equal(overflows, 1);
	assert_int_equal(am.perf_irqs, 0);
	assert_int_equal(am.cpu[3].ovs, 0);
	/* One of perf's too (event counter 2, pmc3): it goes on to perf's. */
	am.cpu[3].ovs = 0x1 | 0x4;
	assert_int_equal(am.pmu[1].handle_irq(&am.pmu[1]), IRQ_HANDLED);
	assert_int_equal(overflows, 2);
	assert_int_equal(am.perf_irqs, 1);
	assert_int_equal(am.cpu[3].ovs, 0);

	be->unclaim(0x43);
	used(u);
	assert_int_equal(u[0], 0);
	assert_int_equal(u[1], 0);
	assert_int_equal(u[2], pbits(1u << 3));
	assert_int_equal(u[3], 0);
	for (cpu = 0; cpu < ARM_MODEL_TYPES; cpu++) {
		assert_ptr_equal(am.pmu[cpu].handle_irq, perf_irq);
		assert_ptr_equal(am.pmu[cpu].start, perf_start);
	}
	am.cpu[3].ovs = 0x1;
	am.pmu[1].handle_irq(&am.pmu[1]);
	assert_int_equal(overflows, 2);		/* perf's handler alone again */
	assert_int_equal(am.perf_irqs, 2);
}

/* A minimal core: a thread's totals, folded on whatever CPU it runs. */
struct thread {
	u64 acc[KPMC_MAX_COUNTERS], last[KPMC_MAX_COUNTERS];
	u32 uncounted;
};

static void switch_in(struct thread *t, const struct kpmc_hw_config *hw, unsigned int cpu)
{
	arm_model_cpu(cpu);
	be->load(hw, t->last);
}

static void switch_out(struct thread *t, const struct kpmc_hw_config *hw)
{
	u64 raw[KPMC_MAX_COUNTERS];
	unsigned int i;

	be->stop(hw);
	be->read(hw, raw);
	t->uncounted |= be->uncounted(hw);
	for (i = 0; i < hw->nr; i++) {
		t->acc[i] += kpmc_counter_delta(raw[i], t->last[i], hw->width_mask[i]);
		t->last[i] = raw[i];
	}
}

static void test_migration_counts_exactly(void **state)
{
	struct kpmc_hw_config hw;
	struct thread t = { .last = { 0, 0xffffff00, 0, 0 } };
	unsigned int n;

	(void)state;
	assert_int_equal(probe(), 0);
	assert_int_equal(be->claim(0x63, why, sizeof(why)), 0);
	/* cycles, INST_RETIRED on pmc1 and pmc5, STALL_FRONTEND on pmc6 */
	assert_int_equal(configure("pmc0,pmc1=0x8,pmc5=0x8,pmc6=0x23", &hw), 0);

	switch_in(&t, &hw, 0);
	assert_int_equal(be->uncounted(&hw), 0);
	arm_model_run(1000);
	switch_out(&t, &hw);
	assert_int_equal(t.uncounted, 0);

	switch_in(&t, &hw, 2);
	/* pmc5 (event counter 4) and pmc6 do not exist on LITTLE; 0x23 neither. */
	assert_int_equal(be->uncounted(&hw), 0x60);
	arm_model_run(3000);
	/* write() of a counter LITTLE lacks: kept, read back as written. */
	be->write(&hw, 2, t.last[2]);
	switch_out(&t, &hw);
	assert_int_equal(t.uncounted, 0x60);

	switch_in(&t, &hw, 1);
	arm_model_run(500);
	switch_out(&t, &hw);

	assert_int_equal(t.acc[0], 2 * 4500);		/* cycles: everywhere */
	assert_int_equal(t.acc[1], 4500);		/* wrapped from 0xffffff00 on CPU 0 */
	assert_int_equal(t.acc[2], 1500);		/* pmc5: big CPUs only */
	assert_int_equal(t.acc[3], 375);		/* STALL_FRONTEND: big CPUs only */
	/* Nothing beyond PMCR.N was touched on LITTLE: event counters 4, 5 never written. */
	for (n = 2; n < 4; n++) {
		assert_int_equal(am.cpu[n].beyond_n, 0);
		assert_int_equal(am.cpu[n].evcntr_writes[4], 0);
		assert_int_equal(am.cpu[n].evcntr_writes[5], 0);
	}
	assert_int_equal(am.cpu[2].cntenset, 0);	/* stopped */
	be->unclaim(0x63);
}

static void test_only_one_type_has_event(void **state)
{
	struct kpmc_hw_config hw;
	struct thread t;

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_int_equal(probe(), 0);
	assert_int_equal(be->claim(0x1f, why, sizeof(why)), 0);
	/* BUS_CYCLES (LITTLE only): the model counts it as the test injects it. */
	assert_int_equal(configure("pmc1=0x8,pmc4=0x1d", &hw), 0);
	switch_in(&t, &hw, 0);
	assert_int_equal(be->uncounted(&hw), 0x10);
	assert_int_equal(am.cpu[0].evtyper[3], 0);	/* not programmed on big */
	arm_model_run(100);
	arm_model_event(0x1d, true, 7);
	switch_out(&t, &hw);
	switch_in(&t, &hw, 3);
	assert_int_equal(be->uncounted(&hw), 0);
	assert_int_equal(am.cpu[3].evtyper[3] & 0xffff, 0x1d);
	arm_model_run(10);
	arm_model_event(0x1d, true, 9);
	switch_out(&t, &hw);
	assert_int_equal(t.acc[0], 110);
	assert_int_equal(t.acc[1], 9);
	assert_int_equal(t.uncounted, 0x10);
	be->unclaim(0x1f);
}

static void test_cpu_reset(void **state)
{
	struct kpmc_hw_config hw;
	struct thread t;

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_int_equal(probe(), 0);
	assert_int_equal(be->claim(0x3, why, sizeof(why)), 0);
	assert_int_equal(configure("pmc0,pmc1=0x8", &hw), 0);
	switch_in(&t, &hw, 1);
	be->user_access(true);
	arm_model_run(100);
	switch_out(&t, &hw);
	be->start(&hw);
	/* A power-down idle state: arm_pmu's reset on the way back. */
	arm_model_reset(1);
	assert_int_equal(am.cpu[1].pmcr & PMUV3_PMCR_E, 0);
	arm_model_run(50);				/* lost: the PMU is off */
	be->cpu_reset();
	assert_int_equal(am.cpu[1].pmcr & (PMUV3_PMCR_E | PMUV3_PMCR_LC),
			 PMUV3_PMCR_E | PMUV3_PMCR_LC);
	assert_int_equal(am.cpu[1].userenr, 0);
	/* The grant is gone: perf's start no longer puts EL0 access back. */
	am.cpu[1].userenr = 0xd;
	am.pmu[0].start(&am.pmu[0]);
	assert_int_equal(am.cpu[1].userenr, 0);
	/* The core reloads what was counting. */
	switch_in(&t, &hw, 1);
	arm_model_run(200);
	switch_out(&t, &hw);
	assert_int_equal(t.acc[0], 600);
	assert_int_equal(t.acc[1], 300);
	be->unclaim(0x3);
}

static void test_zero_unused_on_grant(void **state)
{
	struct kpmc_hw_config a, b;
	u64 zero[KPMC_MAX_COUNTERS] = { 0 };
	struct arm_model_cpu *c = &am.cpu[0];

	(void)state;
	assert_int_equal(probe(), 0);
	assert_int_equal(be->claim(0xf, why, sizeof(why)), 0);
	assert_int_equal(configure("pmc1=0x8,pmc2=0x11,pmc3=0x8", &a), 0);
	assert_int_equal(configure("pmc0,pmc1=0x8", &b), 0);
	arm_model_cpu(0);
	be->load(&a, zero);
	arm_model_run(100);
	be->stop(&a);
	/* perf's own event on event counter 4 (pmc5); counter 5 free, stale. */
	am.pmu[0].used_mask[0][0] |= pbits(1u << 5);
	c->evcntr[4] = 777;
	c->evcntr[5] = 555;
	c->ccntr = 12345;
	be->load(&b, zero);
	arm_model_run(10);
	assert_int_equal(c->evcntr[1], 200);
	be->user_access(true);
	assert_int_equal(c->userenr, PMUV3_USERENR_ER | PMUV3_USERENR_CR);
	assert_int_equal(c->ccntr, 20);		/* in use: kept */
	assert_int_equal(c->evcntr[0], 10);	/* in use: kept */
	assert_int_equal(c->evcntr[1], 0);	/* another thread's counts: zeroed */
	assert_int_equal(c->evcntr[2], 0);
	assert_int_equal(c->evcntr[3], 0);
	assert_int_equal(c->evcntr[4], 777);	/* perf's: left alone */
	assert_int_equal(c->evcntr[5], 0);	/* free: zeroed */
	/* perf's start would clear PMUSERENR: kpmc's grant stands. */
	am.pmu[0].start(&am.pmu[0]);
	assert_int_equal(c->userenr, PMUV3_USERENR_ER | PMUV3_USERENR_CR);
	assert_int_equal(am.perf_starts, 1);
	be->user_access(false);
	assert_int_equal(c->userenr, 0);
	/* EL0 index: cycles at 31, event counter n at n; none for what LITTLE lacks. */
	assert_int_equal(be->user_index(&b, 0), 31);
	assert_int_equal(be->user_index(&b, 1), 0);
	am.pmu[0].used_mask[0][0] &= ~pbits(1u << 5);
	be->unclaim(0xf);
	assert_int_equal(am.pmu[0].used_mask[0][0], 0);
}

/*
 * A direct switch between two threads that may both read at EL0: the grant
 * stays on, so the second thread's load itself must zero what the first
 * one's counters hold in the slots the second does not use.
 */
static void test_zero_stale_on_load_while_granted(void **state)
{
	struct kpmc_hw_config a, b;
	u64 zero[KPMC_MAX_COUNTERS] = { 0 };
	struct arm_model_cpu *c = &am.cpu[0];

	(void)state;
	assert_int_equal(probe(), 0);
	assert_int_equal(be->claim(0x3f, why, sizeof(why)), 0);
	assert_int_equal(configure("pmc0,pmc1=0x8,pmc2=0x11,pmc3=0x8", &a), 0);
	assert_int_equal(configure("pmc5=0x8", &b), 0);
	arm_model_cpu(0);
	be->load(&a, zero);
	be->user_access(true);
	arm_model_run(100);
	be->stop(&a);
	assert_int_equal(c->ccntr, 200);
	assert_int_equal(c->evcntr[0], 100);
	/* The next thread, still granted: no user_access() call in between. */
	be->load(&b, zero);
	arm_model_run(10);
	assert_int_equal(c->userenr, PMUV3_USERENR_ER | PMUV3_USERENR_CR);
	assert_int_equal(c->ccntr, 0);
	assert_int_equal(c->evcntr[0], 0);
	assert_int_equal(c->evcntr[1], 0);
	assert_int_equal(c->evcntr[2], 0);
	assert_int_equal(c->evcntr[4], 10);	/* its own */
	/* The old counters stay stopped. */
	assert_int_equal(c->cntenset, BIT(4));
	/* And back: the first thread's load zeroes the second's. */
	be->stop(&b);
	be->load(&a, zero);
	assert_int_equal(c->evcntr[4], 0);
	be->user_access(false);
	be->unclaim(0x3f);
}

static void test_user_index_absent(void **state)
{
	struct kpmc_hw_config hw;

	(void)state;
	assert_int_equal(probe(), 0);
	assert_int_equal(configure("pmc1=0x8,pmc6=0x8", &hw), 0);
	assert_int_equal(be->claim(0x7f, why, sizeof(why)), 0);
	arm_model_cpu(0);
	assert_int_equal(be->user_index(&hw, 1), 5);
	arm_model_cpu(2);
	assert_int_equal(be->user_index(&hw, 0), 0);
	assert_int_equal(be->user_index(&hw, 1), -1);
	be->unclaim(0x7f);
}

static void test_offline_at_probe(void **state)
{
	irqreturn_t (*perf_irq)(struct arm_pmu *pmu) = am.pmu[1].handle_irq;
	struct kpmc_hw_config hw;
	struct thread t;

	(void)state;
	memset(&t, 0, sizeof(t));
	am.cpu[2].online = am.cpu[3].online = false;
	assert_int_equal(probe(), 0);
	assert_int_equal(am.find_pmu_calls, 1);
	assert_int_equal(desc.nr_core_types, 1);
	assert_int_equal(desc.nr_counters, 7);
	expect_refused("pmc1=0x1d", "not implemented");
	assert_int_equal(be->claim(0x3, why, sizeof(why)), 0);
	assert_int_equal(am.pmu[1].used_mask[2][0], 0);
	assert_ptr_equal(am.pmu[1].handle_irq, perf_irq);	/* LITTLE unknown yet */
	assert_ptr_not_equal(am.pmu[0].handle_irq, perf_irq);

	/* CPU 2 comes up: arm_pmu resets its PMU, then the core calls cpu_online. */
	am.cpu[2].online = true;
	arm_model_reset(2);
	arm_model_cpu(2);
	assert_int_equal(be->cpu_came_online(2), 0);
	assert_int_equal(am.find_pmu_calls, 2);
	assert_int_equal(desc.nr_core_types, 2);
	assert_string_equal(desc.core_type[1].name, "armv8_cortex_a53");
	assert_string_equal(desc.core_type[1].cpus, "2-3");
	assert_int_equal(desc.core_type[1].counters, 0x1f);
	assert_int_equal(am.pmu[1].used_mask[2][0], pbits(0x3));
	assert_int_equal(am.pmu[1].used_mask[3][0], 0);	/* still offline */
	assert_ptr_equal(am.pmu[1].handle_irq, am.pmu[0].handle_irq);	/* kpmc's */
	assert_int_equal(am.cpu[2].pmcr & PMUV3_PMCR_E, PMUV3_PMCR_E);
	assert_int_equal(am.cpu[2].userenr, 0);
	assert_int_equal(configure("pmc1=0x1d", &hw), 0);	/* now some type has it */
	assert_int_equal(configure("pmc0,pmc1=0x8", &hw), 0);
	switch_in(&t, &hw, 2);
	arm_model_run(40);
	switch_out(&t, &hw);
	assert_int_equal(t.acc[0], 80);
	assert_int_equal(t.acc[1], 40);
	assert_int_equal(t.uncounted, 0);

	/*
	 * CPU 3: its type is known (CPU 2's arm_pmu lists it): no perf event.
	 * perf's per-CPU event got pmc1 there first (perf brings a CPU up
	 * before kpmc does): the claim fails and kpmc never programs that
	 * CPU, whose counts read as not counted.
	 */
	am.cpu[3].online = true;
	arm_model_reset(3);
	arm_model_cpu(3);
	am.pmu[1].used_mask[3][0] = pbits(0x2);
	assert_int_equal(be->cpu_came_online(3), -EBUSY);
	assert_int_equal(am.find_pmu_calls, 2);
	assert_int_equal(am.pmu[1].used_mask[3][0], pbits(0x2));
	memset(&t, 0, sizeof(t));
	am.cpu[3].evtyper[0] = 0x1234;
	switch_in(&t, &hw, 3);
	arm_model_run(40);
	switch_out(&t, &hw);
	assert_int_equal(am.cpu[3].evtyper[0], 0x1234);	/* perf's, untouched */
	assert_int_equal(t.acc[0], 0);
	assert_int_equal(t.acc[1], 0);
	assert_int_equal(t.uncounted, 0x3);
	/* perf lets go; the CPU comes online again: claimed, counted. */
	am.pmu[1].used_mask[3][0] = 0;
	arm_model_reset(3);
	assert_int_equal(be->cpu_came_online(3), 0);
	assert_int_equal(am.pmu[1].used_mask[3][0], pbits(0x3));
	switch_in(&t, &hw, 3);
	arm_model_run(40);
	switch_out(&t, &hw);
	assert_int_equal(t.acc[0], 80);
	assert_int_equal(t.acc[1], 40);

	be->unclaim(0x3);
	assert_int_equal(am.pmu[1].used_mask[2][0], 0);
	assert_int_equal(am.pmu[1].used_mask[3][0], 0);
	assert_int_equal(am.pmu[0].used_mask[0][0], 0);
	assert_ptr_equal(am.pmu[1].handle_irq, perf_irq);
}

static void test_ebs_overflow_little(void **state)
{
	struct kpmc_hw_config hw;
	u64 start[KPMC_MAX_COUNTERS] = { 0xffffff00 };

	(void)state;
	assert_int_equal(probe(), 0);
	assert_int_equal(be->claim(0x2, why, sizeof(why)), 0);
	assert_int_equal(configure("pmc1=0x8,ebs1=100000", &hw), 0);
	arm_model_cpu(3);
	be->load(&hw, start);
	assert_int_equal(am.cpu[3].intenset, 0x1);
	arm_model_run(0xff);
	assert_int_equal(overflows, 0);
	arm_model_run(1);
	assert_int_equal(overflows, 1);
	assert_int_equal(am.cpu[3].ovs, 0);
	be->unclaim(0x2);
	assert_int_equal(am.cpu[3].intenset, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_probe_two_types, setup),
		cmocka_unit_test_setup(test_probe_no_pmu, setup),
		cmocka_unit_test_setup(test_pmceid_map, setup),
		cmocka_unit_test_setup(test_claim_both_pmus, setup),
		cmocka_unit_test_setup(test_migration_counts_exactly, setup),
		cmocka_unit_test_setup(test_only_one_type_has_event, setup),
		cmocka_unit_test_setup(test_cpu_reset, setup),
		cmocka_unit_test_setup(test_zero_unused_on_grant, setup),
		cmocka_unit_test_setup(test_zero_stale_on_load_while_granted, setup),
		cmocka_unit_test_setup(test_user_index_absent, setup),
		cmocka_unit_test_setup(test_offline_at_probe, setup),
		cmocka_unit_test_setup(test_ebs_overflow_little, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
