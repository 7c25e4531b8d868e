// SPDX-License-Identifier: LGPL-2.1
/* dl_iterate_phdr */
#define _GNU_SOURCE
#include "funcregion.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kpmc.h"

/* Hooks and everything they call: never instrumented, whatever the flags. */
#define NO_INSTR __attribute__((no_instrument_function))
/* As readpath.c: one load off the thread pointer, no __tls_get_addr. */
#define FR_TLS __thread __attribute__((tls_model("initial-exec")))

static int NO_INSTR is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int NO_INSTR is_ident(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

int NO_INSTR kpmc_lib_func_parse(const char *spec, char names[][KPMC_LIB_FUNC_NAME], int max,
				 char *why, size_t len)
{
	const char *p = spec;
	int n = 0, i;

	for (;;) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p), k;

		if (!l) {
			snprintf(why, len, "empty name %s '%s'", n ? "after" : "at the start of",
				 n ? names[n - 1] : spec);
			return -EINVAL;
		}
		for (k = 0; k < l; k++)
			if (!(k ? is_ident(p[k]) : is_ident_start(p[k])))
				break;
		if (k < l) {
			snprintf(why, len, "'%.*s': not a function name (letters, digits, '_')",
				 (int)l, p);
			return -EINVAL;
		}
		if (l >= KPMC_LIB_FUNC_NAME) {
			snprintf(why, len, "'%.*s': longer than %d bytes", (int)l, p,
				 KPMC_LIB_FUNC_NAME - 1);
			return -EINVAL;
		}
		if (n == max) {
			snprintf(why, len, "'%.*s': more than %d functions", (int)l, p, max);
			return -EINVAL;
		}
		memcpy(names[n], p, l);
		names[n][l] = '\0';
		for (i = 0; i < n; i++)
			if (!strcmp(names[i], names[n])) {
				snprintf(why, len, "'%s' listed twice", names[n]);
				return -EINVAL;
			}
		n++;
		if (!e)
			return n;
		p = e + 1;
	}
}

/* The name that sym stands for: itself, or NAME of a clone NAME.SUFFIX. */
static int NO_INSTR name_of(const char *sym, char names[][KPMC_LIB_FUNC_NAME], int n)
{
	int i;

	for (i = 0; i < n; i++) {
		size_t l = strlen(names[i]);

		if (!strncmp(sym, names[i], l) && (sym[l] == '\0' || sym[l] == '.'))
			return i;
	}
	return -1;
}

static int NO_INSTR by_addr(const void *a, const void *b)
{
	const struct kpmc_lib_func_addr *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The symbols of table scn (SHT_SYMTAB or SHT_DYNSYM) that are names' functions. */
static int NO_INSTR scan(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, uintptr_t bias,
			 char names[][KPMC_LIB_FUNC_NAME], int n, struct kpmc_lib_func_addr *out,
			 int cap, int *found, char *why, size_t len)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, count = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	int m = 0;

	for (i = 0; d && i < count; i++) {
		GElf_Sym s;
		const char *nm;
		int k, j;

		if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
		    s.st_shndx == SHN_UNDEF || !s.st_value)
			continue;
		nm = elf_strptr(elf, sh->sh_link, s.st_name);
		if (!nm || (k = name_of(nm, names, n)) < 0)
			continue;
		/* A symbol can be both local and global (aliases): one entry an address. */
		for (j = 0; j < m; j++)
			if (out[j].addr == s.st_value + bias)
				break;
		if (j < m)
			continue;
		if (m == cap) {
			snprintf(why, len, "more than %d functions' addresses", cap);
			return -E2BIG;
		}
		out[m].addr = s.st_value + bias;
		out[m++].idx = (unsigned int)k;
		found[k] = 1;
	}
	return m;
}

int NO_INSTR kpmc_lib_func_resolve(const char *path, uintptr_t bias,
				   char names[][KPMC_LIB_FUNC_NAME], int n,
				   struct kpmc_lib_func_addr *out, int cap, char *why, size_t len)
{
	int found[KPMC_LIB_FUNC_MAX] = { 0 };
	int fd, m = -ENOENT, i, pass;
	Elf *elf;

	if (n > KPMC_LIB_FUNC_MAX)
		n = KPMC_LIB_FUNC_MAX;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(why, len, "libelf: %s", elf_errmsg(-1));
		return -EINVAL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		snprintf(why, len, "%s: %s", path, strerror(err));
		return -err;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		snprintf(why, len, "%s: not an ELF file (%s)", path, elf_errmsg(-1));
		m = -ENOEXEC;
		goto out;
	}
	/* The full table when the file keeps it (static functions), else the dynamic one. */
	for (pass = 0; pass < 2 && m < 0; pass++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;

			if (!gelf_getshdr(scn, &sh) ||
			    sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB))
				continue;
			m = scan(elf, scn, &sh, bias, names, n, out, cap, found, why, len);
			break;
		}
	}
	if (m == -ENOENT) {
		snprintf(why, len, "%s has no symbol table (stripped?)", path);
		goto out;
	}
	if (m < 0)
		goto out;
	for (i = 0; i < n; i++)
		if (!found[i]) {
			snprintf(why, len, "no function '%s' in %s", names[i], path);
			m = -ENOENT;
			goto out;
		}
	qsort(out, (size_t)m, sizeof(*out), by_addr);
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return m;
}

/*
 * The armed table: written once by kpmc_lib_func_regions_start, then
 * published by fr_count (release; the hooks load it acquire) and never
 * changed again, so the hooks read it without a lock.
 */
static char fr_names[KPMC_LIB_FUNC_MAX][KPMC_LIB_FUNC_NAME];
static struct kpmc_lib_func_addr fr_table[KPMC_LIB_FUNC_ADDRS];
static int fr_count;
static int fr_tried;
/*
 * Per thread and listed function: how deep in it the thread is, and whether
 * the outermost call opened the region (its begin may fail: no session).
 * Only the outermost call of a recursion is an invocation: the region is
 * open from its entry to its exit, and a region cannot nest in itself.
 */
static FR_TLS unsigned int fr_depth[KPMC_LIB_FUNC_MAX];
static FR_TLS unsigned char fr_open[KPMC_LIB_FUNC_MAX];

/* The executable's load bias: dl_iterate_phdr's first object is the program itself. */
static int NO_INSTR first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uintptr_t *)arg = (uintptr_t)info->dlpi_addr;
	return 1;
}

int NO_INSTR kpmc_lib_func_regions_start(char *why, size_t len)
{
	const char *spec = getenv("KPMC_FOLD_FUNCTIONS");
	uintptr_t bias = 0;
	int n, m;

	/* Once: the hooks may already be reading the table. */
	if (fr_tried || !spec || !spec[0])
		return 0;
	n = kpmc_lib_func_parse(spec, fr_names, KPMC_LIB_FUNC_MAX, why, len);
	if (n < 0)
		return n;
	dl_iterate_phdr(first_object, &bias);
	m = kpmc_lib_func_resolve("/proc/self/exe", bias, fr_names, n, fr_table,
				  KPMC_LIB_FUNC_ADDRS, why, len);
	if (m < 0)
		return m;
	fr_tried = 1;
	__atomic_store_n(&fr_count, m, __ATOMIC_RELEASE);
	return 0;
}

/* The listed function at fn, or -1: a binary search of the sorted table. */
static inline int NO_INSTR listed(const void *fn)
{
	int n = __atomic_load_n(&fr_count, __ATOMIC_ACQUIRE), lo = 0, hi = n;
	uintptr_t a = (uintptr_t)fn;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (fr_table[mid].addr < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && fr_table[lo].addr == a ? (int)fr_table[lo].idx : -1;
}

void NO_INSTR __cyg_profile_func_enter(void *fn, void *site)
{
	int i = listed(fn);

	(void)site;
	if (i < 0)
		return;
	if (!fr_depth[i]++)
		fr_open[i] = !kpmc_region_begin(fr_names[i]);
}

void NO_INSTR __cyg_profile_func_exit(void *fn, void *site)
{
	int i = listed(fn);

	(void)site;
	/* Depth 0: entered before the table was armed; that call is no invocation. */
	if (i < 0 || !fr_depth[i])
		return;
	if (!--fr_depth[i] && fr_open[i]) {
		fr_open[i] = 0;
		kpmc_region_end(fr_names[i]);
	}
}
