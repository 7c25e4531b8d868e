/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An ELF file's symbols and source lines at its link-time addresses
 * (elfutils libdwfl, separate debug info found the standard way), its GNU
 * build-id, and the link-time address of a byte of the file, which places
 * a mapping of it: the symbolizer of kpmc mem's reports and of kpmc
 * report's call stacks.
 */
#ifndef KPMC_ELFSYMS_H
#define KPMC_ELFSYMS_H

#include <stddef.h>
#include <stdint.h>

struct kpmc_elf;

/* NULL with why if path is not an ELF file libdwfl can read. */
struct kpmc_elf *kpmc_elf_open(const char *path, char *why, size_t len);
void kpmc_elf_close(struct kpmc_elf *e);
/* Its GNU build-id in lowercase hexadecimal; "" if it has none. */
const char *kpmc_elf_build_id(const struct kpmc_elf *e);
/* 1 if the file is position-independent (ET_DYN): loaded at a bias. */
int kpmc_elf_relocatable(const struct kpmc_elf *e);
/*
 * The link-time address of file offset off, through the loadable segment
 * holding it; -1 if no segment does.
 */
int kpmc_elf_offset_vaddr(const struct kpmc_elf *e, uint64_t off, uint64_t *vaddr);
/* The function containing link-time address vaddr and the offset into it, or NULL. */
const char *kpmc_elf_function(struct kpmc_elf *e, uint64_t vaddr, uint64_t *off);
/* Its source file (base name) and line, or NULL. */
const char *kpmc_elf_source(struct kpmc_elf *e, uint64_t vaddr, int *line);
/* The data object (STT_OBJECT, STT_TLS) containing vaddr, and its size, or NULL. */
const char *kpmc_elf_data_object(struct kpmc_elf *e, uint64_t vaddr, uint64_t *size);
/* The data object called name: its link-time address and size. 0, or -1 if none. */
int kpmc_elf_find_object(struct kpmc_elf *e, const char *name, uint64_t *vaddr, uint64_t *size);

/*
 * The GNU build-id of the file at path in hex (at most len - 1 digits), read
 * from its notes alone (libelf, no symbols): "" and 0 if it has none, -1 if
 * it is no ELF file.
 */
int kpmc_elf_file_build_id(const char *path, char *hex, size_t len);

#endif
