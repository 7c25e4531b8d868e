// SPDX-License-Identifier: LGPL-2.1
#include "memaccess.h"

const char *kpmc_mem_op_name(unsigned int op)
{
	static const char *const names[] = { "none", "load", "store", "load+store" };

	return op < sizeof(names) / sizeof(names[0]) ? names[op] : "?";
}

const char *kpmc_mem_level_name(uint32_t source)
{
	static const char *const names[] = {
		[KPMC_MEM_LVL_NA] = "??",
		[KPMC_MEM_LVL_L1] = "L1",
		[KPMC_MEM_LVL_LFB] = "LFB",
		[KPMC_MEM_LVL_L2] = "L2",
		[KPMC_MEM_LVL_L3] = "L3",
		[KPMC_MEM_LVL_PEER_CACHE] = "peer-cache",
		[KPMC_MEM_LVL_REMOTE_CACHE] = "remote-cache",
		[KPMC_MEM_LVL_RAM] = "RAM",
		[KPMC_MEM_LVL_REMOTE_RAM] = "remote-RAM",
		[KPMC_MEM_LVL_EXT_MEM] = "ext-memory",
		[KPMC_MEM_LVL_IO] = "I/O",
		[KPMC_MEM_LVL_UNCACHED] = "uncached",
		[KPMC_MEM_LVL_L3_MISS] = "L3-miss",
	};
	uint32_t l = KPMC_MEM_SRC_LEVEL(source);

	return l < sizeof(names) / sizeof(names[0]) && names[l] ? names[l] : "??";
}

const char *kpmc_mem_snoop_name(uint32_t source)
{
	static const char *const names[] = { "??", "none", "hit", "hitm", "miss" };
	uint32_t s = KPMC_MEM_SRC_SNOOP(source);

	return s < sizeof(names) / sizeof(names[0]) ? names[s] : "??";
}

const char *kpmc_mem_tlb_name(uint32_t source)
{
	if (source & KPMC_MEM_SRC_TLB2_MISS)
		return "L2-miss";
	if (source & KPMC_MEM_SRC_TLB1_MISS)
		return "L1-miss";
	return "??";
}

void kpmc_mem_csv_header(FILE *f)
{
	fputs("source,line,instruction,bytes,ip,variable,buffer_size,dims,xidx,yidx,zidx,pid,tid,time,addr,cpu,latency,level,hit_type,op_type,snoop_mode,tlb_access\n",
	      f);
}

static void field_u64(FILE *f, int known, uint64_t v, int hex)
{
	if (!known)
		fputs("??,", f);
	else
		fprintf(f, hex ? "0x%llx," : "%llu,", (unsigned long long)v);
}

void kpmc_mem_csv_row(FILE *f, const struct kpmc_mem_access *a, const struct kpmc_mem_row *r)
{
	int src = !!(a->flags & KPMC_MEM_F_SOURCE);
	unsigned int d;

	if (r->source_file)
		fprintf(f, "%s,%d,", r->source_file, r->line);
	else
		fputs("??,??,", f);
	/* No disassembler: the instruction column stays unknown, as in Mitos without one. */
	fprintf(f, "??,%u,0x%llx,%s,", a->size, (unsigned long long)a->ip,
		r->variable ? r->variable : "??");
	field_u64(f, r->variable != NULL, r->buffer_size, 0);
	field_u64(f, r->ndims != 0, r->ndims, 0);
	for (d = 0; d < KPMC_MEM_MAX_INDEX_COLUMNS; d++)
		field_u64(f, r->index && d < r->ndims, r->index ? r->index[d] : 0, 0);
	fprintf(f, "%d,%u,", r->pid, r->tid);
	field_u64(f, r->time_ns != 0, r->time_ns, 0);
	field_u64(f, a->flags & KPMC_MEM_F_ADDR, a->addr, 1);
	fprintf(f, "%u,", r->cpu);
	field_u64(f, a->flags & KPMC_MEM_F_LATENCY, a->latency, 0);
	/* hit_type: whether the first-level cache had it, as Mitos's readers group by. */
	if (!src || KPMC_MEM_SRC_LEVEL(a->source) == KPMC_MEM_LVL_NA)
		src = 0;
	fprintf(f, "%s,%s,%s,%s,%s\n", src ? kpmc_mem_level_name(a->source) : "??",
		!src ? "??" : KPMC_MEM_SRC_LEVEL(a->source) == KPMC_MEM_LVL_L1 ? "hit" : "miss",
		kpmc_mem_op_name(a->op), src ? kpmc_mem_snoop_name(a->source) : "??",
		(a->flags & KPMC_MEM_F_SOURCE) ? kpmc_mem_tlb_name(a->source) : "??");
}
