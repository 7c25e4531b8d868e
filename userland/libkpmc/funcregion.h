/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Regions from function entry and exit (KPMC_FOLD_FUNCTIONS=name1,name2): a
 * program compiled with -finstrument-functions calls
 * __cyg_profile_func_enter/exit around every function; for the listed ones
 * these hooks call kpmc_region_begin/end with the function's name, so a
 * listed function's invocations are a region's, counted exactly as explicit
 * marks would count them. The names resolve to addresses once, at the first
 * kpmc_start(), from the executable's ELF symbol table (libelf; static
 * functions and GCC's clones NAME.constprop.N etc. included); the hooks
 * then search a sorted table that never changes again: no allocation, no
 * lock for the functions not listed.
 */
#ifndef KPMC_LIB_FUNCREGION_H
#define KPMC_LIB_FUNCREGION_H

#include <stddef.h>
#include <stdint.h>

#define KPMC_LIB_FUNC_MAX	32	/* functions listed */
#define KPMC_LIB_FUNC_NAME	48	/* a region name's bytes, its NUL included (KPMC_LIB_NAME_LEN) */
#define KPMC_LIB_FUNC_ADDRS	128	/* addresses: a name may have clones or static twins */

/*
 * spec: names separated by commas, each a C identifier (letters, digits,
 * '_', not a digit first), at most KPMC_LIB_FUNC_NAME - 1 bytes, none twice.
 * The number of names (>= 1) into names, or -EINVAL with why naming the
 * offending token.
 */
int kpmc_lib_func_parse(const char *spec, char names[][KPMC_LIB_FUNC_NAME], int max,
			char *why, size_t len);

struct kpmc_lib_func_addr {
	uintptr_t addr;			/* run-time address: link-time + bias */
	unsigned int idx;		/* into the names */
};

/*
 * The functions called names[0..n) in the ELF file path (its .symtab, else
 * .dynsym), their link-time addresses plus bias, sorted by address: the
 * number of addresses, or -errno with why (a name with no function names
 * it). A symbol NAME.SUFFIX (GCC's clones) counts as NAME.
 */
int kpmc_lib_func_resolve(const char *path, uintptr_t bias, char names[][KPMC_LIB_FUNC_NAME],
			  int n, struct kpmc_lib_func_addr *out, int cap, char *why, size_t len);

/*
 * session.c's kpmc_start: KPMC_FOLD_FUNCTIONS' functions resolved in the
 * running executable and the hooks armed, the first time (later calls: 0).
 * 0 when the variable is unset or empty, or -errno with why.
 */
int kpmc_lib_func_regions_start(char *why, size_t len);

#endif
