// SPDX-License-Identifier: LGPL-2.1
/*
 * The session's records: /proc/kpmc/monitor opened and closed, read through
 * its mapped ring (zero-copy) or read(), by a reader thread while samples
 * come; samples attributed to their thread's on-CPU time, memory samples
 * handed to memsample.c, the fold trace's points kept; the queries on what
 * is kept (kpmc_region_samples, kpmc_sample_stats, kpmc_mem_*,
 * kpmc_fold_trace_write).
 */
#define _GNU_SOURCE	/* pipe2 */
#include "kpmc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uapi/linux/kpmc.h>

#include "libkpmc_internal.h"
#include "attrib.h"
#include "common/growarray.h"
#include "common/kpmc_proc.h"
#include "common/ringmap.h"
#include "foldtrace_write.h"
#include "memsample.h"

/* /proc/kpmc/monitor while a session is open, else -1; closed under rec_lock, never mid-drain. */
static int session_fd = -1;
/*
 * Samples: the session's records (rec_lock, taken before regions.c's lock
 * where both are). With a sampling configuration, or several sets (a record
 * every turn, kept per thread for kpmc_read_estimate), a reader thread drains
 * the session as records come.
 */
static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t reader;
static int reader_running;
static int stop_pipe[2] = { -1, -1 };
static struct kpmc_lib_stream *streams;
static size_t nstreams, streams_cap;
static struct kpmc_sample *samples;
static size_t nsamples, samples_cap;
static struct kpmc_sample_stats stats;
/* With the fold trace kept: fold_pts[i], samples[i]'s thread totals. */
static struct kpmc_lib_fold_point *fold_pts;
static size_t fold_pts_cap;
/* The session's ring, mapped (unmapped: a module without it, read()). */
static struct kpmc_ringmap session_ring;
static pthread_once_t ring_atfork_once = PTHREAD_ONCE_INIT;

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
	/* Without room for the turns the thread has no estimates: its counts go on. */
	if (kpmc_lib_session.multiplexed)
		streams[nstreams].mux = calloc(1, sizeof(*streams[nstreams].mux));
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
	    (kpmc_lib_session.fold_keep &&
	     grow_array((void **)&fold_pts, &fold_pts_cap, nsamples + 1, sizeof(*fold_pts), 256))) {
		stats.unattributable++;
		return;
	}
	if (kpmc_lib_session.fold_keep) {
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
int kpmc_lib_reader_start(void)
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
	size_t i;

	pthread_mutex_lock(&rec_lock);
	for (i = 0; i < nstreams; i++)
		free(streams[i].mux);
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
	kpmc_lib_regions_forget_kept();
	pthread_mutex_unlock(&rec_lock);
}

int kpmc_lib_records_open(void)
{
	char why[256];
	int fd;

	/*
	 * Records go to the session; a reader takes them when there are
	 * samples, from the mapped ring (read-write: its tail is the
	 * reader's), else with read().
	 */
	fd = kpmc_proc_open("monitor", O_RDWR | O_NONBLOCK);
	if (fd < 0)
		fd = kpmc_proc_open("monitor", O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return fd;
	session_fd = fd;
	pthread_once(&ring_atfork_once, ring_install_atfork);
	kpmc_ringmap_open(&session_ring, session_fd, why, sizeof(why));
	forget_samples();
	return 0;
}

int kpmc_lib_records_opened(void)
{
	return session_fd >= 0;
}

void kpmc_lib_records_close(int drain_first)
{
	stop_reader();
	pthread_mutex_lock(&rec_lock);
	if (drain_first)
		drain();
	kpmc_ringmap_close(&session_ring);
	close(session_fd);
	session_fd = -1;
	pthread_mutex_unlock(&rec_lock);
}

long kpmc_region_samples(const char *name, kpmc_sample_fn fn, void *arg)
{
	struct kpmc_lib_interval *iv = NULL;
	struct kpmc_sample *out = NULL;
	size_t niv = 0, n = 0, i;
	long at;

	pthread_mutex_lock(&rec_lock);
	drain();
	if (name) {
		if (kpmc_lib_region_intervals(name, &iv, &niv))
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
	struct kpmc_lib_fold_region regs[KPMC_LIB_MAX_REGIONS];
	char names[KPMC_LIB_MAX_REGIONS][KPMC_LIB_NAME_LEN];
	struct kpmc_lib_fold_point *pts = NULL;
	struct kpmc_lib_fold_counters fc;
	size_t nregs = 0, npts = 0, i;
	long n = -ENOMEM;

	if (!f)
		return -EINVAL;
	memset(regs, 0, sizeof(regs));
	pthread_mutex_lock(&rec_lock);
	drain();
	if (kpmc_lib_session.fold_keep && nsamples) {
		pts = malloc(nsamples * sizeof(*pts));
		if (!pts)
			goto unlock_rec;
		memcpy(pts, fold_pts, nsamples * sizeof(*pts));
		npts = nsamples;
	}
	fc = kpmc_lib_session.fold_counters;
	if (kpmc_lib_regions_fold_copy(regs, names, &nregs))
		goto unlock_rec;
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

/*
 * The calling thread's turns so far into *m: its records drained now, and
 * the turn it is in from c (a read taken before the drain). -EAGAIN when a
 * record came between the two (c then lags the records): read again.
 * rec_lock held.
 */
static int turns_now(uint32_t tid, const struct kpmc_counts *c, struct kpmc_mux_streams *m)
{
	const struct kpmc_lib_stream *st;
	uint64_t open[KPMC_MAX_COUNTERS] = { 0 };
	unsigned int s, pmc;

	drain();
	st = stream_of(tid);
	if (!st || !st->mux)
		return -ENOMEM;
	if (st->broken)
		return -ENODATA;
	if (st->run_ns > c->run_ns || c->set >= c->nr_sets)
		return -EAGAIN;
	for (s = 0; s < c->nr_sets; s++)
		for (pmc = 0; pmc < KPMC_LIB_COUNTERS; pmc++) {
			if (!(c->sets[s].counter_mask & (1u << pmc)))
				continue;
			if (c->sets[s].counts[pmc] < st->counts[s][pmc] ||
			    (s != c->set && c->sets[s].counts[pmc] != st->counts[s][pmc]))
				return -EAGAIN;
			if (s == c->set)
				open[pmc] = c->sets[s].counts[pmc] - st->counts[s][pmc];
		}
	*m = *st->mux;
	if (c->run_ns > st->run_ns)
		kpmc_mux_streams_add(m, c->set, c->sets[c->set].counter_mask, open,
				     (double)(c->run_ns - st->run_ns));
	return 0;
}

int kpmc_read_estimate(unsigned int set, unsigned int pmc, struct kpmc_count_estimate *e)
{
	struct kpmc_mux_streams *m;
	struct kpmc_estimate est;
	struct kpmc_counts c;
	int err, tries;

	if (!e || set >= KPMC_LIB_SETS || pmc >= KPMC_LIB_COUNTERS)
		return -EINVAL;
	if (!kpmc_lib_records_opened())
		return -ENODATA;
	err = kpmc_lib_read_sets(&c);
	if (err)
		return err;
	if (set >= c.nr_sets || !(c.sets[set].counter_mask & (1u << pmc)))
		return -EINVAL;
	if (c.nr_sets == 1) {
		*e = (struct kpmc_count_estimate){ .value = c.counts[pmc], .half90 = 0,
						   .estimator = kpmc_estimator_name(KPMC_EST_COUNTED) };
		return 0;
	}
	m = malloc(sizeof(*m));
	if (!m)
		return -ENOMEM;
	/* A turn ends between the read and the drain rarely: a few tries. */
	for (tries = 0; tries < 8; tries++) {
		if (tries)
			err = kpmc_lib_read_sets(&c);
		if (err)
			break;
		pthread_mutex_lock(&rec_lock);
		err = turns_now(kpmc_lib_tid(), &c, m);
		pthread_mutex_unlock(&rec_lock);
		if (err != -EAGAIN)
			break;
	}
	if (!err) {
		kpmc_mux_estimate(m, set, pmc, &est);
		e->value = est.value;
		e->half90 = est.half90;
		e->estimator = kpmc_estimator_name(est.how);
	}
	free(m);
	return err;
}
