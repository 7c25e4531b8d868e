// SPDX-License-Identifier: GPL-2.0
/* Counting one Slurm job step's cgroup on one node (see step_count.h). */
#include "step_count.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/eventspec.h"
#include "common/kpmc_proc.h"
#include "common/pfm_events.h"

/*
 * A step's records: one per CPU at the stop (no time-based sampling), and
 * the ring must hold them all between the stop and the drain.
 */
#define STEP_RING_RECORDS 4096

int kpmc_step_parse_option(const char *arg, char *events, size_t len, char *err, size_t elen)
{
	size_t n = arg ? strlen(arg) : 0;

	if (!n) {
		snprintf(err, elen, "--kpmc wants events, such as --kpmc=instr,cycles");
		return -1;
	}
	if (n >= len || n >= KPMC_STEP_EVENTS_MAX) {
		snprintf(err, elen, "--kpmc: %zu characters of events, at most %d", n,
			 KPMC_STEP_EVENTS_MAX - 1);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)arg[i];

		/* A set's own characters: names, modifiers, raw codes; ';' would start another set. */
		if (!isalnum(c) && !strchr(",:=_.-", c)) {
			snprintf(err, elen, "--kpmc: character '%c' in '%s' (one event set: names or pmcN=CODE, comma-separated)",
				 isprint(c) ? c : '?', arg);
			return -1;
		}
	}
	memcpy(events, arg, n + 1);
	return 0;
}

int kpmc_step_counts_kernel(const char *raw)
{
	const char *p = raw;

	while ((p = strstr(p, "os")) != NULL) {
		const char *q = p + 2;

		if ((p == raw || p[-1] == ',') && isdigit((unsigned char)*q)) {
			while (isdigit((unsigned char)*q))
				q++;
			if (q[0] == '=' && q[1] == '1' && (q[2] == ',' || q[2] == '\0'))
				return 1;
		}
		p += 2;
	}
	return 0;
}

int kpmc_step_cgroup_path(const char *text, uint32_t jobid, char *out, size_t len, char *step,
			  size_t slen)
{
	char job[32], line[1024];
	const char *p = text, *nl;

	snprintf(job, sizeof(job), "/job_%u/step_", jobid);
	/* The unified hierarchy's line: "0::/path". */
	for (; *p; p = nl ? nl + 1 : p + strlen(p)) {
		const char *at, *end;
		size_t n;

		nl = strchr(p, '\n');
		n = nl ? (size_t)(nl - p) : strlen(p);
		if (n >= sizeof(line) || strncmp(p, "0::/", 4))
			continue;
		memcpy(line, p + 3, n - 3);
		line[n - 3] = '\0';
		at = strstr(line, job);
		if (!at)
			continue;
		at += strlen(job);
		end = at + strcspn(at, "/");
		if (end == at || (size_t)(end - line) >= len || (size_t)(end - at) >= slen)
			return -1;
		memcpy(out, line, end - line);
		out[end - line] = '\0';
		memcpy(step, at, end - at);
		step[end - at] = '\0';
		return 0;
	}
	return -1;
}

int kpmc_step_start(struct kpmc_step_count *s, const char *events, int cgroup_fd, char *err,
		    size_t len)
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
	s->fd = kpmc_proc_open("monitor", O_RDWR | O_NONBLOCK);
	if (s->fd < 0) {
		kpmc_proc_reason(-s->fd, why, sizeof(why));
		s->fd = -1;
		snprintf(err, len, "cannot start a monitoring session: %s", why);
		return -1;
	}
	snprintf(req, sizeof(req), "ring=%u", STEP_RING_RECORDS);
	if (kpmc_proc_request(s->fd, req, why, sizeof(why))) {
		snprintf(err, len, "%s: %s", req, why);
		goto fail;
	}
	if (kpmc_proc_write("config", s->raw, why, sizeof(why))) {
		snprintf(err, len, "configuration '%s' rejected: %s", s->raw, why);
		goto fail;
	}
	snprintf(req, sizeof(req), "cgroup=%d", cgroup_fd);
	e = kpmc_proc_write("enable", req, why, sizeof(why));
	if (e) {
		snprintf(err, len, "cannot count the step's cgroup: %s", why);
		close(s->fd);
		s->fd = -1;
		return e;
	}
	s->counting = 1;
	return 0;
fail:
	close(s->fd);
	s->fd = -1;
	return -1;
}

void kpmc_step_add_record(struct kpmc_step_count *s, const struct kpmc_record *r)
{
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

int kpmc_step_finish(struct kpmc_step_count *s, char *err, size_t len)
{
	struct kpmc_record recs[64];
	char why[512];
	int rc = 0;
	ssize_t n;

	if (s->fd < 0) {
		snprintf(err, len, "no step was counted here");
		return -1;
	}
	if (s->counting && kpmc_proc_write("enable", "0", why, sizeof(why))) {
		snprintf(err, len, "cannot stop counting: %s", why);
		rc = -1;
	}
	for (;;) {
		n = read(s->fd, recs, sizeof(recs));
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno != EAGAIN) {
				snprintf(err, len, "reading the records: %s", strerror(errno));
				rc = -1;
			}
			break;
		}
		for (ssize_t i = 0; i < n / (ssize_t)sizeof(recs[0]); i++)
			kpmc_step_add_record(s, &recs[i]);
	}
	close(s->fd);
	s->fd = -1;
	s->counting = 0;
	return rc;
}
