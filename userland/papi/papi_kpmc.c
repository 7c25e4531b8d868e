// SPDX-License-Identifier: LGPL-2.1
/*
 * PAPI's kpmc component: the calling thread's counters through the kpmc
 * kernel module (kpmc:::EVENT). Each thread that starts an event set opens
 * its own kpmc session (/proc/kpmc/monitor: kpmc sessions are per thread,
 * as PAPI's counting is), writes the event set's configuration
 * (papi_kpmc_plan.c) and enables counting of itself; reads go through
 * libkpmc's read path (its mapped counter page where the kernel grants user
 * reads, read() of /proc/kpmc/self otherwise). More events than counters:
 * kpmc event sets that the kernel rotates (PAPI_set_multiplex), each
 * event's count scaled by the thread's on-CPU time over its set's.
 * The /proc/kpmc requests and their refusals' reasons are kpmc's own client
 * (common/kpmc_proc.c). With PAPI_INHERIT, the threads and processes the
 * counting thread creates (kpmc counts them, for its session) add what
 * their records in the session say: their counts at their exit. Attached
 * to another thread (PAPI_attach: kpmc's enable pid=N), an event set's
 * counts are that thread's records: a sample every 100 ms of its time while
 * it counts, its last counts at its detach or exit. PAPI_overflow is kpmc's
 * event-based sampling: an EBS record per threshold events, signalled to the
 * thread by the component's poller (papi_kpmc_overflow.c) and dispatched
 * from its handler. Virtual counters of the active monitoring module
 * (kpmc:::virt:NAME) are read from /proc/kpmc/self. As PAPI's component 0
 * (make papi KPMC_PAPI_CPU=kpmc) it loads PAPI's presets. doc/papi.md has
 * the rest.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "papi.h"
#include "papi_internal.h"
#include "papi_vector.h"
#include "papi_memory.h"
#include "papi_preset.h"
#include "extras.h"

#include "common/kpmc_proc.h"
#include "libkpmc/libkpmc_internal.h"
#include "papi_kpmc_events.h"
#include "papi_kpmc_overflow.h"
#include "papi_kpmc_plan.h"

papi_vector_t _kpmc_vector;

/*
 * A thread's state: its kpmc session, opened at its first start, and its
 * config and enable files, kept open for its starts and stops (a request
 * is the writing thread's, so only that thread writes them).
 */
struct kpmc_papi_context {
	int monitor_fd;				/* -1: none yet */
	int config_fd, enable_fd;
	uint32_t tid;				/* the thread that opened them */
	struct kpmc_papi_control *counting;	/* the event set counting now, or NULL */
	/*
	 * The configuration last written, which kpmc keeps for the thread
	 * across its stops: a start of the same event set writes it no more.
	 */
	char written[KPMC_PAPI_CONFIG_LEN];
	/* Set by the overflow poller when it signals this thread, cleared by its handler. */
	int overflow_pending;
};

/*
 * What records of the session carry (the threads the counting thread
 * created, or the attached one), summed as of one thread: per set its
 * counts and on-CPU time, and all its time.
 */
struct kpmc_papi_records {
	uint64_t run_ns;
	uint64_t set_ns[KPMC_MAX_SETS];
	uint64_t counts[KPMC_MAX_SETS][KPMC_MAX_COUNTERS];
	uint64_t virt[KPMC_MAX_VIRT];
};

/* An event set's state. */
struct kpmc_papi_control {
	unsigned int nr_events;
	unsigned int event[KPMC_PAPI_MAX_EVENTS];	/* native codes, in PAPI's positions */
	int domain;
	int multiplexed;
	unsigned int mux_ms;
	struct kpmc_papi_plan plan;
	/*
	 * Event i is virtual counter virt_of[i] - 1 (kpmc:::virt:NAME), or,
	 * virt_of[i] 0, the plan's event hw_of[i].
	 */
	unsigned int virt_of[KPMC_PAPI_MAX_EVENTS];
	unsigned int hw_of[KPMC_PAPI_MAX_EVENTS];
	uint32_t virt_used;			/* bit N: an event is virtual counter N */
	int running;
	struct kpmc_counts base;		/* the counts at the start or the last reset */
	uint64_t base_virt[KPMC_MAX_VIRT];	/* and the virtual counters */
	/*
	 * PAPI_overflow: 1 + the event whose counter samples (ebsN=threshold:
	 * kpmc has one sampling counter per configuration), 0 for none; and
	 * the EBS records of the thread taken but not yet dispatched.
	 */
	unsigned int overflow_event;
	unsigned long long overflow_threshold;
	unsigned int overflow_pmc;		/* its counter, pmcN */
	/*
	 * Its events in the thread's EBS records not yet a whole threshold,
	 * and the thresholds crossed but not yet dispatched. An overflow
	 * interrupt that comes late (QEMU's event counters under icount)
	 * makes a record of several thresholds: each is one overflow.
	 */
	unsigned long long overflow_carry;
	unsigned int overflow_backlog;
	int inherit;				/* PAPI_INHERIT: the created threads' counts too */
	uint32_t attach_tid;			/* PAPI_attach's thread; 0: the caller */
	int target_gone;			/* its exit or detach record is in */
	uint64_t lost;				/* records the session's ring dropped meanwhile */
	struct kpmc_papi_records others;	/* theirs since the start or the last reset */
	long long values[KPMC_PAPI_MAX_EVENTS];
};

/* kpmc's registers are its configuration: PAPI's per-event ones hold nothing. */
struct kpmc_papi_register {
	unsigned int unused;
};

static struct kpmc_papi_pmu pmu;

/* The component off, with why (papi_component_avail shows it). */
static int disable(int retval, const char *reason)
{
	snprintf(_kpmc_vector.cmp_info.disabled_reason, PAPI_MAX_STR_LEN, "%s", reason);
	_kpmc_vector.cmp_info.disabled = retval;
	return retval;
}

/*
 * PAPI's presets (PAPI_TOT_INS...) are component 0's only: papi_preset.c
 * takes the native events of a preset from component 0 alone. Where kpmc is
 * component 0 (make papi KPMC_PAPI_CPU=kpmc), it loads papi_events.csv's
 * table for the libpfm4 PMU its events are named by, as perf_event does in
 * that place; a preset whose events kpmc does not know is left out.
 *
 * perf_event loads them from its init_component, which PAPI runs once every
 * other component is started and the calling thread's descriptor made (it
 * picks perf_event out by name); kpmc's runs first, before either. So for
 * the load only: a scratch descriptor holds the event code the loader is
 * resolving, and the components not started yet are marked disabled, so
 * that the loader, looking for a name kpmc does not know, does not call
 * into them (their missing functions are filled in at their start).
 */
#define KPMC_PAPI_MAX_COMPONENTS 64	/* PAPI's compiled-in components: a handful */
/*
 * While presets load, only listed events name theirs: kpmc -L lists the
 * events the PMU implements (on arm64 the common events PMCEID has), and
 * a preset of another (PAPI_L1_ICM's L1I_CACHE_REFILL where QEMU's
 * cortex-a57 has none) would be refused at every PAPI_start, where
 * perf_event counts 0. Left out, PAPI_query_event says so at once.
 */
static int loading_presets;

static void load_presets(int cidx)
{
#if defined(HAVE_THREAD_LOCAL_STORAGE)
	ThreadInfo_t scratch, *was = _papi_hwi_my_thread;
	int disabled[KPMC_PAPI_MAX_COMPONENTS];
	char name[64];
	int id, ret, i;

	if (kpmc_papi_core_pmu(name, sizeof(name), &id))
		return;
	memset(&scratch, 0, sizeof(scratch));
	scratch.tls_papi_event_code = (unsigned int)-1;
	scratch.tls_papi_event_code_changed = -1;
	if (!was)
		_papi_hwi_my_thread = &scratch;
	for (i = cidx + 1; i < papi_num_components && i < KPMC_PAPI_MAX_COMPONENTS; i++) {
		disabled[i] = _papi_hwd[i]->cmp_info.disabled;
		_papi_hwd[i]->cmp_info.disabled = PAPI_ECMP;
	}
	loading_presets = 1;
	ret = _papi_load_preset_table(name, id, cidx);
	loading_presets = 0;
	for (i = cidx + 1; i < papi_num_components && i < KPMC_PAPI_MAX_COMPONENTS; i++)
		_papi_hwd[i]->cmp_info.disabled = disabled[i];
	_papi_hwi_my_thread = was;
	if (ret != PAPI_OK)
		SUBDBG("kpmc: no presets for %s: %d\n", name, ret);
#else
	(void)cidx;
	SUBDBG("kpmc: no presets: PAPI built without thread-local storage\n");
#endif
}

static int _kpmc_init_component(int cidx)
{
	char why[PAPI_MAX_STR_LEN];
	unsigned int mpx;

	_kpmc_vector.cmp_info.CmpIdx = cidx;
	_kpmc_vector.cmp_info.hardware_intr_sig = kpmc_papi_overflow_signal();
	if (!kpmc_proc_present())
		return disable(PAPI_ENOSUPP, "kpmc module not loaded (" KPMC_PROC_DIR " missing)");
	if (access(KPMC_PROC_INFO, R_OK)) {
		snprintf(why, sizeof(why), "kpmc: " KPMC_PROC_INFO " not readable: %s", strerror(errno));
		return disable(PAPI_EPERM, why);
	}
	if (kpmc_papi_pmu_read(&pmu)) {
		snprintf(why, sizeof(why), "kpmc reports no usable PMU (backend '%s')", pmu.backend);
		return disable(PAPI_ENOSUPP, why);
	}
	kpmc_papi_pfm_start(&pmu);
	if (kpmc_papi_events_load(&pmu, why, sizeof(why)))
		return disable(PAPI_ENOSUPP, why);
	if (cidx == 0)
		load_presets(cidx);
	mpx = pmu.layout.nr_counters * KPMC_MAX_SETS;
	_kpmc_vector.cmp_info.num_cntrs = (int)pmu.layout.nr_counters;
	_kpmc_vector.cmp_info.num_mpx_cntrs = (int)(mpx < KPMC_PAPI_MAX_EVENTS ? mpx : KPMC_PAPI_MAX_EVENTS);
	_kpmc_vector.cmp_info.num_native_events = (int)kpmc_papi_events_count();
	_kpmc_vector.cmp_info.disabled = PAPI_OK;
	return PAPI_OK;
}

static int _kpmc_shutdown_component(void)
{
	kpmc_papi_events_free();
	return PAPI_OK;
}

static int _kpmc_init_thread(hwd_context_t *ctx)
{
	struct kpmc_papi_context *c = ctx;

	c->monitor_fd = c->config_fd = c->enable_fd = -1;
	c->tid = 0;
	c->counting = NULL;
	c->written[0] = '\0';
	return PAPI_OK;
}

static int _kpmc_init_control_state(hwd_control_state_t *ctl)
{
	struct kpmc_papi_control *k = ctl;

	memset(k, 0, sizeof(*k));
	k->domain = _kpmc_vector.cmp_info.default_domain;
	k->mux_ms = KPMC_PAPI_DEFAULT_MUX_MS;
	return PAPI_OK;
}

/*
 * A native code: the event's index in the list, and above
 * KPMC_PAPI_UMASK_SHIFT the number (from 1) of one of its unit masks as
 * PAPI_NTV_ENUM_UMASKS gave it (0: the event itself).
 */
#define KPMC_PAPI_UMASK_SHIFT	20
#define KPMC_PAPI_EVENT_MASK	((1u << KPMC_PAPI_UMASK_SHIFT) - 1)

/*
 * A native code's event: its name (EVENT or EVENT:UMASK) and description;
 * with ref, what the plan needs of it instead, its encoder's name
 * (PMU::EVENT[:UMASK]) in name. 0, or -1 for no such code.
 */
static int code_event(unsigned int code, char *name, size_t len, char *descr, size_t dlen,
		      struct kpmc_papi_event_ref *ref)
{
	const struct kpmc_papi_event *e = kpmc_papi_event(code & KPMC_PAPI_EVENT_MASK);
	unsigned int umask = code >> KPMC_PAPI_UMASK_SHIFT;
	char um[KPMC_PAPI_NAME_LEN];

	if (!e)
		return -1;
	if (!umask) {
		snprintf(descr, dlen, "%s", e->descr);
		snprintf(name, len, "%s", ref ? e->pfm_name : e->name);
	} else {
		if (kpmc_papi_event_umask(e, umask - 1, um, sizeof(um), descr, dlen))
			return -1;
		snprintf(name, len, "%s:%s", ref ? e->pfm_name : e->name, um);
	}
	if (ref) {
		ref->pfm_name = name;
		ref->has_code = umask ? 0 : e->has_code;
		ref->code = e->code;
	}
	return 0;
}

/*
 * How often an attached thread's counts are sampled (ms of its on-CPU
 * time): a read lags by up to that; the session's ring, taken at reads and
 * stops only, holds KPMC_PAPI_RING_RECORDS of them.
 */
#define KPMC_PAPI_ATTACH_TBS_MS	"100"
/* kpmc's shortest EBS period (KPMC_EBS_MIN_PERIOD in the kernel's config.h). */
#define KPMC_PAPI_EBS_MIN	10000u
/* 4 MiB of 256-byte records: 27 minutes of an attached thread's samples. */
#define KPMC_PAPI_RING_RECORDS	"16384"

/*
 * The plan for the event set's events, domain, multiplexing and attached
 * thread as they are now; one that cannot be made leaves the last one.
 */
static int replan(struct kpmc_papi_control *k)
{
	struct kpmc_papi_event_ref ref[KPMC_PAPI_MAX_EVENTS];
	/* Names of unit-mask events, for ref[i].pfm_name. */
	static __thread char names[KPMC_PAPI_MAX_EVENTS][2 * KPMC_PAPI_NAME_LEN];
	struct kpmc_papi_plan plan;
	char why[256], descr[KPMC_PAPI_DESCR_LEN];
	unsigned int i;
	int ret;

	unsigned int nr_hw = 0, virt_of[KPMC_PAPI_MAX_EVENTS], hw_of[KPMC_PAPI_MAX_EVENTS];
	uint32_t virt_used = 0;
	const struct kpmc_papi_event *e;

	for (i = 0; i < k->nr_events; i++) {
		e = kpmc_papi_event(k->event[i] & KPMC_PAPI_EVENT_MASK);
		virt_of[i] = e && !(k->event[i] >> KPMC_PAPI_UMASK_SHIFT) ? e->virt : 0;
		hw_of[i] = nr_hw;
		if (virt_of[i]) {
			virt_used |= 1u << (virt_of[i] - 1);
			continue;
		}
		if (code_event(k->event[i], names[nr_hw], sizeof(names[nr_hw]), descr, sizeof(descr),
			       &ref[nr_hw]))
			return PAPI_ENOEVNT;
		nr_hw++;
	}
	/*
	 * Virtual counters alone: the thread still counts (its records and
	 * reads are of a counting thread), cycles on the PMU, unreported.
	 */
	if (!nr_hw && k->nr_events) {
		ref[0].pfm_name = "cycles";
		ref[0].has_code = 0;
		ref[0].code = 0;
		nr_hw = 1;
	}
	ret = kpmc_papi_plan_make(&pmu, ref, nr_hw, !!(k->domain & PAPI_DOM_USER),
				  !!(k->domain & (PAPI_DOM_KERNEL | PAPI_DOM_SUPERVISOR)),
				  k->multiplexed, k->mux_ms, &plan, why, sizeof(why));
	/* An attached thread's counts come as records only: samples, every few ms. */
	if (ret == KPMC_PAPI_PLAN_OK && k->attach_tid && plan.nr_sets)
		ret = kpmc_papi_plan_add_token(&plan, "tbs=" KPMC_PAPI_ATTACH_TBS_MS);
	if (ret == KPMC_PAPI_PLAN_OK && k->overflow_event) {
		char ebs[48];

		i = k->overflow_event - 1;
		/* Its own thread, one set, a PMU counter: kpmc's EBS. */
		if (i >= k->nr_events || virt_of[i] || plan.nr_sets != 1 || k->attach_tid) {
			SUBDBG("kpmc: overflow needs a PMU event of one unmultiplexed, unattached set\n");
			return PAPI_ECNFLCT;
		}
		k->overflow_pmc = plan.pmc_of[hw_of[i]];
		snprintf(ebs, sizeof(ebs), "ebs%u=%llu", k->overflow_pmc, k->overflow_threshold);
		ret = kpmc_papi_plan_add_token(&plan, ebs);
	}
	if (ret == KPMC_PAPI_PLAN_OK) {
		k->plan = plan;
		memcpy(k->virt_of, virt_of, sizeof(virt_of));
		memcpy(k->hw_of, hw_of, sizeof(hw_of));
		k->virt_used = virt_used;
		return PAPI_OK;
	}
	SUBDBG("kpmc: %s\n", why);
	return ret == KPMC_PAPI_PLAN_UNKNOWN ? PAPI_ENOEVNT : PAPI_ECNFLCT;
}

static int _kpmc_update_control_state(hwd_control_state_t *ctl, NativeInfo_t *native, int count,
				      hwd_context_t *ctx)
{
	struct kpmc_papi_control *k = ctl;
	unsigned int was[KPMC_PAPI_MAX_EVENTS], nr_was = k->nr_events;
	int i, ret;

	(void)ctx;
	if (count < 0 || count > KPMC_PAPI_MAX_EVENTS)
		return PAPI_ECNFLCT;
	memcpy(was, k->event, sizeof(was));
	k->nr_events = (unsigned int)count;
	for (i = 0; i < count; i++)
		k->event[i] = (unsigned int)native[i].ni_event;
	ret = replan(k);
	if (ret != PAPI_OK) {
		/* The event set stays as it was: events and plan. */
		memcpy(k->event, was, sizeof(was));
		k->nr_events = nr_was;
		return ret;
	}
	for (i = 0; i < count; i++)
		native[i].ni_position = i;
	return PAPI_OK;
}

/* A refusal of kpmc's as PAPI's error, its reason in PAPI's error output. */
static int kpmc_error(const char *what, int err, const char *why)
{
	PAPIERROR("kpmc: %s: %s", what, why);
	if (err == -EACCES || err == -EPERM)
		return PAPI_EPERM;
	if (err == -EBUSY)
		return PAPI_ECNFLCT;
	return PAPI_ESYS;
}

/* The thread's counts; with several sets through read(), which has each set's time. */
/*
 * The thread's counts and, where k has them, its virtual counters: then in
 * the same read() of /proc/kpmc/self (libkpmc's, struct kpmc_self_all).
 */
static int read_now(const struct kpmc_papi_control *k, struct kpmc_counts *now, uint64_t *virt)
{
	uint32_t have = 0;
	int err;

	if (k->virt_used)
		err = kpmc_lib_read_virt(now, virt, &have);
	else
		err = k->plan.nr_sets > 1 ? kpmc_lib_read(now, 1) : kpmc_read(now);
	if (err) {
		PAPIERROR("kpmc: reading the thread's counts: %s", strerror(-err));
		return PAPI_ESYS;
	}
	if ((have & k->virt_used) != k->virt_used) {
		PAPIERROR("kpmc: the active monitoring module gives no virtual counters 0x%x between records (another one since PAPI started?)",
			  k->virt_used & ~have);
		return PAPI_ESYS;
	}
	return PAPI_OK;
}

/* A set's count over the whole time: scaled by all_ns / set_ns when sets rotate. */
static long long estimate(uint64_t count, uint64_t set_ns, uint64_t all_ns, int rotating)
{
	if (!rotating)
		return (long long)count;
	return set_ns ? (long long)((double)count * (double)all_ns / (double)set_ns + 0.5) : 0;
}

/*
 * Each event's count since the base: its set's count scaled by the
 * thread's on-CPU time over the set's when sets rotate. A read that has
 * no per-set times (KPMC_READ_PATH=fast forces the page) gives the counts
 * unscaled. With PAPI_INHERIT, plus the created threads' counts, scaled by
 * their own times.
 */
static void values_since_base(struct kpmc_papi_control *k, const struct kpmc_counts *now,
			      const uint64_t *virt)
{
	const struct kpmc_counts *b = &k->base;
	const struct kpmc_papi_records *o = &k->others;
	int rotating = k->plan.nr_sets > 1;
	unsigned int i, s, p, v;

	for (i = 0; i < k->nr_events; i++) {
		if (k->virt_of[i]) {
			/* The thread's own, and with PAPI_INHERIT its created threads'. */
			v = k->virt_of[i] - 1;
			k->values[i] = (long long)(virt[v] - k->base_virt[v]);
			if (k->inherit)
				k->values[i] += (long long)o->virt[v];
			continue;
		}
		s = k->plan.set_of[k->hw_of[i]];
		p = k->plan.pmc_of[k->hw_of[i]];
		if (!rotating || now->nr_sets <= s || b->nr_sets <= s)
			k->values[i] = (long long)(now->counts[p] - b->counts[p]);
		else
			k->values[i] = estimate(now->sets[s].counts[p] - b->sets[s].counts[p],
						now->sets[s].run_ns - b->sets[s].run_ns,
						now->run_ns - b->run_ns, 1);
		if (k->inherit)
			k->values[i] += estimate(o->counts[s][p], o->set_ns[s], o->run_ns, rotating);
	}
}

/* An attached event set's counts: the attached thread's records (and its children's). */
static void values_of_records(struct kpmc_papi_control *k)
{
	const struct kpmc_papi_records *o = &k->others;
	unsigned int i, s, p;

	for (i = 0; i < k->nr_events; i++) {
		if (k->virt_of[i]) {
			k->values[i] = (long long)o->virt[k->virt_of[i] - 1];
			continue;
		}
		s = k->plan.set_of[k->hw_of[i]];
		p = k->plan.pmc_of[k->hw_of[i]];
		k->values[i] = estimate(o->counts[s][p], o->set_ns[s], o->run_ns, k->plan.nr_sets > 1);
	}
}

/*
 * A record of the session, for k: the counts of another thread, summed
 * where they are k's (a created thread's with PAPI_INHERIT; attached, the
 * attached thread's and, with PAPI_INHERIT, the threads it creates).
 */
static void take_record(struct kpmc_papi_control *k, const struct kpmc_record *r, uint32_t self)
{
	struct kpmc_papi_records *o = &k->others;
	unsigned int p;
	int ours;

	if (r->version != KPMC_RECORD_VERSION || r->size != sizeof(*r) || r->set >= KPMC_MAX_SETS)
		return;
	if (r->kind == KPMC_REC_LOST) {
		k->lost += r->lost;
		return;
	}
	ours = k->attach_tid ? r->tid == k->attach_tid || k->inherit : k->inherit && r->tid != self;
	if (!ours)
		return;
	if (k->attach_tid && r->tid == k->attach_tid &&
	    (r->kind == KPMC_REC_EXIT || r->kind == KPMC_REC_DETACH))
		k->target_gone = 1;
	switch (r->kind) {
	case KPMC_REC_TBS:
	case KPMC_REC_EXIT:
	case KPMC_REC_DETACH:
	case KPMC_REC_EBS:
	case KPMC_REC_MUX:
		break;
	default:
		return;		/* no thread's counts: lost records, memory, stacks, CPUs */
	}
	o->run_ns += r->run_ns;
	o->set_ns[r->set] += r->run_ns;
	for (p = 0; p < KPMC_MAX_COUNTERS; p++)
		if (r->counter_mask & (1u << p))
			o->counts[r->set][p] += r->counts[p];
	for (p = 0; p < KPMC_MAX_VIRT; p++)
		if (r->virt_mask & (1u << p))
			o->virt[p] += r->virt[p];
}

/*
 * The records the thread's session holds (its own rotations and detach,
 * the threads it created), taken so the ring keeps room; those of the
 * created threads count for k where it inherits (k NULL: none does).
 */
/* An EBS record of the thread's own: the thresholds its sampling counter crossed. */
static void take_overflow(struct kpmc_papi_control *k, const struct kpmc_record *r)
{
	if (!(r->counter_mask & (1u << k->overflow_pmc)))
		return;
	k->overflow_carry += r->counts[k->overflow_pmc];
	for (; k->overflow_carry >= k->overflow_threshold; k->overflow_carry -= k->overflow_threshold)
		k->overflow_backlog++;
}

static void drain_records(const struct kpmc_papi_context *c, struct kpmc_papi_control *k)
{
	struct kpmc_record rec[16];
	uint32_t self = (uint32_t)syscall(SYS_gettid);
	ssize_t n, i;

	while (c->monitor_fd >= 0 && (n = read(c->monitor_fd, rec, sizeof(rec))) > 0) {
		for (i = 0; k && i < n / (ssize_t)sizeof(rec[0]); i++) {
			/* The thread's own overflows: for its overflow handler. */
			if (k->overflow_event && rec[i].kind == KPMC_REC_EBS && rec[i].tid == self)
				take_overflow(k, &rec[i]);
			else if (k->inherit || k->attach_tid)
				take_record(k, &rec[i], self);
		}
	}
}

/*
 * The overflow handler takes the records too: outside it, its signal is
 * blocked while they are taken, so that the two never count one at once.
 */
static void drain_session(const struct kpmc_papi_context *c, struct kpmc_papi_control *k)
{
	sigset_t sig, old;

	if (!k || !k->overflow_event) {
		drain_records(c, k);
		return;
	}
	sigemptyset(&sig);
	sigaddset(&sig, kpmc_papi_overflow_signal());
	pthread_sigmask(SIG_BLOCK, &sig, &old);
	drain_records(c, k);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The thread's files closed (the session's close stops what it still counts). */
static void close_session(struct kpmc_papi_context *c)
{
	if (c->config_fd >= 0)
		close(c->config_fd);
	if (c->enable_fd >= 0)
		close(c->enable_fd);
	if (c->monitor_fd >= 0)
		close(c->monitor_fd);
	c->monitor_fd = c->config_fd = c->enable_fd = -1;
	c->written[0] = '\0';
}

/*
 * This thread's session, opened at its first start: 0, or PAPI's error.
 * Opened for an event set whose counts are records (attached, inheriting),
 * its ring is made bigger than kpmc's default 4096 records: it is taken at
 * reads and stops only. Older modules have no ring= (and no O_RDWR):
 * the default ring then.
 */
static int open_session(struct kpmc_papi_context *c, const struct kpmc_papi_control *k)
{
	char why[256];
	int fd;

	if (c->monitor_fd >= 0)
		return PAPI_OK;
	fd = kpmc_proc_open("monitor", O_RDWR | O_NONBLOCK);
	if (fd < 0)
		fd = kpmc_proc_open("monitor", O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		kpmc_proc_reason(-fd, why, sizeof(why));
		return kpmc_error(KPMC_PROC_DIR "/monitor", fd, why);
	}
	if (k->attach_tid || k->inherit)
		kpmc_proc_request(fd, "ring=" KPMC_PAPI_RING_RECORDS, why, sizeof(why));
	c->config_fd = kpmc_proc_open("config", O_WRONLY);
	c->enable_fd = kpmc_proc_open("enable", O_WRONLY);
	if (c->config_fd < 0 || c->enable_fd < 0) {
		int err = c->config_fd < 0 ? c->config_fd : c->enable_fd;

		kpmc_proc_reason(-err, why, sizeof(why));
		close_session(c);
		close(fd);
		return kpmc_error(KPMC_PROC_DIR "/config, enable", err, why);
	}
	c->monitor_fd = fd;
	c->tid = (uint32_t)syscall(SYS_gettid);
	return PAPI_OK;
}


/*
 * The event set's configuration as the thread's, written unless it is the
 * one kpmc kept from the thread's last start: 0, or the refusal.
 */
static int configure(struct kpmc_papi_context *c, const struct kpmc_papi_control *k, char *why,
		     size_t len)
{
	int err;

	if (!strcmp(c->written, k->plan.config))
		return 0;
	c->written[0] = '\0';
	err = kpmc_proc_request(c->config_fd, k->plan.config, why, len);
	if (err == -EBUSY) {
		/*
		 * Counting already: a thread created by a counting thread
		 * counts for its creator's session. It stops that, to count
		 * its own event set in its own session.
		 */
		kpmc_proc_request(c->enable_fd, "0", why, len);
		err = kpmc_proc_request(c->config_fd, k->plan.config, why, len);
	}
	if (!err)
		snprintf(c->written, sizeof(c->written), "%s", k->plan.config);
	return err;
}

static int _kpmc_start(hwd_context_t *ctx, hwd_control_state_t *ctl)
{
	struct kpmc_papi_context *c = ctx;
	struct kpmc_papi_control *k = ctl;
	char why[256], attach[32];
	int err;

	if (c->counting)
		return PAPI_EISRUN;
	err = open_session(c, k);
	if (err != PAPI_OK)
		return err;
	err = configure(c, k, why, sizeof(why));
	if (err)
		return kpmc_error("configuration refused", err, why);
	/* What the session held before counts for no one. */
	drain_session(c, NULL);
	memset(&k->others, 0, sizeof(k->others));
	memset(k->values, 0, sizeof(k->values));
	k->target_gone = 0;
	k->lost = 0;
	if (k->attach_tid) {
		/* The caller's configuration, the caller's session: the attached thread's records. */
		snprintf(attach, sizeof(attach), "pid=%u", k->attach_tid);
		err = kpmc_proc_request(c->enable_fd, attach, why, sizeof(why));
		if (err)
			return kpmc_error("attach refused", err, why);
	} else {
		if (k->overflow_event) {
			/* Every EBS record wakes the session's reader: the poller. */
			err = kpmc_proc_request(c->monitor_fd, "wakeup=0", why, sizeof(why));
			if (err)
				return kpmc_error("overflow: wakeup=0 refused", err, why);
			k->overflow_backlog = 0;
			k->overflow_carry = 0;
			err = kpmc_papi_overflow_arm(c, c->monitor_fd, (pid_t)c->tid, &c->overflow_pending);
			if (err) {
				PAPIERROR("kpmc: overflow: no poller thread: %s", strerror(-err));
				return PAPI_ESYS;
			}
		}
		err = kpmc_proc_request(c->enable_fd, "1", why, sizeof(why));
		if (err == -EINVAL) {
			/*
			 * The configuration kept is no longer ours: an attach
			 * by another session put its own in the thread's
			 * state meanwhile. Written again.
			 */
			c->written[0] = '\0';
			err = configure(c, k, why, sizeof(why));
			if (!err)
				err = kpmc_proc_request(c->enable_fd, "1", why, sizeof(why));
		}
		if (err) {
			kpmc_papi_overflow_disarm(c);
			return kpmc_error("enable refused", err, why);
		}
		err = read_now(k, &k->base, k->base_virt);
		if (err) {
			kpmc_proc_request(c->enable_fd, "0", why, sizeof(why));
			kpmc_papi_overflow_disarm(c);
			return err;
		}
	}
	k->running = 1;
	c->counting = k;
	return PAPI_OK;
}

/*
 * Detach the attached thread and take its last counts: kpmc detaches it on
 * its CPU at its next switch or tick, its detach record following. A
 * thread that does not run meanwhile (asleep) keeps its counts since its
 * last sample: they are waited for KPMC_PAPI_DETACH_WAIT_MS, no longer.
 */
#define KPMC_PAPI_DETACH_WAIT_MS	200
static int detach_target(struct kpmc_papi_context *c, struct kpmc_papi_control *k)
{
	struct pollfd p = { .fd = c->monitor_fd, .events = POLLIN };
	char why[256], req[40];
	int err = 0, waited;

	drain_session(c, k);
	if (!k->target_gone) {
		snprintf(req, sizeof(req), "pid=%u,stop", k->attach_tid);
		err = kpmc_proc_request(c->enable_fd, req, why, sizeof(why));
		/* Gone meanwhile (its exit record is in, or on its way): not an error. */
		if (err == -ESRCH)
			err = 0;
	}
	for (waited = 0; !err && !k->target_gone && waited < KPMC_PAPI_DETACH_WAIT_MS; waited += 10) {
		poll(&p, 1, 10);
		drain_session(c, k);
	}
	values_of_records(k);
	return err ? kpmc_error("detach refused", err, why) : PAPI_OK;
}

static int _kpmc_stop(hwd_context_t *ctx, hwd_control_state_t *ctl)
{
	struct kpmc_papi_context *c = ctx;
	struct kpmc_papi_control *k = ctl;
	struct kpmc_counts now;
	uint64_t virt[KPMC_MAX_VIRT];
	char why[256];
	int ret = PAPI_OK, err;

	if (!k->running)
		return PAPI_OK;
	if (k->attach_tid) {
		ret = detach_target(c, k);
	} else if (k->overflow_event) {
		/*
		 * The counts, the stop, then the thread signals itself: its
		 * handler runs before tgkill returns and dispatches every
		 * overflow the session holds (created threads' records too).
		 */
		ret = read_now(k, &now, virt);
		err = kpmc_proc_request(c->enable_fd, "0", why, sizeof(why));
		if (err && ret == PAPI_OK)
			ret = kpmc_error("stop refused", err, why);
		syscall(SYS_tgkill, getpid(), (pid_t)c->tid, kpmc_papi_overflow_signal());
		kpmc_papi_overflow_disarm(c);
		if (ret == PAPI_OK)
			values_since_base(k, &now, virt);
	} else {
		/* The last counts first: a thread that stops counting has none to read. */
		drain_session(c, k);
		if (read_now(k, &now, virt) == PAPI_OK)
			values_since_base(k, &now, virt);
		else
			ret = PAPI_ESYS;
		err = kpmc_proc_request(c->enable_fd, "0", why, sizeof(why));
		if (err && ret == PAPI_OK)
			ret = kpmc_error("stop refused", err, why);
		/* Its detach record is taken at the next start, or the session's close. */
	}
	/* PAPI_VERBOSE=1 shows it: the counts of records are short by what was dropped. */
	if (k->lost)
		PAPIERROR("kpmc: the session's ring dropped %llu records: attached or created threads' counts are short",
			  (unsigned long long)k->lost);
	k->running = 0;
	if (c->counting == k)
		c->counting = NULL;
	return ret;
}

static int _kpmc_read(hwd_context_t *ctx, hwd_control_state_t *ctl, long long **events, int flags)
{
	struct kpmc_papi_control *k = ctl;
	struct kpmc_counts now;
	uint64_t virt[KPMC_MAX_VIRT];
	int ret;

	(void)flags;
	if (k->running && k->attach_tid) {
		drain_session(ctx, k);
		values_of_records(k);
	} else if (k->running) {
		/* Rotations and created threads' exits are records in the session's ring. */
		if (k->plan.nr_sets > 1 || k->inherit)
			drain_session(ctx, k);
		ret = read_now(k, &now, virt);
		if (ret != PAPI_OK)
			return ret;
		values_since_base(k, &now, virt);
	}
	*events = k->values;
	return PAPI_OK;
}

static int _kpmc_reset(hwd_context_t *ctx, hwd_control_state_t *ctl)
{
	struct kpmc_papi_control *k = ctl;

	memset(k->values, 0, sizeof(k->values));
	if (!k->running)
		return PAPI_OK;
	/*
	 * The records up to now are taken and counted for no one (attached,
	 * through take_record, which notes the thread's exit).
	 */
	drain_session(ctx, k->attach_tid ? k : NULL);
	memset(&k->others, 0, sizeof(k->others));
	return k->attach_tid ? PAPI_OK : read_now(k, &k->base, k->base_virt);
}

/*
 * PAPI shuts a thread down from that thread, or all of them from the one
 * that calls PAPI_shutdown(). enable 0 stops the thread that writes it: only
 * the owner writes it; another's counting stops with its session's close
 * (kpmc stops a closed session's threads at their next switch).
 */
static int _kpmc_shutdown_thread(hwd_context_t *ctx)
{
	struct kpmc_papi_context *c = ctx;
	char why[256];

	kpmc_papi_overflow_disarm(c);
	if (c->counting) {
		if (c->tid == (uint32_t)syscall(SYS_gettid))
			kpmc_proc_request(c->enable_fd, "0", why, sizeof(why));
		c->counting->running = 0;
		c->counting = NULL;
	}
	close_session(c);
	return PAPI_OK;
}

/*
 * PAPI_overflow on kpmc events is PAPI's software overflow (hardware_intr
 * is 0): PAPI's timer signal lands in the counting thread's handler, this,
 * which has PAPI read the counters and call the user's handler for those
 * past their threshold, at the interrupted pc.
 */
static void _kpmc_dispatch_timer(int sig, hwd_siginfo_t *info, void *uc)
{
	_papi_hwi_context_t hw_context;
	ThreadInfo_t *thread = _papi_hwi_lookup_thread(0);
	int cidx = _kpmc_vector.cmp_info.CmpIdx;
	EventSetInfo_t *esi = thread ? thread->running_eventset[cidx] : NULL;
	struct kpmc_papi_context *c = thread ? thread->context[cidx] : NULL;
	struct kpmc_papi_control *k;
	long long bit;

	hw_context.si = info;
	hw_context.ucontext = (hwd_ucontext_t *)uc;
	if (sig != kpmc_papi_overflow_signal()) {
		/* Software overflow's flags are the user's (0, often): the state says it. */
		if (esi && (esi->state & PAPI_OVERFLOWING))
			_papi_hwi_dispatch_overflow_signal(&hw_context, GET_OVERFLOW_ADDRESS(hw_context),
							   NULL, 0, 0, &thread, cidx);
		return;
	}
	/*
	 * kpmc's EBS: one dispatch per record of the thread's own. The
	 * address is where the signal found the thread, after the overflow
	 * (EBS records carry no pc; fmt=callstack's would).
	 */
	k = c ? c->counting : NULL;
	if (k && k->overflow_event) {
		drain_records(c, k);
		bit = 1LL << (k->overflow_event - 1);
		for (; k->overflow_backlog; k->overflow_backlog--)
			if (esi && (esi->state & PAPI_OVERFLOWING))
				_papi_hwi_dispatch_overflow_signal(&hw_context,
								   GET_OVERFLOW_ADDRESS(hw_context),
								   NULL, bit, 0, &thread, cidx);
	}
	if (c)
		kpmc_papi_overflow_done(&c->overflow_pending);
}

/*
 * PAPI_overflow: threshold events of event EventIndex per overflow, by
 * kpmc's EBS (ebsN=threshold on its counter); 0 stops it.
 */
static int _kpmc_set_overflow(EventSetInfo_t *ESI, int EventIndex, int threshold)
{
	struct kpmc_papi_control *k = ESI->ctl_state;
	int pos = ESI->EventInfoArray[EventIndex].pos[0], sig = kpmc_papi_overflow_signal();
	unsigned int was_event = k->overflow_event;
	unsigned long long was_threshold = k->overflow_threshold;
	int ret;

	if (pos < 0 || (unsigned int)pos >= k->nr_events)
		return PAPI_EINVAL;
	if (!threshold) {
		if (k->overflow_event != (unsigned int)pos + 1)
			return PAPI_EINVAL;
		k->overflow_event = 0;
		ret = replan(k);
		if (ret == PAPI_OK)
			return _papi_hwi_stop_signal(sig);
		k->overflow_event = was_event;
		return ret;
	}
	if (k->overflow_event && k->overflow_event != (unsigned int)pos + 1) {
		PAPIERROR("kpmc: one overflowing event per event set (kpmc samples one counter)");
		return PAPI_ECNFLCT;
	}
	if ((unsigned int)threshold < KPMC_PAPI_EBS_MIN) {
		PAPIERROR("kpmc: an overflow threshold of at least %u events (kpmc's shortest EBS period)",
			  KPMC_PAPI_EBS_MIN);
		return PAPI_EINVAL;
	}
	k->overflow_event = (unsigned int)pos + 1;
	k->overflow_threshold = (unsigned long long)threshold;
	ret = replan(k);
	if (ret != PAPI_OK) {
		k->overflow_event = was_event;
		k->overflow_threshold = was_threshold;
		return ret;
	}
	return _papi_hwi_start_signal(sig, 1, _kpmc_vector.cmp_info.CmpIdx);
}

static int set_domain(struct kpmc_papi_control *k, int domain)
{
	int old = k->domain, ret;

	if (!(domain & (PAPI_DOM_USER | PAPI_DOM_KERNEL | PAPI_DOM_SUPERVISOR)))
		return PAPI_EINVAL;
	k->domain = domain;
	ret = replan(k);
	if (ret != PAPI_OK)
		k->domain = old;	/* the plan stays the old domain's */
	return ret;
}

static int _kpmc_set_domain(hwd_control_state_t *ctl, int domain)
{
	return set_domain(ctl, domain);
}

static int _kpmc_ctl(hwd_context_t *ctx, int code, _papi_int_option_t *option)
{
	struct kpmc_papi_control *k;
	unsigned long ms;
	uint32_t old;
	int ret;

	(void)ctx;
	switch (code) {
	case PAPI_MULTIPLEX:
		k = option->multiplex.ESI->ctl_state;
		/* kpmc rotates sets in whole ms of the thread's on-CPU time. */
		ms = option->multiplex.ns / 1000000;
		k->mux_ms = ms ? (unsigned int)ms : KPMC_PAPI_DEFAULT_MUX_MS;
		option->multiplex.ns = (unsigned long)k->mux_ms * 1000000;
		k->multiplexed = 1;
		ret = replan(k);
		if (ret != PAPI_OK)
			k->multiplexed = 0;	/* the plan stays the unmultiplexed one */
		return ret;
	case PAPI_DOMAIN:
		return set_domain(option->domain.ESI->ctl_state, option->domain.domain);
	case PAPI_GRANUL:
		return option->granularity.granularity == PAPI_GRN_THR ? PAPI_OK : PAPI_EINVAL;
	case PAPI_INHERIT:
		k = option->inherit.ESI->ctl_state;
		k->inherit = option->inherit.inherit != PAPI_INHERIT_NONE;
		return PAPI_OK;
	case PAPI_ATTACH:
	case PAPI_DETACH:
		k = option->attach.ESI->ctl_state;
		old = k->attach_tid;
		k->attach_tid = code == PAPI_ATTACH ? (uint32_t)option->attach.tid : 0;
		ret = replan(k);
		if (ret != PAPI_OK)
			k->attach_tid = old;
		return ret;
	default:
		/* CPU attach: doc/papi.md says what it needs. */
		return PAPI_ENOSUPP;
	}
}

static int _kpmc_ntv_enum_events(unsigned int *code, int modifier)
{
	unsigned int n = kpmc_papi_events_count(), event = *code & KPMC_PAPI_EVENT_MASK;
	unsigned int umask = *code >> KPMC_PAPI_UMASK_SHIFT;
	char name[KPMC_PAPI_NAME_LEN], descr[KPMC_PAPI_DESCR_LEN];
	const struct kpmc_papi_event *e;

	switch (modifier) {
	case PAPI_ENUM_FIRST:
		if (!n)
			return PAPI_ENOEVNT;
		*code = 0;
		return PAPI_OK;
	case PAPI_ENUM_EVENTS:
		if (event + 1 >= n)
			return PAPI_ENOEVNT;
		*code = event + 1;
		return PAPI_OK;
	case PAPI_NTV_ENUM_UMASKS:
		/* The next unit mask: the umask-th (numbers from 1 in the code). */
		e = kpmc_papi_event(event);
		if (!e || kpmc_papi_event_umask(e, umask, name, sizeof(name), descr, sizeof(descr)))
			return PAPI_ENOEVNT;
		*code = event | (umask + 1) << KPMC_PAPI_UMASK_SHIFT;
		return PAPI_OK;
	default:
		return PAPI_ENOEVNT;
	}
}

static int _kpmc_ntv_name_to_code(const char *name, unsigned int *code)
{
	char why[256];

	if (loading_presets)
		return kpmc_papi_event_find(name, code) ? PAPI_ENOEVNT : PAPI_OK;
	if (kpmc_papi_event_lookup(&pmu, name, code, why, sizeof(why))) {
		SUBDBG("kpmc: %s\n", why);
		return PAPI_ENOEVNT;
	}
	return PAPI_OK;
}

/* A native event's name (descr 0) or description into PAPI's buffer. */
static int event_text(unsigned int code, int descr, char *buf, int len)
{
	char name[2 * KPMC_PAPI_NAME_LEN], text[KPMC_PAPI_DESCR_LEN];

	if (len < 1 || code_event(code, name, sizeof(name), text, sizeof(text), NULL))
		return PAPI_ENOEVNT;
	snprintf(buf, (size_t)len, "%s", descr ? text : name);
	return PAPI_OK;
}

static int _kpmc_ntv_code_to_name(unsigned int code, char *name, int len)
{
	return event_text(code, 0, name, len);
}

static int _kpmc_ntv_code_to_descr(unsigned int code, char *descr, int len)
{
	return event_text(code, 1, descr, len);
}

static int _kpmc_ntv_code_to_info(unsigned int code, PAPI_event_info_t *info)
{
	char name[2 * KPMC_PAPI_NAME_LEN], text[KPMC_PAPI_DESCR_LEN];

	if (code_event(code, name, sizeof(name), text, sizeof(text), NULL))
		return PAPI_ENOEVNT;
	snprintf(info->symbol, sizeof(info->symbol), "%s", name);
	snprintf(info->long_descr, sizeof(info->long_descr), "%s", text);
	/* Cut to PAPI's short field. */
	snprintf(info->short_descr, sizeof(info->short_descr), "%.*s",
		 (int)sizeof(info->short_descr) - 1, text);
	info->component_index = _kpmc_vector.cmp_info.CmpIdx;
	return PAPI_OK;
}

papi_vector_t _kpmc_vector = {
	.cmp_info = {
		.name = "kpmc",
		.short_name = "kpmc",
		.description = "per-thread counters of the kpmc kernel module (/proc/kpmc)",
		.version = "0.1",
		.support_version = "n/a",
		.kernel_version = "n/a",
		.default_domain = PAPI_DOM_USER,
		.available_domains = PAPI_DOM_USER | PAPI_DOM_KERNEL,
		.default_granularity = PAPI_GRN_THR,
		.available_granularities = PAPI_GRN_THR,
		/* Overflows are kpmc's EBS records, signalled (papi_kpmc_overflow.c). */
		.hardware_intr = 1,
		.hardware_intr_sig = PAPI_INT_SIGNAL,	/* kpmc_papi_overflow_signal(), at init */
		/* kpmc rotates event sets itself (PAPI_set_multiplex). */
		.kernel_multiplex = 1,
		/* kpmc counts the threads a counting thread creates (PAPI_INHERIT). */
		.inherit = 1,
		/* enable pid=N (PAPI_attach); kpmc checks the caller's ptrace rights itself. */
		.attach = 1,
		/*
		 * kpmc does not need the thread stopped, but PAPI's tools and
		 * tests take 0 to mean nobody need stop it either: zero_attach's
		 * child then stops itself and waits for a PTRACE_CONT that never
		 * comes. perf_event says 1; so does kpmc, for the same callers.
		 */
		.attach_must_ptrace = 1,
	},
	.size = {
		.context = sizeof(struct kpmc_papi_context),
		.control_state = sizeof(struct kpmc_papi_control),
		.reg_value = sizeof(struct kpmc_papi_register),
		.reg_alloc = sizeof(struct kpmc_papi_register),
	},
	.dispatch_timer = _kpmc_dispatch_timer,
	.set_overflow = _kpmc_set_overflow,
	.init_component = _kpmc_init_component,
	.shutdown_component = _kpmc_shutdown_component,
	.init_thread = _kpmc_init_thread,
	.shutdown_thread = _kpmc_shutdown_thread,
	.init_control_state = _kpmc_init_control_state,
	.update_control_state = _kpmc_update_control_state,
	.start = _kpmc_start,
	.stop = _kpmc_stop,
	.read = _kpmc_read,
	.reset = _kpmc_reset,
	.ctl = _kpmc_ctl,
	.set_domain = _kpmc_set_domain,
	.ntv_enum_events = _kpmc_ntv_enum_events,
	.ntv_name_to_code = _kpmc_ntv_name_to_code,
	.ntv_code_to_name = _kpmc_ntv_code_to_name,
	.ntv_code_to_descr = _kpmc_ntv_code_to_descr,
	.ntv_code_to_info = _kpmc_ntv_code_to_info,
};
