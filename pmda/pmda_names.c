// SPDX-License-Identifier: GPL-2.0
/* Instance names and label values from process-controlled text (see pmda_names.h). */
#include "pmda_names.h"

#include <stdio.h>

void kpmc_pmda_safe_text(char *out, size_t len, const char *in)
{
	size_t o = 0;

	if (!len)
		return;
	for (; *in && o + 1 < len; in++) {
		unsigned char ch = (unsigned char)*in;

		out[o++] = (ch < 0x20 || ch > 0x7e || ch == '"' || ch == '\\') ? '_' : (char)ch;
	}
	out[o] = '\0';
}

void kpmc_pmda_instance_name(char *out, size_t len, uint32_t id, const char *comm)
{
	char safe[64];

	kpmc_pmda_safe_text(safe, sizeof(safe), comm);
	snprintf(out, len, "%06u %s", id, safe);
}
