/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Formatting into a fixed buffer piece by piece: the record, aggregate and
 * stack-line formatters build one line each with many appends.
 */
#ifndef KPMC_TEXTPUT_H
#define KPMC_TEXTPUT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Append with snprintf semantics: the running length goes on counting when
 * the buffer is full, so the caller can tell truncation from *used >= len.
 */
static inline void put(char *out, size_t len, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static inline void put(char *out, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out + (*used < len ? *used : len), *used < len ? len - *used : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*used += (size_t)n;
}

#endif
