// SPDX-License-Identifier: GPL-2.0
/*
 * make papi's kpmc component through PAPI's API, on a fake /proc/kpmc
 * (papi_fake_kpmc.c, LD_PRELOAD): the directory $KPMC_FAKE_PROC gets an AMD
 * Zen 3 module's info (6 counters) and a thread's counts (two sets), then
 * two events are counted (read while counting, reset, read at the stop);
 * eight are counted multiplexed (two kpmc sets, each count scaled by the
 * thread's time over its set's); a seventh event without multiplexing is
 * refused; one is counted in user and kernel mode; two with PAPI_INHERIT,
 * a created thread's exit record appended to the session meanwhile (and
 * records that are not a created thread's counts); two of another thread
 * (PAPI_attach), from its records, until its exit or until detached; two
 * in each of three threads at once (each its own session); one overflowing
 * (PAPI's software overflow: its handler called); two presets where kpmc
 * is component 0 (PAPI's presets are its alone); and two again after PAPI
 * shut down and started again (perf_event's shutdown stops libpfm4). Prints each configuration written
 * and each count, for tests/host/papi_component.sh to compare.
 *   KPMC_FAKE_PROC=DIR LD_PRELOAD=papi_fake_kpmc.so papi_kpmc_run
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <papi.h>
#include <uapi/linux/kpmc.h>

static const char *const zen3_events[] = {
	"kpmc:::RETIRED_INSTRUCTIONS", "kpmc:::CYCLES_NOT_IN_HALT",
	"kpmc:::RETIRED_BRANCH_INSTRUCTIONS", "kpmc:::RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED",
	"kpmc:::RETIRED_TAKEN_BRANCH_INSTRUCTIONS", "kpmc:::RETIRED_OPS",
	"kpmc:::RETIRED_NEAR_RETURNS", "kpmc:::RETIRED_FAR_CONTROL_TRANSFERS",
};

static const char *dir;

static int put(const char *name, const void *data, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

/*
 * The module's files: its info, and a thread's counts as read() of self
 * gives them (the preload multiplies them by the read's number): pmcN
 * counted 100 (N + 1) in 1000 ns over all; set 0 (pmc0-5) ran 600 ns of
 * them, set 1 (pmc0-1) 400 ns with 10 (N + 1).
 */
static int fake_module(void)
{
	static const char info[] = "backend: amd\n"
		"pmu: AMD family 19h model 21h: 6 counters x 48 bits (core extension MSRs), PerfMonV2\n"
		"counters: 6\nfixed_counters: 0\n";
	struct kpmc_self_sets ss;
	unsigned int i;

	memset(&ss, 0, sizeof(ss));
	ss.all.counter_mask = ss.sets[0].counter_mask = 0x3f;
	ss.sets[1].counter_mask = 0x3;
	ss.all.run_ns = 1000;
	ss.sets[0].run_ns = 600;
	ss.sets[1].run_ns = 400;
	ss.nr_sets = 2;
	for (i = 0; i < 6; i++) {
		ss.all.counts[i] = ss.sets[0].counts[i] = 100 * (i + 1);
		if (i < 2)
			ss.sets[1].counts[i] = 10 * (i + 1);
	}
	return put("info", info, sizeof(info) - 1) || put("self", &ss, sizeof(ss)) ||
	       put("config", "", 0) || put("enable", "", 0) || put("monitor", "", 0) ||
	       put("last_error", "", 0);
}

/* A record of thread tid, kind, counting pmc0 and pmc1 of set 0. */
static struct kpmc_record record(unsigned int kind, uint32_t tid, uint64_t pmc0, uint64_t pmc1)
{
	struct kpmc_record r = {
		.version = KPMC_RECORD_VERSION, .size = sizeof(r), .kind = (uint8_t)kind, .tid = tid,
		.counter_mask = 0x3, .run_ns = 500, .counts = { pmc0, pmc1 },
	};

	return r;
}

/* Records into the session, as the kernel would put them there. */
static int append_records(const struct kpmc_record *r, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/monitor", dir);
	f = fopen(path, "a");
	if (!f || fwrite(r, sizeof(r[0]), n, f) != n || fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

/*
 * While an inheriting set counts: a created thread's exit (pmc0 5000, pmc1
 * 7000), and what is no created thread's counts: the counting thread's own
 * detach, a lost-records notice.
 */
static int child_records(void)
{
	struct kpmc_record r[3] = {
		record(KPMC_REC_EXIT, 4242, 5000, 7000),
		record(KPMC_REC_DETACH, (uint32_t)syscall(SYS_gettid), 1000000, 1000000),
		record(KPMC_REC_LOST, 4243, 1000000, 1000000),
	};

	return append_records(r, 3);
}

/* The attached thread (ATTACHED_TID): a sample, and another thread's exit. */
#define ATTACHED_TID 5555
static int attached_sample(void)
{
	struct kpmc_record r[2] = {
		record(KPMC_REC_TBS, ATTACHED_TID, 300, 400),
		record(KPMC_REC_EXIT, 4242, 5000, 7000),
	};

	return append_records(r, 2);
}

/* Its exit, after which it is detached already. */
static int attached_exit(void)
{
	struct kpmc_record r = record(KPMC_REC_EXIT, ATTACHED_TID, 10, 20);

	return append_records(&r, 1);
}

/* What the component last wrote to FILE, on one line. */
static void show(const char *what, const char *file)
{
	char path[4096], buf[2048] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	printf("%s %s=%s\n", what, file, buf);
}

/* PAPI started, kpmc in it: 0, or -1 with why printed. */
static int start_papi(void)
{
	const PAPI_component_info_t *info;
	int ret = PAPI_library_init(PAPI_VER_CURRENT);

	if (ret != PAPI_VER_CURRENT) {
		printf("PAPI_library_init: %s\n", PAPI_strerror(ret));
		return -1;
	}
	/* Threads of their own (count_in_threads): PAPI tells them apart by pthread_self(). */
	ret = PAPI_thread_init(pthread_self);
	if (ret != PAPI_OK) {
		printf("PAPI_thread_init: %s\n", PAPI_strerror(ret));
		return -1;
	}
	info = PAPI_get_component_info(PAPI_get_component_index("kpmc"));
	if (!info || info->disabled) {
		printf("kpmc disabled: %s\n", info ? info->disabled_reason : "no component");
		return -1;
	}
	printf("kpmc counters=%d multiplexed=%d native=%d\n", info->num_cntrs, info->num_mpx_cntrs,
	       info->num_native_events);
	return 0;
}

static void show_counts(const char *what, const char *when, const long long *values, unsigned int n)
{
	unsigned int i;

	printf("%s %s:", what, when);
	for (i = 0; i < n; i++)
		printf(" %lld", values[i]);
	printf("\n");
}

/* The event set's counting modes (PAPI_DOM_*): the component's ctl. */
static int set_domain(int set, int domain)
{
	PAPI_option_t opt;

	memset(&opt, 0, sizeof(opt));
	opt.domain.eventset = set;
	opt.domain.domain = domain;
	return PAPI_set_opt(PAPI_DOMAIN, &opt);
}

/* The event set counts the threads its thread creates (PAPI_INHERIT). */
static int set_inherit(int set)
{
	PAPI_option_t opt;

	memset(&opt, 0, sizeof(opt));
	opt.inherit.eventset = set;
	opt.inherit.inherit = PAPI_INHERIT_ALL;
	return PAPI_set_opt(PAPI_INHERIT, &opt);
}

/* How an event set of count() is set up. */
enum { PLAIN = 0, MULTIPLEXED = 1, INHERIT = 2, ATTACHED = 3, ATTACHED_RUNNING = 4 };

/*
 * n events counted once in the modes domain (0: the default), set up as
 * how says: the configuration written, the counts read while counting (with
 * INHERIT, after a created thread's records; ATTACHED, after the attached
 * thread's sample), then (after a reset, and ATTACHED its exit) at the stop
 * (ATTACHED_RUNNING: which detaches it, and waits for its last record).
 */
static int count(const char *what, const char *const *names, unsigned int n, int how, int domain)
{
	long long values[8];
	int set = PAPI_NULL, cidx = PAPI_get_component_index("kpmc"), ret;
	unsigned int i;

	if (PAPI_create_eventset(&set) != PAPI_OK || PAPI_assign_eventset_component(set, cidx) != PAPI_OK ||
	    (how == MULTIPLEXED && PAPI_set_multiplex(set) != PAPI_OK) ||
	    (how == INHERIT && set_inherit(set) != PAPI_OK) ||
	    (how >= ATTACHED && PAPI_attach(set, ATTACHED_TID) != PAPI_OK) ||
	    (domain && set_domain(set, domain) != PAPI_OK)) {
		printf("%s: no event set\n", what);
		return -1;
	}
	for (i = 0; i < n; i++) {
		ret = PAPI_add_named_event(set, names[i]);
		if (ret != PAPI_OK) {
			printf("%s refused %s: %s\n", what, names[i], PAPI_strerror(ret));
			return ret;
		}
	}
	ret = PAPI_start(set);
	if (ret != PAPI_OK) {
		printf("%s: PAPI_start: %s\n", what, PAPI_strerror(ret));
		return ret;
	}
	show(what, "config");
	show(what, "enable");
	if ((how == INHERIT && child_records()) || (how >= ATTACHED && attached_sample()))
		return -1;
	ret = PAPI_read(set, values);
	if (ret == PAPI_OK)
		show_counts(what, "read", values, n);
	if (ret == PAPI_OK)
		ret = PAPI_reset(set);
	if (ret == PAPI_OK && how == ATTACHED && attached_exit())
		return -1;
	if (ret == PAPI_OK)
		ret = PAPI_stop(set, values);
	if (ret != PAPI_OK) {
		printf("%s: read, reset, stop: %s\n", what, PAPI_strerror(ret));
		return ret;
	}
	show(what, "enable");
	show_counts(what, "stop", values, n);
	PAPI_cleanup_eventset(set);
	PAPI_destroy_eventset(&set);
	return 0;
}

/* One thread's two events, started, read, reset and stopped in it. */
struct thread_counts {
	pthread_t thread;
	int ret;
	long long read[2], stop[2];
};

static void *count_in_thread(void *arg)
{
	struct thread_counts *t = arg;
	int set = PAPI_NULL;

	t->ret = PAPI_register_thread();
	if (t->ret == PAPI_OK)
		t->ret = PAPI_create_eventset(&set);
	if (t->ret == PAPI_OK)
		t->ret = PAPI_add_named_event(set, zen3_events[0]);
	if (t->ret == PAPI_OK)
		t->ret = PAPI_add_named_event(set, zen3_events[1]);
	if (t->ret == PAPI_OK)
		t->ret = PAPI_start(set);
	if (t->ret == PAPI_OK)
		t->ret = PAPI_read(set, t->read);
	if (t->ret == PAPI_OK)
		t->ret = PAPI_reset(set);
	if (t->ret == PAPI_OK)
		t->ret = PAPI_stop(set, t->stop);
	if (t->ret == PAPI_OK)
		t->ret = PAPI_cleanup_eventset(set);
	if (t->ret == PAPI_OK)
		t->ret = PAPI_destroy_eventset(&set);
	if (t->ret == PAPI_OK)
		t->ret = PAPI_unregister_thread();
	return NULL;
}

/* Three threads counting at once, each in its own session, with its own counts. */
static int count_in_threads(void)
{
	struct thread_counts t[3];
	int i;

	memset(t, 0, sizeof(t));
	for (i = 0; i < 3; i++)
		if (pthread_create(&t[i].thread, NULL, count_in_thread, &t[i]))
			return -1;
	for (i = 0; i < 3; i++) {
		pthread_join(t[i].thread, NULL);
		if (t[i].ret != PAPI_OK)
			printf("thread %d: %s\n", i, PAPI_strerror(t[i].ret));
		else
			printf("thread %d read: %lld %lld stop: %lld %lld\n", i, t[i].read[0], t[i].read[1],
			       t[i].stop[0], t[i].stop[1]);
	}
	return 0;
}

static volatile int overflows;

static void on_overflow(int set, void *address, long long vector, void *context)
{
	(void)set;
	(void)address;
	(void)vector;
	(void)context;
	overflows++;
}

/*
 * An event overflowing every 300 counts: kpmc's own overflow (EBS) takes no
 * period under 10,000 (PAPI_EINVAL); PAPI's software overflow
 * (PAPI_OVERFLOW_FORCE_SW) reads it on its timer (CPU time: this thread
 * spins) and calls on_overflow; the fake's count grows 100 a read. Whether
 * it was called, within 5 s. kpmc's EBS overflow is the arm64 guest's.
 */
static int count_overflows(void)
{
	int set = PAPI_NULL, code, ret;
	long long value;
	time_t until = time(NULL) + 5;

	ret = PAPI_create_eventset(&set);
	if (ret == PAPI_OK)
		ret = PAPI_event_name_to_code(zen3_events[0], &code);
	if (ret == PAPI_OK)
		ret = PAPI_add_event(set, code);
	if (ret == PAPI_OK && PAPI_overflow(set, code, 300, 0, on_overflow) != PAPI_EINVAL) {
		printf("overflow: a period of 300 events not refused\n");
		return -1;
	}
	if (ret == PAPI_OK)
		ret = PAPI_overflow(set, code, 300, PAPI_OVERFLOW_FORCE_SW, on_overflow);
	if (ret == PAPI_OK)
		ret = PAPI_start(set);
	while (ret == PAPI_OK && overflows < 3 && time(NULL) < until)
		;
	if (ret == PAPI_OK)
		ret = PAPI_stop(set, &value);
	if (ret != PAPI_OK) {
		printf("overflow: %s\n", PAPI_strerror(ret));
		return -1;
	}
	printf("overflow: handler %s\n", overflows >= 3 ? "called" : "not called");
	PAPI_overflow(set, code, 0, 0, NULL);
	PAPI_cleanup_eventset(set);
	PAPI_destroy_eventset(&set);
	return 0;
}

int main(void)
{
	static const char *const presets[] = { "PAPI_TOT_INS", "PAPI_TOT_CYC" };
	int ret, cidx;

	dir = getenv("KPMC_FAKE_PROC");
	if (!dir || fake_module())
		return 2;
	if (start_papi())
		return 1;
	ret = count("two", zen3_events, 2, PLAIN, 0) || count("eight", zen3_events, 8, MULTIPLEXED, 0);
	count("seven", zen3_events, 7, PLAIN, 0);
	ret = ret || count("kernel", zen3_events, 1, PLAIN, PAPI_DOM_USER | PAPI_DOM_KERNEL) ||
	      count("inherit", zen3_events, 2, INHERIT, 0) || count("attached", zen3_events, 2, ATTACHED, 0) ||
	      count("detached", zen3_events, 2, ATTACHED_RUNNING, 0) || count_in_threads() ||
	      count_overflows();
	cidx = PAPI_get_component_index("kpmc");
	if (cidx == 0)
		ret = ret || count("presets", presets, 2, PLAIN, 0);
	else
		printf("presets: none, kpmc is component %d\n", cidx);
	PAPI_shutdown();
	if (ret || start_papi())
		return 1;
	ret = count("again", zen3_events, 2, PLAIN, 0);
	PAPI_shutdown();
	return ret ? 1 : 0;
}
