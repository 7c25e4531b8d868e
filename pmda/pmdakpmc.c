// SPDX-License-Identifier: GPL-2.0
/*
 * pmdakpmc: a Performance Co-Pilot agent (daemon PMDA) for kpmc. It holds
 * one kpmc session, counts what its configuration file names (events; which
 * processes, or every CPU) and serves the totals as PCP counters: per
 * process (kpmc.proc.*), per thread (kpmc.thread.*, off by default), per CPU
 * (kpmc.cpu.*), and the records the kernel lost (kpmc.lost); and the Slurm
 * job steps kpmc's SPANK plugin counted on this node (kpmc.step.*, from its
 * spool: pmda_steps.h). pmproxy turns them into OpenMetrics for Prometheus.
 *
 * Without anything to count it opens no session: the PMU stays perf's.
 */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <pcp/pmapi.h>
#include <pcp/pmda.h>

#include "pmda_attach.h"
#include "pmda_config.h"
#include "pmda_counts.h"
#include "pmda_names.h"
#include "pmda_scan.h"
#include "pmda_session.h"
#include "pmda_state.h"
#include "pmda_steps.h"
#include "pmda_cgroups.h"

/* Unused in PCP's stdpmid list (6.0.3); pmda/domain.h says the same for Install. */
#include "domain.h"

enum { CL_GLOBAL, CL_PROC, CL_THREAD, CL_CPU, CL_STEP, CL_CGROUP };
enum { INDOM_PROC, INDOM_THREAD, INDOM_CPU, INDOM_COUNTER, INDOM_VIRT, INDOM_STEP, INDOM_CGROUP,
       NR_INDOMS };

/* Items of the proc, thread and cpu clusters. */
#define ITEM_PMC(n)	(n)
#define ITEM_VIRT(n)	(KPMC_MAX_COUNTERS + (n))
#define ITEM_RUN_NS	(KPMC_MAX_COUNTERS + KPMC_MAX_VIRT)
#define ITEM_RECORDS	(ITEM_RUN_NS + 1)
#define ITEM_ALIVE	(ITEM_RUN_NS + 2)
#define NR_TASK_ITEMS	(ITEM_ALIVE + 1)
/* Items of the step cluster: ITEM_PMC(n), ITEM_RUN_NS and the records the step lost. */
#define ITEM_STEP_LOST	(ITEM_RUN_NS + 1)
#define NR_STEP_ITEMS	(KPMC_MAX_COUNTERS + 2)
/* Items of the cgroup cluster: ITEM_PMC(n), ITEM_RUN_NS, ITEM_RECORDS. */
#define NR_CGROUP_ITEMS	(KPMC_MAX_COUNTERS + 2)
#define CGROUP_ROOT	"/sys/fs/cgroup"

/* Items of the global cluster. */
enum { G_LOST, G_ACTIVE, G_PROCESSES, G_EVENT, G_VIRTUAL, G_ERROR, NR_GLOBAL };

static struct {
	const char *file;
	const char *state;			/* totals kept across restarts */
	int dirty;				/* totals changed since the state was saved */
	long long saved_ms;			/* when they were last saved (-1: not yet) */
	int save_failed;			/* the last save failed (logged once) */
	struct kpmc_pmda_config cfg;
	uid_t uids[KPMC_PMDA_MAX_SELECTORS];	/* user= selectors (and comm='s owners), resolved */
	struct kpmc_pmda_session session;
	struct kpmc_pmda_counts counts;		/* what the records say now */
	struct kpmc_pmda_counts served;		/* what fetches serve: the counts as last saved */
	char error[512];			/* why nothing is counted, or "" */
	int error_is_attach;			/* error says why attaches are held back */
	struct kpmc_pmda_attach attach;		/* threads attached, retries */
	struct kpmc_pmda_scan_cache scan_cache;	/* what scans read of each process */
	long long next_scan_ms;
	unsigned int live_procs;
	struct kpmc_pmda_steps steps;		/* the steps in cfg.steps_dir */
	long long steps_read_ms;		/* when they were last read (-1: not yet) */
	int steps_failed;			/* the last read failed (logged once) */
	struct kpmc_pmda_cgroups cgroups;	/* the cgroups the patterns name */
	unsigned long cgroups_refused;		/* refusals logged so far */
	volatile sig_atomic_t reload;
} agent = { .session = { .fd = -1 }, .saved_ms = -1, .steps_read_ms = -1 };

static pmdaIndom indomtab[NR_INDOMS];
static pmdaInstid counter_insts[KPMC_MAX_COUNTERS], virt_insts[KPMC_MAX_VIRT];
static char counter_inst_names[KPMC_MAX_COUNTERS][8], virt_inst_names[KPMC_MAX_VIRT][8];
static pmdaMetric metrics[NR_GLOBAL + 3 * NR_TASK_ITEMS + NR_STEP_ITEMS + NR_CGROUP_ITEMS];
static int nmetrics;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void add_metric(unsigned int cluster, unsigned int item, int type, pmInDom indom, int sem,
		       pmUnits units)
{
	pmdaMetric *m = &metrics[nmetrics++];

	m->m_user = NULL;
	m->m_desc.pmid = pmID_build(KPMC, cluster, item);
	m->m_desc.type = type;
	m->m_desc.indom = indom;
	m->m_desc.sem = sem;
	m->m_desc.units = units;
}

static void build_metric_table(void)
{
	pmUnits none = PMDA_PMUNITS(0, 0, 0, 0, 0, 0);
	pmUnits count = PMDA_PMUNITS(0, 0, 1, 0, 0, PM_COUNT_ONE);
	pmUnits ns = PMDA_PMUNITS(0, 1, 0, 0, PM_TIME_NSEC, 0);
	static const struct {
		unsigned int cluster;
		int indom;
	} task[] = { { CL_PROC, INDOM_PROC }, { CL_THREAD, INDOM_THREAD }, { CL_CPU, INDOM_CPU } };

	for (int i = 0; i < NR_INDOMS; i++)
		indomtab[i].it_indom = pmInDom_build(KPMC, (unsigned int)i);
	add_metric(CL_GLOBAL, G_LOST, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_COUNTER, count);
	add_metric(CL_GLOBAL, G_ACTIVE, PM_TYPE_U32, PM_INDOM_NULL, PM_SEM_DISCRETE, none);
	add_metric(CL_GLOBAL, G_PROCESSES, PM_TYPE_U32, PM_INDOM_NULL, PM_SEM_INSTANT, count);
	add_metric(CL_GLOBAL, G_EVENT, PM_TYPE_STRING, indomtab[INDOM_COUNTER].it_indom,
		   PM_SEM_DISCRETE, none);
	add_metric(CL_GLOBAL, G_VIRTUAL, PM_TYPE_STRING, indomtab[INDOM_VIRT].it_indom,
		   PM_SEM_DISCRETE, none);
	add_metric(CL_GLOBAL, G_ERROR, PM_TYPE_STRING, PM_INDOM_NULL, PM_SEM_DISCRETE, none);
	for (unsigned int t = 0; t < 3; t++) {
		pmInDom indom = indomtab[task[t].indom].it_indom;

		for (unsigned int n = 0; n < KPMC_MAX_COUNTERS; n++)
			add_metric(task[t].cluster, ITEM_PMC(n), PM_TYPE_U64, indom, PM_SEM_COUNTER, count);
		for (unsigned int n = 0; n < KPMC_MAX_VIRT; n++)
			add_metric(task[t].cluster, ITEM_VIRT(n), PM_TYPE_U64, indom, PM_SEM_COUNTER, count);
		add_metric(task[t].cluster, ITEM_RUN_NS, PM_TYPE_U64, indom, PM_SEM_COUNTER, ns);
		add_metric(task[t].cluster, ITEM_RECORDS, PM_TYPE_U64, indom, PM_SEM_COUNTER, count);
		if (task[t].cluster != CL_CPU)
			add_metric(task[t].cluster, ITEM_ALIVE, PM_TYPE_U32, indom, PM_SEM_INSTANT, none);
	}
	for (unsigned int n = 0; n < KPMC_MAX_COUNTERS; n++)
		add_metric(CL_STEP, ITEM_PMC(n), PM_TYPE_U64, indomtab[INDOM_STEP].it_indom,
			   PM_SEM_COUNTER, count);
	add_metric(CL_STEP, ITEM_RUN_NS, PM_TYPE_U64, indomtab[INDOM_STEP].it_indom, PM_SEM_COUNTER, ns);
	add_metric(CL_STEP, ITEM_STEP_LOST, PM_TYPE_U64, indomtab[INDOM_STEP].it_indom, PM_SEM_COUNTER,
		   count);
	for (unsigned int n = 0; n < KPMC_MAX_COUNTERS; n++)
		add_metric(CL_CGROUP, ITEM_PMC(n), PM_TYPE_U64, indomtab[INDOM_CGROUP].it_indom,
			   PM_SEM_COUNTER, count);
	add_metric(CL_CGROUP, ITEM_RUN_NS, PM_TYPE_U64, indomtab[INDOM_CGROUP].it_indom,
		   PM_SEM_COUNTER, ns);
	add_metric(CL_CGROUP, ITEM_RECORDS, PM_TYPE_U64, indomtab[INDOM_CGROUP].it_indom,
		   PM_SEM_COUNTER, count);
	for (unsigned int n = 0; n < KPMC_MAX_COUNTERS; n++) {
		snprintf(counter_inst_names[n], sizeof(counter_inst_names[n]), "pmc%u", n);
		counter_insts[n].i_inst = (int)n;
		counter_insts[n].i_name = counter_inst_names[n];
	}
	for (unsigned int n = 0; n < KPMC_MAX_VIRT; n++) {
		snprintf(virt_inst_names[n], sizeof(virt_inst_names[n]), "virt%u", n);
		virt_insts[n].i_inst = (int)n;
		virt_insts[n].i_name = virt_inst_names[n];
	}
}

/* ---- instance domains: rebuilt when processes, threads or CPUs come or go ---- */

static void free_insts(pmdaIndom *d)
{
	for (int i = 0; i < d->it_numinst; i++)
		free(d->it_set[i].i_name);
	free(d->it_set);
	d->it_set = NULL;
	d->it_numinst = 0;
}

/* One instance more in d, whose set has room for it (none without memory for its name). */
static void indom_add(pmdaIndom *d, unsigned int inst, const char *name)
{
	d->it_set[d->it_numinst].i_inst = (int)inst;
	d->it_set[d->it_numinst].i_name = strdup(name);
	if (d->it_set[d->it_numinst].i_name)
		d->it_numinst++;
}

/* "PID COMM", as the proc PMDA names processes (zero-padded: sorts by pid). */
static void task_indom(pmdaIndom *d, const struct kpmc_pmda_task_table *t)
{
	free_insts(d);
	d->it_set = calloc(t->n ? t->n : 1, sizeof(*d->it_set));
	if (!d->it_set)
		return;
	for (unsigned int i = 0; i < t->n; i++) {
		char name[64];

		kpmc_pmda_instance_name(name, sizeof(name), t->v[i].id, t->v[i].comm);
		indom_add(d, t->v[i].id, name);
	}
}

/* "JOB.STEP", as Slurm names steps; instance ids stay with their step. */
static void step_indom(void)
{
	pmdaIndom *d = &indomtab[INDOM_STEP];

	free_insts(d);
	d->it_set = calloc(agent.steps.n ? agent.steps.n : 1, sizeof(*d->it_set));
	if (!d->it_set)
		return;
	for (size_t i = 0; i < agent.steps.n; i++) {
		char name[48];

		snprintf(name, sizeof(name), "%u.%s", agent.steps.v[i].job, agent.steps.v[i].step);
		indom_add(d, agent.steps.v[i].inst, name);
	}
}

/* A cgroup's instance is its path; its id stays with it. */
static void cgroup_indom(void)
{
	pmdaIndom *d = &indomtab[INDOM_CGROUP];

	free_insts(d);
	d->it_set = calloc(agent.cgroups.n ? agent.cgroups.n : 1, sizeof(*d->it_set));
	if (!d->it_set)
		return;
	for (size_t i = 0; i < agent.cgroups.n; i++)
		if (agent.cgroups.v[i].id)
			indom_add(d, agent.cgroups.v[i].inst, agent.cgroups.v[i].path);
}

/* The plugin's spool, read again at most once a second however often clients ask. */
static void read_steps(void)
{
	long long now = now_ms();

	if (!agent.cfg.steps_dir[0] || (agent.steps_read_ms >= 0 && now - agent.steps_read_ms < 1000))
		return;
	agent.steps_read_ms = now;
	if (kpmc_pmda_steps_read(&agent.steps, agent.cfg.steps_dir) < 0) {
		if (!agent.steps_failed)
			pmNotifyErr(LOG_WARNING, "steps %s: %s", agent.cfg.steps_dir,
				    errno == EPERM ? "not a directory of root's that only root can write" :
				    strerror(errno));
		agent.steps_failed = 1;
		return;
	}
	agent.steps_failed = 0;
	if (agent.steps.changed) {
		agent.steps.changed = 0;
		step_indom();
	}
}

static void refresh_indoms(void)
{
	pmdaIndom *cpu = &indomtab[INDOM_CPU];
	struct kpmc_pmda_task_table none = { 0 };

	indomtab[INDOM_COUNTER].it_set = counter_insts;
	indomtab[INDOM_COUNTER].it_numinst = agent.session.fd >= 0 ? KPMC_MAX_COUNTERS : 0;
	indomtab[INDOM_VIRT].it_set = virt_insts;
	indomtab[INDOM_VIRT].it_numinst = agent.session.fd >= 0 ? KPMC_MAX_VIRT : 0;
	if (!agent.served.changed && indomtab[INDOM_PROC].it_set)
		return;
	agent.served.changed = 0;
	task_indom(&indomtab[INDOM_PROC], &agent.served.procs);
	task_indom(&indomtab[INDOM_THREAD], agent.cfg.threads ? &agent.served.threads : &none);
	free_insts(cpu);
	cpu->it_set = calloc(256, sizeof(*cpu->it_set));
	if (!cpu->it_set)
		return;
	for (unsigned int c = 0; c < 256; c++) {
		char name[16];

		if (!agent.served.cpu_seen[c])
			continue;
		snprintf(name, sizeof(name), "cpu%u", c);
		indom_add(cpu, c, name);
	}
}

/* ---- the session: records in, processes attached ---- */

/* A process entry's name and labels: what /proc said of it when it was first seen. */
static void name_proc(struct kpmc_pmda_task *p, const struct kpmc_pmda_proc_info *info)
{
	snprintf(p->comm, sizeof(p->comm), "%s", info->comm);
	snprintf(p->job, sizeof(p->job), "%s", info->job);
	snprintf(p->step, sizeof(p->step), "%s", info->step);
	snprintf(p->cgroup, sizeof(p->cgroup), "%s", info->cgroup);
	p->uid = (uint32_t)info->uid;
	p->start = info->start;
}

/* A thread is named after its process (the comm the process was first seen with). */
static void name_thread(uint32_t pid, uint32_t tid)
{
	struct kpmc_pmda_task *th = kpmc_pmda_counts_find(&agent.counts.threads, tid);
	struct kpmc_pmda_task *pr = kpmc_pmda_counts_find(&agent.counts.procs, pid);

	if (th && pr && !th->comm[0])
		memcpy(th->comm, pr->comm, sizeof(th->comm));
}

static void on_record(const struct kpmc_record *r, void *arg)
{
	struct kpmc_pmda_task *p = NULL;

	(void)arg;
	/* Counting cgroups, a CPU record is one cgroup's (its detail), not the CPU's. */
	if (agent.cfg.ncgroup_patterns && KPMC_REC_IS_CPU(r->kind)) {
		kpmc_pmda_cgroups_add(&agent.cgroups, r);
		return;
	}
	agent.dirty = 1;
	if (kpmc_pmda_counts_add(&agent.counts, r, time(NULL), agent.cfg.threads, &p)) {
		pmNotifyErr(LOG_ERR,
			    "record of kind %u (cpu %u, tid %u) not counted: out of memory or CPU past 255",
			    r->kind, r->cpu, r->tid);
		return;
	}
	if (p) {
		struct kpmc_pmda_proc_info info;

		/*
		 * Named once, at its first record: instance names stay stable.
		 * What the scan read of it, if it selected it; a child its
		 * monitored parent made is read here, once.
		 */
		if (!kpmc_pmda_scan_info("/proc", &agent.scan_cache, (pid_t)p->id, &info) ||
		    !kpmc_pmda_proc_info("/proc", (pid_t)p->id, &info))
			name_proc(p, &info);
		else
			snprintf(p->comm, sizeof(p->comm), "?");
	}
	/* A thread is named after its process (the comm it had at the first record). */
	if (agent.cfg.threads && !KPMC_REC_IS_CPU(r->kind))
		name_thread(r->pid, r->tid);
}

/*
 * A thread the scan attached: its process is an instance from now on, with
 * zero counts until its first record. A selected process that sleeps sends
 * no record while it sleeps (records come per interval of on-CPU time, and
 * at exit), and would otherwise stay invisible however long it is watched.
 */
static void attached(pid_t pid, pid_t tid, const struct kpmc_pmda_proc_info *info)
{
	struct kpmc_pmda_task *p = NULL;

	if (kpmc_pmda_counts_attached(&agent.counts, (uint32_t)pid, (uint32_t)tid, info->start,
				      agent.cfg.threads, &p)) {
		pmNotifyErr(LOG_ERR, "thread %d of process %d attached but not listed: out of memory",
			    tid, pid);
		return;
	}
	agent.dirty = 1;
	if (p)
		name_proc(p, info);
	if (agent.cfg.threads)
		name_thread((uint32_t)pid, (uint32_t)tid);
}

static void drain(void)
{
	if (agent.session.fd >= 0 && kpmc_pmda_session_drain(&agent.session, on_record, NULL) < 0) {
		snprintf(agent.error, sizeof(agent.error), "the kpmc module went away; counting stopped");
		pmNotifyErr(LOG_ERR, "%s", agent.error);
		kpmc_pmda_session_close(&agent.session);
	}
}

static int attach_one(pid_t tid, char *why, size_t len, void *arg)
{
	(void)arg;
	return kpmc_pmda_session_attach(&agent.session, tid, why, len);
}

static void on_thread(pid_t pid, pid_t tid, const struct kpmc_pmda_proc_info *info, void *arg)
{
	char why[256], comm[sizeof(info->comm)];

	(void)arg;
	switch (kpmc_pmda_attach_thread(&agent.attach, pid, tid, info->start, now_ms(), attach_one,
					NULL, why, sizeof(why))) {
	case KPMC_ATTACH_EV_REFUSED:
		kpmc_pmda_safe_text(comm, sizeof(comm), info->comm);
		pmNotifyErr(LOG_WARNING, "cannot attach thread %d of process %d (%s): %s; not tried again",
			    tid, pid, comm, why);
		break;
	case KPMC_ATTACH_EV_BLOCKED:
		pmNotifyErr(LOG_WARNING, "cannot attach threads now: %s; trying again later", why);
		/* fall through */
	case KPMC_ATTACH_EV_STILL_BLOCKED:
		if (!agent.error[0] || agent.error_is_attach) {
			snprintf(agent.error, sizeof(agent.error), "cannot attach threads now: %s", why);
			agent.error_is_attach = 1;
		}
		break;
	case KPMC_ATTACH_EV_ATTACHED:
		attached(pid, tid, info);
		break;
	case KPMC_ATTACH_EV_RESUMED:
		attached(pid, tid, info);
		pmNotifyErr(LOG_INFO, "attaching threads again");
		if (agent.error_is_attach) {
			agent.error[0] = '\0';
			agent.error_is_attach = 0;
		}
		break;
	default:
		break;
	}
}

/* Attach threads of newly selected processes; processes gone from /proc end. */
static void scan(void)
{
	time_t now = time(NULL);
	unsigned int live = 0;

	kpmc_pmda_attach_begin(&agent.attach);
	kpmc_pmda_scan("/proc", &agent.cfg, agent.uids, getpid(), &agent.scan_cache, on_thread, NULL);
	kpmc_pmda_attach_end(&agent.attach);
	for (unsigned int i = 0; i < agent.counts.procs.n; i++) {
		struct kpmc_pmda_task *p = &agent.counts.procs.v[i];
		unsigned long long start;

		/*
		 * Gone, or its pid now another process's (one restored from the
		 * state file). The scan just read the stat of every process it
		 * selected: only the others are read again (with 5,000 selected
		 * processes that is a quarter of a scan's reads saved).
		 */
		if (!p->ended && !kpmc_pmda_scan_saw(&agent.scan_cache, (pid_t)p->id, p->start) &&
		    (kpmc_pmda_proc_start("/proc", (pid_t)p->id, &start) ||
		     (p->start && start != p->start))) {
			kpmc_pmda_counts_gone(&agent.counts, p->id, now);
			agent.dirty = 1;
		}
		live += !p->ended;
	}
	agent.live_procs = live;
	kpmc_pmda_counts_expire(&agent.counts, now, agent.cfg.grace_s);
}

static int cgroup_start(int dir_fd, char *why, size_t len, void *arg)
{
	(void)arg;
	return kpmc_pmda_session_count_cgroup(&agent.session, dir_fd, why, len);
}

static void cgroup_stop(uint32_t id, void *arg)
{
	(void)arg;
	kpmc_pmda_session_uncount(&agent.session, id);
}

/* Cgroups that came are counted, those gone stop; the module's refusals logged. */
static void scan_cgroups(void)
{
	static const struct kpmc_pmda_cgroup_ops ops = { .start = cgroup_start, .stop = cgroup_stop };
	time_t now = time(NULL);

	kpmc_pmda_cgroups_scan(&agent.cgroups, CGROUP_ROOT, &agent.cfg, &ops, now);
	kpmc_pmda_cgroups_expire(&agent.cgroups, now, agent.cfg.grace_s);
	if (agent.cgroups.refused != agent.cgroups_refused) {
		agent.cgroups_refused = agent.cgroups.refused;
		pmNotifyErr(LOG_WARNING, "cgroup not counted (tried again in %d s): %s",
			    KPMC_PMDA_CGROUP_RETRY_S, agent.cgroups.refusal);
	}
	if (agent.cgroups.changed) {
		agent.cgroups.changed = 0;
		cgroup_indom();
	}
}

/* The start time of the process pid has now (pmda_counts.h: a reused pid). */
static int start_of(uint32_t pid, uint64_t *start, void *arg)
{
	unsigned long long s;

	(void)arg;
	if (kpmc_pmda_proc_start("/proc", (pid_t)pid, &s))
		return -1;
	*start = s;
	return 0;
}

/* What fetches serve from now: the counts as they are (just saved, or restored). */
static void serve_counts(void)
{
	if (kpmc_pmda_counts_copy(&agent.served, &agent.counts))
		pmNotifyErr(LOG_ERR, "out of memory: serving the totals of the last save");
	else
		agent.counts.changed = 0;
}

/* ---- configuration ---- */

static int read_file(const char *path, char **text)
{
	FILE *f = fopen(path, "r");
	size_t cap = 4096, n = 0, got;
	char *buf = malloc(cap + 1);

	if (!f || !buf) {
		if (f)
			fclose(f);
		free(buf);
		return -1;
	}
	while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			char *b = cap < (1u << 20) ? realloc(buf, cap * 2 + 1) : NULL;

			if (!b) {
				free(buf);
				fclose(f);
				errno = EFBIG;
				return -1;
			}
			buf = b;
			cap *= 2;
		}
	}
	fclose(f);
	buf[n] = '\0';
	if (strlen(buf) != n) {
		free(buf);
		errno = EINVAL;
		return -1;
	}
	*text = buf;
	return 0;
}

/* (Re)read the configuration and start counting what it names, if anything. */
static void configure_session(void)
{
	char *text = NULL, why[512];
	int n;

	/* The threads' last counts first: closing alone would drop them. */
	kpmc_pmda_session_stop(&agent.session);
	drain();
	kpmc_pmda_session_close(&agent.session);
	kpmc_pmda_counts_free(&agent.counts);
	agent.counts.changed = 1;
	kpmc_pmda_cgroups_free(&agent.cgroups);
	agent.cgroups_refused = 0;
	cgroup_indom();
	kpmc_pmda_attach_free(&agent.attach);
	kpmc_pmda_scan_cache_free(&agent.scan_cache);
	agent.error[0] = '\0';
	agent.error_is_attach = 0;
	agent.live_procs = 0;
	memset(&agent.cfg, 0, sizeof(agent.cfg));
	kpmc_pmda_steps_free(&agent.steps);
	agent.steps_read_ms = -1;
	agent.steps_failed = 0;
	step_indom();

	if (read_file(agent.file, &text)) {
		snprintf(agent.error, sizeof(agent.error), "%s: %s", agent.file, strerror(errno));
		pmNotifyErr(LOG_ERR, "%s; counting nothing", agent.error);
		return;
	}
	if (kpmc_pmda_config_parse(text, agent.file, &agent.cfg, why, sizeof(why))) {
		free(text);
		snprintf(agent.error, sizeof(agent.error), "%s", why);
		pmNotifyErr(LOG_ERR, "%s; counting nothing", why);
		return;
	}
	free(text);
	for (unsigned int i = 0; i < agent.cfg.nsel; i++) {
		const struct kpmc_pmda_selector *sel = &agent.cfg.sel[i];
		const char *user = sel->kind == KPMC_SEL_USER ? sel->text :
				   sel->kind == KPMC_SEL_COMM && sel->owner[0] ? sel->owner : NULL;

		agent.uids[i] = (uid_t)-1;
		if (user) {
			struct passwd *pw = getpwnam(user);

			if (pw)
				agent.uids[i] = pw->pw_uid;
			else
				pmNotifyErr(LOG_WARNING, "%s:%u: user '%s' does not exist (yet): it selects nobody",
					    agent.file, sel->line, user);
		}
	}
	if (!kpmc_pmda_config_active(&agent.cfg)) {
		pmNotifyErr(LOG_INFO, "%s names nothing to count: no session, no counter taken", agent.file);
		return;
	}
	if (kpmc_pmda_session_open(&agent.session, &agent.cfg, why, sizeof(why))) {
		snprintf(agent.error, sizeof(agent.error), "%s", why);
		pmNotifyErr(LOG_ERR, "%s; counting nothing", why);
		return;
	}
	if (agent.session.capable_owner)
		pmNotifyErr(LOG_WARNING,
			    "the kpmc module does not know \"unprivileged\": it counts for the agent as for root (kernel mode, across setuid programs); pmcd's access rules are all that guard these counts");
	/* What was served before a restart of the agent, if it counted the same then. */
	n = kpmc_pmda_state_load(agent.state, agent.session.raw, &agent.counts);
	if (n < 0)
		pmNotifyErr(LOG_WARNING, "%s: malformed; totals start from zero", agent.state);
	else if (n)
		pmNotifyErr(LOG_INFO, "%s: %d processes and threads restored", agent.state, n);
	agent.counts.changed = 1;
	/* The restored totals are on disk already. */
	agent.saved_ms = now_ms();
	pmNotifyErr(LOG_INFO, "counting %s (%s) for %u process selectors%s%s", agent.cfg.events,
		    agent.session.raw, agent.cfg.nsel, agent.cfg.system_wide ? ", per CPU" : "",
		    agent.cfg.ncgroup_patterns ? ", per cgroup" : "");
	agent.next_scan_ms = 0;
}

static void configure(void)
{
	agent.saved_ms = -1;
	agent.dirty = 0;
	configure_session();
	serve_counts();
	agent.served.changed = 1;
}

/* ---- PCP callbacks ---- */

static void refresh(void)
{
	if (agent.reload) {
		agent.reload = 0;
		configure();
	}
	drain();
	refresh_indoms();
	read_steps();
}

static int kpmc_fetch(int numpmid, pmID *pmidlist, pmResult **resp, pmdaExt *pmda)
{
	long long now;

	refresh();
	/*
	 * Saved before it is served: a restarted agent never reports less.
	 * At most every 'save' seconds, however often clients fetch; between
	 * saves they get the totals of the last one.
	 */
	now = now_ms();
	if (agent.session.raw[0] &&
	    kpmc_pmda_state_due(agent.saved_ms, now, agent.cfg.save_s, agent.dirty)) {
		if (kpmc_pmda_state_save(agent.state, agent.session.raw, &agent.counts)) {
			if (!agent.save_failed)
				pmNotifyErr(LOG_WARNING, "%s: %s (served totals may go back after a restart)",
					    agent.state, strerror(errno));
			agent.save_failed = 1;
		} else {
			agent.save_failed = 0;
		}
		agent.dirty = 0;
		agent.saved_ms = now;
		serve_counts();
		refresh_indoms();
	}
	return pmdaFetch(numpmid, pmidlist, resp, pmda);
}

static int kpmc_instance(pmInDom indom, int inst, char *name, pmInResult **result, pmdaExt *pmda)
{
	refresh();
	return pmdaInstance(indom, inst, name, result, pmda);
}

static struct kpmc_pmda_task *task_of(unsigned int cluster, unsigned int inst)
{
	if (cluster == CL_PROC)
		return kpmc_pmda_counts_find(&agent.served.procs, inst);
	if (cluster == CL_THREAD && agent.cfg.threads)
		return kpmc_pmda_counts_find(&agent.served.threads, inst);
	return NULL;
}

static int kpmc_fetch_value(pmdaMetric *m, unsigned int inst, pmAtomValue *av)
{
	unsigned int cluster = pmID_cluster(m->m_desc.pmid), item = pmID_item(m->m_desc.pmid);
	const struct kpmc_pmda_totals *t;
	int alive = 1;

	if (cluster == CL_GLOBAL) {
		switch (item) {
		case G_LOST:
			av->ull = agent.served.lost;
			return PMDA_FETCH_STATIC;
		case G_ACTIVE:
			av->ul = agent.session.fd >= 0;
			return PMDA_FETCH_STATIC;
		case G_PROCESSES:
			av->ul = agent.live_procs;
			return PMDA_FETCH_STATIC;
		case G_EVENT:
			if (inst >= KPMC_MAX_COUNTERS)
				return PM_ERR_INST;
			if (!agent.session.counter_name[inst][0])
				return PMDA_FETCH_NOVALUES;
			av->cp = agent.session.counter_name[inst];
			return PMDA_FETCH_STATIC;
		case G_VIRTUAL:
			if (inst >= KPMC_MAX_VIRT)
				return PM_ERR_INST;
			if (!agent.session.virt_name[inst][0])
				return PMDA_FETCH_NOVALUES;
			av->cp = agent.session.virt_name[inst];
			return PMDA_FETCH_STATIC;
		case G_ERROR:
			av->cp = agent.error;
			return PMDA_FETCH_STATIC;
		}
		return PM_ERR_PMID;
	}
	if (cluster == CL_STEP) {
		const struct kpmc_pmda_step *st = kpmc_pmda_steps_find(&agent.steps, inst);

		if (!st)
			return PM_ERR_INST;
		if (item < KPMC_MAX_COUNTERS) {
			if (!st->name[item][0])
				return PMDA_FETCH_NOVALUES;
			av->ull = st->count[item];
		} else if (item == ITEM_RUN_NS) {
			av->ull = st->run_ns;
		} else if (item == ITEM_STEP_LOST) {
			av->ull = st->lost;
		} else {
			return PM_ERR_PMID;
		}
		return PMDA_FETCH_STATIC;
	}
	if (cluster == CL_CGROUP) {
		const struct kpmc_pmda_cgroup *g = kpmc_pmda_cgroups_find(&agent.cgroups, inst);

		if (!g)
			return PM_ERR_INST;
		if (item < KPMC_MAX_COUNTERS) {
			if (!agent.session.counter_name[item][0])
				return PMDA_FETCH_NOVALUES;
			av->ull = g->t.pmc[item];
		} else if (item == ITEM_RUN_NS) {
			av->ull = g->t.run_ns;
		} else if (item == ITEM_RECORDS) {
			av->ull = g->t.records;
		} else {
			return PM_ERR_PMID;
		}
		return PMDA_FETCH_STATIC;
	}
	if (cluster == CL_CPU) {
		if (inst >= 256 || !agent.served.cpu_seen[inst])
			return PM_ERR_INST;
		t = &agent.served.cpu[inst];
	} else {
		struct kpmc_pmda_task *k = task_of(cluster, inst);

		if (!k)
			return PM_ERR_INST;
		t = &k->t;
		alive = !k->ended;
	}
	if (item < KPMC_MAX_COUNTERS) {
		if (!(agent.served.counter_mask & (1u << item)))
			return PMDA_FETCH_NOVALUES;
		av->ull = t->pmc[item];
	} else if (item < ITEM_RUN_NS) {
		if (!(agent.served.virt_mask & (1u << (item - KPMC_MAX_COUNTERS))))
			return PMDA_FETCH_NOVALUES;
		av->ull = t->virt[item - KPMC_MAX_COUNTERS];
	} else if (item == ITEM_RUN_NS) {
		av->ull = t->run_ns;
	} else if (item == ITEM_RECORDS) {
		av->ull = t->records;
	} else if (item == ITEM_ALIVE) {
		av->ul = (uint32_t)alive;
	} else {
		return PM_ERR_PMID;
	}
	return PMDA_FETCH_STATIC;
}

/* pmcN and virtN metrics carry the event they count, as configured. */
static int kpmc_label(int ident, int type, pmLabelSet **lp, pmdaExt *pmda)
{
	/* Instance labels are asked for on their own: the instances must be current. */
	if (type & PM_LABEL_INSTANCES)
		refresh();
	if (type == PM_LABEL_ITEM) {
		unsigned int cluster = pmID_cluster((pmID)ident), item = pmID_item((pmID)ident);
		char v[128];

		if (cluster != CL_GLOBAL && cluster != CL_STEP && item < KPMC_MAX_COUNTERS &&
		    agent.session.counter_name[item][0]) {
			kpmc_pmda_safe_text(v, sizeof(v), agent.session.counter_name[item]);
			pmdaAddLabels(lp, "{\"event\":\"%s\"}", v);
		} else if (cluster != CL_GLOBAL && cluster != CL_STEP && item >= KPMC_MAX_COUNTERS && item < ITEM_RUN_NS &&
			   agent.session.virt_name[item - KPMC_MAX_COUNTERS][0]) {
			kpmc_pmda_safe_text(v, sizeof(v), agent.session.virt_name[item - KPMC_MAX_COUNTERS]);
			pmdaAddLabels(lp, "{\"virtual\":\"%s\"}", v);
		}
	}
	return pmdaLabel(ident, type, lp, pmda);
}

/*
 * A step's labels: its job and step (Slurm's, as slurmstepd said them),
 * its user, and its events in pmcN order.
 */
static int step_labels(unsigned int inst, pmLabelSet **lp)
{
	const struct kpmc_pmda_step *st = kpmc_pmda_steps_find(&agent.steps, inst);
	struct passwd *pw;
	char user[64] = "";

	if (!st)
		return 0;
	pw = getpwuid(st->uid);
	if (pw)
		kpmc_pmda_safe_text(user, sizeof(user), pw->pw_name);
	pmdaAddLabels(lp, "{\"job\":\"%u\",\"step\":\"%s\",\"uid\":%u,\"events\":\"%s\"}", st->job,
		      st->step, st->uid, st->events);
	if (user[0])
		pmdaAddLabels(lp, "{\"user\":\"%s\"}", user);
	return *lp ? (*lp)->nlabels : 0;
}

/* A cgroup's labels: its path, and the Slurm job and step the path names. */
static int cgroup_labels(unsigned int inst, pmLabelSet **lp)
{
	const struct kpmc_pmda_cgroup *g = kpmc_pmda_cgroups_find(&agent.cgroups, inst);
	char cg[256];

	if (!g)
		return 0;
	kpmc_pmda_safe_text(cg, sizeof(cg), g->path);
	pmdaAddLabels(lp, "{\"cgroup\":\"%s\"}", cg);
	if (g->job[0])
		pmdaAddLabels(lp, "{\"job\":\"%s\"}", g->job);
	if (g->step[0])
		pmdaAddLabels(lp, "{\"step\":\"%s\"}", g->step);
	return *lp ? (*lp)->nlabels : 0;
}

/*
 * A process's (and its threads') labels: pid, command, owner, Slurm job
 * and step (from its cgroup), cgroup.
 */
static int kpmc_instance_labels(pmInDom indom, unsigned int inst, pmLabelSet **lp)
{
	const struct kpmc_pmda_task *k, *p;
	char comm[32], job[96], step[48], cg[256];

	if (indom == indomtab[INDOM_STEP].it_indom)
		return step_labels(inst, lp);
	if (indom == indomtab[INDOM_CGROUP].it_indom)
		return cgroup_labels(inst, lp);
	if (indom == indomtab[INDOM_PROC].it_indom)
		k = kpmc_pmda_counts_find(&agent.served.procs, inst);
	else if (indom == indomtab[INDOM_THREAD].it_indom)
		k = kpmc_pmda_counts_find(&agent.served.threads, inst);
	else
		return 0;
	if (!k)
		return 0;
	p = kpmc_pmda_counts_find(&agent.served.procs, k->pid);
	if (!p)
		p = k;
	kpmc_pmda_safe_text(comm, sizeof(comm), p->comm);
	kpmc_pmda_safe_text(job, sizeof(job), p->job);
	kpmc_pmda_safe_text(step, sizeof(step), p->step);
	kpmc_pmda_safe_text(cg, sizeof(cg), p->cgroup);
	pmdaAddLabels(lp, "{\"pid\":%u,\"comm\":\"%s\",\"uid\":%u}", k->pid, comm, p->uid);
	if (job[0])
		pmdaAddLabels(lp, "{\"job\":\"%s\"}", job);
	if (step[0])
		pmdaAddLabels(lp, "{\"step\":\"%s\"}", step);
	if (cg[0])
		pmdaAddLabels(lp, "{\"cgroup\":\"%s\"}", cg);
	if (indom == indomtab[INDOM_THREAD].it_indom)
		pmdaAddLabels(lp, "{\"tid\":%u}", k->id);
	/* pmdaLabel takes the return value as the set's label count: the real one. */
	return *lp ? (*lp)->nlabels : 0;
}

static void on_sighup(int sig)
{
	(void)sig;
	agent.reload = 1;
}

/* pmdaMain's work, plus the session's records and the periodic /proc scan. */
static void main_loop(pmdaInterface *dispatch)
{
	int pmcd = __pmdaInFd(dispatch);

	for (;;) {
		fd_set rd;
		struct timeval tv = { .tv_sec = 0, .tv_usec = 200000 };
		int maxfd = pmcd, n;

		FD_ZERO(&rd);
		FD_SET(pmcd, &rd);
		if (agent.session.fd >= 0) {
			FD_SET(agent.session.fd, &rd);
			if (agent.session.fd > maxfd)
				maxfd = agent.session.fd;
		}
		n = select(maxfd + 1, &rd, NULL, NULL, &tv);
		if (n < 0 && errno != EINTR) {
			pmNotifyErr(LOG_ERR, "select: %s", strerror(errno));
			break;
		}
		if (agent.reload) {
			agent.reload = 0;
			configure();
		}
		if (n > 0 && FD_ISSET(pmcd, &rd) && __pmdaMainPDU(dispatch) < 0)
			break;	/* pmcd went away */
		drain();
		if (agent.session.fd >= 0 && agent.cfg.ncgroup_patterns &&
		    now_ms() >= agent.next_scan_ms) {
			scan_cgroups();
			agent.next_scan_ms = now_ms() + agent.cfg.rescan_ms;
		} else if (agent.session.fd >= 0 && !agent.cfg.system_wide &&
			   now_ms() >= agent.next_scan_ms) {
			scan();
			agent.next_scan_ms = now_ms() + agent.cfg.rescan_ms;
		} else if (agent.session.fd >= 0 && now_ms() >= agent.next_scan_ms) {
			kpmc_pmda_counts_expire(&agent.counts, time(NULL), agent.cfg.grace_s);
			agent.next_scan_ms = now_ms() + agent.cfg.rescan_ms;
		}
	}
}

static pmLongOptions longopts[] = {
	PMDA_OPTIONS_HEADER("Options"),
	PMOPT_DEBUG,
	PMDAOPT_DOMAIN,
	PMDAOPT_LOGFILE,
	{ "config", 1, 'c', "FILE", "configuration file [default $PCP_SYSCONF_DIR/kpmc/kpmc.conf]" },
	{ "state", 1, 's', "FILE",
	  "totals kept across restarts [default $PCP_VAR_DIR/config/pmda/kpmc.state]" },
	PMOPT_HELP,
	PMDA_OPTIONS_END
};

static pmdaOptions opts = {
	.short_options = "D:d:l:c:s:?",
	.long_options = longopts,
};

int main(int argc, char **argv)
{
	static char helppath[MAXPATHLEN], confpath[MAXPATHLEN], statepath[MAXPATHLEN];
	pmdaInterface dispatch;
	int c;

	pmSetProgname(argv[0]);
	snprintf(helppath, sizeof(helppath), "%s/kpmc/help", pmGetConfig("PCP_PMDAS_DIR"));
	snprintf(confpath, sizeof(confpath), "%s/kpmc/kpmc.conf", pmGetConfig("PCP_SYSCONF_DIR"));
	snprintf(statepath, sizeof(statepath), "%s/config/pmda/kpmc.state", pmGetConfig("PCP_VAR_DIR"));
	agent.file = confpath;
	agent.state = statepath;
	pmdaDaemon(&dispatch, PMDA_INTERFACE_7, pmGetProgname(), KPMC, "kpmc.log", helppath);
	while ((c = pmdaGetOptions(argc, argv, &opts, &dispatch)) != EOF) {
		if (c == 'c')
			agent.file = opts.optarg;
		else if (c == 's')
			agent.state = opts.optarg;
	}
	if (opts.errors) {
		pmdaUsageMessage(&opts);
		exit(2);
	}
	pmdaOpenLog(&dispatch);
	build_metric_table();
	dispatch.version.seven.fetch = kpmc_fetch;
	dispatch.version.seven.instance = kpmc_instance;
	dispatch.version.seven.label = kpmc_label;
	pmdaSetFetchCallBack(&dispatch, kpmc_fetch_value);
	pmdaSetLabelCallBack(&dispatch, kpmc_instance_labels);
	pmdaInit(&dispatch, indomtab, NR_INDOMS, metrics, nmetrics);
	agent.counts.start_of = start_of;
	signal(SIGHUP, on_sighup);
	signal(SIGPIPE, SIG_IGN);
	configure();
	refresh_indoms();
	pmdaConnect(&dispatch);
	main_loop(&dispatch);
	kpmc_pmda_session_close(&agent.session);
	return 0;
}
