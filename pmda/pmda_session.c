// SPDX-License-Identifier: GPL-2.0
/* pmdakpmc's kpmc session (see pmda_session.h). */
#include "pmda_session.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/kpmc_proc.h"
#include "common/eventspec.h"
#include "common/pfm_events.h"

/* The active module's virtual counter names (info's virtual_counters). */
static void virtual_names(struct kpmc_pmda_session *s)
{
	struct kpmc_info info;

	kpmc_info_read(&info);
	memcpy(s->virt_name, info.virt_name, sizeof(s->virt_name));
}

int kpmc_pmda_session_open(struct kpmc_pmda_session *s, const struct kpmc_pmda_config *c,
			   char *err, size_t len)
{
	char set[600], why[512];

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	if (access(KPMC_PROC_INFO, R_OK)) {
		snprintf(err, len, "the kpmc module is not loaded (" KPMC_PROC_DIR ")");
		return -1;
	}
	if (kpmc_pmda_config_set(c, set, sizeof(set)) < 0 ||
	    kpmc_config_to_raw(KPMC_PROC_INFO, set, s->raw, sizeof(s->raw), why, sizeof(why)) < 0) {
		snprintf(err, len, "events '%s' (line %u): %s", c->events, c->events_line, why);
		return -1;
	}
	if (kpmc_counter_names(c->events, s->raw, s->counter_name, KPMC_MAX_COUNTERS)) {
		snprintf(err, len, "events '%s': cannot tell which counter counts which event in '%s'",
			 c->events, s->raw);
		return -1;
	}
	virtual_names(s);
	/*
	 * A bigger ring than the CLI's default: many threads, one reader per
	 * scrape cycle. The session's threads are counted as an unprivileged
	 * owner's.
	 */
	s->fd = kpmc_proc_session_open(s->raw, KPMC_PMDA_RING_RECORDS, 1, &s->capable_owner, err,
				       len);
	if (s->fd < 0)
		return -1;
	if (c->system_wide) {
		char req[160];

		snprintf(req, sizeof(req), "%s=%s", c->noidle ? "cpus_noidle" : "cpus", c->cpus);
		if (kpmc_proc_write("enable", req, why, sizeof(why))) {
			snprintf(err, len, "cannot count per CPU (%s): %s", req, why);
			close(s->fd);
			s->fd = -1;
			return -1;
		}
		s->system_wide = 1;
	}
	return 0;
}

int kpmc_pmda_session_attach(struct kpmc_pmda_session *s, pid_t tid, char *why, size_t len)
{
	char req[48];

	if (len)
		why[0] = '\0';
	if (s->fd < 0)
		return -EBADF;
	snprintf(req, sizeof(req), "pid=%d", tid);
	return kpmc_proc_write("enable", req, why, len);
}

long kpmc_pmda_session_drain(struct kpmc_pmda_session *s,
			     void (*fn)(const struct kpmc_record *r, void *arg), void *arg)
{
	struct kpmc_record recs[64];
	long total = 0;
	ssize_t n;

	if (s->fd < 0)
		return 0;
	/*
	 * One ring's worth at most: records that keep coming (a fork storm
	 * inside a selector) wait for the next call, and pmcd's requests
	 * are answered meanwhile; a full ring drops and counts, as always.
	 */
	while (total < KPMC_PMDA_RING_RECORDS) {
		n = read(s->fd, recs, sizeof(recs));
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? total : -1;
		if (n == 0)
			return total;
		for (ssize_t i = 0; i < n / (ssize_t)sizeof(recs[0]); i++)
			fn(&recs[i], arg);
		total += n / (ssize_t)sizeof(recs[0]);
	}
	return total;
}

int kpmc_pmda_session_count_cgroup(struct kpmc_pmda_session *s, int dir_fd, char *why, size_t len)
{
	char req[32];
	int err;

	if (s->fd < 0)
		return -EBADF;
	snprintf(req, sizeof(req), "cgroup=%d", dir_fd);
	err = kpmc_proc_write("enable", req, why, len);
	if (!err)
		s->system_wide = 1;
	return err;
}

void kpmc_pmda_session_uncount(struct kpmc_pmda_session *s, uint32_t id)
{
	char req[32];

	if (s->fd < 0)
		return;
	snprintf(req, sizeof(req), "stop=%u", id);
	kpmc_proc_write("enable", req, NULL, 0);
}

void kpmc_pmda_session_stop(struct kpmc_pmda_session *s)
{
	if (s->fd >= 0 && !s->system_wide)
		kpmc_proc_write("enable", "stop", NULL, 0);
}

void kpmc_pmda_session_close(struct kpmc_pmda_session *s)
{
	if (s->fd >= 0) {
		/* Per thread, closing the reader stops its threads (doc/proc-abi.md: enable). */
		if (s->system_wide)
			kpmc_proc_write("enable", "0", NULL, 0);
		close(s->fd);
	}
	s->fd = -1;
}
