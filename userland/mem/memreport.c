// SPDX-License-Identifier: GPL-2.0
/*
 * kpmc mem's reports, after pfmon's two views of sampled memory accesses:
 * the instruction view (which instructions access memory in the samples:
 * count, %self, %cum, loads and stores, function+offset and source line)
 * and the data view (which data: the executable's data symbols, then the
 * heap, the stack or the mapping an address is in). Symbols and lines come
 * from the executable through elfutils libdwfl, at the load address the
 * run's memory map gave (elfsyms.c); samples whose access was not found or whose
 * address was lost are counted apart.
 */
#define _GNU_SOURCE
#include "memreport.h"
#include "common/elfsyms.h"
#include "common/growarray.h"
#include "common/memaccess.h"
#include "memtopo.h"

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
	struct kpmc_elf *elf;		/* the executable's symbols, once opened */
	int opened;
	uint64_t bias;			/* run-time address - link-time address */
};

struct kpmc_memrep *kpmc_memrep_new(void)
{
	return calloc(1, sizeof(struct kpmc_memrep));
}

void kpmc_memrep_free(struct kpmc_memrep *m)
{
	if (!m)
		return;
	kpmc_elf_close(m->elf);
	free(m->recs);
	free(m);
}

int kpmc_memrep_add(struct kpmc_memrep *m, const struct kpmc_record *rec)
{
	if (grow_array((void **)&m->recs, &m->cap, m->n + 1, sizeof(*m->recs), 1024))
		return -1;
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

/* The executable's symbols, where the run had it (a PIE: at its load address). */
static void open_exe(struct kpmc_memrep *m)
{
	uint64_t vaddr0 = 0;
	char why[256];

	if (m->opened || !m->exe[0])
		return;
	m->opened = 1;
	m->elf = kpmc_elf_open(m->exe, why, sizeof(why));
	/* A PIE's run-time addresses are its link-time ones plus where its offset 0 went. */
	if (m->elf && kpmc_elf_relocatable(m->elf) && m->exe_base) {
		if (kpmc_elf_offset_vaddr(m->elf, 0, &vaddr0))
			vaddr0 = 0;
		m->bias = m->exe_base - vaddr0;
	}
}

/* "function+0xoff" of an instruction address, or NULL. */
static const char *code_symbol(struct kpmc_memrep *m, uint64_t ip, uint64_t *off)
{
	return m->elf ? kpmc_elf_function(m->elf, ip - m->bias, off) : NULL;
}

static const char *source_line(struct kpmc_memrep *m, uint64_t ip, int *line)
{
	return m->elf ? kpmc_elf_source(m->elf, ip - m->bias, line) : NULL;
}

/* The data object addr is in: a data symbol of the executable, else its mapping. */
static void data_object(struct kpmc_memrep *m, uint64_t addr, char *out, size_t len,
			uint64_t *size)
{
	const char *name = m->elf ? kpmc_elf_data_object(m->elf, addr - m->bias, size) : NULL;
	unsigned int i;

	if (name) {
		snprintf(out, len, "%s", name);
		return;
	}
	*size = 0;
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

/* The levels kpmc mem's views count, where the source says (KPMC_MEM_F_SOURCE). */
enum { LV_L1, LV_L2, LV_L3, LV_RAM, LV_OTHER, LV_N };
static const char *const level_column[LV_N] = { "%L1", "%L2", "%L3", "%RAM", "%other" };
static const char *const level_key[LV_N] = { "L1", "L2", "L3", "RAM", "other" };

static int level_group(uint32_t source)
{
	switch (KPMC_MEM_SRC_LEVEL(source)) {
	case KPMC_MEM_LVL_L1:
	case KPMC_MEM_LVL_LFB:		/* a miss already on its way: L1's fill buffer */
		return LV_L1;
	case KPMC_MEM_LVL_L2:
		return LV_L2;
	case KPMC_MEM_LVL_L3:
	case KPMC_MEM_LVL_PEER_CACHE:
	case KPMC_MEM_LVL_REMOTE_CACHE:
		return LV_L3;
	case KPMC_MEM_LVL_RAM:
	case KPMC_MEM_LVL_REMOTE_RAM:
	case KPMC_MEM_LVL_EXT_MEM:
	case KPMC_MEM_LVL_L3_MISS:
		return LV_RAM;
	}
	return LV_OTHER;
}

struct row {
	char key[160];
	uint64_t ip, size;
	unsigned long count, loads, stores, exact;
	unsigned long with_lat, with_src, level[LV_N];
	double lat_sum;
	int cpu;			/* topology view: the row's CPU */
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
	int l;

	qsort(rows, n, sizeof(*rows), by_key);
	for (i = 0; i < n; i++) {
		if (k && !strcmp(rows[k - 1].key, rows[i].key)) {
			struct row *r = &rows[k - 1];

			r->count += rows[i].count;
			r->loads += rows[i].loads;
			r->stores += rows[i].stores;
			r->exact += rows[i].exact;
			r->with_lat += rows[i].with_lat;
			r->lat_sum += rows[i].lat_sum;
			r->with_src += rows[i].with_src;
			for (l = 0; l < LV_N; l++)
				r->level[l] += rows[i].level[l];
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
	if (a->flags & KPMC_MEM_F_LATENCY) {
		r->with_lat = 1;
		r->lat_sum = a->latency;
	}
	if (a->flags & KPMC_MEM_F_SOURCE) {
		r->with_src = 1;
		r->level[level_group(a->source)] = 1;
	}
}

static void print_csv(struct kpmc_memrep *m, FILE *out)
{
	size_t i;

	kpmc_mem_csv_header(out);
	for (i = 0; i < m->n; i++) {
		const struct kpmc_record *r = &m->recs[i];
		const struct kpmc_mem_access *a = &r->mem;
		struct kpmc_mem_row row = { .pid = (int)r->pid, .tid = r->tid, .cpu = r->cpu };
		char obj[128];
		uint64_t size = 0;

		row.source_file = source_line(m, a->ip, &row.line);
		if (a->flags & KPMC_MEM_F_ADDR) {
			data_object(m, a->addr, obj, sizeof(obj), &size);
			row.variable = obj;
			row.buffer_size = size;
			/* Data symbols have no element size: one dimension, no index. */
			row.ndims = size ? 1 : 0;
		}
		kpmc_mem_csv_row(out, a, &row);
	}
}

/* The views, built once for the text and the JSON forms. */
struct views {
	struct row *ins, *dat, *cpu;
	size_t nins, ndat, ncpu;	/* samples in each view */
	size_t n_ins, n_dat, n_cpu;	/* rows */
	unsigned long none, lost, kernel, withaddr;
	int hw;				/* some sample has latency or source: their columns */
	struct kpmc_memtopo *topo;
	char topo_why[128];
};

static int build_views(struct kpmc_memrep *m, struct views *v)
{
	size_t i;

	memset(v, 0, sizeof(*v));
	v->ins = calloc(m->n + 1, sizeof(*v->ins));
	v->dat = calloc(m->n + 1, sizeof(*v->dat));
	v->cpu = calloc(m->n + 1, sizeof(*v->cpu));
	if (!v->ins || !v->dat || !v->cpu)
		return -1;
	for (i = 0; i < m->n; i++) {
		const struct kpmc_record *r = &m->recs[i];
		const struct kpmc_mem_access *a = &r->mem;
		struct row *c;

		if (a->flags & KPMC_MEM_F_KERNEL) {
			v->kernel++;
			continue;
		}
		if (a->op == KPMC_MEM_OP_NONE) {
			v->none++;
			continue;
		}
		if (a->flags & (KPMC_MEM_F_LATENCY | KPMC_MEM_F_SOURCE))
			v->hw = 1;
		snprintf(v->ins[v->nins].key, sizeof(v->ins[v->nins].key), "%016llx",
			 (unsigned long long)a->ip);
		v->ins[v->nins].ip = a->ip;
		fill_row(&v->ins[v->nins++], a);
		c = &v->cpu[v->ncpu++];
		snprintf(c->key, sizeof(c->key), "%05u", r->cpu);
		c->cpu = r->cpu;
		fill_row(c, a);
		if (!(a->flags & KPMC_MEM_F_ADDR)) {
			v->lost++;
			continue;
		}
		v->withaddr++;
		data_object(m, a->addr, v->dat[v->ndat].key, sizeof(v->dat[v->ndat].key),
			    &v->dat[v->ndat].size);
		fill_row(&v->dat[v->ndat++], a);
	}
	merge(v->ins, v->nins, &v->n_ins);
	merge(v->dat, v->ndat, &v->n_dat);
	merge(v->cpu, v->ncpu, &v->n_cpu);
	v->topo = kpmc_memtopo_load(v->topo_why, sizeof(v->topo_why));
	return 0;
}

static void free_views(struct views *v)
{
	free(v->ins);
	free(v->dat);
	free(v->cpu);
	kpmc_memtopo_free(v->topo);
}

/* Mean latency and the level shares of a row, as text columns (hardware samplers). */
static void print_hw_columns(FILE *out, const struct row *r)
{
	int l;

	if (r->with_lat)
		fprintf(out, " %7.1f", r->lat_sum / (double)r->with_lat);
	else
		fprintf(out, " %7s", "-");
	for (l = 0; l < LV_N; l++) {
		if (r->with_src)
			fprintf(out, " %6.1f%%", 100.0 * r->level[l] / (double)r->with_src);
		else
			fprintf(out, " %7s", "-");
	}
}

static void print_hw_header(FILE *out)
{
	int l;

	fprintf(out, " %7s", "latency");
	for (l = 0; l < LV_N; l++)
		fprintf(out, " %7s", level_column[l]);
}

static void print_text(struct kpmc_memrep *m, struct views *v, FILE *out, unsigned int top)
{
	double cum = 0;
	size_t i;

	fprintf(out, "# %zu memory samples of %s: %zu at a load or store (%lu with its address, %lu address lost), %lu with no access found, %lu in the kernel\n",
		m->n, m->exe[0] ? m->exe : "?", v->nins, v->withaddr, v->lost, v->none, v->kernel);
	fprintf(out, "# instruction view\n%8s %7s %7s %7s %7s %7s  %-18s %-32s %-24s", "samples", "%self",
		"%cum", "loads", "stores", "exact", "address", "function+offset", "source:line");
	if (v->hw)
		print_hw_header(out);
	fputc('\n', out);
	for (i = 0; i < v->n_ins && i < top; i++) {
		const struct row *r = &v->ins[i];
		uint64_t off = 0;
		const char *fn = code_symbol(m, r->ip, &off), *src;
		char where[96], line_s[96];
		int line = 0;

		src = source_line(m, r->ip, &line);
		cum += 100.0 * r->count / (double)v->nins;
		if (fn)
			snprintf(where, sizeof(where), "%s+0x%llx", fn, (unsigned long long)off);
		else
			snprintf(where, sizeof(where), "??");
		if (src)
			snprintf(line_s, sizeof(line_s), "%s:%d", src, line);
		else
			snprintf(line_s, sizeof(line_s), "??");
		fprintf(out, "%8lu %6.2f%% %6.2f%% %7lu %7lu %7lu  0x%-16llx %-32s %-24s", r->count,
			100.0 * r->count / (double)v->nins, cum, r->loads, r->stores, r->exact,
			(unsigned long long)r->ip, where, line_s);
		if (v->hw)
			print_hw_columns(out, r);
		fputc('\n', out);
	}
	cum = 0;
	fprintf(out, "# data view\n%8s %7s %7s %7s %7s  %-32s %12s", "samples", "%self", "%cum",
		"loads", "stores", "object", "bytes");
	if (v->hw)
		print_hw_header(out);
	fputc('\n', out);
	for (i = 0; i < v->n_dat && i < top; i++) {
		const struct row *r = &v->dat[i];

		cum += 100.0 * r->count / (double)v->withaddr;
		fprintf(out, "%8lu %6.2f%% %6.2f%% %7lu %7lu  %-32s %12llu", r->count,
			100.0 * r->count / (double)v->withaddr, cum, r->loads, r->stores,
			r->key, (unsigned long long)r->size);
		if (v->hw)
			print_hw_columns(out, r);
		fputc('\n', out);
	}
	if (!v->topo) {
		fprintf(out, "# topology view: hwloc: %s\n", v->topo_why);
		return;
	}
	{
		char sum[128];

		kpmc_memtopo_summary(v->topo, sum, sizeof(sum));
		fprintf(out, "# topology view (hwloc: %s)\n%8s %7s %5s %5s %7s %5s %5s %7s %7s", sum,
			"samples", "%self", "cpu", "core", "package", "numa", "llc", "loads", "stores");
	}
	if (v->hw)
		print_hw_header(out);
	fputc('\n', out);
	for (i = 0; i < v->n_cpu; i++) {
		const struct row *r = &v->cpu[i];
		struct kpmc_cpu_place p;
		char llc[24] = "-";

		kpmc_memtopo_place(v->topo, (unsigned int)r->cpu, &p);
		fprintf(out, "%8lu %6.2f%% %5d %5d %7d %5d ", r->count, 100.0 * r->count / (double)v->ncpu,
			r->cpu, p.core, p.package, p.numa);
		if (p.llc >= 0)
			snprintf(llc, sizeof(llc), "L%d#%d", p.llc_depth, p.llc);
		fprintf(out, "%5s", llc);
		fprintf(out, " %7lu %7lu", r->loads, r->stores);
		if (v->hw)
			print_hw_columns(out, r);
		fputc('\n', out);
	}
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void json_counts(FILE *out, const struct row *r)
{
	int l;

	fprintf(out, "\"samples\":%lu,\"loads\":%lu,\"stores\":%lu,\"exact\":%lu", r->count, r->loads,
		r->stores, r->exact);
	if (r->with_lat)
		fprintf(out, ",\"latency_mean\":%.3f,\"with_latency\":%lu", r->lat_sum / (double)r->with_lat,
			r->with_lat);
	if (r->with_src) {
		fprintf(out, ",\"with_source\":%lu,\"levels\":{", r->with_src);
		for (l = 0; l < LV_N; l++)
			fprintf(out, "%s\"%s\":%lu", l ? "," : "", level_key[l], r->level[l]);
		fputc('}', out);
	}
}

static void print_json(struct kpmc_memrep *m, struct views *v, FILE *out, unsigned int top)
{
	size_t i;

	fprintf(out, "{\"program\":");
	json_str(out, m->exe);
	fprintf(out, ",\"samples\":%zu,\"at_access\":%zu,\"with_address\":%lu,\"address_lost\":%lu,"
		"\"no_access\":%lu,\"kernel\":%lu,\"instructions\":[", m->n, v->nins, v->withaddr, v->lost,
		v->none, v->kernel);
	for (i = 0; i < v->n_ins && i < top; i++) {
		const struct row *r = &v->ins[i];
		uint64_t off = 0;
		const char *fn = code_symbol(m, r->ip, &off), *src;
		int line = 0;

		src = source_line(m, r->ip, &line);
		fprintf(out, "%s\n{\"ip\":\"0x%llx\",\"function\":", i ? "," : "", (unsigned long long)r->ip);
		if (fn) {
			json_str(out, fn);
			fprintf(out, ",\"offset\":%llu", (unsigned long long)off);
		} else {
			fputs("null", out);
		}
		if (src) {
			fputs(",\"source\":", out);
			json_str(out, src);
			fprintf(out, ",\"line\":%d", line);
		}
		fputc(',', out);
		json_counts(out, r);
		fputc('}', out);
	}
	fputs("],\n\"objects\":[", out);
	for (i = 0; i < v->n_dat && i < top; i++) {
		const struct row *r = &v->dat[i];

		fprintf(out, "%s\n{\"object\":", i ? "," : "");
		json_str(out, r->key);
		fprintf(out, ",\"bytes\":%llu,", (unsigned long long)r->size);
		json_counts(out, r);
		fputc('}', out);
	}
	fputs("],\n\"cpus\":[", out);
	for (i = 0; i < v->n_cpu; i++) {
		const struct row *r = &v->cpu[i];
		struct kpmc_cpu_place p = { -1, -1, -1, -1, 0 };

		if (v->topo)
			kpmc_memtopo_place(v->topo, (unsigned int)r->cpu, &p);
		fprintf(out, "%s\n{\"cpu\":%d,\"core\":%d,\"package\":%d,\"numa\":%d,\"llc\":%d,\"llc_level\":%d,",
			i ? "," : "", r->cpu, p.core, p.package, p.numa, p.llc, p.llc_depth);
		json_counts(out, r);
		fputc('}', out);
	}
	fputs("]", out);
	if (v->topo) {
		char sum[128];

		kpmc_memtopo_summary(v->topo, sum, sizeof(sum));
		fputs(",\"topology\":", out);
		json_str(out, sum);
	}
	fputs("}\n", out);
}

void kpmc_memrep_print(struct kpmc_memrep *m, FILE *out, unsigned int top, enum kpmc_memrep_form form)
{
	struct views v;

	open_exe(m);
	if (form == KPMC_MEMREP_CSV) {
		print_csv(m, out);
		return;
	}
	if (build_views(m, &v)) {
		free_views(&v);
		fprintf(stderr, "kpmc: mem: out of memory\n");
		return;
	}
	if (form == KPMC_MEMREP_JSON)
		print_json(m, &v, out, top);
	else
		print_text(m, &v, out, top);
	free_views(&v);
}

/* The data symbol called name: its address (at the run's load address) and size. */
static int find_data_symbol(struct kpmc_memrep *m, const char *name, uint64_t *addr, uint64_t *size)
{
	if (!m->elf || kpmc_elf_find_object(m->elf, name, addr, size))
		return -1;
	*addr += m->bias;
	return 0;
}

int kpmc_memrep_heatmap(struct kpmc_memrep *m, const char *name, unsigned int rows,
			unsigned int cols, const char *path, char *why, size_t len)
{
	uint64_t base, size, elem, *count;
	unsigned int r, c;
	size_t i;
	FILE *f;

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
