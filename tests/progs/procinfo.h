/* SPDX-License-Identifier: GPL-2.0 */
/* Test programs' reads of /proc/kpmc/info: one "NAME: N" line's number. */
#ifndef KPMC_TEST_PROCINFO_H
#define KPMC_TEST_PROCINFO_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The number of /proc/kpmc/info's line "NAME: N", or -1 (no file, no such line). */
static inline long kpmc_info_field(const char *name)
{
	char line[256];
	size_t len = strlen(name);
	long v = -1;
	FILE *f = fopen("/proc/kpmc/info", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ':') {
			v = strtol(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

#endif
