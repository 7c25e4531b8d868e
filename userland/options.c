// SPDX-License-Identifier: GPL-2.0
#include "options.h"

#include <stdio.h>
#include <string.h>

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
