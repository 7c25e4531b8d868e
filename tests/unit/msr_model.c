// SPDX-License-Identifier: GPL-2.0
/*
 * A model of one CPU's PMU behind x86_hw.h, so that backends/x86/intel.c and
 * backends/x86/amd.c run unchanged in the unit tests. It answers CPUID for the
 * chosen part, keeps the MSRs, counts the events a test injects (honouring
 * enable bits, user/kernel filters, event and unit mask), wraps at the
 * counter width, sets overflow status and raises the PMI. An MSR the part
 * does not have fails the test, as it would #GP on hardware.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "msr_model.h"
#include "monmod_x86.h"

struct model m;

static const char *const vendor_of[] = {
	[MODEL_SKYLAKE] = "GenuineIntel", [MODEL_INTEL_V1] = "GenuineIntel",
	[MODEL_INTEL_V5] = "GenuineIntel", [MODEL_INTEL_NOPMU] = "GenuineIntel",
	[MODEL_INTEL_LEGACY_WRITES] = "GenuineIntel",
	[MODEL_ZEN4] = "AuthenticAMD", [MODEL_ZEN1] = "AuthenticAMD",
	[MODEL_AMD_LEGACY] = "AuthenticAMD",
	[MODEL_SKX] = "GenuineIntel", [MODEL_QEMU_TCG] = "GenuineIntel",
	[MODEL_ADL] = "GenuineIntel",
};

static void model_adl_init(void);

void model_init(enum model_kind kind)
{
	memset(&m, 0, sizeof(m));
	m.kind = kind;
	m.intel = !strcmp(vendor_of[kind], "GenuineIntel");
	m.nr_cpus = m.nr_pkgs = m.cpus_per_pkg = 1;
	switch (kind) {
	case MODEL_SKX:
		m.cpuid1_eax = 0x00050654;	/* family 6 model 55h */
		m.rapl_unit = 0x000a0e03;	/* energy unit 2^-14 J */
		m.rapl_domains = 1u << RAPL_PKG | 1u << RAPL_DRAM;
		m.rdt = true, m.nr_rmid = 4, m.upscale = 65536, m.mbm_width = 24, m.rdt_events = 7;
		/* fall through - Skylake's PMU */
	case MODEL_SKYLAKE:
	case MODEL_INTEL_LEGACY_WRITES:
		m.version = 4, m.nr_gp = 8, m.gp_width = 48, m.nr_fixed = 3, m.fixed_width = 48;
		m.full_width = kind != MODEL_INTEL_LEGACY_WRITES;
		m.pebs_format = 3;
		if (kind == MODEL_SKYLAKE) {
			m.rapl_unit = 0x000a0e03;
			m.rapl_domains = 0x1f;	/* client: package, cores, uncore, DRAM, psys */
		}
		break;
	case MODEL_QEMU_TCG:
		m.unknown_msrs_read_zero = true;
		break;
	case MODEL_INTEL_V5:
		m.version = 5, m.nr_gp = 8, m.gp_width = 48, m.nr_fixed = 3, m.fixed_width = 48;
		m.full_width = true;
		m.pebs_format = 4;	/* adaptive PEBS (Ice Lake) */
		break;
	case MODEL_INTEL_V1:
		m.version = 1, m.nr_gp = 2, m.gp_width = 40;
		break;
	case MODEL_INTEL_NOPMU:
		break;
	case MODEL_ZEN4:
		m.nr_gp = 6, m.gp_width = 48, m.amd_ext = true, m.amd_v2 = true, m.family = 0x19;
		m.ibs = m.ibs_ffv = m.ibs_opcntext = m.ibs_zen4 = m.ibs_lvt_valid = true;
		break;
	case MODEL_ZEN1:
		m.nr_gp = 6, m.gp_width = 48, m.amd_ext = true, m.family = 0x17;
		m.ibs = m.ibs_ffv = m.ibs_lvt_valid = true;
		m.rapl_unit = 0x000a1003;	/* energy unit 2^-16 J */
		m.rapl_domains = 1u << RAPL_PKG | 1u << RAPL_CORE;
		break;
	case MODEL_AMD_LEGACY:
		m.nr_gp = 4, m.gp_width = 48, m.family = 0x17;
		break;
	case MODEL_ADL:
		model_adl_init();
		break;
	}
	m.ds = m.pebs_format != 0;
}

void kpmc_x86_cpuid(u32 leaf, u32 subleaf, u32 r[4])
{
	const char *v = vendor_of[m.kind];

	memset(r, 0, 4 * sizeof(u32));
	switch (leaf) {
	case 0:
		r[0] = m.hybrid ? 0x20 : m.intel ? 0x16 : 0x10;
		memcpy(&r[1], v, 4);
		memcpy(&r[3], v + 4, 4);
		memcpy(&r[2], v + 8, 4);
		break;
	case 1:
		if (m.intel) {
			r[0] = m.cpuid1_eax ? m.cpuid1_eax : 0x000506e3;	/* family 6 */
			r[2] = 1u << 15;		/* PDCM: PERF_CAPABILITIES exists */
			if (m.ds)
				r[3] = 1u << 21;	/* DS: a debug store */
		} else {
			/* family 0fh + extended family */
			r[0] = (0xfu << 8) | ((m.family - 0xf) << 20);
		}
		break;
	case 4:
		/* Caches, one per subleaf: L1d, L1i, L2, then an 8 MiB L3 (16 ways, 8192 sets). */
		if (m.intel && subleaf < 4) {
			r[0] = (subleaf == 1 ? 2 : 1) | (subleaf < 2 ? 1 : subleaf) << 5;
			r[1] = 15u << 22 | 63;
			r[2] = subleaf == 3 ? 8191 : 63;
		}
		break;
	case 7:
		if (m.rdt && !subleaf)
			r[1] = 1u << 12;
		if (m.hybrid && !subleaf)
			r[3] = 1u << 15;
		break;
	case 0x1a:
		if (m.hybrid)
			r[0] = (u32)m.core_type[m.cpu] << 24;
		break;
	case 0xf:
		if (m.rdt && subleaf == 0) {
			r[1] = m.nr_rmid - 1;
			r[3] = 1u << 1;
		} else if (m.rdt && subleaf == 1) {
			r[0] = m.mbm_width - 24;
			r[1] = m.upscale;
			r[2] = m.nr_rmid - 1;
			r[3] = m.rdt_events;
		}
		break;
	case 0xa:
		if (!m.intel || !m.version)
			break;
		r[0] = m.version | (m.cpuid_gp ? m.cpuid_gp : m.nr_gp) << 8 | m.gp_width << 16 |
		       8u << 24;
		r[1] = m.arch_unavailable;
		if (m.version >= 2)
			r[3] = m.nr_fixed | m.fixed_width << 5;
		if (m.version >= 5)
			r[2] = (1u << m.nr_fixed) - 1;
		break;
	case 0x80000000:
		r[0] = m.amd_v2 ? 0x80000022 : 0x80000020;
		break;
	case 0x80000001:
		if (m.amd_ext)
			r[2] = 1u << 23;
		if (m.ibs)
			r[2] |= 1u << 10;
		break;
	case 0x8000001b:
		if (m.ibs)
			r[0] = (m.ibs_ffv ? 1u << 0 : 0) | 1u << 2 | (m.ibs_opcntext ? 1u << 6 : 0) |
			       (m.ibs_zen4 ? 1u << 11 : 0);
		break;
	case 0x80000022:
		if (m.amd_v2) {
			r[0] = 1;
			r[1] = m.nr_gp;
		}
		break;
	}
}

static _Noreturn void bad_msr(const char *op, u32 msr)
{
	fail_msg("%s of MSR 0x%x, which this model (%d) does not have: #GP", op, msr, m.kind);
	abort();
}

static u64 wmask(unsigned int bits)
{
	return bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
}

/* Which counter does msr name? kind 0: select, 1: counter; -1: not one. */
static int gp_msr(u32 msr, int *kind)
{
	unsigned int i;

	for (i = 0; i < m.nr_gp; i++) {
		if (m.intel) {
			if (msr == MSR_X86_PERFEVTSEL0 + i)
				return *kind = 0, (int)i;
			if (msr == MSR_X86_PMC0 + i || (m.full_width && msr == MSR_X86_PMC0_FULL + i))
				return *kind = 1, (int)i;
		} else if (m.amd_ext) {
			if (msr == MSR_AMD_F15H_PERF_CTL0 + 2 * i)
				return *kind = 0, (int)i;
			if (msr == MSR_AMD_F15H_PERF_CTR0 + 2 * i)
				return *kind = 1, (int)i;
		} else {
			if (msr == MSR_AMD_K7_EVNTSEL0 + i)
				return *kind = 0, (int)i;
			if (msr == MSR_AMD_K7_PERFCTR0 + i)
				return *kind = 1, (int)i;
		}
	}
	return -1;
}

u64 kpmc_x86_rdmsr(u32 msr)
{
	int kind, i = gp_msr(msr, &kind);

	m.reads++;
	if (i >= 0)
		return kind ? m.ctr[i] : m.sel[i];
	if (m.intel && m.version >= 2) {
		if (msr >= MSR_X86_FIXED_CTR0 && msr < MSR_X86_FIXED_CTR0 + m.nr_fixed)
			return m.fixed[msr - MSR_X86_FIXED_CTR0];
		switch (msr) {
		case MSR_X86_FIXED_CTR_CTRL: return m.fixed_ctrl;
		case MSR_X86_PERF_GLOBAL_CTRL: return m.global_ctrl;
		case MSR_X86_PERF_GLOBAL_STATUS: return m.global_status;
		}
	}
	if (m.intel && msr == MSR_X86_PERF_CAPABILITIES)
		return (m.full_width ? 1ULL << 13 : 0) | (m.pebs_baseline ? 1ULL << 14 : 0) |
		       (u64)m.pebs_format << 8;
	if (m.intel && msr == 0x1a0)		/* MISC_ENABLE: bit 12, PEBS unavailable */
		return m.pebs_unavailable ? 1ULL << 12 : 0;
	if (m.amd_v2) {
		switch (msr) {
		case MSR_AMD_PERF_CNTR_GLOBAL_CTL: return m.global_ctrl;
		case MSR_AMD_PERF_CNTR_GLOBAL_STATUS: return m.global_status;
		}
	}
	if (m.ibs) {
		u64 v;

		if (model_ibs_rdmsr(msr, &v))
			return v;
	}
	bad_msr("rdmsr", msr);
}

void kpmc_x86_wrmsr(u32 msr, u64 v)
{
	int kind, i = gp_msr(msr, &kind);

	m.writes++;
	m.last_msr = msr;
	m.last_value = v;
	if (i >= 0) {
		if (!kind) {
			m.sel[i] = v;
		} else if (m.intel && msr == MSR_X86_PMC0 + (u32)i) {
			/* Legacy write: 32 bits, sign-extended to the counter's width. */
			u64 low = v & 0xffffffffULL;

			m.ctr[i] = ((low & 0x80000000ULL) ? low | ~0xffffffffULL : low) &
				   wmask(m.gp_width);
		} else {
			if (v & ~wmask(m.gp_width))
				fail_msg("wrmsr 0x%x: 0x%llx has bits above the %u-bit counter",
					 msr, (unsigned long long)v, m.gp_width);
			m.ctr[i] = v;
		}
		return;
	}
	if (m.intel && m.version >= 2) {
		if (msr >= MSR_X86_FIXED_CTR0 && msr < MSR_X86_FIXED_CTR0 + m.nr_fixed) {
			m.fixed[msr - MSR_X86_FIXED_CTR0] = v & wmask(m.fixed_width);
			return;
		}
		switch (msr) {
		case MSR_X86_FIXED_CTR_CTRL:
			m.fixed_ctrl = v;
			return;
		case MSR_X86_PERF_GLOBAL_CTRL:
			m.global_ctrl = v;
			return;
		case MSR_X86_PERF_GLOBAL_OVF_CTRL:
			m.global_status &= ~v;
			return;
		}
	}
	if (m.intel && m.pebs_format) {
		switch (msr) {
		case 0x3f1:
			/* Perfmon v5: bits 32 on enable PEBS on fixed counters. */
			if (m.pebs_format >= 4 && (v >> 32))
				fail_msg("PEBS_ENABLE 0x%llx: fixed-counter PEBS, which the model lacks",
					 (unsigned long long)v);
			m.pebs_enable = v;
			return;
		case 0x3f6:
			m.ld_lat = v;
			return;
		case 0x600:
			m.ds_area = v;
			return;
		case 0x3f2:		/* MSR_PEBS_DATA_CFG: adaptive PEBS only */
			if (m.pebs_format < 4)
				break;
			m.pebs_data_cfg = v;
			return;
		}
	}
	if (m.ibs && model_ibs_wrmsr(msr, v))
		return;
	if (m.amd_v2) {
		switch (msr) {
		case MSR_AMD_PERF_CNTR_GLOBAL_CTL:
			m.global_ctrl = v;
			return;
		case MSR_AMD_PERF_CNTR_GLOBAL_STATUS_CLR:
			m.global_status &= ~v;
			return;
		}
	}
	bad_msr("wrmsr", msr);
}

int kpmc_x86_reserve(unsigned int n, u32 ctl_base, u32 ctr_base, u32 stride,
		     char *why, size_t len)
{
	(void)ctl_base, (void)ctr_base, (void)stride;
	if (m.perf_holds_pmu) {
		snprintf(why, len, "counter 0 is reserved by the kernel's perf or the NMI watchdog");
		return -EBUSY;
	}
	m.reserved = n;
	return 0;
}

void kpmc_x86_unreserve(unsigned int n, u32 ctl_base, u32 ctr_base, u32 stride)
{
	(void)ctl_base, (void)ctr_base, (void)stride;
	assert_int_equal(n, m.reserved);
	m.reserved = 0;
}

void kpmc_x86_pmi_attach(bool (*handler)(void))
{
	m.pmi = handler;
}

void kpmc_x86_pmi_detach(void)
{
	m.pmi = NULL;
}

void kpmc_x86_pmi_rearm(void)
{
	m.lvtpc_masked = false;
}

void kpmc_x86_on_each_cpu(void (*fn)(void *info), void *info)
{
	unsigned int was = m.cpu, cpu;

	m.broadcasts++;
	if (!m.hybrid) {
		fn(info);
		return;
	}
	for (cpu = 0; cpu < m.nr_cpus; cpu++) {
		if (m.offline & (1u << cpu))
			continue;
		model_cpu(cpu);
		fn(info);
	}
	model_cpu(was);
}

/* The core's entry: counted here. */
void kpmc_pmu_overflow(void)
{
	m.overflows++;
}

static void raise_pmi(void)
{
	if (m.lvtpc_masked) {
		m.pmis_masked++;
		return;
	}
	m.lvtpc_masked = m.intel;
	m.pmis++;
	if (m.pmi && m.pmi())
		kpmc_pmu_overflow();
}

/* Add n to a counter of width bits (< 64); true if it wrapped past 0. */
static bool add(u64 *c, u64 n, unsigned int bits)
{
	u64 mask = wmask(bits), before = *c & mask;

	*c = (before + n) & mask;
	return before + n > mask;
}

void model_inject(unsigned int event, unsigned int umask, bool user, u64 n)
{
	unsigned int i;
	bool pmi = false;

	/* IBS Op counts cycles (IbsOpCntCtl 0), in every mode. */
	if (m.ibs && event == 0x76 && !umask)
		model_ibs_cycles(n);

	for (i = 0; i < m.nr_gp; i++) {
		u64 s = m.sel[i];
		unsigned int ev = (s & 0xff) | (m.intel ? 0 : ((s >> 32) & 0xf) << 8);

		if (!(s & X86_EVTSEL_EN) || ev != event || ((s >> 8) & 0xff) != umask)
			continue;
		if (!(s & (user ? X86_EVTSEL_USR : X86_EVTSEL_OS)))
			continue;
		if ((m.intel && m.version >= 2 && !(m.global_ctrl & (1ULL << i))) ||
		    (m.amd_v2 && !(m.global_ctrl & (1ULL << i))))
			continue;
		if (add(&m.ctr[i], n, m.gp_width)) {
			if (m.intel && (m.pebs_enable & (1ULL << i))) {
				pmi |= model_pebs_assist(i, m.ctr[i]);
				continue;
			}
			/* Only parts with a global status register have one to set. */
			if ((m.intel && m.version >= 2) || m.amd_v2)
				m.global_status |= 1ULL << i;
			pmi |= (s & X86_EVTSEL_INT) != 0;
		}
	}
	for (i = 0; m.intel && i < m.nr_fixed; i++) {
		static const unsigned int fixed_ev[3][2] = { { 0xc0, 0 }, { 0x3c, 0 }, { 0x00, 3 } };
		unsigned int nib = (m.fixed_ctrl >> (4 * i)) & 0xf;

		if (fixed_ev[i][0] != event || fixed_ev[i][1] != umask)
			continue;
		if (!(nib & (user ? 2 : 1)) || !(m.global_ctrl & (1ULL << (32 + i))))
			continue;
		if (add(&m.fixed[i], n, m.fixed_width)) {
			m.global_status |= 1ULL << (32 + i);
			pmi |= (nib & 8) != 0;
		}
	}
	if (pmi)
		raise_pmi();
}

/* ---- the monitoring modules' side (modules/monmod_x86.h) ---- */

static unsigned int pkg_now(void)
{
	return m.cpu / m.cpus_per_pkg;
}

/* The RAPL MSR msr of this part: its domain, or -1. */
static int rapl_domain(u32 msr)
{
	static const u32 intel[5] = { 0x611, 0x639, 0x641, 0x619, 0x64d };
	static const u32 amd[5] = { 0xc001029b, 0xc001029a, 0, 0, 0 };
	const u32 *tab = m.intel ? intel : amd;
	int d;

	for (d = 0; d < 5; d++)
		if (tab[d] && tab[d] == msr && (m.rapl_domains & (1u << d)))
			return d;
	return -1;
}

int kpmc_monmod_rdmsr_safe(u32 msr, u64 *v)
{
	int d = m.rapl_unit ? rapl_domain(msr) : -1;

	m.reads++;
	if (m.rapl_unit && msr == (m.intel ? 0x606u : 0xc0010299u)) {
		*v = m.rapl_unit;
		return 0;
	}
	if (d >= 0) {
		*v = !m.intel && d == RAPL_CORE ? m.core_energy[m.cpu] : m.energy[pkg_now()][d];
		return 0;
	}
	if (m.rdt && msr == 0xc8e) {
		u64 sel = m.evtsel[m.cpu];
		u32 rmid = sel >> 32, ev = sel & 0xff;

		if (rmid >= m.nr_rmid || !ev || ev > 3 || !(m.rdt_events & (1u << (ev - 1))))
			*v = 1ULL << 63;
		else if (ev == 1)
			*v = m.occ[pkg_now()][rmid] | m.qm_flags[rmid];
		else
			*v = (m.mbm[pkg_now()][rmid][ev - 2] & wmask(m.mbm_width)) | m.qm_flags[rmid];
		return 0;
	}
	if (m.rdt && msr == 0xc8f) {
		*v = m.pqr[m.cpu];
		return 0;
	}
	if (m.unknown_msrs_read_zero) {
		*v = 0;
		return 0;
	}
	m.msr_faults++;
	return -EIO;
}

void kpmc_monmod_wrmsr(u32 msr, u64 v)
{
	m.writes++;
	m.last_msr = msr;
	m.last_value = v;
	if (m.rdt && msr == 0xc8d) {
		m.evtsel[m.cpu] = v;
		return;
	}
	if (m.rdt && msr == 0xc8f) {
		if ((v & 0xffffffff) >= m.nr_rmid)
			fail_msg("PQR_ASSOC: RMID %llu of %u", (unsigned long long)(v & 0xffffffff),
				 m.nr_rmid);
		m.pqr[m.cpu] = v;
		return;
	}
	bad_msr("wrmsr", msr);
}

void kpmc_monmod_cpuid(u32 leaf, u32 subleaf, u32 regs[4])
{
	kpmc_x86_cpuid(leaf, subleaf, regs);
}

unsigned int kpmc_monmod_nr_cpus(void) { return m.nr_cpus; }
unsigned int kpmc_monmod_this_cpu(void) { return m.cpu; }
unsigned int kpmc_monmod_nr_pkgs(void) { return m.nr_pkgs; }
unsigned int kpmc_monmod_this_pkg(void) { return pkg_now(); }
void *kpmc_monmod_zalloc(size_t size) { return calloc(1, size ? size : 1); }
void kpmc_monmod_free(void *p) { free(p); }
bool kpmc_monmod_resctrl_mounted(void) { return m.resctrl_mounted; }

/* fn on every CPU, or the first of each package, as the kernel side does. */
static void run_on_cpus(void (*fn)(void), bool every_cpu)
{
	unsigned int was = m.cpu, cpu;

	for (cpu = 0; cpu < m.nr_cpus; cpu++) {
		if (!every_cpu && cpu % m.cpus_per_pkg)
			continue;
		m.cpu = cpu;
		fn();
	}
	m.cpu = was;
}

void kpmc_monmod_poll_start(void (*fn)(void), unsigned int period_ms, bool every_cpu)
{
	assert_null(m.poll);
	m.poll = fn;
	m.poll_ms = period_ms;
	m.poll_every_cpu = every_cpu;
	run_on_cpus(fn, every_cpu);
}

void kpmc_monmod_poll_stop(void)
{
	assert_non_null(m.poll);
	m.poll = NULL;
}

void kpmc_monmod_on_each_cpu(void (*fn)(void))
{
	run_on_cpus(fn, true);
}

void model_poll(void)
{
	assert_non_null(m.poll);
	run_on_cpus(m.poll, m.poll_every_cpu);
}

/* ---- hybrid parts: a PMU per CPU (x86_hw.h's per-CPU side) ---- */

#define BANK_FIELDS(X) X(nr_gp) X(gp_width) X(nr_fixed) X(fixed_width) X(cpuid_gp) \
	X(arch_unavailable) X(fixed_ctrl) X(global_ctrl) X(global_status)

void model_cpu(unsigned int cpu)
{
	struct model_bank *b = &m.bank[m.cpu];

	assert_true(cpu < m.nr_cpus);
	if (!m.hybrid) {
		m.cpu = cpu;
		return;
	}
#define SAVE(f) b->f = m.f;
	BANK_FIELDS(SAVE)
	memcpy(b->sel, m.sel, sizeof(b->sel));
	memcpy(b->ctr, m.ctr, sizeof(b->ctr));
	memcpy(b->fixed, m.fixed, sizeof(b->fixed));
	b = &m.bank[cpu];
#define LOAD(f) m.f = b->f;
	BANK_FIELDS(LOAD)
	memcpy(m.sel, b->sel, sizeof(m.sel));
	memcpy(m.ctr, b->ctr, sizeof(m.ctr));
	memcpy(m.fixed, b->fixed, sizeof(m.fixed));
	m.cpu = cpu;
}

/*
 * Alder Lake (family 6 model 97h), perfmon v5 on both types: P-cores have 8
 * general counters but CPUID.0AH says 6 (the count both types share), as on
 * the real part; E-cores have 6. Fixed counters 0-2 and 48 bits on both.
 */
static void model_adl_init(void)
{
	unsigned int cpu;

	m.hybrid = true;
	m.nr_cpus = 4;
	m.cpus_per_pkg = 4;
	m.cpuid1_eax = 0x00090672;
	m.version = 5;
	m.full_width = true;
	for (cpu = 0; cpu < 4; cpu++) {
		struct model_bank *b = &m.bank[cpu];
		bool p = cpu < 2;

		m.core_type[cpu] = p ? 0x40 : 0x20;
		b->nr_gp = p ? 8 : 6;
		b->cpuid_gp = 6;
		b->gp_width = 48;
		b->nr_fixed = 3;
		b->fixed_width = 48;
	}
	m.cpu = 0;
#define LOAD0(f) m.f = m.bank[0].f;
	BANK_FIELDS(LOAD0)
}

unsigned int kpmc_x86_cpu(void) { return m.cpu; }
unsigned int kpmc_x86_nr_cpus(void) { return m.nr_cpus; }
u64 *kpmc_x86_cpu_values(void) { return m.kept[m.cpu]; }

int kpmc_x86_cpuid_on(unsigned int cpu, u32 leaf, u32 subleaf, u32 regs[4])
{
	unsigned int was = m.cpu;

	if (cpu >= m.nr_cpus || (m.offline & (1u << cpu)))
		return -ENODEV;
	model_cpu(cpu);
	kpmc_x86_cpuid(leaf, subleaf, regs);
	model_cpu(was);
	return 0;
}

bool kpmc_x86_pti_active(void)
{
	return m.pti;
}

void *kpmc_x86_zalloc(size_t size)
{
	void (*hook)(void) = m.alloc_hook;

	m.alloc_hook = NULL;
	if (hook)
		hook();
	m.allocs++;
	return calloc(1, size);
}

void kpmc_x86_note(const char *msg)
{
	snprintf(m.note, sizeof(m.note), "%s", msg);
}

void kpmc_x86_free(void *p)
{
	if (p)
		m.allocs--;
	free(p);
}
