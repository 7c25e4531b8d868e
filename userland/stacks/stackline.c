// SPDX-License-Identifier: GPL-2.0
#include "stackline.h"
#include "common/textput.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The flags a stack line names, as words. */
static const struct {
	unsigned int bit;
	const char *word;
} stack_flags[] = {
	{ KPMC_STACK_F_KERNEL_TRUNC, "ktrunc" },
	{ KPMC_STACK_F_KERNEL_PARTIAL, "kpartial" },
	{ KPMC_STACK_F_USER_TRUNC, "utrunc" },
	{ KPMC_STACK_F_USER_FAULT, "ufault" },
};
#define NR_STACK_FLAGS (sizeof(stack_flags) / sizeof(stack_flags[0]))

static void put_frames(char *out, size_t len, size_t *used, const char *key, const uint64_t *ip,
		       unsigned int n)
{
	unsigned int i;

	if (!n)
		return;
	put(out, len, used, " %s=", key);
	for (i = 0; i < n; i++)
		put(out, len, used, "%s0x%llx", i ? "," : "", (unsigned long long)ip[i]);
}

int kpmc_format_stack(const struct kpmc_stack *s, char *out, size_t len)
{
	size_t used = 0, i;
	unsigned int unknown = s->flags;

	if (len)
		out[0] = '\0';
	put(out, len, &used, "%7llu %7u %7u %7s", (unsigned long long)s->nsample, s->pid, s->tid,
	    "stack");
	if (!s->nr_kernel && !s->nr_user)
		put(out, len, &used, " empty");
	put_frames(out, len, &used, "k", s->kernel, s->nr_kernel);
	put_frames(out, len, &used, "u", s->user, s->nr_user);
	for (i = 0; i < NR_STACK_FLAGS; i++)
		if (s->flags & stack_flags[i].bit) {
			put(out, len, &used, " %s", stack_flags[i].word);
			unknown &= ~stack_flags[i].bit;
		}
	/* Flags of a newer kernel: kept, by value. */
	if (unknown)
		put(out, len, &used, " flags=0x%x", unknown);
	return (int)used;
}

int kpmc_format_stack_problem(const struct kpmc_stack_event *ev, char *out, size_t len)
{
	size_t used = 0;

	if (len)
		out[0] = '\0';
	put(out, len, &used, "# stack of sample %llu (pid %u, tid %u) %s: %s",
	    (unsigned long long)ev->nsample, ev->pid, ev->tid,
	    ev->kind == KPMC_STACK_INCOMPLETE ? "incomplete" : "malformed", ev->why ? ev->why : "");
	return (int)used;
}

int kpmc_format_map(const struct kpmc_map_line *m, char *out, size_t len)
{
	return snprintf(out, len, "map %u 0x%llx-0x%llx 0x%llx %s %s", m->pid,
			(unsigned long long)m->start, (unsigned long long)m->end,
			(unsigned long long)m->offset, m->build_id[0] ? m->build_id : "-", m->path);
}

int kpmc_format_ksym(const struct kpmc_ksym_line *k, char *out, size_t len)
{
	return snprintf(out, len, "ksym 0x%llx 0x%llx %s%s%s%s", (unsigned long long)k->start,
			(unsigned long long)k->end, k->name, k->module[0] ? " [" : "", k->module,
			k->module[0] ? "]" : "");
}

/* ---- reading back ---- */

/* The next whitespace-separated token of *p: its start, length in *n; NULL at the end. */
static const char *next_token(const char **p, size_t *n)
{
	const char *s = *p;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s) {
		*p = s;
		return NULL;
	}
	*n = strcspn(s, " \t");
	*p = s + *n;
	return s;
}

static bool token_is(const char *tok, size_t n, const char *word)
{
	return tok && strlen(word) == n && !memcmp(tok, word, n);
}

/* "0x" then 1 to 16 hex digits, exactly the n characters of s. */
static bool parse_hex(const char *s, size_t n, uint64_t *v)
{
	size_t i;

	if (n < 3 || n > 18 || s[0] != '0' || s[1] != 'x')
		return false;
	*v = 0;
	for (i = 2; i < n; i++) {
		char c = s[i];
		unsigned int d;

		if (c >= '0' && c <= '9')
			d = (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned int)(c - 'A' + 10);
		else
			return false;
		*v = *v << 4 | d;
	}
	return true;
}

/* Decimal digits, exactly the n characters of s, at most max. */
static bool parse_dec(const char *s, size_t n, unsigned long long max, unsigned long long *v)
{
	size_t i;

	if (!n || n > 20)
		return false;
	*v = 0;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (*v > (max - (unsigned long long)(s[i] - '0')) / 10)
			return false;
		*v = *v * 10 + (unsigned long long)(s[i] - '0');
	}
	return true;
}

static int bad(char *why, size_t len, const char *what, const char *tok, size_t n)
{
	snprintf(why, len, "%s: '%.*s'", what, (int)(n > 80 ? 80 : n), tok ? tok : "");
	return -1;
}

/* "k=0x..,0x.." or "u=...": the addresses into ip[], at most KPMC_STACK_MAX_DEPTH. */
static int parse_frames(const char *tok, size_t n, uint64_t *ip, unsigned int *nr, char *why,
			size_t len)
{
	const char *s = tok + 2, *end = tok + n;

	*nr = 0;
	while (s < end) {
		const char *comma = memchr(s, ',', (size_t)(end - s));
		size_t an = comma ? (size_t)(comma - s) : (size_t)(end - s);

		if (*nr == KPMC_STACK_MAX_DEPTH)
			return bad(why, len, "more frames than the depth limit (127)", tok, n);
		if (!parse_hex(s, an, &ip[*nr]))
			return bad(why, len, "not a hexadecimal address", s, an);
		(*nr)++;
		s += an + (comma ? 1 : 0);
		if (comma && s == end)
			return bad(why, len, "a frame list ends with a comma", tok, n);
	}
	if (!*nr)
		return bad(why, len, "an empty frame list", tok, n);
	return 0;
}

static int parse_stack(const char *rest, struct kpmc_trace_line *out, unsigned long long ns,
		       unsigned long long pid, unsigned long long tid, char *why, size_t len)
{
	struct kpmc_stack *s = &out->stack;
	uint64_t kernel[KPMC_STACK_MAX_DEPTH], user[KPMC_STACK_MAX_DEPTH];
	unsigned int nk = 0, nu = 0, i;
	bool seen_k = false, seen_u = false, empty = false;
	const char *tok;
	size_t n;

	memset(s, 0, sizeof(*s));
	s->nsample = ns;
	s->pid = (uint32_t)pid;
	s->tid = (uint32_t)tid;
	while ((tok = next_token(&rest, &n))) {
		uint64_t v;

		if (n > 2 && tok[0] == 'k' && tok[1] == '=' && !seen_k) {
			if (parse_frames(tok, n, kernel, &nk, why, len))
				return -1;
			seen_k = true;
			continue;
		}
		if (n > 2 && tok[0] == 'u' && tok[1] == '=' && !seen_u) {
			if (parse_frames(tok, n, user, &nu, why, len))
				return -1;
			seen_u = true;
			continue;
		}
		if (token_is(tok, n, "empty") && !empty) {
			empty = true;
			continue;
		}
		if (n > 6 && !memcmp(tok, "flags=", 6) && parse_hex(tok + 6, n - 6, &v) && v <= 0xffff) {
			s->flags |= (unsigned int)v;
			continue;
		}
		for (i = 0; i < NR_STACK_FLAGS; i++)
			if (token_is(tok, n, stack_flags[i].word))
				break;
		if (i == NR_STACK_FLAGS)
			return bad(why, len, "stack line: not k=, u=, empty or a flag", tok, n);
		s->flags |= stack_flags[i].bit;
	}
	if (empty == (seen_k || seen_u))
		return bad(why, len, "stack line: want frames (k=, u=) or 'empty'", "", 0);
	memcpy(out->frames, kernel, nk * sizeof(kernel[0]));
	memcpy(out->frames + nk, user, nu * sizeof(user[0]));
	s->nr_kernel = nk;
	s->nr_user = nu;
	s->kernel = out->frames;
	s->user = out->frames + nk;
	out->kind = KPMC_LINE_STACK;
	return 0;
}

/* "map PID START-END OFFSET BUILD-ID PATH" after the word map. */
static int parse_map(const char *rest, struct kpmc_map_line *m, char *why, size_t len)
{
	const char *tok, *dash;
	unsigned long long pid;
	size_t n;

	memset(m, 0, offsetof(struct kpmc_map_line, path) + 1);
	tok = next_token(&rest, &n);
	if (!tok || !parse_dec(tok, n, UINT32_MAX, &pid))
		return bad(why, len, "map line: not a process id", tok, tok ? n : 0);
	m->pid = (uint32_t)pid;
	tok = next_token(&rest, &n);
	dash = tok ? memchr(tok, '-', n) : NULL;
	if (!dash || !parse_hex(tok, (size_t)(dash - tok), &m->start) ||
	    !parse_hex(dash + 1, n - (size_t)(dash - tok) - 1, &m->end) || m->end <= m->start)
		return bad(why, len, "map line: not an address range START-END", tok, tok ? n : 0);
	tok = next_token(&rest, &n);
	if (!tok || !parse_hex(tok, n, &m->offset))
		return bad(why, len, "map line: not a file offset", tok, tok ? n : 0);
	tok = next_token(&rest, &n);
	if (!tok || n > KPMC_BUILD_ID_HEX ||
	    (!token_is(tok, n, "-") && (n % 2 || strspn(tok, "0123456789abcdef") < n)))
		return bad(why, len, "map line: not a build-id (hexadecimal, or -)", tok, tok ? n : 0);
	if (!token_is(tok, n, "-"))
		memcpy(m->build_id, tok, n);
	m->build_id[token_is(tok, n, "-") ? 0 : n] = '\0';
	while (*rest == ' ' || *rest == '\t')
		rest++;
	if (!*rest || strlen(rest) >= sizeof(m->path))
		return bad(why, len, "map line: no path, or one too long", rest, strlen(rest));
	strcpy(m->path, rest);
	return 0;
}

/* "ksym START END NAME [MODULE]" after the word ksym. */
static int parse_ksym(const char *rest, struct kpmc_ksym_line *k, char *why, size_t len)
{
	const char *tok;
	size_t n;

	memset(k, 0, sizeof(*k));
	tok = next_token(&rest, &n);
	if (!tok || !parse_hex(tok, n, &k->start))
		return bad(why, len, "ksym line: not a start address", tok, tok ? n : 0);
	tok = next_token(&rest, &n);
	if (!tok || !parse_hex(tok, n, &k->end) || k->end <= k->start)
		return bad(why, len, "ksym line: not an end address after the start", tok, tok ? n : 0);
	tok = next_token(&rest, &n);
	if (!tok || n >= sizeof(k->name))
		return bad(why, len, "ksym line: no symbol name, or one too long", tok, tok ? n : 0);
	memcpy(k->name, tok, n);
	tok = next_token(&rest, &n);
	if (tok) {
		if (n < 3 || tok[0] != '[' || tok[n - 1] != ']' || n - 2 >= sizeof(k->module))
			return bad(why, len, "ksym line: not a [module]", tok, n);
		memcpy(k->module, tok + 1, n - 2);
		if ((tok = next_token(&rest, &n)))
			return bad(why, len, "ksym line: more after the module", tok, n);
	}
	return 0;
}

int kpmc_parse_trace_line(const char *line, struct kpmc_trace_line *out, char *why, size_t len)
{
	const char *p = line, *t1, *t2, *t3, *t4;
	size_t n1, n2, n3, n4;
	unsigned long long ns, pid, tid;

	out->kind = KPMC_LINE_OTHER;
	t1 = next_token(&p, &n1);
	if (!t1)
		return 0;
	if (token_is(t1, n1, "map")) {
		if (parse_map(p, &out->map, why, len))
			return -1;
		out->kind = KPMC_LINE_MAP;
		return 0;
	}
	if (token_is(t1, n1, "ksym")) {
		if (parse_ksym(p, &out->ksym, why, len))
			return -1;
		out->kind = KPMC_LINE_KSYM;
		return 0;
	}
	if (token_is(t1, n1, "#")) {
		char word[16];

		if (sscanf(p, " lost %llu records", &out->lost) == 1)
			out->kind = KPMC_LINE_LOST;
		else if (sscanf(p, " stack of sample %llu (pid %llu, tid %llu) %15[a-z]:", &ns, &pid,
				&tid, word) == 4)
			out->kind = KPMC_LINE_STACK_PROBLEM;
		return 0;
	}
	t2 = next_token(&p, &n2);
	t3 = t2 ? next_token(&p, &n3) : NULL;
	t4 = t3 ? next_token(&p, &n4) : NULL;
	if (!t4 || !token_is(t4, n4, "stack"))
		return 0;
	if (!parse_dec(t1, n1, UINT64_MAX, &ns))
		return bad(why, len, "stack line: not a sample number", t1, n1);
	if (!parse_dec(t2, n2, UINT32_MAX, &pid))
		return bad(why, len, "stack line: not a process id", t2, n2);
	if (!parse_dec(t3, n3, UINT32_MAX, &tid))
		return bad(why, len, "stack line: not a thread id", t3, n3);
	return parse_stack(p, out, ns, pid, tid, why, len);
}
