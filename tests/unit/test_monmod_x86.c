// SPDX-License-Identifier: GPL-2.0
/*
 * The RAPL and CMT/MBM monitoring modules, unchanged, against the MSR model:
 * detection and the reasons they give, each RAPL domain's unit, the DRAM
 * unit of server parts, AMD RAPL, 32-bit wrap-around between records and
 * across polls, energy charged only while the thread runs; RMID
 * exhaustion, PQR_ASSOC at switches, limbo until occupancy drains,
 * upscaling, QM_CTR's error/unavailable bits, MBM wrap-around.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "msr_model.h"
#include "monmod_x86.h"

static char why[KPMC_ERR_MAX];
static int task_a, task_b, task_c, task_d;
#define TASK(x) ((struct task_struct *)&(x))

/* A thread's state in the active module, as the core keeps it. */
struct thr {
	struct task_struct *task;
	u64 scratch[KPMC_MONMOD_SCRATCH];
};

static const struct kpmc_monitoring_module *monmod;

static int avail(const struct kpmc_monitoring_module *mod)
{
	why[0] = '\0';
	return mod->available(why, sizeof(why));
}

static void start(struct thr *t, struct task_struct *task)
{
	memset(t, 0, sizeof(*t));
	t->task = task;
	if (monmod->thread_start)
		monmod->thread_start(task, t->scratch);
}

static void sw(struct thr *out, struct thr *in)
{
	monmod->on_switch(out ? out->task : NULL, out ? out->scratch : NULL,
		      in ? in->task : NULL, in ? in->scratch : NULL);
}

/* The thread's next record; returns its virt_mask. */
static u32 sample(struct thr *t, bool last, u64 virt[KPMC_MAX_VIRT])
{
	static const u64 counts[KPMC_MAX_COUNTERS];
	struct kpmc_sample s;

	memset(&s, 0, sizeof(s));
	memset(virt, 0, KPMC_MAX_VIRT * sizeof(virt[0]));
	s.counts = counts;
	s.virt = virt;
	s.task = t->task;
	s.scratch = t->scratch;
	s.last = last;
	monmod->on_sample(&s);
	return s.virt_mask;
}

static void use(enum model_kind kind, const struct kpmc_monitoring_module *mod)
{
	model_init(kind);
	monmod = mod;
}

/* ---- RAPL ---- */

static void test_rapl_reasons(void **state)
{
	(void)state;
	use(MODEL_QEMU_TCG, &kpmc_monmod_rapl);
	assert_int_equal(avail(&kpmc_monmod_rapl), -ENODEV);
	assert_string_equal(why,
			    "no RAPL: MSR_RAPL_POWER_UNIT (0x606) reads 0 (an emulated CPU without RAPL?)");
	use(MODEL_INTEL_NOPMU, &kpmc_monmod_rapl);
	assert_int_equal(avail(&kpmc_monmod_rapl), -ENODEV);
	assert_string_equal(why, "no RAPL: MSR_RAPL_POWER_UNIT (0x606) not readable");
	assert_int_equal(m.msr_faults, 1);
	use(MODEL_AMD_LEGACY, &kpmc_monmod_rapl);
	assert_int_equal(avail(&kpmc_monmod_rapl), -ENODEV);
	assert_string_equal(why, "no RAPL: MSR_RAPL_POWER_UNIT (0xc0010299) not readable");
}

static void test_rapl_client_domains_and_units(void **state)
{
	struct thr a;
	u64 v[KPMC_MAX_VIRT];

	(void)state;
	use(MODEL_SKYLAKE, &kpmc_monmod_rapl);
	assert_int_equal(avail(&kpmc_monmod_rapl), 0);
	assert_int_equal(monmod->activate(), 0);
	assert_int_equal(m.msr_faults, 0);
	/* esu 14: a wrap is 2^18 J, 262 s at 1 kW; polled at the 60 s cap. */
	assert_int_equal(m.poll_ms, 60000);
	assert_false(m.poll_every_cpu);
	start(&a, TASK(task_a));
	sw(NULL, &a);
	m.energy[0][RAPL_PKG] += 16384;		/* 1 J in 2^-14 J */
	m.energy[0][RAPL_CORE] += 8192;
	m.energy[0][RAPL_UNCORE] += 4096;
	m.energy[0][RAPL_DRAM] += 32768;	/* client DRAM: the package unit */
	m.energy[0][RAPL_PSYS] += 1638400;
	assert_int_equal(sample(&a, false, v), 0x1f);
	assert_int_equal(v[0], 1000000);
	assert_int_equal(v[1], 500000);
	assert_int_equal(v[2], 250000);
	assert_int_equal(v[3], 2000000);
	assert_int_equal(v[4], 100000000);
	/* The next record has only what came after. */
	m.energy[0][RAPL_PKG] += 164;		/* 10,009.7 uJ */
	assert_int_equal(sample(&a, false, v), 0x1f);
	assert_int_equal(v[0], 10009);
	assert_int_equal(v[1], 0);
	monmod->deactivate();
	assert_null(m.poll);
}

static void test_rapl_server_dram_unit(void **state)
{
	struct thr a;
	u64 v[KPMC_MAX_VIRT];

	(void)state;
	use(MODEL_SKX, &kpmc_monmod_rapl);
	assert_int_equal(monmod->activate(), 0);
	/* Only the domains Skylake-SP has are probed: no #GP on PP0/PP1/psys. */
	assert_int_equal(m.msr_faults, 0);
	/* DRAM in 2^-16 J: a wrap is 65,536 J, 65.5 s at 1 kW; half of it. */
	assert_int_equal(m.poll_ms, 32768);
	start(&a, TASK(task_a));
	sw(NULL, &a);
	m.energy[0][RAPL_PKG] += 16384;
	m.energy[0][RAPL_DRAM] += 65536;	/* 1 J at 15.3 uJ, not 4 J at 61 uJ */
	assert_int_equal(sample(&a, true, v), 1u << RAPL_PKG | 1u << RAPL_DRAM);
	assert_int_equal(v[0], 1000000);
	assert_int_equal(v[3], 1000000);
	monmod->deactivate();
}

static void test_rapl_wrap_and_polls(void **state)
{
	struct thr a;
	u64 v[KPMC_MAX_VIRT], units;
	int i;

	(void)state;
	use(MODEL_SKYLAKE, &kpmc_monmod_rapl);
	m.energy[0][RAPL_PKG] = 0xfffff000;	/* 4096 units before the wrap */
	assert_int_equal(monmod->activate(), 0);
	start(&a, TASK(task_a));
	sw(NULL, &a);
	m.energy[0][RAPL_PKG] += 0x2000;	/* wraps */
	assert_int_equal(m.energy[0][RAPL_PKG], 0x1000);
	sample(&a, false, v);
	assert_int_equal(v[0], (0x2000ULL * 1000000) >> 14);
	/* A long record: 3 x 3/4 of the counter, the poller reading in between. */
	for (i = 0; i < 3; i++) {
		m.energy[0][RAPL_PKG] += 0xc0000000u;
		model_poll();
	}
	m.energy[0][RAPL_PKG] += 5;
	units = 3 * 0xc0000000ULL + 5;
	sample(&a, false, v);
	assert_int_equal(v[0], (units * 1000000) >> 14);
	/* A finer unit wraps sooner: esu 20 wraps 4,096 J, 4.1 s at 1 kW; polled at 2 s. */
	monmod->deactivate();
	m.rapl_unit = 0x000a1403;
	assert_int_equal(monmod->activate(), 0);
	assert_int_equal(m.poll_ms, 2048);
	monmod->deactivate();
}

static void test_rapl_only_while_on_cpu(void **state)
{
	struct thr a, b;
	u64 v[KPMC_MAX_VIRT];

	(void)state;
	use(MODEL_SKYLAKE, &kpmc_monmod_rapl);
	assert_int_equal(monmod->activate(), 0);
	start(&a, TASK(task_a));
	start(&b, TASK(task_b));
	sw(NULL, &a);
	m.energy[0][RAPL_PKG] += 100;
	sw(&a, &b);				/* a out, b in */
	m.energy[0][RAPL_PKG] += 1000;
	sw(&b, NULL);				/* an unmonitored thread */
	m.energy[0][RAPL_PKG] += 10000;
	sw(NULL, &a);
	m.energy[0][RAPL_PKG] += 7;
	sw(&a, NULL);
	assert_int_equal(sample(&a, true, v) & 1, 1);
	assert_int_equal(v[0], (107ULL * 1000000) >> 14);
	sample(&b, true, v);
	assert_int_equal(v[0], (1000ULL * 1000000) >> 14);
	monmod->deactivate();
}

static void test_rapl_amd(void **state)
{
	struct thr a;
	u64 v[KPMC_MAX_VIRT];

	(void)state;
	use(MODEL_ZEN1, &kpmc_monmod_rapl);
	m.nr_cpus = 2, m.cpus_per_pkg = 2;
	assert_int_equal(avail(&kpmc_monmod_rapl), 0);
	assert_int_equal(monmod->activate(), 0);
	/* The core domain is per core: every CPU is polled. */
	assert_true(m.poll_every_cpu);
	assert_int_equal(m.msr_faults, 0);
	start(&a, TASK(task_a));
	m.cpu = 1;
	sw(NULL, &a);
	m.core_energy[1] += 65536;		/* 1 J in 2^-16 J */
	m.core_energy[0] += 9999999;		/* the other core: not a's */
	m.energy[0][RAPL_PKG] += 131072;
	assert_int_equal(sample(&a, false, v), 1u << RAPL_PKG | 1u << RAPL_CORE);
	assert_int_equal(v[0], 2000000);
	assert_int_equal(v[1], 1000000);
	m.cpu = 0;
	monmod->deactivate();
}

/* ---- CMT/MBM ---- */

static void test_cmt_reasons(void **state)
{
	(void)state;
	use(MODEL_QEMU_TCG, &kpmc_monmod_cmt);
	assert_int_equal(avail(&kpmc_monmod_cmt), -ENODEV);
	assert_string_equal(why, "no CMT: CPUID.(EAX=7,ECX=0):EBX[12] (PQM) is 0");
	use(MODEL_ZEN1, &kpmc_monmod_cmt);
	assert_int_equal(avail(&kpmc_monmod_cmt), -ENODEV);
	assert_string_equal(why, "no CMT: CPUID.(EAX=7,ECX=0):EBX[12] (PQM) is 0");
	use(MODEL_SKX, &kpmc_monmod_cmt);
	assert_int_equal(avail(&kpmc_monmod_cmt), 0);
	m.resctrl_mounted = true;
	assert_int_equal(avail(&kpmc_monmod_cmt), -EBUSY);
	assert_string_equal(why,
			    "resctrl is mounted: the kernel's resctrl owns the RMIDs (umount it first)");
	assert_int_equal(monmod->activate(), -EBUSY);
}

static void test_cmt_rmids_switch_and_exhaustion(void **state)
{
	struct thr a, b, c, d;
	u64 v[KPMC_MAX_VIRT];

	(void)state;
	use(MODEL_SKX, &kpmc_monmod_cmt);
	assert_int_equal(monmod->activate(), 0);
	start(&a, TASK(task_a));
	start(&b, TASK(task_b));
	start(&c, TASK(task_c));
	assert_int_equal(kpmc_cmt_exhausted(), 0);
	start(&d, TASK(task_d));		/* 4 RMIDs: 0 is everybody's, 3 to give */
	assert_int_equal(kpmc_cmt_exhausted(), 1);
	assert_int_equal(a.scratch[0] + b.scratch[0] + c.scratch[0], 1 + 2 + 3);
	assert_int_equal(d.scratch[0], 0);

	sw(NULL, &a);
	assert_int_equal(m.pqr[0], a.scratch[0]);
	sw(&a, &d);				/* d has none: RMID 0, asked again */
	assert_int_equal(m.pqr[0], 0);
	assert_int_equal(kpmc_cmt_exhausted(), 1);
	sw(&d, &b);
	assert_int_equal(m.pqr[0], b.scratch[0]);
	sw(&b, NULL);
	assert_int_equal(m.pqr[0], 0);
	/* d's records: its RMID (none), no cache or bandwidth values. */
	assert_int_equal(sample(&d, false, v), 1u << 3);
	assert_int_equal(v[3], 0);
	monmod->deactivate();
}

static void test_cmt_upscale_bits_and_mbm_wrap(void **state)
{
	struct thr a;
	u64 v[KPMC_MAX_VIRT];
	u32 r;
	int i;

	(void)state;
	use(MODEL_SKX, &kpmc_monmod_cmt);
	for (r = 0; r < 4; r++)
		m.mbm[0][r][0] = 0xffff00;	/* 256 before the 24-bit wrap */
	assert_int_equal(monmod->activate(), 0);
	start(&a, TASK(task_a));
	r = a.scratch[0];
	sw(NULL, &a);
	m.occ[0][r] = 10;
	m.mbm[0][r][0] = 0x100;			/* wrapped: 0x200 counts */
	m.mbm[0][r][1] = 0x80;
	assert_int_equal(sample(&a, false, v), 0xf);
	assert_int_equal(v[0], 10 * 65536);
	assert_int_equal(v[1], 0x200ULL * 65536);
	assert_int_equal(v[2], 0x80ULL * 65536);
	assert_int_equal(v[3], r);

	/* Unavailable: no values; the traffic goes to the next good record. */
	m.qm_flags[r] = 1ULL << 62;
	m.mbm[0][r][0] += 0x1000;
	assert_int_equal(sample(&a, false, v), 1u << 3);
	m.qm_flags[r] = 1ULL << 63;		/* error */
	assert_int_equal(sample(&a, false, v), 1u << 3);
	m.qm_flags[r] = 0;
	m.mbm[0][r][0] += 0x10;
	assert_int_equal(sample(&a, false, v), 0xf);
	assert_int_equal(v[1], 0x1010ULL * 65536);
	assert_int_equal(v[2], 0);

	/* Four times 15/16 of the counter, the poller reading each second. */
	for (i = 0; i < 4; i++) {
		m.mbm[0][r][0] = (m.mbm[0][r][0] + 0xf00000) & 0xffffff;
		model_poll();
	}
	sample(&a, false, v);
	assert_int_equal(v[1], 4ULL * 0xf00000 * 65536);
	monmod->deactivate();
	assert_int_equal(m.pqr[0], 0);
}

static void test_cmt_limbo(void **state)
{
	struct thr a, b, c, d;
	u64 v[KPMC_MAX_VIRT];
	u32 r;

	(void)state;
	use(MODEL_SKX, &kpmc_monmod_cmt);
	m.nr_pkgs = 2, m.nr_cpus = 2;
	/* RMID 3 still holds lines from before: not handed out at first. */
	m.occ[1][3] = 100;
	assert_int_equal(monmod->activate(), 0);
	start(&a, TASK(task_a));
	start(&b, TASK(task_b));
	start(&c, TASK(task_c));
	assert_int_equal(c.scratch[0], 0);
	/* Threshold: 8 MiB L3 / 4 RMIDs = 2 MiB = 32 units of 64 KiB. */
	m.occ[1][3] = 31;
	model_poll();
	sw(NULL, &c);				/* c asks again and gets it */
	assert_int_equal(c.scratch[0], 3);
	assert_int_equal(m.pqr[0], 3);

	/* a exits: its RMID waits in limbo until both packages drain. */
	r = a.scratch[0];
	m.occ[0][r] = 40;
	m.occ[1][r] = 50;
	sample(&a, true, v);
	assert_int_equal(a.scratch[0], 0);
	start(&d, TASK(task_d));
	assert_int_equal(d.scratch[0], 0);
	m.occ[0][r] = 0;
	model_poll();
	sw(&c, &d);
	assert_int_equal(d.scratch[0], 0);	/* package 1 still above */
	m.qm_flags[r] = 1ULL << 62;		/* unavailable: not known clean */
	m.occ[1][r] = 0;
	model_poll();
	sw(&d, &d);
	assert_int_equal(d.scratch[0], 0);
	m.qm_flags[r] = 0;
	model_poll();
	sw(&d, &d);
	assert_int_equal(d.scratch[0], r);
	assert_int_equal(m.pqr[0], r);
	(void)b;
	monmod->deactivate();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rapl_reasons),
		cmocka_unit_test(test_rapl_client_domains_and_units),
		cmocka_unit_test(test_rapl_server_dram_unit),
		cmocka_unit_test(test_rapl_wrap_and_polls),
		cmocka_unit_test(test_rapl_only_while_on_cpu),
		cmocka_unit_test(test_rapl_amd),
		cmocka_unit_test(test_cmt_reasons),
		cmocka_unit_test(test_cmt_rmids_switch_and_exhaustion),
		cmocka_unit_test(test_cmt_upscale_bits_and_mbm_wrap),
		cmocka_unit_test(test_cmt_limbo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
