// SPDX-License-Identifier: GPL-2.0
/*
 * kpmc mem's reports, after pfmon's two views of sampled memory accesses:
 * the instruction view (which instructions access memory in the samples:
 * count, %self, %cum, loads and stores, function+offset and source line)
 * and the data view (which data: the executable's data symbols, then the
 * heap, the stack or the mapping an address is in). Symbols and lines come
 * from the executable through elfutils libdwfl, at the load address the
 * run's memory map gave; samples whose access was not found or whose
 * address was lost are counted apart.
 */
#define _GNU_SOURCE
#include "memreport.h"

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_MAPS	512

struct map {
	uint64_t start, end, offset;
	char name[128];
};

struct kpmc_memrep {
	struct kpmc_record *recs;
	size_t n, cap;
	char exe[PATH_MAX];
	struct map maps[MAX_MAPS];
	unsigned int nmaps;
	uint64_t exe_base;		/* where the executable's offset 0 is mapped */
	Dwfl *dwfl;
	Dwfl_Module *mod;
};

struct kpmc_memrep *kpmc_memrep_new(void)
{
	return calloc(1, sizeof(struct kpmc_memrep));
}

void kpmc_memrep_free(struct kpmc_memrep *m)
{
	if (!m)
		return;
	if (m->dwfl)
		dwfl_end(m->dwfl);
	free(m->recs);
	free(m);
}

int kpmc_memrep_add(struct kpmc_memrep *m, const struct kpmc_record *rec)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 1024;
		struct kpmc_record *r = realloc(m->recs, cap * sizeof(*r));

		if (!r)
			return -1;
		m->recs = r;
		m->cap = cap;
	}
	m->recs[m->n++] = *rec;
	return 0;
}

int kpmc_memrep_snapshot(struct kpmc_memrep *m, pid_t pid)
{
	char path[64], line[512], exe[PATH_MAX], self[PATH_MAX];
	struct map maps[MAX_MAPS];
	unsigned int n = 0;
	ssize_t len, slen;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	len = readlink(path, exe, sizeof(exe) - 1);
	slen = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		return 0;
	exe[len] = '\0';
	/* Before its exec the child is a copy of kpmc. */
	if (slen == len && !memcmp(exe, self, (size_t)len))
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (n < MAX_MAPS && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		int pos = 0;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s%n", &s, &e, &off, &pos) < 3)
			continue;
		maps[n].start = s;
		maps[n].end = e;
		maps[n].offset = off;
		while (line[pos] == ' ')
			pos++;
		line[strcspn(line, "\n")] = '\0';
		snprintf(maps[n].name, sizeof(maps[n].name), "%s", line + pos);
		n++;
	}
	fclose(f);
	if (!n)
		return 0;
	memcpy(m->maps, maps, n * sizeof(maps[0]));
	m->nmaps = n;
	strcpy(m->exe, exe);
	m->exe_base = 0;
	for (unsigned int i = 0; i < n; i++)
		if (!strcmp(maps[i].name, exe) && maps[i].offset == 0) {
			m->exe_base = maps[i].start;
			break;
		}
	return 1;
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* The executable in libdwfl, where the run had it (a PIE: at its load address). */
static void open_exe(struct kpmc_memrep *m)
{
	GElf_Addr bias = 0;
	Elf *elf;

	if (!m->exe[0])
		return;
	m->dwfl = dwfl_begin(&offline_callbacks);
	if (!m->dwfl)
		return;
	m->mod = dwfl_report_elf(m->dwfl, "exe", m->exe, -1, 0, false);
	dwfl_report_end(m->dwfl, NULL, NULL);
	if (!m->mod)
		return;
	elf = dwfl_module_getelf(m->mod, &bias);
	if (elf) {
		GElf_Ehdr eh;

		/* A PIE's symbols are relative to its load address. */
		if (gelf_getehdr(elf, &eh) && eh.e_type == ET_DYN && m->exe_base) {
			dwfl_end(m->dwfl);
			m->dwfl = dwfl_begin(&offline_callbacks);
			m->mod = m->dwfl ? dwfl_report_elf(m->dwfl, "exe", m->exe, -1, m->exe_base, false) :
				 NULL;
			if (m->dwfl)
				dwfl_report_end(m->dwfl, NULL, NULL);
		}
	}
}

/* "function+0xoff" of an instruction address, or NULL. */
static const char *code_symbol(struct kpmc_memrep *m, uint64_t ip, GElf_Off *off)
{
	GElf_Sym sym;

	return m->mod ? dwfl_module_addrinfo(m->mod, ip, off, &sym, NULL, NULL, NULL) : NULL;
}

static const char *source_line(struct kpmc_memrep *m, uint64_t ip, int *line)
{
	Dwfl_Line *l = m->mod ? dwfl_module_getsrc(m->mod, ip) : NULL;
	const char *src;

	if (!l)
		return NULL;
	src = dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL);
	if (src && strrchr(src, '/'))
		src = strrchr(src, '/') + 1;
	return src;
}

/* The data object addr is in: a data symbol of the executable, else its mapping. */
static void data_object(struct kpmc_memrep *m, uint64_t addr, char *out, size_t len,
			uint64_t *size)
{
	GElf_Sym sym;
	GElf_Off off;
	const char *name = m->mod ? dwfl_module_addrinfo(m->mod, addr, &off, &sym, NULL, NULL, NULL) :
			   NULL;
	unsigned int i;

	*size = 0;
	if (name && (GELF_ST_TYPE(sym.st_info) == STT_OBJECT || GELF_ST_TYPE(sym.st_info) == STT_TLS) &&
	    off < sym.st_size) {
		snprintf(out, len, "%s", name);
		*size = sym.st_size;
		return;
	}
	for (i = 0; i < m->nmaps; i++) {
		if (addr >= m->maps[i].start && addr < m->maps[i].end) {
			const char *n = m->maps[i].name;

			if (!n[0])
				n = "[anonymous]";
			else if (strrchr(n, '/'))
				n = strrchr(n, '/') + 1;
			snprintf(out, len, "%s", n);
			*size = m->maps[i].end - m->maps[i].start;
			return;
		}
	}
	snprintf(out, len, "[unmapped]");
}

struct row {
	char key[160];
	uint64_t ip, size;
	unsigned long count, loads, stores, exact;
};

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct row *)a)->key, ((const struct row *)b)->key);
}

static int by_count(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->key, y->key);
}

/* Rows of equal keys merged, sorted by count. *nrows: how many. */
static struct row *merge(struct row *rows, size_t n, size_t *nrows)
{
	size_t i, k = 0;

	qsort(rows, n, sizeof(*rows), by_key);
	for (i = 0; i < n; i++) {
		if (k && !strcmp(rows[k - 1].key, rows[i].key)) {
			rows[k - 1].count += rows[i].count;
			rows[k - 1].loads += rows[i].loads;
			rows[k - 1].stores += rows[i].stores;
			rows[k - 1].exact += rows[i].exact;
		} else {
			rows[k++] = rows[i];
		}
	}
	qsort(rows, k, sizeof(*rows), by_count);
	*nrows = k;
	return rows;
}

static void fill_row(struct row *r, const struct kpmc_mem_access *a)
{
	r->count = 1;
	r->loads = a->op == KPMC_MEM_OP_LOAD || a->op == KPMC_MEM_OP_LOAD_STORE;
	r->stores = a->op == KPMC_MEM_OP_STORE || a->op == KPMC_MEM_OP_LOAD_STORE;
	r->exact = !!(a->flags & KPMC_MEM_F_EXACT);
}

static const char *op_name(unsigned int op)
{
	return op == KPMC_MEM_OP_LOAD ? "load" : op == KPMC_MEM_OP_STORE ? "store" :
	       op == KPMC_MEM_OP_LOAD_STORE ? "load+store" : "??";
}

static void print_csv(struct kpmc_memrep *m, FILE *out)
{
	size_t i;

	fprintf(out, "source,line,instruction,bytes,ip,variable,buffer_size,dims,xidx,yidx,zidx,pid,tid,time,addr,cpu,latency,level,hit_type,op_type,snoop_mode,tlb_access\n");
	for (i = 0; i < m->n; i++) {
		const struct kpmc_record *r = &m->recs[i];
		const struct kpmc_mem_access *a = &r->mem;
		char obj[128] = "??";
		uint64_t size = 0;
		const char *src;
		int line = 0;

		src = source_line(m, a->ip, &line);
		if (a->flags & KPMC_MEM_F_ADDR)
			data_object(m, a->addr, obj, sizeof(obj), &size);
		if (src)
			fprintf(out, "%s,%d,", src, line);
		else
			fprintf(out, "??,??,");
		/* Data symbols have no element size: one dimension, no index. */
		fprintf(out, "??,%u,0x%llx,%s,%llu,%s,??,??,??,%u,%u,??,", a->size,
			(unsigned long long)a->ip, obj, (unsigned long long)size,
			size ? "1" : "??", r->pid, r->tid);
		if (a->flags & KPMC_MEM_F_ADDR)
			fprintf(out, "0x%llx,", (unsigned long long)a->addr);
		else
			fprintf(out, "??,");
		fprintf(out, "%u,", r->cpu);
		if (a->flags & KPMC_MEM_F_LATENCY)
			fprintf(out, "%u,", a->latency);
		else
			fprintf(out, "??,");
		fprintf(out, "??,??,%s,??,??\n", op_name(a->op));
	}
}

void kpmc_memrep_print(struct kpmc_memrep *m, FILE *out, unsigned int top, int csv)
{
	struct row *ins, *dat;
	size_t i, nins = 0, ndat = 0, n_ins, n_dat;
	unsigned long none = 0, lost = 0, kernel = 0, withaddr = 0;
	double cum = 0;

	open_exe(m);
	if (csv) {
		print_csv(m, out);
		return;
	}
	ins = calloc(m->n + 1, sizeof(*ins));
	dat = calloc(m->n + 1, sizeof(*dat));
	if (!ins || !dat) {
		free(ins);
		free(dat);
		fprintf(stderr, "kpmc: mem: out of memory\n");
		return;
	}
	for (i = 0; i < m->n; i++) {
		const struct kpmc_mem_access *a = &m->recs[i].mem;

		if (a->flags & KPMC_MEM_F_KERNEL) {
			kernel++;
			continue;
		}
		if (a->op == KPMC_MEM_OP_NONE) {
			none++;
			continue;
		}
		snprintf(ins[nins].key, sizeof(ins[nins].key), "%016llx", (unsigned long long)a->ip);
		ins[nins].ip = a->ip;
		fill_row(&ins[nins++], a);
		if (!(a->flags & KPMC_MEM_F_ADDR)) {
			lost++;
			continue;
		}
		withaddr++;
		data_object(m, a->addr, dat[ndat].key, sizeof(dat[ndat].key), &dat[ndat].size);
		fill_row(&dat[ndat++], a);
	}
	merge(ins, nins, &n_ins);
	merge(dat, ndat, &n_dat);
	fprintf(out, "# %zu memory samples of %s: %zu at a load or store (%lu with its address, %lu address lost), %lu with no access found, %lu in the kernel\n",
		m->n, m->exe[0] ? m->exe : "?", nins, withaddr, lost, none, kernel);
	fprintf(out, "# instruction view\n%8s %7s %7s %7s %7s %7s  %-18s %-32s %s\n", "samples", "%self",
		"%cum", "loads", "stores", "exact", "address", "function+offset", "source:line");
	for (i = 0; i < n_ins && i < top; i++) {
		GElf_Off off = 0;
		const char *fn = code_symbol(m, ins[i].ip, &off), *src;
		char where[96];
		int line = 0;

		src = source_line(m, ins[i].ip, &line);
		cum += 100.0 * ins[i].count / (double)nins;
		if (fn)
			snprintf(where, sizeof(where), "%s+0x%llx", fn, (unsigned long long)off);
		else
			snprintf(where, sizeof(where), "??");
		fprintf(out, "%8lu %6.2f%% %6.2f%% %7lu %7lu %7lu  0x%-16llx %-32s ", ins[i].count,
			100.0 * ins[i].count / (double)nins, cum, ins[i].loads, ins[i].stores, ins[i].exact,
			(unsigned long long)ins[i].ip, where);
		if (src)
			fprintf(out, "%s:%d\n", src, line);
		else
			fprintf(out, "??\n");
	}
	cum = 0;
	fprintf(out, "# data view\n%8s %7s %7s %7s %7s  %-32s %s\n", "samples", "%self", "%cum",
		"loads", "stores", "object", "bytes");
	for (i = 0; i < n_dat && i < top; i++) {
		cum += 100.0 * dat[i].count / (double)withaddr;
		fprintf(out, "%8lu %6.2f%% %6.2f%% %7lu %7lu  %-32s %llu\n", dat[i].count,
			100.0 * dat[i].count / (double)withaddr, cum, dat[i].loads, dat[i].stores,
			dat[i].key, (unsigned long long)dat[i].size);
	}
	free(ins);
	free(dat);
}

/* The data symbol called name: its address (at the run's load address) and size. */
static int find_data_symbol(struct kpmc_memrep *m, const char *name, uint64_t *addr, uint64_t *size)
{
	int i, n = m->mod ? dwfl_module_getsymtab(m->mod) : -1;

	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr value;
		const char *s = dwfl_module_getsym_info(m->mod, i, &sym, &value, NULL, NULL, NULL);

		if (s && !strcmp(s, name) && GELF_ST_TYPE(sym.st_info) == STT_OBJECT) {
			*addr = value;
			*size = sym.st_size;
			return 0;
		}
	}
	return -1;
}

int kpmc_memrep_heatmap(struct kpmc_memrep *m, const char *name, unsigned int rows,
			unsigned int cols, const char *path, char *why, size_t len)
{
	uint64_t base, size, elem, *count;
	unsigned int r, c;
	size_t i;
	FILE *f;

	if (!m->dwfl)
		open_exe(m);
	if (find_data_symbol(m, name, &base, &size)) {
		snprintf(why, len, "no data symbol '%s' in %s", name, m->exe[0] ? m->exe : "the program");
		return -1;
	}
	if (!rows || !cols || size % ((uint64_t)rows * cols)) {
		snprintf(why, len, "'%s' has %llu bytes: not a whole number of elements as %ux%u",
			 name, (unsigned long long)size, rows, cols);
		return -1;
	}
	elem = size / ((uint64_t)rows * cols);
	count = calloc((size_t)rows * cols, sizeof(*count));
	if (!count) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	for (i = 0; i < m->n; i++) {
		const struct kpmc_mem_access *a = &m->recs[i].mem;

		if ((a->flags & KPMC_MEM_F_ADDR) && a->addr >= base && a->addr - base < size)
			count[(a->addr - base) / elem]++;
	}
	f = fopen(path, "w");
	if (!f) {
		snprintf(why, len, "%s: %m", path);
		free(count);
		return -1;
	}
	fprintf(f, "# kpmc mem heat map: samples per element of %s[%u][%u] (%llu-byte elements)\n",
		name, rows, cols, (unsigned long long)elem);
	for (r = 0; r < rows; r++)
		for (c = 0; c < cols; c++)
			fprintf(f, "%llu%c", (unsigned long long)count[(size_t)r * cols + c],
				c + 1 == cols ? '\n' : ' ');
	free(count);
	return fclose(f) ? -1 : 0;
}
