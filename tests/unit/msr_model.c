// SPDX-License-Identifier: GPL-2.0
/*
 * A model of one CPU's PMU behind x86_hw.h, so that backends/intel.c and
 * backends/amd.c run unchanged in the unit tests. It answers CPUID for the
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

struct model m;

static const char *const vendor_of[] = {
	[MODEL_SKYLAKE] = "GenuineIntel", [MODEL_INTEL_V1] = "GenuineIntel",
	[MODEL_INTEL_V5] = "GenuineIntel", [MODEL_INTEL_NOPMU] = "GenuineIntel",
	[MODEL_INTEL_LEGACY_WRITES] = "GenuineIntel",
	[MODEL_ZEN4] = "AuthenticAMD", [MODEL_ZEN1] = "AuthenticAMD",
	[MODEL_AMD_LEGACY] = "AuthenticAMD",
};

void model_init(enum model_kind kind)
{
	memset(&m, 0, sizeof(m));
	m.kind = kind;
	m.intel = !strcmp(vendor_of[kind], "GenuineIntel");
	switch (kind) {
	case MODEL_SKYLAKE:
	case MODEL_INTEL_LEGACY_WRITES:
		m.version = 4, m.nr_gp = 8, m.gp_width = 48, m.nr_fixed = 3, m.fixed_width = 48;
		m.full_width = kind == MODEL_SKYLAKE;
		break;
	case MODEL_INTEL_V5:
		m.version = 5, m.nr_gp = 8, m.gp_width = 48, m.nr_fixed = 3, m.fixed_width = 48;
		m.full_width = true;
		break;
	case MODEL_INTEL_V1:
		m.version = 1, m.nr_gp = 2, m.gp_width = 40;
		break;
	case MODEL_INTEL_NOPMU:
		break;
	case MODEL_ZEN4:
		m.nr_gp = 6, m.gp_width = 48, m.amd_ext = true, m.amd_v2 = true, m.family = 0x19;
		break;
	case MODEL_ZEN1:
		m.nr_gp = 6, m.gp_width = 48, m.amd_ext = true, m.family = 0x17;
		break;
	case MODEL_AMD_LEGACY:
		m.nr_gp = 4, m.gp_width = 48, m.family = 0x17;
		break;
	}
}

void kpmc_x86_cpuid(u32 leaf, u32 subleaf, u32 r[4])
{
	const char *v = vendor_of[m.kind];

	(void)subleaf;
	memset(r, 0, 4 * sizeof(u32));
	switch (leaf) {
	case 0:
		r[0] = m.intel ? 0x16 : 0x10;
		memcpy(&r[1], v, 4);
		memcpy(&r[3], v + 4, 4);
		memcpy(&r[2], v + 8, 4);
		break;
	case 1:
		if (m.intel) {
			r[0] = 0x000506e3;		/* family 6 */
			r[2] = 1u << 15;		/* PDCM: PERF_CAPABILITIES exists */
		} else {
			/* family 0fh + extended family */
			r[0] = (0xfu << 8) | ((m.family - 0xf) << 20);
		}
		break;
	case 0xa:
		if (!m.intel || !m.version)
			break;
		r[0] = m.version | m.nr_gp << 8 | m.gp_width << 16 | 8u << 24;
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
		return m.full_width ? 1ULL << 13 : 0;
	if (m.amd_v2) {
		switch (msr) {
		case MSR_AMD_PERF_CNTR_GLOBAL_CTL: return m.global_ctrl;
		case MSR_AMD_PERF_CNTR_GLOBAL_STATUS: return m.global_status;
		}
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

void kpmc_x86_on_each_cpu(void (*fn)(void *info), void *info)
{
	fn(info);
}

/* The core's entry: counted here. */
void kpmc_pmu_overflow(void)
{
	m.overflows++;
}

static void raise_pmi(void)
{
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
