/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What pmdakpmc puts in instance names and label values: text that came
 * from monitored processes (command names, cgroup paths), which may hold
 * any byte. One rule for both, so a name that is safe as a label is safe as
 * an instance name and the other way round. Pure.
 */
#ifndef KPMC_PMDA_NAMES_H
#define KPMC_PMDA_NAMES_H

#include <stddef.h>
#include <stdint.h>

/*
 * in into out (len bytes, always NUL-terminated): printable ASCII (0x20 to
 * 0x7e) except '"' and '\\' kept, every other byte (control characters,
 * DEL, bytes of 0x80 and above) as '_'. Valid inside a JSON string and an
 * OpenMetrics label value without escaping, and plain UTF-8.
 */
void kpmc_pmda_safe_text(char *out, size_t len, const char *in);

/*
 * The instance name of a process or thread: "PID COMM", the id
 * zero-padded to 6 digits (names sort by id), comm made safe as above.
 */
void kpmc_pmda_instance_name(char *out, size_t len, uint32_t id, const char *comm);

#endif
