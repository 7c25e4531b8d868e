// SPDX-License-Identifier: LGPL-2.1
/*
 * The session: kpmc_start (the configuration resolved through libpfm4 and
 * written to /proc/kpmc, the session opened, its reader started, counting
 * enabled, each step undone when a later one fails) and kpmc_stop (counting
 * stopped, the last records taken, KPMC_FOLD_TRACE written); a cgroup's
 * session (kpmc_cgroup_start/stop, through common/cgroup_count.c); the
 * requests to /proc/kpmc and kpmc_last_error.
 */
#include "kpmc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libkpmc_internal.h"
#include "common/cgroup_count.h"
#include "common/kpmc_proc.h"
#include "common/pfm_events.h"
#include "foldtrace_write.h"

struct kpmc_lib_session kpmc_lib_session;

static __thread char last_error[512];
/* The cgroup session kpmc_cgroup_start() opened: one at a time, as the kernel allows. */
static struct kpmc_cgroup_count cgroup_session = { .fd = -1 };
static pthread_mutex_t cgroup_lock = PTHREAD_MUTEX_INITIALIZER;
/* libpfm4 keeps global state. */
static pthread_mutex_t pfm_lock = PTHREAD_MUTEX_INITIALIZER;

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

/*
 * Weak: the hooks (funcregion.c) are in a program only when it is built
 * with -finstrument-functions (libkpmc.a pulls funcregion.o for its
 * __cyg_profile_func_enter), and source lists that name libkpmc's files
 * without it still link.
 */
extern int kpmc_lib_func_regions_start(char *why, size_t len) __attribute__((weak));

int kpmc_start(const char *config)
{
	struct kpmc_lib_session *s = &kpmc_lib_session;
	char raw[2048];
	int err;

	if (kpmc_lib_records_opened() || cgroup_session.fd >= 0) {
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
	/* The session, what the last one kept forgotten. */
	err = kpmc_lib_records_open();
	if (err) {
		set_error(KPMC_PROC_DIR "/monitor: %s", strerror(-err));
		return err;
	}
	s->sampling = samples_in(raw);
	s->multiplexed = strchr(raw, ';') != NULL;
	s->fold_keep = s->sampling || getenv("KPMC_FOLD_TRACE");
	{
		char why[256];

		/* A raw configuration names its own counters: pmcN. */
		if (kpmc_lib_fold_counter_names(config, raw, &s->fold_counters, why, sizeof(why)))
			kpmc_lib_fold_counter_names(raw, raw, &s->fold_counters, why, sizeof(why));
	}
	err = put("config", raw);
	if (!err && (s->sampling || s->multiplexed))
		err = kpmc_lib_reader_start();
	if (!err)
		err = put("enable", "1");
	if (err)
		kpmc_lib_records_close(0);
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
	if (!kpmc_lib_records_opened())
		return -EINVAL;
	put("enable", "0");
	/*
	 * The threads this one created that still live (asleep, say) stop
	 * too, their last records in the ring before it is drained: closed
	 * first, the session would lose them. A module without "stop"
	 * refuses it; those threads then stop at the close as before.
	 */
	put("enable", "stop");
	kpmc_lib_records_close(1);
	return write_fold_env();
}


int kpmc_cgroup_start(const char *config, int cgroup_fd)
{
	char raw[2048], why[512];
	int err;

	if (cgroup_fd < 0) {
		set_error("kpmc_cgroup_start: no cgroup descriptor");
		return -EBADF;
	}
	err = kpmc_resolve_config(config, raw, sizeof(raw));
	if (err < 0)
		return err;
	pthread_mutex_lock(&cgroup_lock);
	if (cgroup_session.fd >= 0 || kpmc_lib_records_opened()) {
		pthread_mutex_unlock(&cgroup_lock);
		set_error("kpmc_cgroup_start: a session is already started");
		return -EBUSY;
	}
	err = kpmc_cgroup_count_start(&cgroup_session, raw, cgroup_fd, why, sizeof(why));
	pthread_mutex_unlock(&cgroup_lock);
	if (err) {
		set_error("%s", why);
		return err < -1 ? err : -EINVAL;
	}
	return 0;
}

int kpmc_cgroup_stop(struct kpmc_counts *c)
{
	char why[512];
	int err;

	pthread_mutex_lock(&cgroup_lock);
	if (cgroup_session.fd < 0) {
		pthread_mutex_unlock(&cgroup_lock);
		set_error("kpmc_cgroup_stop: no cgroup session");
		return -EINVAL;
	}
	err = kpmc_cgroup_count_finish(&cgroup_session, why, sizeof(why));
	if (c) {
		memset(c, 0, sizeof(*c));
		c->counter_mask = cgroup_session.counter_mask;
		c->run_ns = cgroup_session.run_ns;
		memcpy(c->counts, cgroup_session.counts, sizeof(c->counts));
		c->nr_sets = 1;
		c->sets[0].counter_mask = c->counter_mask;
		c->sets[0].run_ns = c->run_ns;
		memcpy(c->sets[0].counts, c->counts, sizeof(c->counts));
	}
	pthread_mutex_unlock(&cgroup_lock);
	if (err) {
		set_error("%s", why);
		return -EIO;
	}
	return cgroup_session.lost ? -ENOSPC : 0;
}
