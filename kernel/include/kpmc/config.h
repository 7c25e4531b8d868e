/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counter configurations: what a user asked to count, independent of how a
 * backend encodes it. Parsed from PMCTrack-style strings by pure code shared
 * with the unit tests.
 */
#ifndef KPMC_CONFIG_H
#define KPMC_CONFIG_H

#include "pure.h"

#define KPMC_MAX_COUNTERS	16
/* Event sets multiplexed on one thread (perfmon2's sets, PMCTrack's expid). */
#define KPMC_MAX_SETS		4
/* A set runs this long before the next when no mux= is given (perf: 4 ms). */
#define KPMC_MUX_DEFAULT_MS	10
#define KPMC_CONFIG_STR_MAX	512
#define KPMC_ERR_MAX		160
/* Longest TBS period accepted, in ms (one day). */
#define KPMC_TBS_MAX_MS		86400000u
/*
 * Shortest EBS period: an overflow interrupt per fewer events would spend
 * most of the CPU in the handler (perf throttles for the same reason).
 */
#define KPMC_EBS_MIN_PERIOD	10000u

struct kpmc_counter_req;

/*
 * Hybrid CPUs (Intel P/E cores): each core type is its own PMU. The
 * kpmc_pmu_desc below is their union (a pmcN any type has); this says which
 * CPUs each type covers and which pmcN it can count.
 */
#define KPMC_MAX_CORE_TYPES	4
struct kpmc_core_type {
	char name[24];			/* e.g. "P-core (0x40)" */
	char cpus[64];			/* CPU list, e.g. "0-7,16-23" */
	u32 counters;			/* bit N: this type has pmcN */
	char detail[64];		/* the backend's words on its counters */
	/*
	 * The architected events the type implements, where the PMU says
	 * (arm64 PMCEID): bit e of [0] is event e, of [1] event 0x4000 + e.
	 */
	u64 events[2];
};

/* What the parser must know of the PMU; filled by the backend's probe. */
struct kpmc_pmu_desc {
	char model[128];
	unsigned int nr_fixed;		/* pmc0 .. pmc(nr_fixed-1) are fixed */
	unsigned int nr_counters;	/* fixed + general */
	u8 width[KPMC_MAX_COUNTERS];	/* bits per counter */
	u64 fixed_event[KPMC_MAX_COUNTERS]; /* the event a fixed counter counts */
	const char *fixed_name[KPMC_MAX_COUNTERS];
	/*
	 * Return 0 if general counter slot may count event, else a negative
	 * errno with the reason in why.
	 */
	int (*check_event)(const struct kpmc_pmu_desc *pmu, unsigned int slot,
			   u64 event, char *why, size_t len);
	/* The PMU's codes for instructions retired and core cycles (metrics). */
	bool has_basic_events;
	u64 event_instructions, event_cycles;
	/* Event modifiers the PMU has (x86: umaskN, cmaskN, edgeN, invN, anyN). */
	u32 modifiers;
	/* Optional: check a whole counter request (event + modifiers) on slot. */
	int (*check_request)(const struct kpmc_pmu_desc *pmu, unsigned int slot,
			     const struct kpmc_counter_req *req, char *why, size_t len);
	const void *priv;
	/*
	 * Memory sampling (mem=1) on this CPU: where the samples' accesses
	 * come from, in words (NULL: none), and whether a load-latency
	 * threshold (ldlat=) applies.
	 */
	const char *mem_source;
	bool mem_ldlat;
	unsigned int nr_core_types;	/* 0: every CPU has the same PMU */
	struct kpmc_core_type core_type[KPMC_MAX_CORE_TYPES];
};

/* Event modifier tokens, as bits of kpmc_pmu_desc.modifiers / kpmc_counter_req.mods. */
#define KPMC_MOD_UMASK	1u
#define KPMC_MOD_CMASK	2u
#define KPMC_MOD_EDGE	4u
#define KPMC_MOD_INV	8u
#define KPMC_MOD_ANY	16u

struct kpmc_counter_req {
	u64 event;
	bool usr;
	bool os;
	u32 mods;		/* modifiers given */
	u8 umask;
	u8 cmask;
	bool edge, inv, any;
};

/* A format's name ([a-z0-9_]) and its options, joined. */
#define KPMC_FMT_NAME_MAX	23
#define KPMC_FMT_ARGS_MAX	95

struct kpmc_config {
	u32 mask;			/* bit N: pmcN is configured */
	struct kpmc_counter_req ctr[KPMC_MAX_COUNTERS];
	u32 tbs_ms;			/* 0: no time-based sampling */
	/* Event-based sampling: one counter overflows every ebs_period events. */
	u64 ebs_period;			/* 0: no EBS */
	unsigned int ebs_slot;		/* the sampling counter */
	/* Randomized periods: each drawn from [period - range, period + range]. */
	u64 ebs_range;
	u64 seed;
	/* Multiplexing: the set gives way after mux_ms of on-CPU time, or after mux_samples samples. */
	u32 mux_ms;
	/*
	 * Randomized slices: each drawn from [mux_ms - mux_rnd_ms, mux_ms +
	 * mux_rnd_ms] (from seed), so that no program period stays in step.
	 */
	u32 mux_rnd_ms;
	u32 mux_samples;
	/* Each EBS sample is followed by a MEM record: its data access (memory sampling). */
	bool mem;
	/* Memory sampling: only loads of at least this many cycles (0: any). */
	u32 mem_ldlat;
	/*
	 * A sampling format (fmt=NAME; "" for none): what follows each sample.
	 * Its options, the fmt.KEY=VALUE tokens, as "KEY=VALUE,..." for the
	 * format to validate (mem=1 is the built-in fmt=mem).
	 */
	char fmt_name[KPMC_FMT_NAME_MAX + 1];
	char fmt_args[KPMC_FMT_ARGS_MAX + 1];
};

/* The load-latency threshold's range (Intel's PEBS load latency has the narrowest). */
#define KPMC_LDLAT_MIN	3
#define KPMC_LDLAT_MAX	65535

/* What a thread counts: one set, or several rotated round-robin. */
struct kpmc_config_sets {
	unsigned int nr;
	struct kpmc_config set[KPMC_MAX_SETS];
};

/*
 * Parse len bytes of buf (not NUL-terminated; a single trailing newline is
 * accepted). Returns 0 and fills *cfg, or -EINVAL (or the PMU's errno) with a
 * message naming the offending token in err; *cfg is untouched on error.
 */
int kpmc_config_parse(const char *buf, size_t len,
		      const struct kpmc_pmu_desc *pmu,
		      struct kpmc_config *cfg, char *err, size_t errlen);

/*
 * What of a user's bytes may reach dmesg or last_error: at most
 * KPMC_QUOTE_MAX of them, anything but printable ASCII as '?', '~' if cut.
 * out has room for KPMC_QUOTE_MAX + 2.
 */
#define KPMC_QUOTE_MAX	40
void kpmc_quote_token(char *out, size_t outlen, const char *tok, size_t toklen);

/* Normalized string of cfg, as /proc/kpmc/config reads it back; returns length. */
int kpmc_config_format(const struct kpmc_config *cfg, char *out, size_t len);

/*
 * Several sets separated by ';' ("pmc1=0x8,mux=5;pmc1=0x11"), each parsed as
 * above plus mux=MS / muxsamples=N (only with two or more sets). A set with
 * neither gets mux=KPMC_MUX_DEFAULT_MS. Same contract as kpmc_config_parse,
 * but *sets is parsed in place: on error it holds no set (nr 0).
 */
int kpmc_config_sets_parse(const char *buf, size_t len,
			   const struct kpmc_pmu_desc *pmu,
			   struct kpmc_config_sets *sets, char *err, size_t errlen);
int kpmc_config_sets_format(const struct kpmc_config_sets *sets, char *out, size_t len);

/*
 * Strict unsigned number: decimal, or hex with a 0x prefix; the whole of
 * [s, s+len) must be digits. Returns 0 or -EINVAL (also on overflow).
 */
int kpmc_parse_u64(const char *s, size_t len, u64 *val);

#endif /* KPMC_CONFIG_H */
