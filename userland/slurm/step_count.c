// SPDX-License-Identifier: GPL-2.0
/* What names and limits a Slurm step's counting (see step_count.h). */
#include "step_count.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int kpmc_step_take_interval(char *events, unsigned int *interval_ms, char *err, size_t elen)
{
	char *tok = events, *end, *next;
	unsigned long ms;

	*interval_ms = 0;
	while (*tok) {
		end = strchr(tok, ',');
		next = end ? end + 1 : tok + strlen(tok);
		if (!strncmp(tok, "tbs=", 4)) {
			snprintf(err, elen, "--kpmc: tbs= is the plugin's to set: ask for counts over time with interval=MS");
			return -1;
		}
		if (strncmp(tok, "interval=", 9)) {
			tok = next;
			continue;
		}
		errno = 0;
		ms = isdigit((unsigned char)tok[9]) ? strtoul(tok + 9, &end, 10) : 0;
		if (errno || !ms || (*end && *end != ',') || ms < 10 || ms > 3600000) {
			snprintf(err, elen, "--kpmc: '%.*s': want interval=MS, 10 to 3600000 ms",
				 (int)strcspn(tok, ","), tok);
			return -1;
		}
		if (*interval_ms) {
			snprintf(err, elen, "--kpmc: interval= given twice");
			return -1;
		}
		*interval_ms = (unsigned int)ms;
		/* The token out, with the comma before it or after it. */
		if (tok > events && !*next) {
			tok[-1] = '\0';
			break;
		}
		memmove(tok, next, strlen(next) + 1);
	}
	if (!events[0]) {
		snprintf(err, elen, "--kpmc: interval= and no events");
		return -1;
	}
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
