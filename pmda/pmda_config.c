// SPDX-License-Identifier: GPL-2.0
/* pmdakpmc's configuration file, parsed strictly (grammar: pmda_config.h). */
#include "pmda_config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/eventspec.h"

#define MAX_LINE	1024
#define MAX_TOKENS	4
#define PID_MAX_LIMIT	4194304ul	/* the kernel's largest pid_max */
#define MAX_CPU		8191ul

struct parse_state {
	const char *file;
	unsigned int line;
	char *err;
	size_t len;
	unsigned int interval_line, threads_line, grace_line, rescan_line, first_process_line,
		     cpus_line, kernel_line, save_line, steps_line, first_cgroups_line;
	char kernel_token[128];	/* the first event that counts kernel mode, or "" */
};

/* "FILE:LINE: token 'X': why", always -1. */
static int refuse(struct parse_state *s, const char *token, const char *why, ...)
{
	char reason[256];
	va_list ap;

	va_start(ap, why);
	vsnprintf(reason, sizeof(reason), why, ap);
	va_end(ap);
	snprintf(s->err, s->len, "%s:%u: token '%s': %s", s->file, s->line, token, reason);
	return -1;
}

/* A whole decimal number in [min, max]; 0, or -1 (junk, sign, out of range). */
static int parse_number(const char *tok, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!isdigit((unsigned char)tok[0]))
		return -1;
	errno = 0;
	v = strtoul(tok, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* "all" or "N", "N-M" joined by ','; each CPU below MAX_CPU, N <= M. */
static int check_cpu_list(const char *list)
{
	const char *p = list;

	if (!strcmp(list, "all"))
		return 0;
	for (;;) {
		unsigned long a, b;
		char *end;

		if (!isdigit((unsigned char)*p))
			return -1;
		a = strtoul(p, &end, 10);
		b = a;
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return -1;
			b = strtoul(end + 1, &end, 10);
		}
		if (a > MAX_CPU || b > MAX_CPU || a > b)
			return -1;
		if (!*end)
			return 0;
		if (*end != ',')
			return -1;
		p = end + 1;
	}
}

/* A POSIX user name (as useradd takes it, '$' for machine accounts aside). */
static int valid_user(const char *u)
{
	size_t n = strlen(u);

	if (!n || n > 32 || !(islower((unsigned char)u[0]) || u[0] == '_'))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!islower((unsigned char)u[i]) && !isdigit((unsigned char)u[i]) && u[i] != '_' &&
		    u[i] != '-' && u[i] != '.')
			return 0;
	return 1;
}

static int parse_events(struct parse_state *s, struct kpmc_pmda_config *c, const char *list)
{
	char events[512], tokens[512], why[256];
	struct kpmc_event_spec ev[KPMC_MAX_EVENTS];
	char *t, *save = NULL;

	if (c->events_line)
		return refuse(s, "events", "given again (first on line %u): the agent counts one event set",
			      c->events_line);
	if (strlen(list) >= sizeof(c->events))
		return refuse(s, list, "longer than %zu characters", sizeof(c->events) - 1);
	if (strchr(list, ';'))
		return refuse(s, list, "one event set only: the agent does not multiplex");
	if (strstr(list, ",,") || list[0] == ',' || list[strlen(list) - 1] == ',')
		return refuse(s, list, "an empty event between commas");
	if (kpmc_split_set_tokens(list, events, sizeof(events), tokens, sizeof(tokens), why, sizeof(why)))
		return refuse(s, list, "%s", why);
	/* The set's own tokens: tbs comes from 'interval'; no second set to rotate to. */
	for (t = strtok_r(tokens, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (strncmp(t, "rnd=", 4) && strncmp(t, "seed=", 5))
			return refuse(s, t, "not for the agent (its interval sets tbs; one set, no sampling formats)");
	if (kpmc_config_is_raw(events)) {
		char raw[512];

		snprintf(raw, sizeof(raw), "%s", events);
		save = NULL;
		for (t = strtok_r(raw, ",", &save); t; t = strtok_r(NULL, ",", &save))
			if (!s->kernel_token[0] && !strncmp(t, "os", 2) && isdigit((unsigned char)t[2]) &&
			    strchr(t, '=') && strcmp(strchr(t, '='), "=0"))
				snprintf(s->kernel_token, sizeof(s->kernel_token), "%.120s", t);
	} else {
		int n = kpmc_parse_event_list(events, ev, KPMC_MAX_EVENTS, why, sizeof(why));

		if (n < 0)
			return refuse(s, list, "%s", why);
		for (int i = 0; i < n && !s->kernel_token[0]; i++)
			if (ev[i].os == 1)
				snprintf(s->kernel_token, sizeof(s->kernel_token), "%.100s:%s", ev[i].name,
					 ev[i].usr == 1 ? "uk" : "k");
	}
	strcpy(c->events, list);
	c->events_line = s->line;
	return 0;
}

/* The owner a comm= selector must come with: user=NAME or uid=N. */
static int parse_owner(struct parse_state *s, struct kpmc_pmda_selector *sel, const char *comm,
		       const char *arg)
{
	unsigned long n;

	if (!arg)
		return refuse(s, comm,
			      "a command name is anyone's to take: give its owner on the same line (process %s user=NAME, or uid=N)",
			      comm);
	if (!strncmp(arg, "user=", 5)) {
		if (!valid_user(arg + 5))
			return refuse(s, arg + 5, "not a user name");
		strcpy(sel->owner, arg + 5);
		return 0;
	}
	if (!strncmp(arg, "uid=", 4)) {
		if (parse_number(arg + 4, 0, 4294967294ul, &n))
			return refuse(s, arg + 4, "not a uid (0 to 4294967294)");
		sel->num = n;
		return 0;
	}
	return refuse(s, arg, "only user=NAME or uid=N may follow %s", comm);
}

static int parse_process(struct parse_state *s, struct kpmc_pmda_config *c, const char *arg,
			 const char *arg2)
{
	struct kpmc_pmda_selector *sel;
	const char *eq = strchr(arg, '='), *v;
	unsigned long n;

	if (c->system_wide)
		return refuse(s, "process",
			      "cpus (system-wide) is on: the kernel counts per CPU or per thread, not both");
	if (c->ncgroup_patterns)
		return refuse(s, "process",
			      "cgroups given (line %u): the kernel counts per cgroup or per thread, not both",
			      s->first_cgroups_line);
	if (c->nsel == KPMC_PMDA_MAX_SELECTORS)
		return refuse(s, arg, "more than %d process lines", KPMC_PMDA_MAX_SELECTORS);
	if (!eq)
		return refuse(s, arg, "wants KEY=VALUE (comm=, pid=, cgroup=, user=, uid=)");
	v = eq + 1;
	sel = &c->sel[c->nsel];
	memset(sel, 0, sizeof(*sel));
	sel->line = s->line;
	if (!*v)
		return refuse(s, arg, "empty value");
	if (arg2 && strncmp(arg, "comm=", 5))
		return refuse(s, arg2, "unexpected after 'process %s'", arg);
	if (!strncmp(arg, "comm=", 5)) {
		if (strlen(v) > KPMC_PMDA_COMM_MAX)
			return refuse(s, v, "longer than the kernel's %d-character command name",
				      KPMC_PMDA_COMM_MAX);
		if (parse_owner(s, sel, arg, arg2))
			return -1;
		sel->kind = KPMC_SEL_COMM;
		strcpy(sel->text, v);
	} else if (!strncmp(arg, "pid=", 4)) {
		if (parse_number(v, 1, PID_MAX_LIMIT, &n))
			return refuse(s, v, "not a pid (1 to %lu)", PID_MAX_LIMIT);
		sel->kind = KPMC_SEL_PID;
		sel->num = n;
	} else if (!strncmp(arg, "cgroup=", 7)) {
		if (v[0] != '/' || strstr(v, "/../") || strstr(v, "/./") || strstr(v, "//") ||
		    (strlen(v) >= 3 && !strcmp(v + strlen(v) - 3, "/..")))
			return refuse(s, v, "not a cgroup path (absolute, as /proc/PID/cgroup shows it)");
		if (strlen(v) >= sizeof(sel->text))
			return refuse(s, v, "longer than %zu characters", sizeof(sel->text) - 1);
		sel->kind = KPMC_SEL_CGROUP;
		strcpy(sel->text, v);
	} else if (!strncmp(arg, "user=", 5)) {
		if (!valid_user(v))
			return refuse(s, v, "not a user name");
		sel->kind = KPMC_SEL_USER;
		strcpy(sel->text, v);
	} else if (!strncmp(arg, "uid=", 4)) {
		if (parse_number(v, 0, 4294967294ul, &n))
			return refuse(s, v, "not a uid (0 to 4294967294)");
		sel->kind = KPMC_SEL_UID;
		sel->num = n;
	} else {
		char key[64];

		snprintf(key, sizeof(key), "%.*s", (int)(eq - arg), arg);
		return refuse(s, key, "unknown process key (comm, pid, cgroup, user, uid)");
	}
	if (!s->first_process_line)
		s->first_process_line = s->line;
	c->nsel++;
	return 0;
}

/* Has path a ".." component? */
static int dotdot(const char *path)
{
	for (const char *p = path; (p = strstr(p, "..")) != NULL; p += 2)
		if (p[-1] == '/' && (p[2] == '/' || p[2] == '\0'))
			return 1;
	return 0;
}

/* A directive that may appear once: -1 (refused) if it did before. */
/*
 * "cgroups PATTERN": an absolute cgroup v2 path, '*' and '?' its only
 * wildcards, no "..": what a directory of the cgroup tree may be called.
 */
static int parse_cgroups(struct parse_state *s, struct kpmc_pmda_config *c, const char *pat)
{
	const char *p;

	if (c->nsel)
		return refuse(s, "cgroups",
			      "process lines given (first on line %u): the kernel counts per thread or per cgroup, not both",
			      s->first_process_line);
	if (c->system_wide)
		return refuse(s, "cgroups", "cpus given (line %u): count CPUs or cgroups, not both",
			      s->cpus_line);
	if (c->ncgroup_patterns == KPMC_PMDA_MAX_CGROUP_PATTERNS)
		return refuse(s, pat, "more than %d cgroups lines", KPMC_PMDA_MAX_CGROUP_PATTERNS);
	if (pat[0] != '/' || strlen(pat) >= KPMC_PMDA_CGROUP_PATH_MAX || dotdot(pat))
		return refuse(s, pat,
			      "not an absolute cgroup path (as /proc/PID/cgroup shows it, without '..', at most %d characters)",
			      KPMC_PMDA_CGROUP_PATH_MAX - 1);
	for (p = pat; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("/_.-@:+=*?", *p))
			return refuse(s, pat, "character '%c': a pattern takes letters, digits, / _ . - @ : + = and the wildcards * ?",
				      *p);
	strcpy(c->cgroup_pattern[c->ncgroup_patterns++], pat);
	if (!s->first_cgroups_line)
		s->first_cgroups_line = s->line;
	return 0;
}

static int once(struct parse_state *s, const char *word, unsigned int *seen)
{
	if (*seen)
		return refuse(s, word, "given again (first on line %u)", *seen);
	*seen = s->line;
	return 0;
}

static int parse_line(struct parse_state *s, struct kpmc_pmda_config *c, char *line)
{
	char *tok[MAX_TOKENS + 1], *p = line;
	const char *w;
	unsigned long n;
	int nt = 0;

	for (char *q = line; *q; q++) {
		if (*q == '#') {
			*q = '\0';
			break;
		}
		if ((unsigned char)*q < 0x20 && *q != '\t') {
			char hex[8];

			snprintf(hex, sizeof(hex), "\\x%02x", (unsigned char)*q);
			return refuse(s, hex, "a control character");
		}
		if ((unsigned char)*q >= 0x7f) {
			char hex[8];

			snprintf(hex, sizeof(hex), "\\x%02x", (unsigned char)*q);
			return refuse(s, hex, "not ASCII");
		}
	}
	while (*p) {
		while (*p == ' ' || *p == '\t')
			*p++ = '\0';
		if (!*p)
			break;
		if (nt == MAX_TOKENS + 1)
			break;
		tok[nt++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	if (!nt)
		return 0;
	w = tok[0];
	/* Every directive takes one value; cpus may add noidle, process comm= its owner. */
	if (nt == 1)
		return refuse(s, w, "wants a value");
	if (nt > 2 && !((!strcmp(w, "cpus") || !strcmp(w, "process")) && nt == 3))
		return nt > 3 ? refuse(s, tok[3], "unexpected after '%s %s %s'", w, tok[1], tok[2]) :
				refuse(s, tok[2], "unexpected after '%s %s'", w, tok[1]);

	if (!strcmp(w, "events"))
		return parse_events(s, c, tok[1]);
	if (!strcmp(w, "process"))
		return parse_process(s, c, tok[1], nt == 3 ? tok[2] : NULL);
	if (!strcmp(w, "kernel")) {
		if (once(s, w, &s->kernel_line))
			return -1;
		if (strcmp(tok[1], "on") && strcmp(tok[1], "off"))
			return refuse(s, tok[1], "wants on or off");
		c->kernel = !strcmp(tok[1], "on");
		return 0;
	}
	if (!strcmp(w, "save")) {
		if (once(s, w, &s->save_line))
			return -1;
		if (parse_number(tok[1], 1, 3600, &n))
			return refuse(s, tok[1], "not a number of seconds (1 to 3600)");
		c->save_s = (unsigned int)n;
		return 0;
	}
	if (!strcmp(w, "interval")) {
		if (once(s, w, &s->interval_line))
			return -1;
		if (parse_number(tok[1], 1, 3600000, &n))
			return refuse(s, tok[1], "not a number of milliseconds (1 to 3600000)");
		c->interval_ms = (unsigned int)n;
		return 0;
	}
	if (!strcmp(w, "threads")) {
		if (once(s, w, &s->threads_line))
			return -1;
		if (strcmp(tok[1], "on") && strcmp(tok[1], "off"))
			return refuse(s, tok[1], "wants on or off");
		c->threads = !strcmp(tok[1], "on");
		return 0;
	}
	if (!strcmp(w, "grace")) {
		if (once(s, w, &s->grace_line))
			return -1;
		if (parse_number(tok[1], 0, 86400, &n))
			return refuse(s, tok[1], "not a number of seconds (0 to 86400)");
		c->grace_s = (unsigned int)n;
		return 0;
	}
	if (!strcmp(w, "rescan")) {
		if (once(s, w, &s->rescan_line))
			return -1;
		if (parse_number(tok[1], 100, 600000, &n))
			return refuse(s, tok[1], "not a number of milliseconds (100 to 600000)");
		c->rescan_ms = (unsigned int)n;
		return 0;
	}
	if (!strcmp(w, "steps")) {
		if (once(s, w, &s->steps_line))
			return -1;
		if (tok[1][0] != '/' || strlen(tok[1]) >= sizeof(c->steps_dir) || dotdot(tok[1]))
			return refuse(s, tok[1], "not an absolute directory (without '..', at most %zu characters)",
				      sizeof(c->steps_dir) - 1);
		strcpy(c->steps_dir, tok[1]);
		return 0;
	}
	if (!strcmp(w, "cgroups"))
		return parse_cgroups(s, c, tok[1]);
	if (!strcmp(w, "cpus")) {
		if (c->system_wide)
			return refuse(s, w, "given again");
		if (c->ncgroup_patterns)
			return refuse(s, w, "cgroups given (line %u): count CPUs or cgroups, not both",
				      s->first_cgroups_line);
		if (c->nsel)
			return refuse(s, w,
				      "process lines given (first on line %u): the kernel counts per thread or per CPU, not both",
				      s->first_process_line);
		if (strlen(tok[1]) >= sizeof(c->cpus) || check_cpu_list(tok[1]))
			return refuse(s, tok[1], "not a CPU list (all, or N and N-M joined by commas)");
		if (nt == 3 && strcmp(tok[2], "noidle"))
			return refuse(s, tok[2], "only 'noidle' may follow the CPU list");
		strcpy(c->cpus, tok[1]);
		c->noidle = nt == 3;
		c->system_wide = 1;
		s->cpus_line = s->line;
		return 0;
	}
	return refuse(s, w,
		      "unknown directive (events, interval, process, threads, cpus, cgroups, grace, rescan, kernel, save, steps)");
}

static void defaults(struct kpmc_pmda_config *c)
{
	memset(c, 0, sizeof(*c));
	c->interval_ms = KPMC_PMDA_DEFAULT_INTERVAL_MS;
	c->grace_s = KPMC_PMDA_DEFAULT_GRACE_S;
	c->rescan_ms = KPMC_PMDA_DEFAULT_RESCAN_MS;
	c->save_s = KPMC_PMDA_DEFAULT_SAVE_S;
	/* Kernel-mode counts only when the file says so: see the 'kernel' directive. */
	c->kernel = 0;
}

int kpmc_pmda_config_parse(const char *text, const char *file, struct kpmc_pmda_config *c,
			   char *err, size_t len)
{
	struct parse_state s = { .file = file, .err = err, .len = len };
	const char *p = text;

	defaults(c);
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char line[MAX_LINE];

		s.line++;
		if (n >= sizeof(line)) {
			char head[24];

			snprintf(head, sizeof(head), "%.16s...", p);
			refuse(&s, head, "line longer than %d characters", MAX_LINE - 1);
			defaults(c);
			return -1;
		}
		memcpy(line, p, n);
		line[n] = '\0';
		if (parse_line(&s, c, line)) {
			defaults(c);
			return -1;
		}
		p += n + (nl ? 1 : 0);
	}
	/* Whom without what: the file says something the agent cannot do. */
	if ((c->nsel || c->system_wide || c->ncgroup_patterns) && !c->events_line) {
		s.line = c->nsel ? c->sel[0].line : c->system_wide ? s.cpus_line : s.first_cgroups_line;
		refuse(&s, c->nsel ? "process" : c->system_wide ? "cpus" : "cgroups",
		       "nothing to count: no 'events' line");
		defaults(c);
		return -1;
	}
	if (s.kernel_token[0] && !c->kernel) {
		s.line = c->events_line;
		refuse(&s, s.kernel_token,
		       "counts kernel mode, which its readers may not be allowed to see: add 'kernel on' to allow it");
		defaults(c);
		return -1;
	}
	return 0;
}

int kpmc_pmda_config_active(const struct kpmc_pmda_config *c)
{
	return c->events_line && (c->nsel || c->system_wide || c->ncgroup_patterns);
}

int kpmc_pmda_config_set(const struct kpmc_pmda_config *c, char *out, size_t len)
{
	int n = snprintf(out, len, "%s,tbs=%u", c->events, c->interval_ms);

	return n < 0 || (size_t)n >= len ? -1 : n;
}
