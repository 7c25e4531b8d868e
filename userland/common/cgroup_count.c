// SPDX-License-Identifier: GPL-2.0
/* Counting one cgroup on every CPU (see cgroup_count.h). */
#include "cgroup_count.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "eventspec.h"
#include "kpmc_proc.h"
#include "pfm_events.h"

/*
 * One record per CPU at the stop (no time-based sampling), and the ring
 * must hold them all between the stop and the drain.
 */
#define CGROUP_RING_RECORDS 4096

int kpmc_cgroup_count_start(struct kpmc_cgroup_count *s, const char *events, int cgroup_fd,
			    char *err, size_t len)
{
	char why[512], req[48];
	int e;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	if (!kpmc_proc_present()) {
		snprintf(err, len, "the kpmc module is not loaded on this node (no " KPMC_PROC_DIR ")");
		return -1;
	}
	if (kpmc_config_to_raw(KPMC_PROC_INFO, events, s->raw, sizeof(s->raw), why, sizeof(why)) < 0) {
		snprintf(err, len, "events '%s': %s", events, why);
		return -1;
	}
	if (kpmc_counter_names(events, s->raw, s->counter_name, KPMC_MAX_COUNTERS)) {
		snprintf(err, len, "events '%s': cannot tell which counter counts which event in '%s'",
			 events, s->raw);
		return -1;
	}
	s->fd = kpmc_proc_session_open(s->raw, CGROUP_RING_RECORDS, 0, NULL, err, len);
	if (s->fd < 0)
		return -1;
	snprintf(req, sizeof(req), "cgroup=%d", cgroup_fd);
	e = kpmc_proc_write("enable", req, why, sizeof(why));
	if (e) {
		snprintf(err, len, "cannot count the cgroup: %s", why);
		close(s->fd);
		s->fd = -1;
		return e;
	}
	s->counting = 1;
	return 0;
}

void kpmc_cgroup_count_add(struct kpmc_cgroup_count *s, const struct kpmc_record *r)
{
	if (s->on_record)
		s->on_record(r, s->arg);
	s->records++;
	if (r->kind == KPMC_REC_LOST) {
		s->lost += r->lost;
		return;
	}
	if (!KPMC_REC_IS_CPU(r->kind))
		return;
	for (unsigned int i = 0; i < KPMC_MAX_COUNTERS; i++)
		if (r->counter_mask & (1u << i))
			s->counts[i] += r->counts[i];
	s->counter_mask |= r->counter_mask;
	s->run_ns += r->run_ns;
}

int kpmc_cgroup_count_drain(struct kpmc_cgroup_count *s, char *err, size_t len)
{
	struct kpmc_record recs[64];
	ssize_t n;

	for (;;) {
		n = read(s->fd, recs, sizeof(recs));
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno != EAGAIN) {
				snprintf(err, len, "reading the records: %s", strerror(errno));
				return -1;
			}
			return 0;
		}
		for (ssize_t i = 0; i < n / (ssize_t)sizeof(recs[0]); i++)
			kpmc_cgroup_count_add(s, &recs[i]);
	}
}

int kpmc_cgroup_count_finish(struct kpmc_cgroup_count *s, char *err, size_t len)
{
	char why[512];
	int rc = 0;

	if (s->fd < 0) {
		snprintf(err, len, "no cgroup was counted here");
		return -1;
	}
	if (s->counting && kpmc_proc_write("enable", "0", why, sizeof(why))) {
		snprintf(err, len, "cannot stop counting: %s", why);
		rc = -1;
	}
	if (kpmc_cgroup_count_drain(s, err, len))
		rc = -1;
	close(s->fd);
	s->fd = -1;
	s->counting = 0;
	return rc;
}
