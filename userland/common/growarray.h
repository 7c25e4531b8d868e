/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Growing an array with realloc, the one way: the CLI, kpmc-top, libkpmc,
 * kpmc-fold and pmdakpmc all keep tables that gain one element at a time
 * (threads, samples, symbols, mappings), and each wants the same doubling,
 * the same refusal of a size that would overflow, and an array still whole
 * and its own when memory runs out. Header-only so that every program and
 * library that includes it (pmdakpmc, libkpmcfold, the unit tests among
 * them) needs no extra source file to link.
 */
#ifndef KPMC_GROWARRAY_H
#define KPMC_GROWARRAY_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/*
 * Room for need elements of elem_size bytes in *items, which has room for
 * *cap: nothing to do while need <= *cap; otherwise the capacity doubles,
 * from min_cap when the array is still empty (*cap 0), until it holds need,
 * so that appending one at a time costs amortised O(1) reallocs.
 *
 * 0 on success, *items and *cap then the new array and its capacity; the
 * elements past the old capacity are not initialised (as realloc leaves
 * them: every caller fills the element it appends). -1 with errno ENOMEM
 * when the size in bytes would overflow or realloc fails: *items and *cap
 * are left as they were, the old array still valid and still the caller's
 * to use or free.
 *
 * items is the address of the caller's pointer, cast: (void **)&t->rows.
 */
static inline int grow_array(void **items, size_t *cap, size_t need, size_t elem_size,
			     size_t min_cap)
{
	size_t c;
	void *p;

	if (need <= *cap)
		return 0;
	c = *cap ? *cap : (min_cap ? min_cap : 1);
	while (c < need) {
		if (c > SIZE_MAX / 2)
			goto overflow;
		c *= 2;
	}
	if (!elem_size || c > SIZE_MAX / elem_size)
		goto overflow;
	p = realloc(*items, c * elem_size);
	if (!p)
		return -1;
	*items = p;
	*cap = c;
	return 0;
overflow:
	errno = ENOMEM;
	return -1;
}

#endif
