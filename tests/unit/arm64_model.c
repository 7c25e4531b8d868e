// SPDX-License-Identifier: GPL-2.0
/*
 * A model of a big.LITTLE machine's PMUv3s behind arm64_hw.h, so that
 * backends/arm64/pmuv3.c runs unchanged in the unit tests. Every CPU keeps
 * its own PMU registers; the model counts the events a test injects on the
 * current CPU (honouring PMCR.E, PMCNTEN, the EL0/EL1 filters of PMEVTYPER
 * and PMCCFILTR, and the CPU's PMCEID), wraps event counters at 32 bits,
 * sets PMOVS and calls the arm_pmu's interrupt handler. An access to an
 * event counter beyond PMCR.N, UNPREDICTABLE on hardware, fails the test.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "arm64_hw.h"

struct arm_model am;

#define PMCR_P		(1u << 1)	/* reset event counters */
#define PMCR_C		(1u << 2)	/* reset the cycle counter */
/* PMCR bits a write keeps: IMP, IDCODE, N (read-only). */
#define PMCR_RO		0xffff0000f800ULL

/* perf's handlers, as armv8pmu_handle_irq and armv8pmu_start would act. */
static irqreturn_t perf_handle_irq(struct arm_pmu *pmu)
{
	struct arm_model_cpu *c = &am.cpu[am.cur];

	(void)pmu;
	am.perf_irqs++;
	if (!c->ovs)
		return IRQ_NONE;
	c->ovs = 0;
	return IRQ_HANDLED;
}

static void perf_start(struct arm_pmu *pmu)
{
	(void)pmu;
	am.perf_starts++;
	am.cpu[am.cur].userenr = 0;	/* perf_user_access is off */
}

static void set_type(unsigned int cpu, unsigned int type)
{
	struct arm_model_cpu *c = &am.cpu[cpu];

	c->online = true;
	c->type = type;
	c->dfr0 = 0x4ULL << 8;			/* PMUVer: PMUv3p1, 16-bit events */
	if (type == 0) {
		c->midr = 0x411fd070;		/* Cortex-A57 r1p0 */
		c->pmcr = 0x41000000 | 6u << 11;
		/* 0x00-0x1b; 0x20-0x23; 0x4020 (PMCEID1[32]). */
		c->pmceid0 = 0x0fffffffULL;
		c->pmceid1 = 0x1ULL << 32 | 0xf;
	} else {
		c->midr = 0x410fd034;		/* Cortex-A53 r0p4 */
		c->pmcr = 0x41000000 | 4u << 11;
		/*
		 * 0x00-0x1b and 0x1d; 0x20-0x22 (no STALL_FRONTEND); 0x4003
		 * (PMCEID0[35]): a 64-bit reading of PMCEID0 would take that
		 * bit for event 0x23.
		 */
		c->pmceid0 = 1ULL << 35 | 0x2fffffffULL;
		c->pmceid1 = 0x7;
	}
	am.pmu[type].supported |= 1u << cpu;
}

void arm_model_init(void)
{
	unsigned int cpu;

	memset(&am, 0, sizeof(am));
	am.nr_pmus = 2;
	am.pmu[0].name = "armv8_cortex_a57";
	am.pmu[1].name = "armv8_cortex_a53";
	for (cpu = 0; cpu < ARM_MODEL_TYPES; cpu++) {
		am.pmu[cpu].handle_irq = perf_handle_irq;
		am.pmu[cpu].start = perf_start;
	}
	for (cpu = 0; cpu < ARM_MODEL_CPUS; cpu++)
		set_type(cpu, cpu < 2 ? 0 : 1);
}

void arm_model_cpu(unsigned int cpu)
{
	assert_true(cpu < ARM_MODEL_CPUS);
	am.cur = cpu;
}

static unsigned int nr_counters(const struct arm_model_cpu *c)
{
	return (c->pmcr >> 11) & 0x1f;
}

static bool implemented(const struct arm_model_cpu *c, unsigned int ev)
{
	if (ev < 0x20)
		return c->pmceid0 >> ev & 1;
	if (ev < 0x40)
		return c->pmceid1 >> (ev - 0x20) & 1;
	if (ev >= 0x4000 && ev < 0x4020)
		return c->pmceid0 >> (32 + ev - 0x4000) & 1;
	if (ev >= 0x4020 && ev < 0x4040)
		return c->pmceid1 >> (32 + ev - 0x4020) & 1;
	return true;
}

static bool filtered(u64 typer, bool user)
{
	return user ? typer & PMUV3_EVTYPE_U : typer & PMUV3_EVTYPE_P;
}

void arm_model_event(unsigned int ev, bool user, u64 n)
{
	struct arm_model_cpu *c = &am.cpu[am.cur];
	unsigned int i;
	u64 raised = 0;

	if (!(c->pmcr & PMUV3_PMCR_E) || !implemented(c, ev))
		return;
	if (ev == 0x11 && (c->cntenset & BIT(PMUV3_CYCLE_BIT)) && !filtered(c->ccfiltr, user))
		c->ccntr += n;
	for (i = 0; i < nr_counters(c); i++) {
		u64 v;

		if (!(c->cntenset & BIT(i)) || (c->evtyper[i] & 0xffff) != ev ||
		    filtered(c->evtyper[i], user))
			continue;
		v = c->evcntr[i] + n;
		if (v > 0xffffffffULL) {
			c->ovs |= BIT(i);
			raised |= c->intenset & BIT(i);
		}
		c->evcntr[i] = v & 0xffffffffULL;
	}
	if (raised)
		am.pmu[c->type].handle_irq(&am.pmu[c->type]);
}

void arm_model_run(u64 n)
{
	arm_model_event(0x08, true, n);
	arm_model_event(0x11, true, 2 * n);
	arm_model_event(0x23, true, n / 4);
}

void arm_model_reset(unsigned int cpu)
{
	struct arm_model_cpu *c = &am.cpu[cpu];

	/* armv8pmu_reset: everything off, counters zeroed, E clear. */
	c->cntenset = c->intenset = c->ovs = 0;
	c->pmcr = (c->pmcr & PMCR_RO) | PMUV3_PMCR_LC;
	memset(c->evcntr, 0, sizeof(c->evcntr));
	c->ccntr = 0;
	/* PMUSERENR_EL0 is UNKNOWN after a power-down; the reset leaves it. */
	c->userenr = 0xd;
}

/* ---- arm64_hw.h ---- */

u64 pmuv3_read(enum pmuv3_reg r)
{
	struct arm_model_cpu *c = &am.cpu[am.cur];

	assert_true(c->online);
	switch (r) {
	case PMUV3_PMCR:	return c->pmcr;
	case PMUV3_PMCNTENSET:
	case PMUV3_PMCNTENCLR:	return c->cntenset;
	case PMUV3_PMINTENSET:
	case PMUV3_PMINTENCLR:	return c->intenset;
	case PMUV3_PMOVSCLR:	return c->ovs;
	case PMUV3_PMUSERENR:	return c->userenr;
	case PMUV3_PMCCNTR:	return c->ccntr;
	case PMUV3_PMCCFILTR:	return c->ccfiltr;
	case PMUV3_PMCEID0:	return c->pmceid0;
	case PMUV3_PMCEID1:	return c->pmceid1;
	case PMUV3_MIDR:	return c->midr;
	case PMUV3_DFR0:	return c->dfr0;
	}
	fail_msg("read of unknown register %d", r);
	return 0;
}

void pmuv3_write(enum pmuv3_reg r, u64 v)
{
	struct arm_model_cpu *c = &am.cpu[am.cur];
	u64 present = BIT(PMUV3_CYCLE_BIT) | (BIT(nr_counters(c)) - 1);

	assert_true(c->online);
	switch (r) {
	case PMUV3_PMCR:
		if (v & PMCR_P)
			memset(c->evcntr, 0, sizeof(c->evcntr));
		if (v & PMCR_C)
			c->ccntr = 0;
		c->pmcr = (c->pmcr & PMCR_RO) | (v & 0x7f & ~(PMCR_P | PMCR_C));
		return;
	case PMUV3_PMCNTENSET:	c->cntenset |= v & present; return;
	case PMUV3_PMCNTENCLR:	c->cntenset &= ~v; return;
	case PMUV3_PMINTENSET:	c->intenset |= v & present; return;
	case PMUV3_PMINTENCLR:	c->intenset &= ~v; return;
	case PMUV3_PMOVSCLR:	c->ovs &= ~v; return;
	case PMUV3_PMUSERENR:	c->userenr = v & 0xf; return;
	case PMUV3_PMCCNTR:	c->ccntr = v; return;
	case PMUV3_PMCCFILTR:	c->ccfiltr = v; return;
	default:
		fail_msg("write of read-only register %d", r);
	}
}

void pmuv3_isb(void)
{
}

static void check_n(unsigned int n, const char *what)
{
	struct arm_model_cpu *c = &am.cpu[am.cur];

	assert_true(c->online);
	if (n >= nr_counters(c)) {
		c->beyond_n++;
		fail_msg("%s%u on CPU %u, whose PMCR.N is %u", what, n, am.cur, nr_counters(c));
	}
}

u64 pmuv3_read_evcntr(unsigned int n)
{
	check_n(n, "read of PMEVCNTR");
	return am.cpu[am.cur].evcntr[n];
}

void pmuv3_write_evcntr(unsigned int n, u64 v)
{
	check_n(n, "write of PMEVCNTR");
	am.cpu[am.cur].evcntr[n] = v & 0xffffffffULL;
	am.cpu[am.cur].evcntr_writes[n]++;
}

void pmuv3_write_evtyper(unsigned int n, u64 v)
{
	check_n(n, "write of PMEVTYPER");
	am.cpu[am.cur].evtyper[n] = v;
}

unsigned int pmuv3_cpu(void)
{
	return am.cur;
}

bool pmuv3_cpu_is_online(unsigned int cpu)
{
	return am.cpu[cpu].online;
}

int pmuv3_call_on(unsigned int cpu, void (*fn)(void *info), void *info)
{
	unsigned int was = am.cur;

	if (!am.cpu[cpu].online)
		return -ENXIO;
	am.cur = cpu;
	fn(info);
	am.cur = was;
	return 0;
}

void pmuv3_on_each_cpu(void (*fn)(void *info), void *info)
{
	unsigned int cpu;

	for (cpu = 0; cpu < ARM_MODEL_CPUS; cpu++)
		pmuv3_call_on(cpu, fn, info);
}

void pmuv3_sync_irqs(void)
{
}

bool pmuv3_kernel_in_hyp(void)
{
	return am.in_hyp;
}

struct arm_pmu *pmuv3_find_pmu(unsigned int cpu)
{
	am.find_pmu_calls++;
	if (!am.cpu[cpu].online)
		return NULL;	/* perf refuses events for offline CPUs (-ENODEV) */
	return &am.pmu[am.cpu[cpu].type];
}

const char *pmuv3_pmu_name(const struct arm_pmu *pmu)
{
	return pmu->name;
}

bool pmuv3_pmu_has_cpu(const struct arm_pmu *pmu, unsigned int cpu)
{
	return pmu->supported >> cpu & 1;
}

unsigned long *pmuv3_used_mask(struct arm_pmu *pmu, unsigned int cpu)
{
	return pmu->used_mask[cpu];
}

/*
 * The backend's mem_sample reads user memory through the kernel; its
 * decoding and walk are tested on their own (test_a64_decode.c). Here it
 * only has to link.
 */
void kpmc_arm64_mem_sample(struct pt_regs *regs, bool kernel_allowed,
			   struct kpmc_mem_access *out)
{
	(void)regs;
	(void)kernel_allowed;
	(void)out;
}
