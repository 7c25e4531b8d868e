// SPDX-License-Identifier: LGPL-2.1
#define _GNU_SOURCE	/* pipe2 */
/* kpmc_read_counter's one out-of-line definition is here, not kpmc.h's inline. */
#define KPMC_NO_INLINE
#include "kpmc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <uapi/linux/kpmc.h>

#include "attrib.h"
#include "common/kpmc_proc.h"
#include "common/growarray.h"
#include "fastread.h"
#include "foldtrace_write.h"
#include "memsample.h"
#include "common/pfm_events.h"
#include "common/ringmap.h"

#define MAX_REGIONS	64
#define NAME_MAX_LEN	48

/* A region over all threads (under lock). */
struct region {
	char name[NAME_MAX_LEN];
	uint64_t calls;
	uint64_t run_ns;
	uint64_t total[KPMC_LIB_COUNTERS];	/* pmcN over all sets */
	uint32_t nr_sets;
	struct kpmc_set_counts sets[KPMC_LIB_SETS];
	/* With a sampling configuration: each invocation, for the samples. */
	struct kpmc_lib_interval *iv;
	size_t niv, cap;
	/* With fold_keep: each invocation with its counts, for the fold trace. */
	struct kpmc_lib_fold_inv *fi;
	size_t nfi, fi_cap;
};

/*
 * A region open in the calling thread: the counts at its begin. The read at
 * a begin ends (memset, copies) in at, which is inside the region: every at
 * on the same cache-line alignment makes that cost the same for every
 * region (glibc's memset/memcpy take paths by alignment).
 */
struct open_region {
	_Alignas(64) struct kpmc_counts at;
	char name[NAME_MAX_LEN];
	int active;
};

static int session_fd = -1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct region totals[MAX_REGIONS];	/* over all threads, under lock */
static uint64_t calls_ended;			/* invocations numbered, under lock */
static __thread struct open_region *mine;	/* MAX_REGIONS, at the first begin */
static pthread_key_t mine_key;
static pthread_once_t mine_once = PTHREAD_ONCE_INIT;
static __thread int self_fd = -1;
static __thread uint32_t my_tid;
static __thread char last_error[512];
/* libpfm4 keeps global state. */
static pthread_mutex_t pfm_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * Samples: the session's records (rec_lock, taken before lock where both
 * are). sampling: the configuration has ebs or tbs; then a reader thread
 * drains the session as records come.
 */
static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static int sampling;
static pthread_t reader;
static int reader_running;
static int stop_pipe[2] = { -1, -1 };
static struct kpmc_lib_stream *streams;
static size_t nstreams, streams_cap;
static struct kpmc_sample *samples;
static size_t nsamples, samples_cap;
static struct kpmc_sample_stats stats;
/*
 * The fold trace (foldtrace_write.h): kept with samples, or when KPMC_FOLD_TRACE
 * asks for the trace at kpmc_stop(). fold_pts[i]: samples[i]'s thread totals.
 */
static int fold_keep;
static struct kpmc_lib_fold_counters fold_counters;
static struct kpmc_lib_fold_point *fold_pts;
static size_t fold_pts_cap;
/* The session's ring, mapped (unmapped: a module without it, read()). */
static struct kpmc_ringmap session_ring;
static pthread_once_t ring_atfork_once = PTHREAD_ONCE_INIT;

/* The fast path: the thread's page (NULL: not mapped yet; MAP_FAILED: no page). */
static int path_mode = KPMC_PATH_AUTO;
static pthread_once_t path_env_once = PTHREAD_ONCE_INIT;
/*
 * Initial-exec: the lean read's TLS accesses are one load off the thread
 * pointer, not a call to __tls_get_addr (a shared library's default).
 */
#define KPMC_TLS __thread __attribute__((tls_model("initial-exec")))
static KPMC_TLS const struct kpmc_self_page *page;
/*
 * What kpmc.h's inlined kpmc_read_counter reads, its only test before the
 * page's own: the thread's page while the fast path may be taken, else
 * no_page, whose entries all say "use read()" (so no NULL test either). The
 * mode is in it too: KPMC_PATH_READ points every thread's at no_page, through
 * fast_threads (a global flag would be a load and a branch more per read).
 * Exported (libkpmc.map), not API.
 */
static const struct kpmc_self_page no_page;	/* seq even, every user_index 0 */
__thread const void *kpmc__page_v1 __attribute__((tls_model("initial-exec"))) = &no_page;

/* Threads with a mapped page, for kpmc_set_read_path to reach their kpmc__page_v1. */
struct fast_thread {
	const void **slot;		/* the thread's kpmc__page_v1 */
	const void *page;
	struct fast_thread *prev, *next;
};
static struct fast_thread *fast_threads;
static pthread_mutex_t fast_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t fast_key;
static KPMC_TLS struct fast_thread *fast_me;
static KPMC_TLS int last_path;
static KPMC_TLS uint64_t reads_fast, reads_slow;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/*
 * A forked child is another thread: its parent's page is not its own, and
 * kpmc does not map it into the child (VM_DONTCOPY). No munmap here: the
 * address is free in the child, and an earlier fork handler may already
 * have mapped something else there.
 */
static void forget_thread_state(void)
{
	page = NULL;
	kpmc__page_v1 = &no_page;
	/* The other threads are gone; their entries are leaked, not touched. */
	fast_threads = NULL;
	fast_me = NULL;
	pthread_setspecific(fast_key, NULL);
	pthread_mutex_unlock(&fast_lock);
	if (self_fd >= 0)
		close(self_fd);
	self_fd = -1;
	my_tid = 0;
}

static void set_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
}

const char *kpmc_last_error(void)
{
	return last_error;
}

static uint32_t gettid_cached(void)
{
	if (!my_tid)
		my_tid = (uint32_t)syscall(SYS_gettid);
	return my_tid;
}

static void fast_fork_prepare(void)
{
	pthread_mutex_lock(&fast_lock);
}

static void fast_fork_parent(void)
{
	pthread_mutex_unlock(&fast_lock);
}

/* A thread leaves: its kpmc__page_v1 is about to go, so its entry goes first. */
static void fast_thread_exit(void *arg)
{
	struct fast_thread *f = arg;

	pthread_mutex_lock(&fast_lock);
	if (f->prev)
		f->prev->next = f->next;
	else
		fast_threads = f->next;
	if (f->next)
		f->next->prev = f->prev;
	pthread_mutex_unlock(&fast_lock);
	free(f);
}

static void install_atfork(void)
{
	pthread_key_create(&fast_key, fast_thread_exit);
	pthread_atfork(fast_fork_prepare, fast_fork_parent, forget_thread_state);
}

/* Under fast_lock: what the thread's inline may read in the current mode. */
static void fast_publish(struct fast_thread *f)
{
	__atomic_store_n(f->slot, __atomic_load_n(&path_mode, __ATOMIC_RELAXED) == KPMC_PATH_READ ?
			 &no_page : f->page,
			 __ATOMIC_RELAXED);
}

static void path_from_env(void)
{
	const char *e = getenv("KPMC_READ_PATH");

	if (!e)
		return;
	if (!strcmp(e, "read"))
		path_mode = KPMC_PATH_READ;
	else if (!strcmp(e, "fast"))
		path_mode = KPMC_PATH_FAST;
}

int kpmc_set_read_path(int mode)
{
	if (mode != KPMC_PATH_AUTO && mode != KPMC_PATH_READ && mode != KPMC_PATH_FAST)
		return -EINVAL;
	struct fast_thread *f;
	int old;

	pthread_once(&path_env_once, path_from_env);
	/*
	 * Most calls keep the pointers as they are (AUTO <-> FAST): one atomic
	 * store, no lock, the same few instructions every time (callers set the
	 * mode inside measured code). A CAS, so that it never undoes a change
	 * of the pointers made meanwhile.
	 */
	old = __atomic_load_n(&path_mode, __ATOMIC_RELAXED);
	while ((old == KPMC_PATH_READ) == (mode == KPMC_PATH_READ))
		if (__atomic_compare_exchange_n(&path_mode, &old, mode, 0, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return 0;
	pthread_mutex_lock(&fast_lock);
	__atomic_store_n(&path_mode, mode, __ATOMIC_RELAXED);
	/* A read already past its thread's pointer finishes on the old path. */
	for (f = fast_threads; f; f = f->next)
		fast_publish(f);
	pthread_mutex_unlock(&fast_lock);
	return 0;
}

int kpmc_last_read_path(void)
{
	return last_path;
}

void kpmc_read_stats(uint64_t *fast, uint64_t *slow)
{
	*fast = reads_fast;
	*slow = reads_slow;
}

#if defined(__aarch64__)
/* Granted by kpmc only while this thread runs and its page says so (PMUSERENR_EL0.ER|CR). */
_Static_assert(KPMC__CYCLE_INDEX == KPMC_PAGE_ARM64_CYCLE_INDEX, "the header's cycle index is the ABI's");

static uint64_t read_counter(uint32_t index, void *arg)
{
	return kpmc__pmu_read(index, arg);
}
#else
/*
 * x86: user-space RDPMC depends on CR4.PCE, which is perf's to set (per mm,
 * for its own mmap'd events); kpmc never grants it and its pages never say
 * KPMC_PAGE_USER_READ there, so this is never called.
 */
static uint64_t read_counter(uint32_t index, void *arg)
{
	(void)index;
	(void)arg;
	return 0;
}
#endif

static uint64_t monotonic_ns(void *arg)
{
	struct timespec ts;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int open_self(void)
{
	if (self_fd < 0) {
		int fd = kpmc_proc_open("self", O_RDONLY);

		if (fd < 0)
			return fd;
		self_fd = fd;
	}
	return 0;
}

/* The calling thread's page, mapped at its first read; NULL if there is none. */
static const struct kpmc_self_page *my_page(void)
{
	void *p;

	if (page)
		return page == MAP_FAILED ? NULL : page;
	pthread_once(&atfork_once, install_atfork);
	if (open_self())
		return NULL;
	p = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, self_fd, 0);
	/* Another layout is no page: never read, by the calls nor the inline. */
	if (p != MAP_FAILED && ((const struct kpmc_self_page *)p)->version != KPMC_PAGE_VERSION) {
		munmap(p, sysconf(_SC_PAGESIZE));
		p = MAP_FAILED;
	}
	page = p;
	if (p == MAP_FAILED)
		return NULL;
	/* The inline must not skip KPMC_READ_PATH: the mode is set before it reads. */
	pthread_once(&path_env_once, path_from_env);
	fast_me = calloc(1, sizeof(*fast_me));
	if (fast_me) {	/* else the inline always calls: slower, still right */
		fast_me->slot = &kpmc__page_v1;
		fast_me->page = p;
		pthread_mutex_lock(&fast_lock);
		fast_me->next = fast_threads;
		if (fast_threads)
			fast_threads->prev = fast_me;
		fast_threads = fast_me;
		fast_publish(fast_me);
		pthread_mutex_unlock(&fast_lock);
		pthread_setspecific(fast_key, fast_me);
	}
	return page;
}

/* One request to /proc/kpmc/FILE: 0, or -errno with kpmc_last_error() naming the file. */
static int put(const char *file, const char *s)
{
	char path[64], why[256];
	int fd = kpmc_proc_open(file, O_WRONLY), err;

	snprintf(path, sizeof(path), KPMC_PROC_DIR "/%s", file);
	if (fd < 0) {
		set_error("%s: %s", path, strerror(-fd));
		return fd;
	}
	err = kpmc_proc_request(fd, s, why, sizeof(why));
	if (err)
		set_error("%s '%s': %s", path, s, why);
	close(fd);
	return err;
}


int kpmc_resolve_config(const char *config, char *raw, size_t len)
{
	char err[512];
	int n;

	if (!config || !raw) {
		set_error("no configuration");
		return -EINVAL;
	}
	pthread_mutex_lock(&pfm_lock);
	n = kpmc_config_to_raw(KPMC_PROC_INFO, config, raw, len, err, sizeof(err));
	pthread_mutex_unlock(&pfm_lock);
	if (n < 0) {
		set_error("%s", err);
		return -EINVAL;
	}
	return n;
}

/* Does the raw configuration take samples (ebsN=, or tbs= other than 0)? */
static int samples_in(const char *raw)
{
	const char *p;

	if (strstr(raw, "ebs"))
		return 1;
	for (p = raw; (p = strstr(p, "tbs=")); p += 4)
		if (strtoul(p + 4, NULL, 0))
			return 1;
	return 0;
}

static struct kpmc_lib_stream *stream_of(uint32_t tid)
{
	static size_t last;
	size_t i;

	if (last < nstreams && streams[last].tid == tid)
		return &streams[last];
	for (i = 0; i < nstreams; i++)
		if (streams[i].tid == tid)
			return &streams[last = i];
	if (grow_array((void **)&streams, &streams_cap, nstreams + 1, sizeof(*streams), 16))
		return NULL;
	memset(&streams[nstreams], 0, sizeof(streams[0]));
	streams[nstreams].tid = tid;
	return &streams[last = nstreams++];
}

static void take_record(const struct kpmc_record *r)
{
	struct kpmc_lib_stream *st;
	struct kpmc_sample *sm;
	uint64_t key = 0;
	int keyed, is_sample;

	if (r->kind == KPMC_REC_LOST) {
		stats.lost += r->lost;
		return;
	}
	if (KPMC_REC_IS_CPU(r->kind))
		return;
	/* A memory sample: the access of the EBS record before it, at that record's time. */
	if (r->kind == KPMC_REC_MEM) {
		st = stream_of(r->tid);
		kpmc_lib_mem_take(r, st && !st->broken ? st->run_ns : 0);
		return;
	}
	stats.records++;
	is_sample = r->kind == KPMC_REC_EBS || r->kind == KPMC_REC_TBS;
	st = stream_of(r->tid);
	keyed = st && !kpmc_lib_stream_feed(st, r, stats.lost > 0, &key);
	if (!is_sample)
		return;
	stats.samples++;
	if (!keyed)
		stats.unattributable++;
	/* Out of memory: counted, not kept, like a lost record, said in the stats. */
	if (grow_array((void **)&samples, &samples_cap, nsamples + 1, sizeof(*samples), 256) ||
	    (fold_keep && grow_array((void **)&fold_pts, &fold_pts_cap, nsamples + 1,
				     sizeof(*fold_pts), 256))) {
		stats.unattributable++;
		return;
	}
	if (fold_keep) {
		struct kpmc_lib_fold_point *fp = &fold_pts[nsamples];

		fp->tid = r->tid;
		fp->set = r->set;
		fp->run_ns = keyed ? key : 0;
		if (keyed && r->set < KPMC_MAX_SETS)
			memcpy(fp->at, st->counts[r->set], sizeof(fp->at));
		else
			fp->run_ns = 0;
	}
	sm = &samples[nsamples++];
	memset(sm, 0, sizeof(*sm));
	sm->tid = r->tid;
	sm->cpu = r->cpu;
	sm->kind = r->kind;
	sm->set = r->set;
	sm->nsample = r->nsample;
	sm->period = r->period;
	sm->run_ns = keyed ? key : 0;
	sm->call = ~0ull;
	sm->counter_mask = r->counter_mask;
	memcpy(sm->counts, r->counts, sizeof(sm->counts));
}

static void take_mapped(const struct kpmc_record *r, void *arg)
{
	(void)arg;
	take_record(r);
}

/*
 * A forked child is no reader of its parent's session: the ring is not
 * mapped in it (the kernel does not copy the mapping), and the address
 * may hold something else by now: forgotten, not unmapped.
 */
static void ring_forget_in_child(void)
{
	memset(&session_ring, 0, sizeof(session_ring));
}

static void ring_install_atfork(void)
{
	pthread_atfork(NULL, NULL, ring_forget_in_child);
}

/* Everything the session holds now; rec_lock held. */
static void drain(void)
{
	struct kpmc_record buf[64];
	ssize_t n, i;

	if (session_fd < 0)
		return;
	if (session_ring.ctrl) {
		/* Zero-copy: attributed where the kernel wrote them. */
		kpmc_ringmap_drain(&session_ring, session_fd, take_mapped, NULL);
		return;
	}
	while ((n = read(session_fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < n / (ssize_t)sizeof(buf[0]); i++)
			take_record(&buf[i]);
}

static void *reader_main(void *arg)
{
	struct pollfd p[2] = { { .fd = session_fd, .events = POLLIN },
			       { .fd = stop_pipe[0], .events = POLLIN } };

	(void)arg;
	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		pthread_mutex_lock(&rec_lock);
		drain();
		pthread_mutex_unlock(&rec_lock);
		if (p[0].revents & (POLLERR | POLLHUP | POLLNVAL))
			break;
	}
	return NULL;
}

/* The reader: created before counting starts, so not monitored; no signals. */
static int start_reader(void)
{
	sigset_t all, old;
	int err;

	if (pipe2(stop_pipe, O_CLOEXEC))
		return -errno;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&reader, NULL, reader_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		close(stop_pipe[0]);
		close(stop_pipe[1]);
		stop_pipe[0] = stop_pipe[1] = -1;
		return -err;
	}
	reader_running = 1;
	return 0;
}

static void stop_reader(void)
{
	ssize_t w;

	if (!reader_running)
		return;
	/* A pipe with room: the write cannot fail short of a bug. */
	w = write(stop_pipe[1], "x", 1);
	(void)w;
	pthread_join(reader, NULL);
	reader_running = 0;
	close(stop_pipe[0]);
	close(stop_pipe[1]);
	stop_pipe[0] = stop_pipe[1] = -1;
}

static void forget_samples(void)
{
	int i;

	pthread_mutex_lock(&rec_lock);
	free(streams);
	free(samples);
	free(fold_pts);
	kpmc_lib_mem_forget();
	streams = NULL;
	samples = NULL;
	fold_pts = NULL;
	fold_pts_cap = 0;
	nstreams = streams_cap = nsamples = samples_cap = 0;
	memset(&stats, 0, sizeof(stats));
	pthread_mutex_lock(&lock);
	for (i = 0; i < MAX_REGIONS; i++) {
		free(totals[i].iv);
		totals[i].iv = NULL;
		totals[i].niv = totals[i].cap = 0;
		free(totals[i].fi);
		totals[i].fi = NULL;
		totals[i].nfi = totals[i].fi_cap = 0;
	}
	pthread_mutex_unlock(&lock);
	pthread_mutex_unlock(&rec_lock);
}

/*
 * Weak: the hooks (funcregion.c) are in a program only when it is built
 * with -finstrument-functions (libkpmc.a pulls funcregion.o for its
 * __cyg_profile_func_enter), and source lists that name libkpmc's files
 * without it still link.
 */
extern int kpmc_lib_func_regions_start(char *why, size_t len) __attribute__((weak));

int kpmc_start(const char *config)
{
	char raw[2048];
	int err, fd;

	if (session_fd >= 0) {
		set_error("kpmc_start: already started");
		return -EBUSY;
	}
	err = kpmc_resolve_config(config, raw, sizeof(raw));
	if (err < 0)
		return err;
	if (kpmc_lib_func_regions_start) {
		char why[256];

		err = kpmc_lib_func_regions_start(why, sizeof(why));
		if (err) {
			set_error("KPMC_FOLD_FUNCTIONS: %s", why);
			return err;
		}
	}
	/*
	 * The session: records go there; a reader takes them when there are
	 * samples, from the mapped ring (read-write: its tail is the reader's),
	 * else with read().
	 */
	fd = kpmc_proc_open("monitor", O_RDWR | O_NONBLOCK);
	if (fd < 0)
		fd = kpmc_proc_open("monitor", O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		set_error(KPMC_PROC_DIR "/monitor: %s", strerror(-fd));
		return fd;
	}
	session_fd = fd;
	{
		char why[256];

		pthread_once(&ring_atfork_once, ring_install_atfork);
		kpmc_ringmap_open(&session_ring, session_fd, why, sizeof(why));
	}
	forget_samples();
	sampling = samples_in(raw);
	fold_keep = sampling || getenv("KPMC_FOLD_TRACE");
	{
		char why[256];

		/* A raw configuration names its own counters: pmcN. */
		if (kpmc_lib_fold_counter_names(config, raw, &fold_counters, why, sizeof(why)))
			kpmc_lib_fold_counter_names(raw, raw, &fold_counters, why, sizeof(why));
	}
	err = put("config", raw);
	if (!err && sampling)
		err = start_reader();
	if (!err)
		err = put("enable", "1");
	if (err) {
		stop_reader();
		kpmc_ringmap_close(&session_ring);
		close(session_fd);
		session_fd = -1;
	}
	return err;
}

/* KPMC_FOLD_TRACE=FILE: the fold trace, written at kpmc_stop(). */
static int write_fold_env(void)
{
	const char *path = getenv("KPMC_FOLD_TRACE");
	FILE *f;
	long n;

	if (!path || !path[0])
		return 0;
	f = fopen(path, "w");
	if (!f) {
		set_error("KPMC_FOLD_TRACE %s: %s", path, strerror(errno));
		return -errno;
	}
	n = kpmc_fold_trace_write(f);
	if (fclose(f) && n >= 0)
		n = -EIO;
	if (n < 0) {
		set_error("KPMC_FOLD_TRACE %s: %s", path, strerror((int)-n));
		return (int)n;
	}
	return 0;
}

int kpmc_stop(void)
{
	if (session_fd < 0)
		return -EINVAL;
	put("enable", "0");
	/*
	 * The threads this one created that still live (asleep, say) stop
	 * too, their last records in the ring before it is drained: closed
	 * first, the session would lose them. A module without "stop"
	 * refuses it; those threads then stop at the close as before.
	 */
	put("enable", "stop");
	stop_reader();
	pthread_mutex_lock(&rec_lock);
	drain();
	kpmc_ringmap_close(&session_ring);
	close(session_fd);
	session_fd = -1;
	pthread_mutex_unlock(&rec_lock);
	return write_fold_env();
}

/*
 * Old modules return only struct kpmc_self_counts: one set. Also the fast
 * path's conversion, so it writes only what nr_sets = 1 puts in use: clearing
 * all of *c cost the fast read 110 of its 300 guest instructions.
 */
static void from_self_counts(const struct kpmc_self_counts *sc, struct kpmc_counts *c)
{
	c->counter_mask = sc->counter_mask;
	c->run_ns = sc->run_ns;
	memcpy(c->counts, sc->counts, sizeof(c->counts));
	c->set = sc->set;
	c->nr_sets = 1;
	c->sets[0].counter_mask = sc->counter_mask;
	c->sets[0].run_ns = sc->run_ns;
	memcpy(c->sets[0].counts, sc->counts, sizeof(c->counts));
}

static int read_counts(struct kpmc_counts *c, int mode)
{
	struct kpmc_self_sets ss;
	const struct kpmc_self_page *p;
	unsigned int s;
	int err;
	ssize_t n;

	if (mode != KPMC_PATH_READ) {
		p = my_page();
		if (p && !kpmc_page_read(p, read_counter, monotonic_ns, NULL, &ss.all)) {
			last_path = KPMC_PATH_FAST;
			reads_fast++;
			from_self_counts(&ss.all, c);
			return 0;
		}
		if (mode == KPMC_PATH_FAST)
			return -EOPNOTSUPP;
	}
	err = open_self();
	if (err)
		return err;
	n = pread(self_fd, &ss, sizeof(ss), 0);
	if (n != (ssize_t)sizeof(ss) && n != (ssize_t)sizeof(ss.all))
		return n < 0 ? -errno : -EIO;
	last_path = KPMC_PATH_READ;
	reads_slow++;
	from_self_counts(&ss.all, c);
	if (n == (ssize_t)sizeof(ss.all))
		return 0;
	c->nr_sets = ss.nr_sets < KPMC_LIB_SETS ? ss.nr_sets : KPMC_LIB_SETS;
	c->counter_mask = 0;
	for (s = 0; s < c->nr_sets; s++) {
		c->sets[s].counter_mask = ss.sets[s].counter_mask;
		c->sets[s].run_ns = ss.sets[s].run_ns;
		memcpy(c->sets[s].counts, ss.sets[s].counts, sizeof(c->sets[s].counts));
		c->counter_mask |= ss.sets[s].counter_mask;
	}
	return 0;
}

int kpmc_read(struct kpmc_counts *c)
{
	pthread_once(&path_env_once, path_from_env);
	return read_counts(c, __atomic_load_n(&path_mode, __ATOMIC_RELAXED));
}

/*
 * kpmc_read_counter's first call, its read() path and its fallbacks, out of
 * line from the inlined fast path (kpmc.h).
 */
int kpmc__read_counter_slow(unsigned int pmc, uint64_t *value)
{
	const struct kpmc_self_page *p;
	struct kpmc_counts c;
	int mode, err;

	if (pmc >= KPMC_MAX_COUNTERS)
		return -EINVAL;
	pthread_once(&path_env_once, path_from_env);
	mode = __atomic_load_n(&path_mode, __ATOMIC_RELAXED);
	if (mode != KPMC_PATH_READ) {
		p = my_page();
		if (p) {
			if (!kpmc_page_read_one(p, pmc, read_counter, NULL, value))
				return 0;
			/* Counting, but not pmcN: no path has it. */
			if ((__atomic_load_n(&p->flags, __ATOMIC_RELAXED) & KPMC_PAGE_COUNTING) &&
			    !(__atomic_load_n(&p->counter_mask, __ATOMIC_RELAXED) & (1u << pmc)))
				return -ENOENT;
		}
		if (mode == KPMC_PATH_FAST)
			return -EOPNOTSUPP;
	}
	/* The whole read(): kpmc_read_stats counts it, as for kpmc_read. */
	err = read_counts(&c, KPMC_PATH_READ);
	if (err)
		return err;
	if (!(c.counter_mask & (1u << pmc)))
		return -ENOENT;
	*value = c.counts[pmc];
	return 0;
}

/*
 * The symbol, for callers that do not inline kpmc.h's body (-O0, other
 * architectures, its address taken): the same fast path, then the rest.
 */
int kpmc_read_counter(unsigned int pmc, uint64_t *value)
{
	const void *p = kpmc__page_v1;

	if (pmc < KPMC_MAX_COUNTERS &&
	    !kpmc__page_one(p, pmc, read_counter, NULL, value))
		return 0;
	return kpmc__read_counter_slow(pmc, value);
}

static void free_mine(void *p)
{
	free(p);
}

static void make_mine_key(void)
{
	pthread_key_create(&mine_key, free_mine);
}

/*
 * The entry called name in table (MAX_REGIONS entries of stride bytes, the
 * name at name_off in each), added if create; NULL if none or full.
 */
static void *find_named(void *table, size_t stride, size_t name_off, const char *name, int create)
{
	char *e = table;
	int i;

	for (i = 0; i < MAX_REGIONS && e[name_off]; i++, e += stride)
		if (!strcmp(e + name_off, name))
			return e;
	if (!create || i == MAX_REGIONS || strlen(name) >= NAME_MAX_LEN)
		return NULL;
	strcpy(e + name_off, name);
	return e;
}

static struct open_region *find_open(const char *name, int create)
{
	if (!mine) {
		if (!create)
			return NULL;
		pthread_once(&mine_once, make_mine_key);
		mine = aligned_alloc(_Alignof(struct open_region), MAX_REGIONS * sizeof(*mine));
		if (!mine)
			return NULL;
		memset(mine, 0, MAX_REGIONS * sizeof(*mine));
		pthread_setspecific(mine_key, mine);
	}
	return find_named(mine, sizeof(*mine), offsetof(struct open_region, name), name, create);
}

/* Under lock. */
static struct region *find_total(const char *name, int create)
{
	return find_named(totals, sizeof(totals[0]), offsetof(struct region, name), name, create);
}

/*
 * The reads around regions. With samples they go through read(): the
 * region's bounds are then the kernel's own run_ns, as in the records.
 */
static int region_read(struct kpmc_counts *c)
{
	int mode;

	pthread_once(&path_env_once, path_from_env);
	mode = __atomic_load_n(&path_mode, __ATOMIC_RELAXED);
	return read_counts(c, (sampling || fold_keep) && mode == KPMC_PATH_AUTO ? KPMC_PATH_READ :
			      mode);
}

int kpmc_region_begin(const char *name)
{
	struct open_region *r = find_open(name, 1);
	int err;

	if (!r)
		return -ENOSPC;
	if (r->active)
		return -EALREADY;
	err = region_read(&r->at);
	if (err)
		return err;
	r->active = 1;
	return 0;
}

/*
 * Add the invocation from at to c to g's fold list; under lock. Its set: the
 * one whose time grew by all of the invocation's (with several sets and a
 * read without per-set times, the fast path's, none is known).
 */
static void add_fold_inv(struct region *g, const struct kpmc_counts *at,
			 const struct kpmc_counts *c)
{
	uint64_t b_ns[KPMC_LIB_SETS], e_ns[KPMC_LIB_SETS];
	struct kpmc_lib_fold_inv *v;
	unsigned int s, nr = at->nr_sets < c->nr_sets ? at->nr_sets : c->nr_sets, i;
	int set;

	if (grow_array((void **)&g->fi, &g->fi_cap, g->nfi + 1, sizeof(*g->fi), 64))
		return;
	if (nr > KPMC_LIB_SETS)
		nr = KPMC_LIB_SETS;
	for (s = 0; s < nr; s++) {
		b_ns[s] = at->sets[s].run_ns;
		e_ns[s] = c->sets[s].run_ns;
	}
	if (fold_counters.nr_sets > 1 && nr < fold_counters.nr_sets)
		nr = 0;
	set = kpmc_lib_fold_whole_set(b_ns, e_ns, nr, c->run_ns - at->run_ns);
	v = &g->fi[g->nfi++];
	memset(v, 0, sizeof(*v));
	v->tid = gettid_cached();
	v->set = set;
	v->begin_ns = at->run_ns;
	v->end_ns = c->run_ns;
	if (set < 0)
		return;
	for (i = 0; i < KPMC_LIB_COUNTERS && i < KPMC_MAX_COUNTERS; i++) {
		v->begin[i] = at->sets[set].counts[i];
		v->total[i] = c->sets[set].counts[i] - at->sets[set].counts[i];
	}
}

/* Add invocation (tid, begin, end] to g's list; under lock. */
static void add_interval(struct region *g, uint64_t begin, uint64_t end)
{
	struct kpmc_lib_interval *iv;

	if (grow_array((void **)&g->iv, &g->cap, g->niv + 1, sizeof(*g->iv), 64))
		return;
	iv = &g->iv[g->niv++];
	iv->tid = gettid_cached();
	iv->begin = begin;
	iv->end = end;
	iv->call = calls_ended++;
}

int kpmc_region_end(const char *name)
{
	struct open_region *r;
	struct region *g;
	struct kpmc_counts c;
	unsigned int i, s;
	/* Read first: the lookup must not count in the region (its cost varies). */
	int err = region_read(&c);

	r = find_open(name, 0);
	if (!r || !r->active)
		return -EINVAL;
	if (err)
		return err;
	r->active = 0;
	pthread_mutex_lock(&lock);
	g = find_total(name, 1);
	if (g) {
		g->calls++;
		g->run_ns += c.run_ns - r->at.run_ns;
		for (i = 0; i < KPMC_LIB_COUNTERS; i++)
			g->total[i] += c.counts[i] - r->at.counts[i];
		if (c.nr_sets > g->nr_sets)
			g->nr_sets = c.nr_sets;
		for (s = 0; s < c.nr_sets && s < r->at.nr_sets; s++) {
			g->sets[s].counter_mask |= c.sets[s].counter_mask;
			g->sets[s].run_ns += c.sets[s].run_ns - r->at.sets[s].run_ns;
			for (i = 0; i < KPMC_LIB_COUNTERS; i++)
				g->sets[s].counts[i] += c.sets[s].counts[i] - r->at.sets[s].counts[i];
		}
		if (sampling)
			add_interval(g, r->at.run_ns, c.run_ns);
		if (fold_keep)
			add_fold_inv(g, &r->at, &c);
	}
	pthread_mutex_unlock(&lock);
	return g ? 0 : -ENOSPC;
}

int64_t kpmc_region_total(const char *name, unsigned int pmc)
{
	struct region *g;
	int64_t v = -1;

	if (pmc >= KPMC_LIB_COUNTERS)
		return -1;
	pthread_mutex_lock(&lock);
	g = find_total(name, 0);
	if (g)
		v = (int64_t)g->total[pmc];
	pthread_mutex_unlock(&lock);
	return v;
}

int kpmc_region_get(const char *name, struct kpmc_region_stats *st)
{
	struct region *g;

	pthread_mutex_lock(&lock);
	g = find_total(name, 0);
	if (g) {
		memset(st, 0, sizeof(*st));
		st->calls = g->calls;
		st->run_ns = g->run_ns;
		st->nr_sets = g->nr_sets;
		memcpy(st->sets, g->sets, sizeof(st->sets));
	}
	pthread_mutex_unlock(&lock);
	return g ? 0 : -ENOENT;
}

int64_t kpmc_region_scaled(const char *name, unsigned int set, unsigned int pmc)
{
	struct kpmc_region_stats st;
	const struct kpmc_set_counts *sc;

	if (set >= KPMC_LIB_SETS || pmc >= KPMC_LIB_COUNTERS || kpmc_region_get(name, &st) ||
	    set >= st.nr_sets)
		return -1;
	sc = &st.sets[set];
	if (!(sc->counter_mask & (1u << pmc)) || !sc->run_ns)
		return -1;
	return (int64_t)kpmc_lib_scale(sc->counts[pmc], sc->run_ns, st.run_ns);
}

static void report_sets(FILE *f, const struct region *g)
{
	unsigned int s, c;

	fprintf(f, "region %s calls=%llu run_ns=%llu sets=%u\n", g->name,
		(unsigned long long)g->calls, (unsigned long long)g->run_ns, g->nr_sets);
	for (s = 0; s < g->nr_sets; s++) {
		const struct kpmc_set_counts *sc = &g->sets[s];

		fprintf(f, "region %s set=%u run_ns=%llu coverage=%.1f%%", g->name, s,
			(unsigned long long)sc->run_ns,
			g->run_ns ? 100.0 * (double)sc->run_ns / (double)g->run_ns : 0.0);
		for (c = 0; c < KPMC_LIB_COUNTERS; c++)
			if (sc->counter_mask & (1u << c))
				fprintf(f, " pmc%u=%llu pmc%u_scaled=%llu", c,
					(unsigned long long)sc->counts[c], c,
					(unsigned long long)kpmc_lib_scale(sc->counts[c], sc->run_ns,
									   g->run_ns));
		fputc('\n', f);
	}
}

void kpmc_region_report(FILE *f)
{
	int i;
	unsigned int c;

	pthread_mutex_lock(&lock);
	for (i = 0; i < MAX_REGIONS && totals[i].name[0]; i++) {
		if (totals[i].nr_sets > 1) {
			report_sets(f, &totals[i]);
			continue;
		}
		fprintf(f, "region %s calls=%llu", totals[i].name, (unsigned long long)totals[i].calls);
		for (c = 0; c < KPMC_LIB_COUNTERS; c++)
			if (totals[i].total[c])
				fprintf(f, " pmc%u=%llu", c, (unsigned long long)totals[i].total[c]);
		fputc('\n', f);
	}
	pthread_mutex_unlock(&lock);
}

long kpmc_region_samples(const char *name, kpmc_sample_fn fn, void *arg)
{
	struct kpmc_lib_interval *iv = NULL;
	struct kpmc_sample *out = NULL;
	struct region *g;
	size_t niv = 0, n = 0, i;
	long at;

	pthread_mutex_lock(&rec_lock);
	drain();
	if (name) {
		pthread_mutex_lock(&lock);
		g = find_total(name, 0);
		if (g && g->niv) {
			iv = malloc(g->niv * sizeof(*iv));
			if (iv) {
				memcpy(iv, g->iv, g->niv * sizeof(*iv));
				niv = g->niv;
			}
		}
		pthread_mutex_unlock(&lock);
		if (g && g->niv && !iv)
			goto nomem;
		kpmc_lib_sort_intervals(iv, niv);
	}
	if (nsamples) {
		out = malloc(nsamples * sizeof(*out));
		if (!out)
			goto nomem;
	}
	for (i = 0; i < nsamples; i++) {
		if (!name) {
			out[n++] = samples[i];
			continue;
		}
		if (!samples[i].run_ns)
			continue;
		at = kpmc_lib_find_interval(iv, niv, samples[i].tid, samples[i].run_ns);
		if (at < 0)
			continue;
		out[n] = samples[i];
		out[n++].call = iv[at].call;
	}
	pthread_mutex_unlock(&rec_lock);
	free(iv);
	for (i = 0; i < n; i++)
		fn(&out[i], arg);
	free(out);
	return (long)n;
nomem:
	pthread_mutex_unlock(&rec_lock);
	free(iv);
	return -ENOMEM;
}

int kpmc_sample_stats(struct kpmc_sample_stats *st)
{
	pthread_mutex_lock(&rec_lock);
	drain();
	*st = stats;
	pthread_mutex_unlock(&rec_lock);
	return 0;
}

long kpmc_mem_samples(kpmc_mem_fn fn, void *arg)
{
	long n;

	if (!fn)
		return -EINVAL;
	pthread_mutex_lock(&rec_lock);
	drain();
	kpmc_lib_mem_each(fn, arg, &n);
	pthread_mutex_unlock(&rec_lock);
	return n;
}

long kpmc_mem_write_csv(FILE *f)
{
	long n;

	if (!f)
		return -EINVAL;
	pthread_mutex_lock(&rec_lock);
	drain();
	kpmc_lib_mem_csv(f, &n);
	pthread_mutex_unlock(&rec_lock);
	return ferror(f) ? -EIO : n;
}

/*
 * The fold trace (foldtrace_write.h) of what is kept now: copied under the locks,
 * written without them (f may be slow; the reader must not wait on it).
 */
long kpmc_fold_trace_write(FILE *f)
{
	struct kpmc_lib_fold_region regs[MAX_REGIONS];
	char names[MAX_REGIONS][NAME_MAX_LEN];
	struct kpmc_lib_fold_point *pts = NULL;
	struct kpmc_lib_fold_counters fc;
	size_t nregs = 0, npts = 0, i;
	long n = -ENOMEM;
	char *c;
	int r;

	if (!f)
		return -EINVAL;
	memset(regs, 0, sizeof(regs));
	pthread_mutex_lock(&rec_lock);
	drain();
	if (fold_keep && nsamples) {
		pts = malloc(nsamples * sizeof(*pts));
		if (!pts)
			goto unlock_rec;
		memcpy(pts, fold_pts, nsamples * sizeof(*pts));
		npts = nsamples;
	}
	fc = fold_counters;
	pthread_mutex_lock(&lock);
	for (r = 0; r < MAX_REGIONS && totals[r].name[0]; r++) {
		struct kpmc_lib_fold_inv *v;

		if (!totals[r].nfi)
			continue;
		v = malloc(totals[r].nfi * sizeof(*v));
		if (!v) {
			pthread_mutex_unlock(&lock);
			goto unlock_rec;
		}
		memcpy(v, totals[r].fi, totals[r].nfi * sizeof(*v));
		/* A trace's fields are separated by spaces. */
		strcpy(names[nregs], totals[r].name);
		for (c = names[nregs]; *c; c++)
			if (*c == ' ' || *c == '\t' || *c == '\n')
				*c = '_';
		regs[nregs].name = names[nregs];
		regs[nregs].inv = v;
		regs[nregs++].ninv = totals[r].nfi;
	}
	pthread_mutex_unlock(&lock);
	pthread_mutex_unlock(&rec_lock);
	n = kpmc_lib_fold_write(f, &fc, regs, nregs, pts, npts);
	goto out;
unlock_rec:
	pthread_mutex_unlock(&rec_lock);
out:
	for (i = 0; i < nregs; i++)
		free((void *)regs[i].inv);
	free(pts);
	return n;
}
