// SPDX-License-Identifier: GPL-2.0
/*
 * Cache and memory-bandwidth monitoring (Intel RDT CMT/MBM, AMD PQoS) per
 * thread, as virtual counters:
 *   virt0 llc_occupancy    bytes of L3 tagged with the thread's RMID, in the L3 of
 *                          the CPU taking the record, at the record
 *   virt1 mbm_total_bytes  memory traffic of the thread since its previous record,
 *                          all packages
 *   virt2 mbm_local_bytes  the part of it to and from the package's local memory
 *   virt3 rmid             the thread's RMID; 0: it has none (the pool was empty)
 *
 * Each monitored thread gets an RMID of its own from the L3's pool
 * (CPUID.0FH.1:ECX + 1 RMIDs; RMID 0 stays everybody else's), written to
 * IA32_PQR_ASSOC when it is switched in and replaced by RMID 0 when an
 * unmonitored thread follows. Exhaustion: a thread that finds the pool
 * empty runs as RMID 0, its records carry rmid 0 and no cache or bandwidth
 * values, and it asks again at each switch-in, so it gets an RMID as soon
 * as one is free again. Values never mix two threads' traffic.
 *
 * A freed RMID still tags lines in the L3 and would charge them to its next
 * owner, so it goes to limbo and is reused only once its occupancy has been
 * read below a threshold in every package (L3 size / number of RMIDs,
 * rounded to the upscaling factor: resctrl's default). Reads whose QM_CTR
 * has the error (bit 63) or unavailable (bit 62) bit set are no values: the
 * record leaves that counter out, and an RMID in limbo stays there.
 *
 * The MBM counters are 24 bits wide (24 + CPUID.0FH.1:EAX[7:0] on newer
 * parts) and wrap within seconds at full bandwidth: a poller reads every
 * RMID's counters in every package each second (the kernel's resctrl does
 * the same) and follows them into 64 bits; records add the reads in between.
 *
 * The kernel's resctrl owns the RMIDs when its filesystem is mounted: the
 * module then refuses to activate. PQR_ASSOC's CLOSID (high half) is written
 * as 0, the only class of service without resctrl.
 */
#include "monmod_x86.h"

enum { V_OCC, V_TOTAL, V_LOCAL, V_RMID };
enum { S_RMID, S_BASE_TOTAL, S_BASE_LOCAL, S_ASKED };

#if defined(CONFIG_X86) || !defined(__KERNEL__)

#define CMT_QM_EVTSEL	0xc8d
#define CMT_QM_CTR		0xc8e
#define CMT_PQR_ASSOC	0xc8f
#define QM_CTR_ERROR		(1ULL << 63)
#define QM_CTR_UNAVAILABLE	(1ULL << 62)
/* QM_EVTSEL event IDs; CPUID.0FH.1:EDX has bit (ID - 1) for each. */
enum { EV_OCC = 1, EV_TOTAL = 2, EV_LOCAL = 3 };
enum { R_FREE, R_USED, R_LIMBO };
#define CMT_POLL_MS		1000
#define CMT_MAX_PKGS		64	/* limbo keeps a bit per package */

struct cmt_desc {
	u32 nr_rmid, upscale;
	unsigned int width;	/* MBM counter bits */
	u8 events;		/* BIT(EV_x - 1) */
	u64 threshold;		/* limbo: occupancy in bytes below which an RMID is clean */
};

/* An RMID's MBM counter in one package, followed into 64 bits. */
struct cmt_mbm {
	u64 last, acc;
	bool valid;
};

static struct cmt_desc cd;
static struct {
	kpmc_monmod_lock_t lock;		/* state, dirty, free, nr_free */
	u8 *state;
	u64 *dirty;			/* per RMID in limbo: packages not yet drained */
	u32 *free, nr_free;
	unsigned long exhausted;	/* threads that found the pool empty */
	/* Per package: its lock (QM_EVTSEL/QM_CTR pairs, MBM totals) and totals. */
	kpmc_monmod_lock_t *pkg_lock;
	struct cmt_mbm *mbm;		/* [rmid][pkg][total, local] */
	u32 *cpu_rmid;			/* what this CPU's PQR_ASSOC holds */
	unsigned int nr_pkgs;
} pool;

static u64 l3_bytes(void)
{
	char vendor[13];
	u32 r[4], i, leaf;

	kpmc_monmod_x86_family(vendor);
	leaf = !strcmp(vendor, "GenuineIntel") ? 4 : 0x8000001d;

	/* Both leaves describe caches the same way, one subleaf each. */
	for (i = 0; i < 8; i++) {
		kpmc_monmod_cpuid(leaf, i, r);
		if (!(r[0] & 0x1f))
			break;
		if (((r[0] >> 5) & 7) == 3)
			return (u64)((r[1] >> 22) + 1) * (((r[1] >> 12) & 0x3ff) + 1) *
			       ((r[1] & 0xfff) + 1) * ((u64)r[2] + 1);
	}
	return 0;
}

static int cmt_probe(struct cmt_desc *desc, char *why, size_t len)
{
	u32 r[4];

	memset(desc, 0, sizeof(*desc));
	kpmc_monmod_cpuid(0, 0, r);
	if (r[0] < 0xf) {
		snprintf(why, len, "no CMT: CPUID's highest leaf is 0%xh, below 0fh", r[0]);
		return -ENODEV;
	}
	kpmc_monmod_cpuid(7, 0, r);
	if (!(r[1] & BIT(12))) {
		snprintf(why, len, "no CMT: CPUID.(EAX=7,ECX=0):EBX[12] (PQM) is 0");
		return -ENODEV;
	}
	kpmc_monmod_cpuid(0xf, 0, r);
	if (!(r[3] & BIT(1))) {
		snprintf(why, len, "no CMT: CPUID.(EAX=0FH,ECX=0):EDX[1] (L3 monitoring) is 0");
		return -ENODEV;
	}
	kpmc_monmod_cpuid(0xf, 1, r);
	desc->events = r[3] & 7;
	desc->nr_rmid = r[2] + 1;
	desc->upscale = r[1];
	desc->width = 24 + (r[0] & 0xff);
	if (!desc->events || desc->nr_rmid < 2 || !desc->upscale || desc->width > 62) {
		snprintf(why, len,
			 "no CMT: CPUID.(EAX=0FH,ECX=1) reports events 0x%x, %u RMIDs, factor %u, width %u",
			 desc->events, desc->nr_rmid, desc->upscale, desc->width);
		return -ENODEV;
	}
	desc->threshold = l3_bytes() / desc->nr_rmid / desc->upscale * desc->upscale;
	if (kpmc_monmod_nr_pkgs() > CMT_MAX_PKGS) {
		snprintf(why, len, "no CMT: more than %u packages", CMT_MAX_PKGS);
		return -ENODEV;
	}
	if (kpmc_monmod_resctrl_mounted()) {
		snprintf(why, len,
			 "resctrl is mounted: the kernel's resctrl owns the RMIDs (umount it first)");
		return -EBUSY;
	}
	return 0;
}

/* One counter of rmid on this CPU's L3 (the package lock held): 0, or -EIO and no value. */
static int qm_read(u32 rmid, unsigned int event, u64 *value)
{
	u64 v;

	kpmc_monmod_wrmsr(CMT_QM_EVTSEL, (u64)rmid << 32 | event);
	if (kpmc_monmod_rdmsr_safe(CMT_QM_CTR, &v) || (v & (QM_CTR_ERROR | QM_CTR_UNAVAILABLE)))
		return -EIO;
	*value = v;
	return 0;
}

static struct cmt_mbm *mbm_of(u32 rmid, unsigned int pkg, unsigned int e)
{
	return &pool.mbm[((size_t)rmid * pool.nr_pkgs + pkg) * 2 + e];
}

/* Follow rmid's MBM counter e (0 total, 1 local) of this package; package lock held. */
static int mbm_update(u32 rmid, unsigned int pkg, unsigned int e)
{
	struct cmt_mbm *b = mbm_of(rmid, pkg, e);
	u64 v;

	if (!(cd.events & BIT(EV_TOTAL - 1 + e)))
		return -ENODEV;
	if (qm_read(rmid, EV_TOTAL + e, &v))
		return -EIO;
	v &= (1ULL << cd.width) - 1;
	if (b->valid)
		b->acc += (v - b->last) & ((1ULL << cd.width) - 1);
	b->last = v;
	b->valid = true;
	return 0;
}

/* rmid's MBM counter e summed over the packages, in counter units. */
static u64 mbm_sum(u32 rmid, unsigned int e)
{
	unsigned long flags;
	unsigned int p;
	u64 sum = 0;

	for (p = 0; p < pool.nr_pkgs; p++) {
		kpmc_monmod_lock(&pool.pkg_lock[p], flags);
		sum += mbm_of(rmid, p, e)->acc;
		kpmc_monmod_unlock(&pool.pkg_lock[p], flags);
	}
	return sum;
}

/* Give the thread an RMID if one is free; its bandwidth counts from now. */
static void take_rmid(u64 *scratch)
{
	unsigned long flags;
	u32 rmid = 0;

	if (!READ_ONCE(pool.nr_free) && scratch[S_ASKED])
		return;
	kpmc_monmod_lock(&pool.lock, flags);
	if (pool.nr_free) {
		rmid = pool.free[--pool.nr_free];
		pool.state[rmid] = R_USED;
	} else if (!scratch[S_ASKED]) {
		pool.exhausted++;
	}
	kpmc_monmod_unlock(&pool.lock, flags);
	scratch[S_ASKED] = 1;
	if (!rmid)
		return;
	scratch[S_RMID] = rmid;
	scratch[S_BASE_TOTAL] = mbm_sum(rmid, 0);
	scratch[S_BASE_LOCAL] = mbm_sum(rmid, 1);
}

static void release_rmid(u64 *scratch)
{
	unsigned long flags;
	u32 rmid = scratch[S_RMID];

	kpmc_monmod_lock(&pool.lock, flags);
	pool.state[rmid] = R_LIMBO;
	pool.dirty[rmid] = pool.nr_pkgs >= 64 ? ~0ULL : (1ULL << pool.nr_pkgs) - 1;
	kpmc_monmod_unlock(&pool.lock, flags);
	scratch[S_RMID] = 0;
}

/* Per package, each second: follow every MBM counter, drain limbo. */
static void cmt_poll(void)
{
	unsigned int pkg = kpmc_monmod_this_pkg();
	unsigned long flags, pflags;
	u32 rmid;
	u64 occ;

	for (rmid = 1; rmid < cd.nr_rmid; rmid++) {
		bool clean;

		kpmc_monmod_lock(&pool.pkg_lock[pkg], pflags);
		mbm_update(rmid, pkg, 0);
		mbm_update(rmid, pkg, 1);
		clean = READ_ONCE(pool.state[rmid]) == R_LIMBO &&
			!qm_read(rmid, EV_OCC, &occ) && occ * cd.upscale < cd.threshold;
		kpmc_monmod_unlock(&pool.pkg_lock[pkg], pflags);
		if (!clean)
			continue;
		kpmc_monmod_lock(&pool.lock, flags);
		if (pool.state[rmid] == R_LIMBO) {
			pool.dirty[rmid] &= ~(1ULL << pkg);
			if (!pool.dirty[rmid]) {
				pool.state[rmid] = R_FREE;
				pool.free[pool.nr_free++] = rmid;
			}
		}
		kpmc_monmod_unlock(&pool.lock, flags);
	}
}

static int cmt_available(char *why, size_t len)
{
	struct cmt_desc desc;

	return cmt_probe(&desc, why, len);
}

static void pqr_reset(void)
{
	kpmc_monmod_wrmsr(CMT_PQR_ASSOC, 0);
}

static void cmt_free(void)
{
	kpmc_monmod_free(pool.state);
	kpmc_monmod_free(pool.dirty);
	kpmc_monmod_free(pool.free);
	kpmc_monmod_free(pool.pkg_lock);
	kpmc_monmod_free(pool.mbm);
	kpmc_monmod_free(pool.cpu_rmid);
	memset(&pool, 0, sizeof(pool));
}

static void cmt_deactivate(void)
{
	kpmc_monmod_poll_stop();
	kpmc_monmod_on_each_cpu(pqr_reset);
	cmt_free();
}

static int cmt_activate(void)
{
	char why[KPMC_ERR_MAX];
	unsigned int i, n;
	int err;

	err = cmt_probe(&cd, why, sizeof(why));
	if (err)
		return err;
	n = cd.nr_rmid;
	pool.nr_pkgs = kpmc_monmod_nr_pkgs();
	pool.state = kpmc_monmod_zalloc(n);
	pool.dirty = kpmc_monmod_zalloc(n * sizeof(u64));
	pool.free = kpmc_monmod_zalloc(n * sizeof(u32));
	pool.pkg_lock = kpmc_monmod_zalloc(pool.nr_pkgs * sizeof(kpmc_monmod_lock_t));
	pool.mbm = kpmc_monmod_zalloc((size_t)n * pool.nr_pkgs * 2 * sizeof(struct cmt_mbm));
	pool.cpu_rmid = kpmc_monmod_zalloc(kpmc_monmod_nr_cpus() * sizeof(u32));
	if (!pool.state || !pool.dirty || !pool.free || !pool.pkg_lock || !pool.mbm ||
	    !pool.cpu_rmid) {
		cmt_free();
		return -ENOMEM;
	}
	kpmc_monmod_lock_init(&pool.lock);
	for (i = 0; i < pool.nr_pkgs; i++)
		kpmc_monmod_lock_init(&pool.pkg_lock[i]);
	/*
	 * Whoever used the RMIDs before left lines tagged: every RMID starts in
	 * limbo, and the first poll (now) frees those that are clean.
	 */
	for (i = 1; i < n; i++) {
		u64 scratch[KPMC_MONMOD_SCRATCH] = { [S_RMID] = i };

		release_rmid(scratch);
	}
	kpmc_monmod_poll_start(cmt_poll, CMT_POLL_MS, false);
	return 0;
}

static void cmt_thread_start(struct task_struct *task, u64 *scratch)
{
	take_rmid(scratch);
}

static void cmt_on_switch(struct task_struct *out, u64 *os, struct task_struct *in, u64 *is)
{
	unsigned int cpu = kpmc_monmod_this_cpu();
	u32 rmid = 0;

	if (is) {
		if (!is[S_RMID])
			take_rmid(is);
		rmid = is[S_RMID];
	}
	if (pool.cpu_rmid[cpu] != rmid) {
		kpmc_monmod_wrmsr(CMT_PQR_ASSOC, rmid);
		pool.cpu_rmid[cpu] = rmid;
	}
}

static void cmt_on_sample(struct kpmc_sample *s)
{
	unsigned int pkg = kpmc_monmod_this_pkg(), e;
	u32 rmid;
	unsigned long flags;
	int ok[2];
	u64 occ, sum;

	if (!s->task)
		return;
	rmid = s->scratch[S_RMID];
	s->virt[V_RMID] = rmid;
	s->virt_mask |= BIT(V_RMID);
	if (!rmid)
		return;
	kpmc_monmod_lock(&pool.pkg_lock[pkg], flags);
	if ((cd.events & BIT(EV_OCC - 1)) && !qm_read(rmid, EV_OCC, &occ)) {
		s->virt[V_OCC] = occ * cd.upscale;
		s->virt_mask |= BIT(V_OCC);
	}
	ok[0] = mbm_update(rmid, pkg, 0);
	ok[1] = mbm_update(rmid, pkg, 1);
	kpmc_monmod_unlock(&pool.pkg_lock[pkg], flags);
	for (e = 0; e < 2; e++) {
		/* A failed read leaves the traffic for the next record. */
		if (ok[e])
			continue;
		sum = mbm_sum(rmid, e);
		s->virt[V_TOTAL + e] = (sum - s->scratch[S_BASE_TOTAL + e]) * cd.upscale;
		s->scratch[S_BASE_TOTAL + e] = sum;
		s->virt_mask |= BIT(V_TOTAL + e);
	}
	if (s->last)
		release_rmid(s->scratch);
}

unsigned long kpmc_cmt_exhausted(void)
{
	return pool.exhausted;
}

#else /* not x86 */

static int cmt_available(char *why, size_t len)
{
	snprintf(why, len, "CMT/MBM is x86-only");
	return -ENODEV;
}

#define cmt_activate NULL
#define cmt_deactivate NULL
#define cmt_on_sample NULL
#define cmt_on_switch NULL
#define cmt_thread_start NULL

#endif

const struct kpmc_monitoring_module kpmc_monmod_cmt = {
	.name = "cmt",
	.description = "L3 occupancy and memory bandwidth per thread (RDT CMT/MBM), an RMID each",
	.virt_names = { "llc_occupancy", "mbm_total_bytes", "mbm_local_bytes", "rmid" },
	.available = cmt_available,
	.activate = cmt_activate,
	.deactivate = cmt_deactivate,
	.on_sample = cmt_on_sample,
	.on_switch = cmt_on_switch,
	.thread_start = cmt_thread_start,
};
