// SPDX-License-Identifier: GPL-2.0
/*
 * pmdakpmc: a Performance Co-Pilot agent (daemon PMDA) for kpmc. It holds
 * one kpmc session, counts what its configuration file names (events; which
 * processes, or every CPU) and serves the totals as PCP counters: per
 * process (kpmc.proc.*), per thread (kpmc.thread.*, off by default), per CPU
 * (kpmc.cpu.*), and the records the kernel lost (kpmc.lost). pmproxy turns
 * them into OpenMetrics for Prometheus.
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

#include "pmda_config.h"
#include "pmda_counts.h"
#include "pmda_scan.h"
#include "pmda_session.h"
#include "pmda_state.h"

/* Unused in PCP's stdpmid list (6.0.3); pmda/domain.h says the same for Install. */
#include "domain.h"

enum { CL_GLOBAL, CL_PROC, CL_THREAD, CL_CPU };
enum { INDOM_PROC, INDOM_THREAD, INDOM_CPU, INDOM_COUNTER, INDOM_VIRT, NR_INDOMS };

/* Items of the proc, thread and cpu clusters. */
#define ITEM_PMC(n)	(n)
#define ITEM_VIRT(n)	(KPMC_MAX_COUNTERS + (n))
#define ITEM_RUN_NS	(KPMC_MAX_COUNTERS + KPMC_MAX_VIRT)
#define ITEM_RECORDS	(ITEM_RUN_NS + 1)
#define ITEM_ALIVE	(ITEM_RUN_NS + 2)
#define NR_TASK_ITEMS	(ITEM_ALIVE + 1)

/* Items of the global cluster. */
enum { G_LOST, G_ACTIVE, G_PROCESSES, G_EVENT, G_VIRTUAL, G_ERROR, NR_GLOBAL };

static struct {
	const char *file;
	const char *state;			/* totals kept across restarts */
	int dirty;				/* totals changed since the state was saved */
	struct kpmc_pmda_config cfg;
	uid_t uids[KPMC_PMDA_MAX_SELECTORS];	/* user= selectors, resolved */
	struct kpmc_pmda_session session;
	struct kpmc_pmda_counts counts;
	char error[512];			/* why nothing is counted, or "" */
	pid_t *attached;			/* tids attached, sorted */
	size_t nattached;
	time_t next_scan_ms;
	unsigned int live_procs;
	volatile sig_atomic_t reload;
} agent = { .session = { .fd = -1 } };

static pmdaIndom indomtab[NR_INDOMS];
static pmdaInstid counter_insts[KPMC_MAX_COUNTERS], virt_insts[KPMC_MAX_VIRT];
static char counter_inst_names[KPMC_MAX_COUNTERS][8], virt_inst_names[KPMC_MAX_VIRT][8];
static pmdaMetric metrics[NR_GLOBAL + 3 * NR_TASK_ITEMS];
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

/* "PID COMM", as the proc PMDA names processes (zero-padded: sorts by pid). */
static void task_indom(pmdaIndom *d, const struct kpmc_pmda_task_table *t)
{
	free_insts(d);
	d->it_set = calloc(t->n ? t->n : 1, sizeof(*d->it_set));
	if (!d->it_set)
		return;
	for (unsigned int i = 0; i < t->n; i++) {
		char name[64];

		snprintf(name, sizeof(name), "%06u %s", t->v[i].id, t->v[i].comm);
		d->it_set[d->it_numinst].i_inst = (int)t->v[i].id;
		d->it_set[d->it_numinst].i_name = strdup(name);
		if (d->it_set[d->it_numinst].i_name)
			d->it_numinst++;
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
	if (!agent.counts.changed && indomtab[INDOM_PROC].it_set)
		return;
	agent.counts.changed = 0;
	task_indom(&indomtab[INDOM_PROC], &agent.counts.procs);
	task_indom(&indomtab[INDOM_THREAD], agent.cfg.threads ? &agent.counts.threads : &none);
	free_insts(cpu);
	cpu->it_set = calloc(256, sizeof(*cpu->it_set));
	if (!cpu->it_set)
		return;
	for (unsigned int c = 0; c < 256; c++) {
		char name[16];

		if (!agent.counts.cpu_seen[c])
			continue;
		snprintf(name, sizeof(name), "cpu%u", c);
		cpu->it_set[cpu->it_numinst].i_inst = (int)c;
		cpu->it_set[cpu->it_numinst].i_name = strdup(name);
		if (cpu->it_set[cpu->it_numinst].i_name)
			cpu->it_numinst++;
	}
}

/* ---- the session: records in, processes attached ---- */

static void on_record(const struct kpmc_record *r, void *arg)
{
	struct kpmc_pmda_task *p = NULL;

	(void)arg;
	agent.dirty = 1;
	if (kpmc_pmda_counts_add(&agent.counts, r, time(NULL), agent.cfg.threads, &p)) {
		pmNotifyErr(LOG_ERR,
			    "record of kind %u (cpu %u, tid %u) not counted: out of memory or CPU past 255",
			    r->kind, r->cpu, r->tid);
		return;
	}
	if (p) {
		struct kpmc_pmda_proc_info info;

		/* Named once, at its first record: instance names stay stable. */
		if (!kpmc_pmda_proc_info("/proc", (pid_t)p->id, &info)) {
			snprintf(p->comm, sizeof(p->comm), "%s", info.comm);
			snprintf(p->job, sizeof(p->job), "%s", info.job);
			snprintf(p->cgroup, sizeof(p->cgroup), "%s", info.cgroup);
			p->start = info.start;
		} else {
			snprintf(p->comm, sizeof(p->comm), "?");
		}
	}
	/* A thread is named after its process (the comm it had at the first record). */
	if (agent.cfg.threads && !KPMC_REC_IS_CPU(r->kind)) {
		struct kpmc_pmda_task *th = kpmc_pmda_counts_find(&agent.counts.threads, r->tid);
		struct kpmc_pmda_task *pr = kpmc_pmda_counts_find(&agent.counts.procs, r->pid);

		if (th && pr && !th->comm[0])
			memcpy(th->comm, pr->comm, sizeof(th->comm));
	}
}

static void drain(void)
{
	if (agent.session.fd >= 0 && kpmc_pmda_session_drain(&agent.session, on_record, NULL) < 0) {
		snprintf(agent.error, sizeof(agent.error), "the kpmc module went away; counting stopped");
		pmNotifyErr(LOG_ERR, "%s", agent.error);
		kpmc_pmda_session_close(&agent.session);
	}
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

struct scan_pass {
	pid_t *seen;
	size_t n, cap;
};

static void on_thread(pid_t pid, pid_t tid, const struct kpmc_pmda_proc_info *info, void *arg)
{
	struct scan_pass *s = arg;
	int err;

	(void)info;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		pid_t *v = realloc(s->seen, cap * sizeof(*v));

		if (!v)
			return;
		s->seen = v;
		s->cap = cap;
	}
	s->seen[s->n++] = tid;
	if (agent.attached && bsearch(&tid, agent.attached, agent.nattached, sizeof(pid_t), cmp_pid))
		return;
	err = kpmc_pmda_session_attach(&agent.session, tid);
	if (err && err != -ESRCH)
		pmNotifyErr(LOG_WARNING, "cannot attach thread %d of process %d (%s): %s", tid, pid,
			    info->comm, strerror(-err));
}

/* Attach threads of newly selected processes; processes gone from /proc end. */
static void scan(void)
{
	struct scan_pass s = { 0 };
	time_t now = time(NULL);
	unsigned int live = 0;

	kpmc_pmda_scan("/proc", &agent.cfg, agent.uids, getpid(), on_thread, &s);
	qsort(s.seen, s.n, sizeof(pid_t), cmp_pid);
	free(agent.attached);
	agent.attached = s.seen;
	agent.nattached = s.n;
	for (unsigned int i = 0; i < agent.counts.procs.n; i++) {
		struct kpmc_pmda_task *p = &agent.counts.procs.v[i];
		struct kpmc_pmda_proc_info info;

		/* Gone, or its pid now another process's (one restored from the state file). */
		if (!p->ended && (kpmc_pmda_proc_info("/proc", (pid_t)p->id, &info) ||
				  (p->start && info.start != p->start))) {
			kpmc_pmda_counts_gone(&agent.counts, p->id, now);
			agent.dirty = 1;
		}
		live += !p->ended;
	}
	agent.live_procs = live;
	kpmc_pmda_counts_expire(&agent.counts, now, agent.cfg.grace_s);
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
static void configure(void)
{
	char *text = NULL, why[512];
	int n;

	drain();
	kpmc_pmda_session_close(&agent.session);
	kpmc_pmda_counts_free(&agent.counts);
	agent.counts.changed = 1;
	free(agent.attached);
	agent.attached = NULL;
	agent.nattached = 0;
	agent.error[0] = '\0';
	agent.live_procs = 0;
	memset(&agent.cfg, 0, sizeof(agent.cfg));

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
		agent.uids[i] = (uid_t)-1;
		if (agent.cfg.sel[i].kind == KPMC_SEL_USER) {
			struct passwd *pw = getpwnam(agent.cfg.sel[i].text);

			if (pw)
				agent.uids[i] = pw->pw_uid;
			else
				pmNotifyErr(LOG_WARNING, "%s:%u: user '%s' does not exist (yet): it selects nobody",
					    agent.file, agent.cfg.sel[i].line, agent.cfg.sel[i].text);
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
	/* What was served before a restart of the agent, if it counted the same then. */
	n = kpmc_pmda_state_load(agent.state, agent.session.raw, &agent.counts);
	if (n < 0)
		pmNotifyErr(LOG_WARNING, "%s: malformed; totals start from zero", agent.state);
	else if (n)
		pmNotifyErr(LOG_INFO, "%s: %d processes and threads restored", agent.state, n);
	agent.counts.changed = 1;
	pmNotifyErr(LOG_INFO, "counting %s (%s) for %u process selectors%s", agent.cfg.events,
		    agent.session.raw, agent.cfg.nsel, agent.cfg.system_wide ? ", per CPU" : "");
	agent.next_scan_ms = 0;
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
}

static int kpmc_fetch(int numpmid, pmID *pmidlist, pmResult **resp, pmdaExt *pmda)
{
	refresh();
	/* Saved before it is served: a restarted agent never reports less. */
	if (agent.dirty && agent.session.fd >= 0) {
		if (kpmc_pmda_state_save(agent.state, agent.session.raw, &agent.counts))
			pmNotifyErr(LOG_WARNING, "%s: %s", agent.state, strerror(errno));
		agent.dirty = 0;
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
		return kpmc_pmda_counts_find(&agent.counts.procs, inst);
	if (cluster == CL_THREAD && agent.cfg.threads)
		return kpmc_pmda_counts_find(&agent.counts.threads, inst);
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
			av->ull = agent.counts.lost;
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
	if (cluster == CL_CPU) {
		if (inst >= 256 || !agent.counts.cpu_seen[inst])
			return PM_ERR_INST;
		t = &agent.counts.cpu[inst];
	} else {
		struct kpmc_pmda_task *k = task_of(cluster, inst);

		if (!k)
			return PM_ERR_INST;
		t = &k->t;
		alive = !k->ended;
	}
	if (item < KPMC_MAX_COUNTERS) {
		if (!(agent.counts.counter_mask & (1u << item)))
			return PMDA_FETCH_NOVALUES;
		av->ull = t->pmc[item];
	} else if (item < ITEM_RUN_NS) {
		if (!(agent.counts.virt_mask & (1u << (item - KPMC_MAX_COUNTERS))))
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

/* A label value: JSON string characters only (paths and names may carry anything). */
static void label_safe(char *out, size_t len, const char *in)
{
	size_t o = 0;

	for (; *in && o + 1 < len; in++)
		out[o++] = (*in == '"' || *in == '\\' || (unsigned char)*in < 0x20) ? '_' : *in;
	out[o] = '\0';
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

		if (cluster != CL_GLOBAL && item < KPMC_MAX_COUNTERS &&
		    agent.session.counter_name[item][0]) {
			label_safe(v, sizeof(v), agent.session.counter_name[item]);
			pmdaAddLabels(lp, "{\"event\":\"%s\"}", v);
		} else if (cluster != CL_GLOBAL && item >= KPMC_MAX_COUNTERS && item < ITEM_RUN_NS &&
			   agent.session.virt_name[item - KPMC_MAX_COUNTERS][0]) {
			label_safe(v, sizeof(v), agent.session.virt_name[item - KPMC_MAX_COUNTERS]);
			pmdaAddLabels(lp, "{\"virtual\":\"%s\"}", v);
		}
	}
	return pmdaLabel(ident, type, lp, pmda);
}

/* A process's (and its threads') labels: pid, command, Slurm job, cgroup. */
static int kpmc_instance_labels(pmInDom indom, unsigned int inst, pmLabelSet **lp)
{
	const struct kpmc_pmda_task *k, *p;
	char comm[32], job[96], cg[256];

	if (indom == indomtab[INDOM_PROC].it_indom)
		k = kpmc_pmda_counts_find(&agent.counts.procs, inst);
	else if (indom == indomtab[INDOM_THREAD].it_indom)
		k = kpmc_pmda_counts_find(&agent.counts.threads, inst);
	else
		return 0;
	if (!k)
		return 0;
	p = kpmc_pmda_counts_find(&agent.counts.procs, k->pid);
	if (!p)
		p = k;
	label_safe(comm, sizeof(comm), p->comm);
	label_safe(job, sizeof(job), p->job);
	label_safe(cg, sizeof(cg), p->cgroup);
	pmdaAddLabels(lp, "{\"pid\":%u,\"comm\":\"%s\"}", k->pid, comm);
	if (job[0])
		pmdaAddLabels(lp, "{\"job\":\"%s\"}", job);
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
		if (agent.session.fd >= 0 && !agent.cfg.system_wide && now_ms() >= agent.next_scan_ms) {
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
	signal(SIGHUP, on_sighup);
	signal(SIGPIPE, SIG_IGN);
	configure();
	refresh_indoms();
	pmdaConnect(&dispatch);
	main_loop(&dispatch);
	kpmc_pmda_session_close(&agent.session);
	return 0;
}
