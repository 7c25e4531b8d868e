// SPDX-License-Identifier: GPL-2.0
/*
 * RAPL energy as virtual counters, in uJ: what each energy domain of the CPU
 * (package, cores/PP0, uncore/PP1, DRAM, platform/psys) consumed while the
 * thread was on a CPU, since the thread's previous record.
 *
 * What a per-thread value means: RAPL counts energy per package (AMD's core
 * domain per core), not per thread. A thread's energy_pkg is the energy the
 * whole package consumed during the intervals the thread ran on it, from its
 * switch-in to its switch-out; threads running at the same time on one
 * package are each charged the package's full energy of that time, so
 * per-thread values of concurrent threads do not add up to the package's.
 *
 * Counters: MSR_*_ENERGY_STATUS are 32-bit and wrap. Each is followed into a
 * 64-bit total per package (per CPU for AMD's core domain) by every read:
 * at the thread's switches, at its records, and by a poller that reads every
 * domain often enough that at most one wrap happens between two reads (see
 * rapl_poll_ms()), so no energy is lost or negative at any sampling period.
 */
#include "monmod_x86.h"

enum { D_PKG, D_CORE, D_UNCORE, D_DRAM, D_PSYS, D_NR };
/* Scratch: per domain, energy so far minus the total at switch-in while on a CPU. */
#define S_ON_CPU	D_NR

#if defined(CONFIG_X86) || !defined(__KERNEL__)

/* The MSRs (SDM vol. 4; AMD PPR for family 17h): units, then energy counters. */
#define R_POWER_UNIT		0x606
#define R_PKG_ENERGY		0x611
#define R_DRAM_ENERGY		0x619
#define R_PP0_ENERGY		0x639
#define R_PP1_ENERGY		0x641
#define R_PSYS_ENERGY		0x64d
#define R_AMD_POWER_UNIT	0xc0010299
#define R_AMD_CORE_ENERGY	0xc001029a
#define R_AMD_PKG_ENERGY	0xc001029b

#define P BIT(D_PKG)
#define C BIT(D_CORE)
#define U BIT(D_UNCORE)
#define D BIT(D_DRAM)
#define S BIT(D_PSYS)

/*
 * Intel family 6 parts and their domains (SDM vol. 4, per-model MSR
 * tables). dram_esu: the server parts whose DRAM domain counts in a fixed
 * 2^-16 J (15.3 uJ) instead of MSR_RAPL_POWER_UNIT's energy unit (SDM
 * 14.9.5: Haswell-EP and later Xeons, Xeon Phi). A part not listed gets
 * every domain whose MSR reads, in the unit of MSR_RAPL_POWER_UNIT.
 */
static const struct rapl_model {
	u8 model, domains, dram_esu;
} intel_models[] = {
	{ 0x2a, P | C | U, 0 }, { 0x3a, P | C | U, 0 },		/* Sandy/Ivy Bridge */
	{ 0x2d, P | C | D, 0 }, { 0x3e, P | C | D, 0 },		/* their Xeons */
	{ 0x3c, P | C | U | D, 0 }, { 0x45, P | C | U | D, 0 }, { 0x46, P | C | U | D, 0 },
	{ 0x3d, P | C | U | D, 0 }, { 0x47, P | C | U | D, 0 },	/* Haswell, Broadwell */
	{ 0x3f, P | D, 16 }, { 0x4f, P | D, 16 }, { 0x56, P | D, 16 },
	{ 0x4e, P | C | U | D | S, 0 }, { 0x5e, P | C | U | D | S, 0 },	/* Skylake */
	{ 0x8e, P | C | U | D | S, 0 }, { 0x9e, P | C | U | D | S, 0 },	/* Kaby/Coffee Lake */
	{ 0x55, P | D, 16 },					/* Skylake/Cascade Lake-SP */
	{ 0x57, P | D, 16 }, { 0x85, P | D, 16 },		/* Xeon Phi */
	{ 0x6a, P | D, 16 }, { 0x6c, P | D, 16 },		/* Ice Lake-SP */
	{ 0x8f, P | D | S, 16 }, { 0xcf, P | D | S, 16 },	/* Sapphire/Emerald Rapids */
};

static const u32 intel_msr[D_NR] = {
	R_PKG_ENERGY, R_PP0_ENERGY, R_PP1_ENERGY,
	R_DRAM_ENERGY, R_PSYS_ENERGY,
};

/*
 * The largest power a domain is assumed to draw: no socket draws 1 kW
 * today (the largest are near 500 W). The poller reads every domain at
 * half the time a counter takes to wrap at this power.
 */
#define RAPL_MAX_WATTS		1000
#define RAPL_POLL_MAX_MS	60000

/* One 32-bit energy counter followed into 64 bits. */
struct rapl_counter {
	u32 last;
	bool valid;
	u64 total;		/* in the domain's units */
};

struct rapl_slot {
	kpmc_monmod_lock_t lock;
	struct rapl_counter c[D_NR];
};

static struct rapl_desc {
	u32 msr[D_NR];
	u8 esu[D_NR];		/* energy unit: 2^-esu J */
	u8 present;		/* domains */
	u8 per_cpu;		/* domains counted per core (AMD's core energy) */
	unsigned int poll_ms;
	char model[64];
} rd;

static struct rapl_slot *rapl_pkgs, *rapl_cpus;

/* Fill desc from CPUID and the MSRs of this CPU; 0, or -ENODEV and why. */
static int rapl_probe(struct rapl_desc *desc, char *why, size_t len)
{
	const struct rapl_model *tab = NULL;
	char vendor[13];
	unsigned int family = kpmc_monmod_x86_family(vendor), model = kpmc_monmod_x86_model();
	u32 unit_msr;
	u8 candidates, esu;
	u64 unit, v;
	unsigned int d, i;

	memset(desc, 0, sizeof(*desc));
	if (!strcmp(vendor, "GenuineIntel") && family == 6) {
		unit_msr = R_POWER_UNIT;
		candidates = P | C | U | D | S;
		for (i = 0; i < ARRAY_SIZE(intel_models); i++)
			if (intel_models[i].model == model)
				tab = &intel_models[i];
		if (tab)
			candidates = tab->domains;
		memcpy(desc->msr, intel_msr, sizeof(desc->msr));
	} else if ((!strcmp(vendor, "AuthenticAMD") || !strcmp(vendor, "HygonGenuine")) &&
		   family >= 0x17) {
		unit_msr = R_AMD_POWER_UNIT;
		candidates = P | C;
		desc->msr[D_PKG] = R_AMD_PKG_ENERGY;
		desc->msr[D_CORE] = R_AMD_CORE_ENERGY;
		desc->per_cpu = C;
	} else {
		snprintf(why, len, "no RAPL: %s family %xh has none kpmc knows", vendor, family);
		return -ENODEV;
	}
	if (kpmc_monmod_rdmsr_safe(unit_msr, &unit)) {
		snprintf(why, len, "no RAPL: MSR_RAPL_POWER_UNIT (0x%x) not readable", unit_msr);
		return -ENODEV;
	}
	/* Every RAPL part has nonzero units; an emulator answers 0 for MSRs it lacks. */
	if (!unit) {
		snprintf(why, len,
			 "no RAPL: MSR_RAPL_POWER_UNIT (0x%x) reads 0 (an emulated CPU without RAPL?)",
			 unit_msr);
		return -ENODEV;
	}
	esu = (unit >> 8) & 0x1f;
	for (d = 0; d < D_NR; d++) {
		if (!(candidates & BIT(d)) || kpmc_monmod_rdmsr_safe(desc->msr[d], &v))
			continue;
		desc->present |= BIT(d);
		desc->esu[d] = d == D_DRAM && tab && tab->dram_esu ? tab->dram_esu : esu;
	}
	if (!desc->present) {
		snprintf(why, len, "no RAPL: no energy status MSR readable");
		return -ENODEV;
	}
	snprintf(desc->model, sizeof(desc->model), "%s family %xh model %xh%s", vendor, family,
		 model, tab ? "" : " (domains probed)");
	return 0;
}

/*
 * Poll period: a 32-bit counter in units of 2^-esu J wraps after
 * 2^(32-esu) J, i.e. 2^(32-esu) * 1000 / RAPL_MAX_WATTS ms at the most power
 * assumed; read at half that (262 s at 1 kW for the common esu 14, 65 s for
 * esu 16: both polled every 60 s, the cap).
 */
static unsigned int rapl_poll_ms(const struct rapl_desc *desc)
{
	u64 ms = RAPL_POLL_MAX_MS, wrap;
	unsigned int d;

	for (d = 0; d < D_NR; d++) {
		if (!(desc->present & BIT(d)))
			continue;
		wrap = desc->esu[d] >= 32 ? 1 : (1000ULL << (32 - desc->esu[d])) / RAPL_MAX_WATTS;
		if (wrap / 2 < ms)
			ms = wrap / 2;
	}
	return ms ? (unsigned int)ms : 1;
}

/* Read domain d on this CPU into its 64-bit total; returns the total. */
static u64 rapl_update(struct rapl_slot *slot, unsigned int d)
{
	struct rapl_counter *c = &slot->c[d];
	u64 v;

	/* A domain that read at probe time reads now; keep the total if not. */
	if (kpmc_monmod_rdmsr_safe(rd.msr[d], &v))
		return c->total;
	if (c->valid)
		c->total += (u32)((u32)v - c->last);	/* one wrap at most (the poller) */
	c->last = (u32)v;
	c->valid = true;
	return c->total;
}

/* All domains' totals as seen from this CPU. */
static void rapl_read_all(u64 now[D_NR])
{
	struct rapl_slot *pkg = &rapl_pkgs[kpmc_monmod_this_pkg()];
	struct rapl_slot *cpu = &rapl_cpus[kpmc_monmod_this_cpu()];
	unsigned long flags;
	unsigned int d;

	/* Read under the lock: a value read before another CPU's newer one must not follow it. */
	kpmc_monmod_lock(&pkg->lock, flags);
	for (d = 0; d < D_NR; d++)
		if ((rd.present & ~rd.per_cpu) & BIT(d))
			now[d] = rapl_update(pkg, d);
	kpmc_monmod_unlock(&pkg->lock, flags);
	for (d = 0; d < D_NR; d++)
		if (rd.per_cpu & rd.present & BIT(d))
			now[d] = rapl_update(cpu, d);
}

static void rapl_poll(void)
{
	u64 now[D_NR] = { 0 };

	rapl_read_all(now);
}

static int rapl_available(char *why, size_t len)
{
	struct rapl_desc desc;

	return rapl_probe(&desc, why, len);
}

static void rapl_deactivate(void)
{
	kpmc_monmod_poll_stop();
	kpmc_monmod_free(rapl_pkgs);
	kpmc_monmod_free(rapl_cpus);
	rapl_pkgs = rapl_cpus = NULL;
}

static int rapl_activate(void)
{
	char why[KPMC_ERR_MAX];
	unsigned int i;
	int err;

	err = rapl_probe(&rd, why, sizeof(why));
	if (err)
		return err;
	rd.poll_ms = rapl_poll_ms(&rd);
	rapl_pkgs = kpmc_monmod_zalloc(kpmc_monmod_nr_pkgs() * sizeof(*rapl_pkgs));
	rapl_cpus = kpmc_monmod_zalloc(kpmc_monmod_nr_cpus() * sizeof(*rapl_cpus));
	if (!rapl_pkgs || !rapl_cpus) {
		kpmc_monmod_free(rapl_pkgs);
		kpmc_monmod_free(rapl_cpus);
		return -ENOMEM;
	}
	for (i = 0; i < kpmc_monmod_nr_pkgs(); i++)
		kpmc_monmod_lock_init(&rapl_pkgs[i].lock);
	for (i = 0; i < kpmc_monmod_nr_cpus(); i++)
		kpmc_monmod_lock_init(&rapl_cpus[i].lock);
	/* Per-core domains need every CPU read; package ones one CPU per package. */
	kpmc_monmod_poll_start(rapl_poll, rd.poll_ms, rd.per_cpu & rd.present);
	return 0;
}

static void rapl_on_switch(struct task_struct *out, u64 *os, struct task_struct *in, u64 *is)
{
	u64 now[D_NR] = { 0 };
	unsigned int d;

	if (!(os && os[S_ON_CPU]) && !is)
		return;
	rapl_read_all(now);
	for (d = 0; d < D_NR; d++) {
		if (!(rd.present & BIT(d)))
			continue;
		if (os && os[S_ON_CPU])
			os[d] += now[d];
		if (is)
			is[d] -= now[d];
	}
	if (os)
		os[S_ON_CPU] = 0;
	if (is)
		is[S_ON_CPU] = 1;
}

static void rapl_on_sample(struct kpmc_sample *s)
{
	u64 now[D_NR] = { 0 }, units;
	unsigned int d;

	if (!s->task)
		return;
	/* On a CPU: the record is taken there, and the interval continues from now. */
	if (s->scratch[S_ON_CPU])
		rapl_read_all(now);
	for (d = 0; d < D_NR; d++) {
		if (!(rd.present & BIT(d)))
			continue;
		units = s->scratch[d];
		s->scratch[d] = 0;
		if (s->scratch[S_ON_CPU]) {
			units += now[d];
			s->scratch[d] = -now[d];
		}
		s->virt[d] = kpmc_monmod_mul_shr(units, 1000000, rd.esu[d]);
		s->virt_mask |= BIT(d);
	}
}

#else /* not x86 */

static int rapl_available(char *why, size_t len)
{
	snprintf(why, len, "RAPL is x86-only");
	return -ENODEV;
}

#define rapl_activate NULL
#define rapl_deactivate NULL
#define rapl_on_sample NULL
#define rapl_on_switch NULL

#endif

const struct kpmc_monitoring_module kpmc_monmod_rapl = {
	.name = "rapl",
	.capable_only = true,
	.description = "RAPL energy in uJ per domain, consumed while the thread ran (package energy is shared)",
	.virt_names = { "energy_pkg", "energy_core", "energy_uncore", "energy_dram", "energy_psys" },
	.available = rapl_available,
	.activate = rapl_activate,
	.deactivate = rapl_deactivate,
	.on_sample = rapl_on_sample,
	.on_switch = rapl_on_switch,
};
