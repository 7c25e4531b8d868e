// SPDX-License-Identifier: GPL-2.0
/* pmdakpmc's kpmc session (see pmda_session.h). */
#include "pmda_session.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pfm_events.h"

#define PROC_DIR "/proc/kpmc"

/* One write() of s to a /proc/kpmc file: 0 or -errno. */
static int proc_write(const char *file, const char *s)
{
	char path[64];
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), PROC_DIR "/%s", file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n != (ssize_t)strlen(s))
		err = n < 0 ? -errno : -EIO;
	close(fd);
	return err;
}

/* The kernel's reason for the last refusal (last_error), or strerror. */
static void kernel_reason(int err, char *out, size_t len)
{
	FILE *f = fopen(PROC_DIR "/last_error", "r");

	if (f && fgets(out, (int)len, f) && out[0]) {
		out[strcspn(out, "\n")] = '\0';
		fclose(f);
		return;
	}
	if (f)
		fclose(f);
	snprintf(out, len, "%s", strerror(err));
}

/* "virtual_counters: virt0=a virt1=b" of the info file. */
static void virtual_names(struct kpmc_pmda_session *s)
{
	char line[512], *p, *save = NULL;
	FILE *f = fopen(PROC_DIR "/info", "r");
	unsigned int i;

	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "virtual_counters:", 17))
			continue;
		for (p = strtok_r(line + 17, " \n", &save); p; p = strtok_r(NULL, " \n", &save))
			if (sscanf(p, "virt%u=", &i) == 1 && i < KPMC_MAX_VIRT)
				snprintf(s->virt_name[i], sizeof(s->virt_name[i]), "%s", strchr(p, '=') + 1);
	}
	if (f)
		fclose(f);
}

int kpmc_pmda_session_open(struct kpmc_pmda_session *s, const struct kpmc_pmda_config *c,
			   char *err, size_t len)
{
	char set[600], why[512];
	int e;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	if (access(PROC_DIR "/info", R_OK)) {
		snprintf(err, len, "the kpmc module is not loaded (" PROC_DIR ")");
		return -1;
	}
	if (kpmc_pmda_config_set(c, set, sizeof(set)) < 0 ||
	    kpmc_config_to_raw(PROC_DIR "/info", set, s->raw, sizeof(s->raw), why, sizeof(why)) < 0) {
		snprintf(err, len, "events '%s' (line %u): %s", c->events, c->events_line, why);
		return -1;
	}
	if (kpmc_pmda_counter_names(c->events, s->raw, s->counter_name, KPMC_MAX_COUNTERS)) {
		snprintf(err, len, "events '%s': cannot tell which counter counts which event in '%s'",
			 c->events, s->raw);
		return -1;
	}
	virtual_names(s);
	/* A bigger ring than the CLI's default: many threads, one reader per scrape cycle. */
	s->fd = open(PROC_DIR "/monitor", O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (s->fd < 0) {
		kernel_reason(errno, why, sizeof(why));
		snprintf(err, len, "cannot start a monitoring session: %s", why);
		return -1;
	}
	/* First, before anything is attached: the session's threads are counted as an unprivileged owner's. */
	if (write(s->fd, "unprivileged", 12) != 12) {
		if (errno != EINVAL) {
			kernel_reason(errno, why, sizeof(why));
			snprintf(err, len, "unprivileged: %s", why);
			goto fail;
		}
		s->capable_owner = 1;
	}
	if (write(s->fd, "ring=16384", 10) != 10) {
		kernel_reason(errno, why, sizeof(why));
		snprintf(err, len, "ring=16384: %s", why);
		goto fail;
	}
	e = proc_write("config", s->raw);
	if (e) {
		kernel_reason(-e, why, sizeof(why));
		snprintf(err, len, "configuration '%s' rejected: %s", s->raw, why);
		goto fail;
	}
	if (c->system_wide) {
		char req[160];

		snprintf(req, sizeof(req), "%s=%s", c->noidle ? "cpus_noidle" : "cpus", c->cpus);
		e = proc_write("enable", req);
		if (e) {
			kernel_reason(-e, why, sizeof(why));
			snprintf(err, len, "cannot count per CPU (%s): %s", req, why);
			goto fail;
		}
		s->system_wide = 1;
	}
	return 0;
fail:
	close(s->fd);
	s->fd = -1;
	return -1;
}

int kpmc_pmda_session_attach(struct kpmc_pmda_session *s, pid_t tid, char *why, size_t len)
{
	char req[48];
	int e;

	if (len)
		why[0] = '\0';
	if (s->fd < 0)
		return -EBADF;
	snprintf(req, sizeof(req), "pid=%d", tid);
	e = proc_write("enable", req);
	if (e && len)
		kernel_reason(-e, why, len);
	return e;
}

long kpmc_pmda_session_drain(struct kpmc_pmda_session *s,
			     void (*fn)(const struct kpmc_record *r, void *arg), void *arg)
{
	struct kpmc_record recs[64];
	long total = 0;
	ssize_t n;

	if (s->fd < 0)
		return 0;
	for (;;) {
		n = read(s->fd, recs, sizeof(recs));
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? total : -1;
		if (n == 0)
			return total;
		for (ssize_t i = 0; i < n / (ssize_t)sizeof(recs[0]); i++)
			fn(&recs[i], arg);
		total += n / (ssize_t)sizeof(recs[0]);
	}
}

void kpmc_pmda_session_close(struct kpmc_pmda_session *s)
{
	if (s->fd >= 0) {
		/* Per thread, closing the reader stops its threads (doc/proc-abi.md: enable). */
		if (s->system_wide)
			proc_write("enable", "0");
		close(s->fd);
	}
	s->fd = -1;
}
