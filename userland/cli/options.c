// SPDX-License-Identifier: GPL-2.0
#include "options.h"

#include <stdio.h>
#include <string.h>
#include <uapi/linux/kpmc.h>

long kpmc_parse_period_ms(const char *s)
{
	unsigned long long whole = 0, frac = 0, scale = 1;
	const char *p = s;
	int digits = 0;

	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		whole = whole * 10 + (unsigned long long)(*p - '0');
		if (whole > 86400)
			return -1;
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
			if (scale < 1000) {
				frac = frac * 10 + (unsigned long long)(*p - '0');
				scale *= 10;
			} else if (*p != '0') {
				return -1;	/* finer than a millisecond */
			}
		}
	}
	if (*p || !digits)
		return -1;
	while (scale < 1000) {
		frac *= 10;
		scale *= 10;
	}
	whole = whole * 1000 + frac;
	if (whole < 1 || whole > 86400000ull)
		return -1;
	return (long)whole;
}

int kpmc_check_wakeup(const char *s)
{
	unsigned long ms = 0;
	const char *p = s;

	if (!strcmp(s, "watermark"))
		return 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		ms = ms * 10 + (unsigned long)(*p - '0');
		if (ms > 60000)
			return -1;
	}
	return p == s || *p ? -1 : 0;
}

int kpmc_check_cgroup_path(const char *s)
{
	const char *p = s, *end;
	size_t n;

	if (!*s || *s == '/' || strlen(s) > 200)
		return -1;
	while (*p) {
		end = strchr(p, '/');
		n = end ? (size_t)(end - p) : strlen(p);
		if (!n || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return -1;
		for (size_t i = 0; i < n; i++)
			if (p[i] < 0x21 || p[i] > 0x7e)
				return -1;
		p += n;
		if (*p == '/')
			p++;
		else
			break;
		if (!*p)
			return -1;
	}
	return 0;
}

unsigned int kpmc_parse_anchor(const char *s)
{
	unsigned int n = 0;
	const char *p;

	if (strncmp(s, "pmc", 3) || !s[3] || (s[3] == '0' && s[4]))
		return 0;
	for (p = s + 3; *p >= '0' && *p <= '9'; p++) {
		n = n * 10 + (unsigned int)(*p - '0');
		if (n >= KPMC_MAX_COUNTERS)
			return 0;
	}
	return *p ? 0 : n + 1;
}

int kpmc_config_counts_pmc(const char *config, unsigned int n)
{
	char want[16];
	size_t len;
	const char *p = config;

	len = (size_t)snprintf(want, sizeof(want), "pmc%u", n);
	while (p && *p) {
		if (!strncmp(p, want, len) && (p[len] == '\0' || p[len] == ',' || p[len] == '='))
			return 1;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return 0;
}

int kpmc_build_config(const char *const *configs, int n, long tbs_ms, char *out, size_t len)
{
	size_t used = 0;
	int i, w;

	if (!len)
		return -1;
	out[0] = '\0';
	for (i = 0; i < n; i++) {
		if (tbs_ms > 0)
			w = snprintf(out + used, len - used, "%s%s,tbs=%ld", i ? ";" : "",
				     configs[i], tbs_ms);
		else
			w = snprintf(out + used, len - used, "%s%s", i ? ";" : "", configs[i]);
		if (w < 0 || (size_t)w >= len - used)
			return -1;
		used += (size_t)w;
	}
	return (int)used;
}

/* The value of "key: value" in info, up to the line's end; NULL if absent. */
static const char *info_value(const char *info, const char *key, size_t *vlen)
{
	size_t klen = strlen(key);
	const char *p = info;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == ':' && p[klen + 1] == ' ') {
			const char *v = p + klen + 2, *e = strchr(v, '\n');

			*vlen = e ? (size_t)(e - v) : strlen(v);
			return v;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

int kpmc_mem_default_event(const char *info, char *out, size_t len)
{
	size_t n = 0;
	const char *src = info_value(info, "memory_sampling", &n);
	const char *gen;
	unsigned int first = 0, count = 0;
	int w;

	if (!src || (n >= 4 && !strncmp(src, "none", 4)))
		return -1;
	if (n >= 4 && !strncmp(src, "PEBS", 4)) {
		/* "general_counters: 8 (pmc3-pmc10)": the first general counter. */
		gen = info_value(info, "general_counters", &n);
		if (!gen || sscanf(gen, "%u (pmc%u-", &count, &first) != 2 || !count)
			return -1;
		w = snprintf(out, len, "pmc%u=0x1cd,ldlat=30", first);
	} else if (n >= 3 && !strncmp(src, "IBS", 3)) {
		w = snprintf(out, len, "pmc0=0x76");
	} else if (n >= 34 && !strncmp(src, "perf precise sampling (Intel PEBS)", 34)) {
		w = snprintf(out, len, "pmc0=0x4000001cd,ldlat=30");
	} else if (n >= 21 && !strncmp(src, "perf precise sampling", 21)) {
		w = snprintf(out, len, "pmc0=0x0");
	} else {
		w = snprintf(out, len, "pmc0");
	}
	return w < 0 || (size_t)w >= len ? -1 : 0;
}
