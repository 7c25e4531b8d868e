// SPDX-License-Identifier: GPL-2.0
/*
 * One ELF file in libdwfl, placed at its link-time addresses (bias 0): a
 * caller turns a run-time address into a link-time one itself, from the
 * mapping it came from (kpmc_elf_offset_vaddr), so one open file serves
 * every process that mapped it, wherever.
 */
#define _GNU_SOURCE
#include "elfsyms.h"

#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct kpmc_elf {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Elf *elf;			/* the module's, owned by libdwfl */
	int relocatable;
	char build_id[129];
};

static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static void hex_of(const unsigned char *bits, size_t n, char *hex, size_t len)
{
	size_t i;

	if (!len)
		return;
	hex[0] = '\0';
	for (i = 0; i < n && 2 * i + 2 < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", bits[i]);
}

struct kpmc_elf *kpmc_elf_open(const char *path, char *why, size_t len)
{
	struct kpmc_elf *e = calloc(1, sizeof(*e));
	const unsigned char *bits;
	GElf_Addr bias = 0, vaddr;
	GElf_Ehdr eh;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	int n;

	if (!e) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	e->dwfl = dwfl_begin(&offline_callbacks);
	if (!e->dwfl) {
		snprintf(why, len, "libdwfl: %s", dwfl_errmsg(-1));
		free(e);
		return NULL;
	}
	/* Base 0 with p_vaddr added: a position-independent file at its link addresses too. */
	e->mod = dwfl_report_elf(e->dwfl, base, path, -1, 0, true);
	dwfl_report_end(e->dwfl, NULL, NULL);
	e->elf = e->mod ? dwfl_module_getelf(e->mod, &bias) : NULL;
	if (!e->elf || !gelf_getehdr(e->elf, &eh)) {
		snprintf(why, len, "%s: %s", path, dwfl_errmsg(-1));
		kpmc_elf_close(e);
		return NULL;
	}
	e->relocatable = eh.e_type == ET_DYN;
	n = dwfl_module_build_id(e->mod, &bits, &vaddr);
	if (n > 0)
		hex_of(bits, (size_t)n, e->build_id, sizeof(e->build_id));
	return e;
}

void kpmc_elf_close(struct kpmc_elf *e)
{
	if (!e)
		return;
	if (e->dwfl)
		dwfl_end(e->dwfl);
	free(e);
}

const char *kpmc_elf_build_id(const struct kpmc_elf *e)
{
	return e->build_id;
}

int kpmc_elf_relocatable(const struct kpmc_elf *e)
{
	return e->relocatable;
}

int kpmc_elf_offset_vaddr(const struct kpmc_elf *e, uint64_t off, uint64_t *vaddr)
{
	size_t i, n;

	if (elf_getphdrnum(e->elf, &n))
		return -1;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (off >= ph.p_offset && off - ph.p_offset < ph.p_filesz) {
			*vaddr = ph.p_vaddr + (off - ph.p_offset);
			return 0;
		}
	}
	return -1;
}

const char *kpmc_elf_function(struct kpmc_elf *e, uint64_t vaddr, uint64_t *off)
{
	GElf_Sym sym;
	GElf_Off o = 0;
	const char *name = dwfl_module_addrinfo(e->mod, vaddr, &o, &sym, NULL, NULL, NULL);

	*off = o;
	return name;
}

const char *kpmc_elf_source(struct kpmc_elf *e, uint64_t vaddr, int *line)
{
	Dwfl_Line *l = dwfl_module_getsrc(e->mod, vaddr);
	const char *src;

	if (!l)
		return NULL;
	src = dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL);
	if (src && strrchr(src, '/'))
		src = strrchr(src, '/') + 1;
	return src;
}

const char *kpmc_elf_data_object(struct kpmc_elf *e, uint64_t vaddr, uint64_t *size)
{
	GElf_Sym sym;
	GElf_Off off;
	const char *name = dwfl_module_addrinfo(e->mod, vaddr, &off, &sym, NULL, NULL, NULL);

	if (name && (GELF_ST_TYPE(sym.st_info) == STT_OBJECT || GELF_ST_TYPE(sym.st_info) == STT_TLS) &&
	    off < sym.st_size) {
		*size = sym.st_size;
		return name;
	}
	return NULL;
}

int kpmc_elf_find_object(struct kpmc_elf *e, const char *name, uint64_t *vaddr, uint64_t *size)
{
	int i, n = dwfl_module_getsymtab(e->mod);

	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr value;
		const char *s = dwfl_module_getsym_info(e->mod, i, &sym, &value, NULL, NULL, NULL);

		if (s && !strcmp(s, name) && GELF_ST_TYPE(sym.st_info) == STT_OBJECT) {
			*vaddr = value;
			*size = sym.st_size;
			return 0;
		}
	}
	return -1;
}

int kpmc_elf_file_build_id(const char *path, char *hex, size_t len)
{
	const void *bits;
	ssize_t n;
	Elf *elf;
	int fd;

	if (len)
		hex[0] = '\0';
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return -1;
	}
	n = dwelf_elf_gnu_build_id(elf, &bits);
	if (n > 0)
		hex_of(bits, (size_t)n, hex, len);
	elf_end(elf);
	close(fd);
	return 0;
}
