/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The plotting commands (kpmc fold, kpmc plot) write gnuplot scripts that
 * name files and counters given by the user: each goes in as a quoted
 * literal, never as script text.
 */
#ifndef KPMC_GNUPLOT_QUOTE_H
#define KPMC_GNUPLOT_QUOTE_H

#include <stdio.h>

/* s as a gnuplot single-quoted string ('' stands for a quote). */
static inline void gp_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

#endif
