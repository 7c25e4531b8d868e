// SPDX-License-Identifier: GPL-2.0
#include "record_format.h"
#include "memaccess.h"
#include "textput.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kpmc_record_check(const struct kpmc_record *rec, char *why, size_t len)
{
	if (kpmc_record_valid(rec))
		return 0;
	if (rec->version != KPMC_RECORD_VERSION || rec->size != sizeof(*rec)) {
		snprintf(why, len,
			 "record version %u size %u, this kpmc reads version %u size %zu: rebuild the CLI and the module together",
			 rec->version, rec->size, KPMC_RECORD_VERSION, sizeof(*rec));
		return -1;
	}
	snprintf(why, len, "record with counter mask 0x%x, virtual mask 0x%x out of range",
		 rec->counter_mask, rec->virt_mask);
	return -1;
}

const char *kpmc_record_kind_name(unsigned int kind, char *buf, size_t len)
{
	switch (kind) {
	case KPMC_REC_TBS:
		return "tick";
	case KPMC_REC_EXIT:
		return "exit";
	case KPMC_REC_DETACH:
		return "detach";
	case KPMC_REC_EBS:
		return "ebs";
	case KPMC_REC_LOST:
		return "lost";
	case KPMC_REC_MUX:
		return "mux";
	case KPMC_REC_CPU:
		return "cpu";
	case KPMC_REC_CPU_OFFLINE:
		return "offline";
	case KPMC_REC_MEM:
		return "mem";
	}
	snprintf(buf, len, "k%u", kind);
	return buf;
}

/* The counter then virtual-counter cells of a row: aligned, or CSV. */
static void put_values(const struct kpmc_columns *cols, const struct kpmc_record *rec, bool csv,
		       char *out, size_t len, size_t *used)
{
	unsigned int i;

	for (i = 0; i < KPMC_MAX_COUNTERS + KPMC_MAX_VIRT; i++) {
		bool virt = i >= KPMC_MAX_COUNTERS;
		unsigned int b = virt ? i - KPMC_MAX_COUNTERS : i;
		bool shown = (virt ? cols->virt_mask : cols->counter_mask) & (1u << b);
		bool has = (virt ? rec->virt_mask : rec->counter_mask) & (1u << b);
		unsigned long long v = virt ? rec->virt[b] : rec->counts[b];

		if (!shown)
			continue;
		if (has && !csv && !virt && (rec->uncounted_mask & (1u << b)))
			put(out, len, used, " %13llu*", v);
		else if (has)
			put(out, len, used, csv ? ",%llu" : " %14llu", v);
		else if (csv)
			put(out, len, used, ",");
		else
			put(out, len, used, " %14s", "-");
	}
}

int kpmc_format_header(const struct kpmc_columns *cols, char *out, size_t len)
{
	size_t used = 0;
	unsigned int i;
	char name[16];

	if (len)
		out[0] = '\0';
	if (cols->system_wide)
		put(out, len, &used, "%7s %7s %7s %10s", "nsample", "cpu", "event", "ms");
	else
		put(out, len, &used, "%7s %7s %7s %7s", "nsample", "pid", "tid", "event");
	if (cols->nsets > 1)
		put(out, len, &used, " %5s", "expid");
	if (cols->sampling)
		put(out, len, &used, " %12s", "period");
	for (i = 0; i < KPMC_MAX_COUNTERS; i++)
		if (cols->counter_mask & (1u << i)) {
			snprintf(name, sizeof(name), "pmc%u", i);
			put(out, len, &used, " %14s", name);
		}
	for (i = 0; i < KPMC_MAX_VIRT; i++)
		if (cols->virt_mask & (1u << i)) {
			if (cols->virt_names[i])
				put(out, len, &used, " %14.14s", cols->virt_names[i]);
			else {
				snprintf(name, sizeof(name), "virt%u", i);
				put(out, len, &used, " %14s", name);
			}
		}
	return (int)used;
}

int kpmc_format_mem(const struct kpmc_record *rec, char *out, size_t len)
{
	const struct kpmc_mem_access *m = &rec->mem;
	size_t used = 0;

	if (len)
		out[0] = '\0';
	put(out, len, &used, "%7llu %7u %7u %7s ip=0x%llx", (unsigned long long)rec->nsample,
	    rec->pid, rec->tid, "mem", (unsigned long long)m->ip);
	if (m->flags & KPMC_MEM_F_KERNEL) {
		put(out, len, &used, " kernel");
		return (int)used;
	}
	if (m->op == KPMC_MEM_OP_NONE) {
		put(out, len, &used, " no-access");
		return (int)used;
	}
	put(out, len, &used, " %s size=%u", kpmc_mem_op_name(m->op), m->size);
	if (m->flags & KPMC_MEM_F_ADDR)
		put(out, len, &used, " addr=0x%llx", (unsigned long long)m->addr);
	else
		put(out, len, &used, " addr=lost");
	put(out, len, &used, " %s skid=%u", m->flags & KPMC_MEM_F_EXACT ? "exact" : "approx", m->skid);
	if (m->flags & KPMC_MEM_F_LATENCY)
		put(out, len, &used, " latency=%u", m->latency);
	if (m->flags & KPMC_MEM_F_SOURCE) {
		put(out, len, &used, " level=%s", kpmc_mem_level_name(m->source));
		if (KPMC_MEM_SRC_SNOOP(m->source))
			put(out, len, &used, " snoop=%s", kpmc_mem_snoop_name(m->source));
		if (m->source & (KPMC_MEM_SRC_TLB1_MISS | KPMC_MEM_SRC_TLB2_MISS))
			put(out, len, &used, " tlb=%s", kpmc_mem_tlb_name(m->source));
		if (m->source & KPMC_MEM_SRC_LOCKED)
			put(out, len, &used, " locked");
	}
	return (int)used;
}

int kpmc_format_row(const struct kpmc_columns *cols, const struct kpmc_record *rec,
		    char *out, size_t len)
{
	size_t used = 0;
	char kind[16];

	if (len)
		out[0] = '\0';
	if (rec->kind == KPMC_REC_LOST) {
		put(out, len, &used, "# lost %llu records: the ring was full (enlarge it with -k)",
		    (unsigned long long)rec->lost);
		return (int)used;
	}
	if (cols->system_wide)
		put(out, len, &used, "%7llu %7u %7s %10.3f", (unsigned long long)rec->nsample,
		    rec->cpu, kpmc_record_kind_name(rec->kind, kind, sizeof(kind)),
		    (double)rec->run_ns / 1e6);
	else
		put(out, len, &used, "%7llu %7u %7u %7s", (unsigned long long)rec->nsample,
		    rec->pid, rec->tid, kpmc_record_kind_name(rec->kind, kind, sizeof(kind)));
	if (cols->nsets > 1)
		put(out, len, &used, " %5u", rec->set);
	if (cols->sampling) {
		if (rec->period)
			put(out, len, &used, " %12llu", (unsigned long long)rec->period);
		else
			put(out, len, &used, " %12s", "-");
	}
	put_values(cols, rec, false, out, len, &used);
	return (int)used;
}

size_t kpmc_format_uncounted(uint32_t mask, const char *sep, char *out, size_t len)
{
	size_t used = 0;
	unsigned int c;

	if (len)
		out[0] = '\0';
	for (c = 0; c < KPMC_MAX_COUNTERS; c++)
		if (mask & (1u << c))
			put(out, len, &used, "%spmc%u", used ? sep : "", c);
	return used;
}

size_t kpmc_format_uncounted_json(uint32_t mask, char *out, size_t len)
{
	char names[10 * KPMC_MAX_COUNTERS];
	size_t used = 0;

	kpmc_format_uncounted(mask, "\",\"", names, sizeof(names));
	if (len)
		out[0] = '\0';
	put(out, len, &used, names[0] ? "[\"%s\"]" : "[%s]", names);
	return used;
}

/* Parse "<word><index>=<value>" into index and value; 0 on success. */
static int parse_indexed(const char *tok, const char *word, unsigned int *idx,
			 unsigned long long *val)
{
	size_t wl = strlen(word);
	char *end;
	unsigned long i;

	if (strncmp(tok, word, wl) || tok[wl] < '0' || tok[wl] > '9')
		return -1;
	i = strtoul(tok + wl, &end, 10);
	if (*end != '=' || i >= KPMC_MAX_COUNTERS || !end[1])
		return -1;
	*val = strtoull(end + 1, &end, 0);
	if (*end)
		return -1;
	*idx = (unsigned int)i;
	return 0;
}

/* One set's mapping lines; 0, or -1 if the set is malformed. */
static int format_set_mappings(char *set, char *out, size_t len, size_t *used,
			       unsigned int expid, int nsets, struct kpmc_columns *cols)
{
	unsigned long long event[KPMC_MAX_COUNTERS] = { 0 }, umask[KPMC_MAX_COUNTERS];
	int usr[KPMC_MAX_COUNTERS] = { 0 }, os[KPMC_MAX_COUNTERS] = { 0 };
	unsigned long long v, ebs_period = 0, rnd = 0, seed = 0, mux = 0, muxs = 0, muxrnd = 0;
	unsigned int ebs_slot = 0, i;
	int mem = 0;
	char *tok, *save = NULL;
	const char *fmt = NULL;
	char fmt_opts[128] = "";
	uint32_t mask = 0;

	memset(umask, 0xff, sizeof(umask));
	for (tok = strtok_r(set, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!parse_indexed(tok, "umask", &i, &v)) {
			umask[i] = v;
		} else if (!parse_indexed(tok, "cmask", &i, &v) || !parse_indexed(tok, "edge", &i, &v) ||
			   !parse_indexed(tok, "inv", &i, &v) || !parse_indexed(tok, "any", &i, &v)) {
			continue;	/* in the normalized string; the mapping shows event and umask */
		} else if (!parse_indexed(tok, "pmc", &i, &v)) {
			mask |= 1u << i;
			event[i] = v;
		} else if (!parse_indexed(tok, "usr", &i, &v) && v <= 1) {
			usr[i] = (int)v;
		} else if (!parse_indexed(tok, "os", &i, &v) && v <= 1) {
			os[i] = (int)v;
		} else if (!parse_indexed(tok, "ebs", &i, &v)) {
			ebs_slot = i;
			ebs_period = v;
		} else if (!strncmp(tok, "rnd=", 4)) {
			rnd = strtoull(tok + 4, NULL, 10);
		} else if (!strncmp(tok, "seed=", 5)) {
			seed = strtoull(tok + 5, NULL, 10);
		} else if (!strncmp(tok, "muxsamples=", 11)) {
			muxs = strtoull(tok + 11, NULL, 10);
		} else if (!strncmp(tok, "muxrnd=", 7)) {
			muxrnd = strtoull(tok + 7, NULL, 10);
		} else if (!strncmp(tok, "mux=", 4)) {
			mux = strtoull(tok + 4, NULL, 10);
		} else if (!strcmp(tok, "mem=1")) {
			mem = 1;
		} else if (!strncmp(tok, "fmt=", 4)) {
			fmt = tok + 4;
		} else if (!strncmp(tok, "fmt.", 4)) {
			size_t o = strlen(fmt_opts);

			snprintf(fmt_opts + o, sizeof(fmt_opts) - o, "%s%s", o ? "," : "", tok + 4);
		} else if (strncmp(tok, "tbs=", 4) && strncmp(tok, "ldlat=", 6)) {
			return -1;
		}
	}
	if (!mask)
		return -1;
	if (nsets > 1) {
		put(out, len, used, "expid=%u (", expid);
		if (mux && muxrnd)
			put(out, len, used, "%llu +/- %llu ms%s", mux, muxrnd, muxs ? ", or " : "");
		else if (mux)
			put(out, len, used, "%llu ms%s", mux, muxs ? ", or " : "");
		if (muxs)
			put(out, len, used, "%llu samples", muxs);
		put(out, len, used, " a turn):\n");
	}
	for (i = 0; i < KPMC_MAX_COUNTERS; i++) {
		if (!(mask & (1u << i)))
			continue;
		put(out, len, used, "pmc%u=0x%llx", i, event[i]);
		if (umask[i] <= 0xff)
			put(out, len, used, " umask=0x%llx", umask[i]);
		put(out, len, used, " (%s)\n", usr[i] && os[i] ? "user+kernel" : usr[i] ? "user" :
		    os[i] ? "kernel" : "no mode");
	}
	if (ebs_period && rnd)
		put(out, len, used,
		    "sampling: pmc%u every %llu +/- %llu events (seed %llu; each record's period is shown)\n",
		    ebs_slot, ebs_period, rnd, seed);
	else if (ebs_period)
		put(out, len, used, "sampling: pmc%u every %llu events\n", ebs_slot, ebs_period);
	if (mem)
		put(out, len, used, "memory sampling: each sample's data access (mem lines)\n");
	if (fmt)
		put(out, len, used, "sampling format: %s%s%s\n", fmt, fmt_opts[0] ? ", options " : "",
		    fmt_opts);
	cols->counter_mask |= mask;
	cols->set_mask[expid] = mask;
	if (ebs_period)
		cols->sampling = 1;
	return 0;
}

int kpmc_format_mappings(const char *normalized, char *out, size_t len,
			 struct kpmc_columns *cols)
{
	char buf[1024], *sets[KPMC_MAX_SETS], *p, *semi;
	size_t used = 0, n = strlen(normalized);
	int nsets = 0, i;

	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, normalized, n + 1);
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	for (p = buf; p; p = semi) {
		semi = strchr(p, ';');
		if (semi)
			*semi++ = '\0';
		if (nsets == KPMC_MAX_SETS)
			return -1;
		sets[nsets++] = p;
	}
	if (len)
		out[0] = '\0';
	memset(cols, 0, sizeof(*cols));
	cols->nsets = nsets;
	put(out, len, &used, "[Event-to-counter mappings]\n");
	for (i = 0; i < nsets; i++)
		if (format_set_mappings(sets[i], out, len, &used, (unsigned int)i, nsets, cols))
			return -1;
	return (int)used;
}

static const char *virt_name(const struct kpmc_columns *cols, unsigned int i, char *buf, size_t len)
{
	if (cols->virt_names[i])
		return cols->virt_names[i];
	snprintf(buf, len, "virt%u", i);
	return buf;
}

int kpmc_format_csv_header(const struct kpmc_columns *cols, char *out, size_t len)
{
	size_t used = 0;
	unsigned int i;
	char name[16];

	if (len)
		out[0] = '\0';
	put(out, len, &used, "nsample,pid,tid,cpu,event,expid,period,run_ns,lost,uncounted");
	for (i = 0; i < KPMC_MAX_COUNTERS; i++)
		if (cols->counter_mask & (1u << i))
			put(out, len, &used, ",pmc%u", i);
	for (i = 0; i < KPMC_MAX_VIRT; i++)
		if (cols->virt_mask & (1u << i))
			put(out, len, &used, ",%s", virt_name(cols, i, name, sizeof(name)));
	return (int)used;
}

int kpmc_format_csv_row(const struct kpmc_columns *cols, const struct kpmc_record *rec,
			char *out, size_t len)
{
	size_t used = 0;
	char kind[16], uncounted[8 * KPMC_MAX_COUNTERS];

	if (len)
		out[0] = '\0';
	kpmc_format_uncounted(rec->uncounted_mask, "+", uncounted, sizeof(uncounted));
	put(out, len, &used, "%llu,%u,%u,%u,%s,%u,%llu,%llu,%llu,%s",
	    (unsigned long long)rec->nsample, rec->pid, rec->tid, rec->cpu,
	    kpmc_record_kind_name(rec->kind, kind, sizeof(kind)), rec->set,
	    (unsigned long long)rec->period, (unsigned long long)rec->run_ns,
	    (unsigned long long)rec->lost, uncounted);
	put_values(cols, rec, true, out, len, &used);
	return (int)used;
}

int kpmc_format_json_record(const struct kpmc_columns *cols, const struct kpmc_record *rec,
			    char *out, size_t len)
{
	size_t used = 0;
	unsigned int i;
	char kind[16], name[16], uncounted[12 * KPMC_MAX_COUNTERS];
	int first = 1;

	if (len)
		out[0] = '\0';
	kpmc_format_uncounted_json(rec->uncounted_mask, uncounted, sizeof(uncounted));
	put(out, len, &used,
	    "{\"type\":\"record\",\"nsample\":%llu,\"pid\":%u,\"tid\":%u,\"cpu\":%u,\"event\":\"%s\",\"expid\":%u,\"period\":%llu,\"run_ns\":%llu,\"lost\":%llu,\"uncounted\":%s,\"counts\":{",
	    (unsigned long long)rec->nsample, rec->pid, rec->tid, rec->cpu,
	    kpmc_record_kind_name(rec->kind, kind, sizeof(kind)), rec->set,
	    (unsigned long long)rec->period, (unsigned long long)rec->run_ns,
	    (unsigned long long)rec->lost, uncounted);
	for (i = 0; i < KPMC_MAX_COUNTERS; i++)
		if (rec->counter_mask & (1u << i)) {
			put(out, len, &used, "%s\"pmc%u\":%llu", first ? "" : ",", i,
			    (unsigned long long)rec->counts[i]);
			first = 0;
		}
	put(out, len, &used, "},\"virt\":{");
	first = 1;
	for (i = 0; i < KPMC_MAX_VIRT; i++)
		if (rec->virt_mask & (1u << i) && (cols->virt_mask & (1u << i))) {
			put(out, len, &used, "%s\"%s\":%llu", first ? "" : ",",
			    virt_name(cols, i, name, sizeof(name)), (unsigned long long)rec->virt[i]);
			first = 0;
		}
	put(out, len, &used, "}}");
	return (int)used;
}
