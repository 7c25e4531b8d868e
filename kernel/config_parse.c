// SPDX-License-Identifier: GPL-2.0
/*
 * Parser for counter configuration strings, PMCTrack syntax:
 *   pmc0,pmc1=0x8,usr1=1,os1=0,tbs=100
 *   pmc0,pmc1=0x8,ebs0=1000000,rnd=100000,seed=42
 * Pure code: also compiled into the userland unit tests.
 */
#include "kpmc/config.h"

int kpmc_parse_u64(const char *s, size_t len, u64 *val)
{
	unsigned int base = 10;
	u64 v = 0;
	size_t i = 0;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == len)
		return -EINVAL;
	for (; i < len; i++) {
		char c = s[i];
		unsigned int d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -EINVAL;
		if (v > (~(u64)0 - d) / base)
			return -EINVAL;
		v = v * base + d;
	}
	*val = v;
	return 0;
}

/* Does [tok, tok+len) start with word followed by a decimal index? */
static int parse_indexed(const char *tok, size_t len, const char *word,
			 unsigned int *index, size_t *consumed)
{
	size_t wl = strlen(word), i;
	u64 idx = 0;

	if (len <= wl || memcmp(tok, word, wl) != 0)
		return 0;
	for (i = wl; i < len && tok[i] >= '0' && tok[i] <= '9'; i++) {
		idx = idx * 10 + (tok[i] - '0');
		if (idx > 1000)
			return -EINVAL;
	}
	if (i == wl)
		return 0;
	*index = (unsigned int)idx;
	*consumed = i;
	return 1;
}

/* Tokens that may appear once per configuration. */
#define KPMC_SEEN_TBS	1u
#define KPMC_SEEN_EBS	2u
#define KPMC_SEEN_RND	4u
#define KPMC_SEEN_SEED	8u
#define KPMC_SEEN_MUX	16u
#define KPMC_SEEN_MUXS	32u
#define KPMC_SEEN_MEM	64u
#define KPMC_SEEN_LDLAT	128u
#define KPMC_SEEN_FMT	256u
#define KPMC_SEEN_MUXRND	512u

void kpmc_quote_token(char *out, size_t outlen, const char *tok, size_t toklen)
{
	size_t i, n = toklen < KPMC_QUOTE_MAX ? toklen : KPMC_QUOTE_MAX;

	if (!outlen)
		return;
	if (n > outlen - 2)
		n = outlen - 2;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)tok[i];

		out[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	if (toklen > n)
		out[n++] = '~';
	out[n] = '\0';
}

static int fail(char *err, size_t errlen, const char *tok, size_t toklen,
		const char *why)
{
	char shown[KPMC_QUOTE_MAX + 2];

	kpmc_quote_token(shown, sizeof(shown), tok, toklen);
	snprintf(err, errlen, "'%s': %s", shown, why);
	return -EINVAL;
}

static int parse_flag(const char *val, size_t vlen, bool *out)
{
	if (vlen == 1 && (val[0] == '0' || val[0] == '1')) {
		*out = val[0] == '1';
		return 0;
	}
	return -EINVAL;
}

static const struct {
	const char *word;
	u32 bit;
	u64 max;
} kpmc_modifiers[] = {
	{ "umask", KPMC_MOD_UMASK, 0xff },
	{ "cmask", KPMC_MOD_CMASK, 0xff },
	{ "edge", KPMC_MOD_EDGE, 1 },
	{ "inv", KPMC_MOD_INV, 1 },
	{ "any", KPMC_MOD_ANY, 1 },
};

/*
 * umaskN=, cmaskN=, edgeN=, invN=, anyN=: 0 taken, 1 not a modifier token,
 * -EINVAL with the reason.
 */
static int parse_modifier(const char *tok, size_t len, size_t klen, const char *val,
			  size_t vlen, const char *eq, const struct kpmc_pmu_desc *pmu,
			  struct kpmc_config *c, char *err, size_t errlen)
{
	char why[KPMC_ERR_MAX];
	unsigned int m, idx;
	size_t used;
	u64 v;
	int r;

	for (m = 0; m < ARRAY_SIZE(kpmc_modifiers); m++) {
		struct kpmc_counter_req *req;

		r = parse_indexed(tok, klen, kpmc_modifiers[m].word, &idx, &used);
		if (r < 0)
			return fail(err, errlen, tok, len, "counter index too large");
		if (r == 0 || used != klen)
			continue;
		if (!(pmu->modifiers & kpmc_modifiers[m].bit)) {
			snprintf(why, sizeof(why), "this PMU has no %s modifier",
				 kpmc_modifiers[m].word);
			return fail(err, errlen, tok, len, why);
		}
		if (idx >= pmu->nr_counters || idx >= KPMC_MAX_COUNTERS)
			return fail(err, errlen, tok, len, "counter out of range");
		if (!eq || kpmc_parse_u64(val, vlen, &v) || v > kpmc_modifiers[m].max) {
			snprintf(why, sizeof(why), "%s wants a number from 0 to %llu",
				 kpmc_modifiers[m].word,
				 (unsigned long long)kpmc_modifiers[m].max);
			return fail(err, errlen, tok, len, why);
		}
		req = &c->ctr[idx];
		if (req->mods & kpmc_modifiers[m].bit)
			return fail(err, errlen, tok, len, "given twice");
		req->mods |= kpmc_modifiers[m].bit;
		switch (kpmc_modifiers[m].bit) {
		case KPMC_MOD_UMASK:
			req->umask = (u8)v;
			break;
		case KPMC_MOD_CMASK:
			req->cmask = (u8)v;
			break;
		case KPMC_MOD_EDGE:
			req->edge = v;
			break;
		case KPMC_MOD_INV:
			req->inv = v;
			break;
		default:
			req->any = v;
		}
		return 0;
	}
	return 1;
}

static int parse_token(const char *tok, size_t len,
		       const struct kpmc_pmu_desc *pmu, struct kpmc_config *c,
		       u32 *usr_set, u32 *os_set, u32 *seen,
		       char *err, size_t errlen)
{
	const char *eq = memchr(tok, '=', len);
	size_t klen = eq ? (size_t)(eq - tok) : len;
	const char *val = eq ? eq + 1 : NULL;
	size_t vlen = eq ? len - klen - 1 : 0;
	char why[KPMC_ERR_MAX];
	unsigned int idx;
	size_t used;
	u64 v;
	int r;

	if (len == 0)
		return fail(err, errlen, tok, len, "empty token");

	if (klen == 3 && memcmp(tok, "tbs", 3) == 0) {
		if (!eq || kpmc_parse_u64(val, vlen, &v) || v > KPMC_TBS_MAX_MS)
			return fail(err, errlen, tok, len,
				    "tbs wants a period in milliseconds (0 to 86400000)");
		if (*seen & KPMC_SEEN_TBS)
			return fail(err, errlen, tok, len, "tbs given twice");
		*seen |= KPMC_SEEN_TBS;
		c->tbs_ms = (u32)v;
		return 0;
	}
	if ((klen == 3 && memcmp(tok, "mux", 3) == 0) ||
	    (klen == 10 && memcmp(tok, "muxsamples", 10) == 0)) {
		u32 bit = klen == 3 ? KPMC_SEEN_MUX : KPMC_SEEN_MUXS;

		if (!eq || kpmc_parse_u64(val, vlen, &v) || v == 0 ||
		    v > (bit == KPMC_SEEN_MUX ? KPMC_TBS_MAX_MS : 1000000000u))
			return fail(err, errlen, tok, len,
				    bit == KPMC_SEEN_MUX ?
				    "mux wants the set's time slice in ms (1 to 86400000)" :
				    "muxsamples wants a number of samples (1 to 1000000000)");
		if (*seen & bit)
			return fail(err, errlen, tok, len, "given twice");
		*seen |= bit;
		if (bit == KPMC_SEEN_MUX)
			c->mux_ms = (u32)v;
		else
			c->mux_samples = (u32)v;
		return 0;
	}
	if (klen == 6 && memcmp(tok, "muxrnd", 6) == 0) {
		if (!eq || kpmc_parse_u64(val, vlen, &v) || v > KPMC_TBS_MAX_MS)
			return fail(err, errlen, tok, len,
				    "muxrnd wants a range in ms (the set's slice varies by +/- muxrnd)");
		if (*seen & KPMC_SEEN_MUXRND)
			return fail(err, errlen, tok, len, "given twice");
		*seen |= KPMC_SEEN_MUXRND;
		c->mux_rnd_ms = (u32)v;
		return 0;
	}
	if (klen == 3 && memcmp(tok, "mem", 3) == 0) {
		if (!eq || kpmc_parse_u64(val, vlen, &v) || v > 1)
			return fail(err, errlen, tok, len,
				    "mem wants 1 (every sample carries its data access) or 0");
		if (*seen & KPMC_SEEN_MEM)
			return fail(err, errlen, tok, len, "given twice");
		*seen |= KPMC_SEEN_MEM;
		c->mem = v;
		return 0;
	}
	if (klen == 3 && memcmp(tok, "fmt", 3) == 0) {
		size_t i;

		if (!eq || !vlen || vlen > KPMC_FMT_NAME_MAX)
			return fail(err, errlen, tok, len,
				    "fmt wants a sampling format's name (/proc/kpmc/formats)");
		for (i = 0; i < vlen; i++)
			if (!((val[i] >= 'a' && val[i] <= 'z') ||
			      (val[i] >= '0' && val[i] <= '9') || val[i] == '_'))
				return fail(err, errlen, tok, len,
					    "a format's name is made of a-z, 0-9 and _");
		if (*seen & KPMC_SEEN_FMT)
			return fail(err, errlen, tok, len, "one format per set: given twice");
		*seen |= KPMC_SEEN_FMT;
		/* The built-in memory format is mem=1's. */
		if (vlen == 3 && memcmp(val, "mem", 3) == 0) {
			if (*seen & KPMC_SEEN_MEM)
				return fail(err, errlen, tok, len, "fmt=mem is mem=1: given twice");
			*seen |= KPMC_SEEN_MEM;
			c->mem = 1;
			return 0;
		}
		memcpy(c->fmt_name, val, vlen);
		c->fmt_name[vlen] = '\0';
		return 0;
	}
	if (klen > 4 && memcmp(tok, "fmt.", 4) == 0) {
		size_t used = strlen(c->fmt_args);

		/* The format checks its options' names and values (fmt=NAME's validate). */
		if (!eq || !vlen)
			return fail(err, errlen, tok, len, "fmt.KEY wants a value: fmt.KEY=VALUE");
		if (memchr(tok, ';', len) || used + (used ? 1 : 0) + len - 4 > KPMC_FMT_ARGS_MAX)
			return fail(err, errlen, tok, len, "the format's options are too long");
		if (used)
			c->fmt_args[used++] = ',';
		memcpy(c->fmt_args + used, tok + 4, len - 4);
		c->fmt_args[used + len - 4] = '\0';
		return 0;
	}
	if (klen == 5 && memcmp(tok, "ldlat", 5) == 0) {
		if (!eq || kpmc_parse_u64(val, vlen, &v) || v < KPMC_LDLAT_MIN ||
		    v > KPMC_LDLAT_MAX)
			return fail(err, errlen, tok, len,
				    "ldlat wants a load-latency threshold in cycles (3 to 65535)");
		if (*seen & KPMC_SEEN_LDLAT)
			return fail(err, errlen, tok, len, "given twice");
		*seen |= KPMC_SEEN_LDLAT;
		c->mem_ldlat = (u32)v;
		return 0;
	}
	if ((klen == 3 && memcmp(tok, "rnd", 3) == 0) ||
	    (klen == 4 && memcmp(tok, "seed", 4) == 0)) {
		u32 bit = klen == 3 ? KPMC_SEEN_RND : KPMC_SEEN_SEED;

		if (!eq || kpmc_parse_u64(val, vlen, &v))
			return fail(err, errlen, tok, len,
				    bit == KPMC_SEEN_RND ?
				    "rnd wants a range of events (the period varies by +/- rnd)" :
				    "seed wants a number");
		if (*seen & bit)
			return fail(err, errlen, tok, len, "given twice");
		*seen |= bit;
		if (bit == KPMC_SEEN_RND)
			c->ebs_range = v;
		else
			c->seed = v;
		return 0;
	}

	r = parse_indexed(tok, klen, "ebs", &idx, &used);
	if (r == 1 && used == klen) {
		if (idx >= pmu->nr_counters || idx >= KPMC_MAX_COUNTERS)
			return fail(err, errlen, tok, len, "counter out of range");
		if (!eq || kpmc_parse_u64(val, vlen, &v) || v < KPMC_EBS_MIN_PERIOD) {
			snprintf(why, sizeof(why),
				 "ebsN wants a sampling period of at least %u events",
				 KPMC_EBS_MIN_PERIOD);
			return fail(err, errlen, tok, len, why);
		}
		if (*seen & KPMC_SEEN_EBS)
			return fail(err, errlen, tok, len,
				    "one sampling counter per configuration");
		*seen |= KPMC_SEEN_EBS;
		c->ebs_slot = idx;
		c->ebs_period = v;
		return 0;
	}
	if (r < 0)
		return fail(err, errlen, tok, len, "counter index too large");

	r = parse_indexed(tok, klen, "pmc", &idx, &used);
	if (r == 1 && used == klen) {
		if (idx >= pmu->nr_counters) {
			snprintf(why, sizeof(why),
				 "counter out of range (this PMU has pmc0-pmc%u)",
				 pmu->nr_counters - 1);
			return fail(err, errlen, tok, len, why);
		}
		if (c->mask & (1u << idx))
			return fail(err, errlen, tok, len, "counter given twice");
		if (idx < pmu->nr_fixed) {
			v = pmu->fixed_event[idx];
			if (eq && (kpmc_parse_u64(val, vlen, &v) ||
				   v != pmu->fixed_event[idx])) {
				snprintf(why, sizeof(why),
					 "pmc%u is the fixed %s counter: it only counts event 0x%llx",
					 idx, pmu->fixed_name[idx] ?
					 pmu->fixed_name[idx] : "",
					 (unsigned long long)pmu->fixed_event[idx]);
				return fail(err, errlen, tok, len, why);
			}
		} else {
			if (!eq)
				return fail(err, errlen, tok, len,
					    "a general counter needs an event: pmcN=0xCODE");
			if (kpmc_parse_u64(val, vlen, &v))
				return fail(err, errlen, tok, len,
					    "bad number (decimal or 0x-prefixed hex)");
			if (pmu->check_event) {
				why[0] = '\0';
				r = pmu->check_event(pmu, idx, v, why, sizeof(why));
				if (r) {
					fail(err, errlen, tok, len, why);
					return r;
				}
			}
		}
		c->mask |= 1u << idx;
		c->ctr[idx].event = v;
		return 0;
	}
	if (r < 0)
		return fail(err, errlen, tok, len, "counter index too large");

	r = parse_modifier(tok, len, klen, val, vlen, eq, pmu, c, err, errlen);
	if (r <= 0)
		return r;

	r = parse_indexed(tok, klen, "usr", &idx, &used);
	if (r == 0)
		r = parse_indexed(tok, klen, "os", &idx, &used);
	if (r == 1 && used == klen) {
		bool is_usr = tok[0] == 'u';
		u32 *set = is_usr ? usr_set : os_set;
		bool flag;

		if (idx >= pmu->nr_counters || idx >= KPMC_MAX_COUNTERS)
			return fail(err, errlen, tok, len, "counter out of range");
		if (!eq || parse_flag(val, vlen, &flag))
			return fail(err, errlen, tok, len, "flag must be 0 or 1");
		if (*set & (1u << idx))
			return fail(err, errlen, tok, len, "flag given twice");
		*set |= 1u << idx;
		if (is_usr)
			c->ctr[idx].usr = flag;
		else
			c->ctr[idx].os = flag;
		return 0;
	}
	if (r < 0)
		return fail(err, errlen, tok, len, "counter index too large");
	return fail(err, errlen, tok, len, "unknown token");
}

int kpmc_config_parse(const char *buf, size_t len,
		      const struct kpmc_pmu_desc *pmu,
		      struct kpmc_config *cfg, char *err, size_t errlen)
{
	struct kpmc_config c;
	u32 usr_set = 0, os_set = 0, seen = 0;
	size_t pos = 0, i;
	unsigned int n;
	int r;

	err[0] = '\0';
	if (len && buf[len - 1] == '\n')
		len--;
	if (len == 0)
		return fail(err, errlen, "", 0, "empty configuration");
	if (len > KPMC_CONFIG_STR_MAX)
		return fail(err, errlen, buf, len, "configuration too long");
	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)buf[i];

		if (ch <= 0x20 || ch >= 0x7f)
			return fail(err, errlen, buf + i, len - i,
				    "unexpected character (no spaces or control bytes)");
	}

	memset(&c, 0, sizeof(c));
	while (pos <= len) {
		const char *comma = memchr(buf + pos, ',', len - pos);
		size_t tlen = comma ? (size_t)(comma - (buf + pos)) : len - pos;

		r = parse_token(buf + pos, tlen, pmu, &c, &usr_set, &os_set,
				&seen, err, errlen);
		if (r)
			return r;
		pos += tlen + 1;
	}

	if (!c.mask)
		return fail(err, errlen, buf, len, "no counter configured");
	for (n = 0; n < KPMC_MAX_COUNTERS; n++) {
		bool configured = c.mask & (1u << n);

		if (((usr_set | os_set) & (1u << n)) && !configured) {
			char why[64];

			snprintf(why, sizeof(why), "mode flag for pmc%u, which is not configured", n);
			return fail(err, errlen, buf, len, why);
		}
		if (c.ctr[n].mods && !configured) {
			char why[64];

			snprintf(why, sizeof(why), "modifier for pmc%u, which is not configured", n);
			return fail(err, errlen, buf, len, why);
		}
		if (!configured)
			continue;
		if (n < pmu->nr_fixed && (c.ctr[n].mods & ~KPMC_MOD_ANY)) {
			char why[80];

			snprintf(why, sizeof(why),
				 "pmc%u is a fixed counter: no umask, cmask, edge or inv", n);
			return fail(err, errlen, buf, len, why);
		}
		if (!(usr_set & (1u << n)))
			c.ctr[n].usr = true;
		if (!(os_set & (1u << n)))
			c.ctr[n].os = false;
		if (!c.ctr[n].usr && !c.ctr[n].os) {
			char why[64];

			snprintf(why, sizeof(why), "pmc%u would count in no mode (usr%u=0 and os%u=0)", n, n, n);
			return fail(err, errlen, buf, len, why);
		}
		if (pmu->check_request) {
			char why[KPMC_ERR_MAX];

			why[0] = '\0';
			r = pmu->check_request(pmu, n, &c.ctr[n], why, sizeof(why));
			if (r) {
				char tok[16];

				snprintf(tok, sizeof(tok), "pmc%u", n);
				fail(err, errlen, tok, strlen(tok), why);
				return r;
			}
		}
	}
	if (c.ebs_period) {
		unsigned int w = pmu->width[c.ebs_slot];
		u64 limit = w >= 64 ? ~0ULL : (1ULL << w) - 1;
		char why[96];

		if (!(c.mask & (1u << c.ebs_slot))) {
			snprintf(why, sizeof(why), "ebs%u: pmc%u is not configured",
				 c.ebs_slot, c.ebs_slot);
			return fail(err, errlen, buf, len, why);
		}
		if (c.ebs_range >= c.ebs_period ||
		    c.ebs_period - KPMC_EBS_MIN_PERIOD < c.ebs_range) {
			snprintf(why, sizeof(why),
				 "rnd=%llu: the period minus rnd must stay at least %u",
				 (unsigned long long)c.ebs_range, KPMC_EBS_MIN_PERIOD);
			return fail(err, errlen, buf, len, why);
		}
		if (c.ebs_period > limit || c.ebs_range > limit - c.ebs_period) {
			snprintf(why, sizeof(why),
				 "ebs%u: period (+rnd) exceeds the %u-bit counter",
				 c.ebs_slot, w);
			return fail(err, errlen, buf, len, why);
		}
	} else if ((seen & KPMC_SEEN_RND) || ((seen & KPMC_SEEN_SEED) && !c.mux_rnd_ms)) {
		return fail(err, errlen, buf, len, "rnd and seed need an ebsN sampling counter");
	}
	if ((seen & KPMC_SEEN_SEED) && !c.ebs_range && !c.mux_rnd_ms)
		return fail(err, errlen, buf, len, "seed without rnd: the period is not randomized");
	if (c.mux_samples && !c.ebs_period)
		return fail(err, errlen, buf, len, "muxsamples needs an ebsN sampling counter");
	if (c.mem && !c.ebs_period)
		return fail(err, errlen, buf, len, "mem=1 needs an ebsN sampling counter");
	if (c.mem_ldlat && !c.mem)
		return fail(err, errlen, buf, len, "ldlat needs mem=1 (memory sampling)");
	if (c.fmt_name[0] && c.mem)
		return fail(err, errlen, buf, len,
			    "one format per set: mem=1 is fmt=mem, and fmt= names another");
	if (c.fmt_args[0] && !c.fmt_name[0])
		return fail(err, errlen, buf, len, "fmt.KEY options need fmt=NAME");
	if (c.fmt_name[0] && !c.ebs_period && !c.tbs_ms)
		return fail(err, errlen, buf, len,
			    "fmt=NAME needs samples to follow: tbs=MS or an ebsN counter");
	if (c.mem_ldlat && !pmu->mem_ldlat)
		return fail(err, errlen, buf, len,
			    "ldlat: this PMU's memory sampling has no load-latency threshold");
	*cfg = c;
	return 0;
}

int kpmc_config_format(const struct kpmc_config *cfg, char *out, size_t len)
{
	size_t used = 0;
	unsigned int n;
	int w;

	if (len)
		out[0] = '\0';
	for (n = 0; n < KPMC_MAX_COUNTERS; n++) {
		if (!(cfg->mask & (1u << n)))
			continue;
		w = snprintf(out + used, len > used ? len - used : 0,
			     "%spmc%u=0x%llx,usr%u=%d,os%u=%d", used ? "," : "",
			     n, (unsigned long long)cfg->ctr[n].event,
			     n, cfg->ctr[n].usr, n, cfg->ctr[n].os);
		used += w;
		if (cfg->ctr[n].mods & KPMC_MOD_UMASK)
			used += snprintf(out + used, len > used ? len - used : 0, ",umask%u=0x%x",
					 n, cfg->ctr[n].umask);
		if (cfg->ctr[n].mods & KPMC_MOD_CMASK)
			used += snprintf(out + used, len > used ? len - used : 0, ",cmask%u=%u",
					 n, cfg->ctr[n].cmask);
		if (cfg->ctr[n].mods & KPMC_MOD_EDGE)
			used += snprintf(out + used, len > used ? len - used : 0, ",edge%u=%d",
					 n, cfg->ctr[n].edge);
		if (cfg->ctr[n].mods & KPMC_MOD_INV)
			used += snprintf(out + used, len > used ? len - used : 0, ",inv%u=%d",
					 n, cfg->ctr[n].inv);
		if (cfg->ctr[n].mods & KPMC_MOD_ANY)
			used += snprintf(out + used, len > used ? len - used : 0, ",any%u=%d",
					 n, cfg->ctr[n].any);
	}
	if (cfg->tbs_ms) {
		w = snprintf(out + used, len > used ? len - used : 0,
			     ",tbs=%u", cfg->tbs_ms);
		used += w;
	}
	if (cfg->ebs_period) {
		w = snprintf(out + used, len > used ? len - used : 0, ",ebs%u=%llu",
			     cfg->ebs_slot, (unsigned long long)cfg->ebs_period);
		used += w;
	}
	if (cfg->ebs_range) {
		w = snprintf(out + used, len > used ? len - used : 0, ",rnd=%llu,seed=%llu",
			     (unsigned long long)cfg->ebs_range,
			     (unsigned long long)cfg->seed);
		used += w;
	}
	if (cfg->mux_ms) {
		w = snprintf(out + used, len > used ? len - used : 0, ",mux=%u", cfg->mux_ms);
		used += w;
	}
	if (cfg->mux_rnd_ms) {
		w = snprintf(out + used, len > used ? len - used : 0, ",muxrnd=%u", cfg->mux_rnd_ms);
		used += w;
		if (!cfg->ebs_range) {
			w = snprintf(out + used, len > used ? len - used : 0, ",seed=%llu",
				     (unsigned long long)cfg->seed);
			used += w;
		}
	}
	if (cfg->mux_samples) {
		w = snprintf(out + used, len > used ? len - used : 0, ",muxsamples=%u",
			     cfg->mux_samples);
		used += w;
	}
	if (cfg->mem) {
		w = snprintf(out + used, len > used ? len - used : 0, ",mem=1");
		used += w;
	}
	if (cfg->mem_ldlat) {
		w = snprintf(out + used, len > used ? len - used : 0, ",ldlat=%u",
			     cfg->mem_ldlat);
		used += w;
	}
	if (cfg->fmt_name[0]) {
		w = snprintf(out + used, len > used ? len - used : 0, ",fmt=%s", cfg->fmt_name);
		used += w;
	}
	if (cfg->fmt_args[0]) {
		const char *a = cfg->fmt_args;

		/* Each option again as fmt.KEY=VALUE. */
		while (*a) {
			const char *comma = strchr(a, ',');
			int n = comma ? (int)(comma - a) : (int)strlen(a);

			w = snprintf(out + used, len > used ? len - used : 0, ",fmt.%.*s", n, a);
			used += w;
			a += n + (comma ? 1 : 0);
		}
	}
	return (int)used;
}

/* A sets parse failed: nothing of it is usable. */
static int fail_sets(struct kpmc_config_sets *out, char *err, size_t errlen, const char *tok,
		     size_t len, const char *why)
{
	out->nr = 0;
	return fail(err, errlen, tok, len, why);
}

int kpmc_config_sets_parse(const char *buf, size_t len,
			   const struct kpmc_pmu_desc *pmu,
			   struct kpmc_config_sets *sets, char *err, size_t errlen)
{
	/* Parsed in place (four sets on the stack are too many for a kernel frame). */
	struct kpmc_config_sets *out = sets;
	size_t pos = 0;
	unsigned int i;
	int r;

	err[0] = '\0';
	if (len && buf[len - 1] == '\n')
		len--;
	if (len > KPMC_CONFIG_STR_MAX)
		return fail_sets(sets, err, errlen, buf, len, "configuration too long");
	memset(out, 0, sizeof(*out));
	do {
		const char *semi = memchr(buf + pos, ';', len - pos);
		size_t slen = semi ? (size_t)(semi - (buf + pos)) : len - pos;

		if (out->nr == KPMC_MAX_SETS)
			return fail_sets(out, err, errlen, buf + pos, len - pos,
				    "too many event sets (at most 4)");
		/* A newline inside is an error: only the very last one was allowed. */
		if (slen && buf[pos + slen - 1] == '\n')
			return fail_sets(out, err, errlen, buf + pos, slen,
				    "unexpected character (no spaces or control bytes)");
		r = kpmc_config_parse(buf + pos, slen, pmu, &out->set[out->nr], err, errlen);
		if (r) {
			out->nr = 0;
			return r;
		}
		out->nr++;
		pos += slen + 1;
	} while (pos <= len);
	for (i = 0; i < out->nr; i++) {
		struct kpmc_config *c = &out->set[i];

		if (out->nr == 1 && (c->mux_ms || c->mux_samples))
			return fail_sets(out, err, errlen, buf, len,
				    "mux and muxsamples rotate event sets: give two or more, separated by ';'");
		if (out->nr > 1 && !c->mux_ms && !c->mux_samples)
			c->mux_ms = KPMC_MUX_DEFAULT_MS;
		if (c->mux_rnd_ms && c->mux_rnd_ms >= c->mux_ms)
			return fail_sets(out, err, errlen, buf, len,
				    "muxrnd must stay below the set's mux= slice (the slice varies by +/- muxrnd)");
	}
	return 0;
}

int kpmc_config_sets_format(const struct kpmc_config_sets *sets, char *out, size_t len)
{
	size_t used = 0;
	unsigned int i;

	if (len)
		out[0] = '\0';
	for (i = 0; i < sets->nr; i++) {
		if (i) {
			if (used + 1 < len) {
				out[used] = ';';
				out[used + 1] = '\0';
			}
			used++;
		}
		used += kpmc_config_format(&sets->set[i], out + (used < len ? used : len),
					   len > used ? len - used : 0);
	}
	return (int)used;
}
