/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The text trace's call-stack lines, written by kpmc while it records and
 * read back by kpmc report. Pure: no I/O.
 *
 *   NSAMPLE PID TID stack [k=ADDR,...] [u=ADDR,...] [ktrunc] [kpartial] [utrunc] [ufault]
 *       after its sample's row: kernel then user frames, each innermost
 *       first, hexadecimal; "empty" when the sample has no frame
 *   # stack of sample N (pid P, tid T) incomplete: WHY
 *   # stack of sample N (pid P, tid T) malformed: WHY
 *   map PID START-END OFFSET BUILD-ID PATH
 *       an executable mapping of process PID (hexadecimal; BUILD-ID the
 *       file's GNU build-id, "-" where it has none or could not be read)
 *   ksym START END NAME [MODULE]
 *       the kernel symbol [START, END) that kernel frames of the trace fall in
 */
#ifndef KPMC_STACKLINE_H
#define KPMC_STACKLINE_H

#include <stddef.h>
#include <stdint.h>
#include "stackparts.h"

#define KPMC_BUILD_ID_HEX	128	/* hex digits of the longest build-id kept, + NUL */
#define KPMC_MAP_PATH		4096
#define KPMC_KSYM_NAME		256
#define KPMC_KSYM_MODULE	64

struct kpmc_map_line {
	uint32_t pid;
	uint64_t start, end, offset;
	char build_id[KPMC_BUILD_ID_HEX + 1];	/* "" if none */
	char path[KPMC_MAP_PATH];
};

struct kpmc_ksym_line {
	uint64_t start, end;
	char name[KPMC_KSYM_NAME];
	char module[KPMC_KSYM_MODULE];		/* "" for the kernel itself */
};

enum kpmc_trace_line_kind {
	KPMC_LINE_OTHER,		/* rows, headers, anything else */
	KPMC_LINE_STACK,
	KPMC_LINE_STACK_PROBLEM,	/* a sample whose stack was incomplete or malformed */
	KPMC_LINE_LOST,			/* "# lost N records" */
	KPMC_LINE_MAP,
	KPMC_LINE_KSYM,
};

struct kpmc_trace_line {
	enum kpmc_trace_line_kind kind;
	struct kpmc_stack stack;			/* LINE_STACK: frames in frames[] */
	uint64_t frames[KPMC_CALLSTACK_MAX_FRAMES];
	unsigned long long lost;			/* LINE_LOST */
	struct kpmc_map_line map;			/* LINE_MAP */
	struct kpmc_ksym_line ksym;			/* LINE_KSYM */
};

/* The line of a stack, and of a sample whose stack was given up (ev). */
int kpmc_format_stack(const struct kpmc_stack *s, char *out, size_t len);
int kpmc_format_stack_problem(const struct kpmc_stack_event *ev, char *out, size_t len);
int kpmc_format_map(const struct kpmc_map_line *m, char *out, size_t len);
int kpmc_format_ksym(const struct kpmc_ksym_line *k, char *out, size_t len);

/*
 * One line of a text trace (without its newline). 0 with what it is in
 * *out, or -1 for a stack, map or ksym line that is not as written above,
 * with the offending token named in why.
 */
int kpmc_parse_trace_line(const char *line, struct kpmc_trace_line *out, char *why, size_t len);

#endif
