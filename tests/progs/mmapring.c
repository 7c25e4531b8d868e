// SPDX-License-Identifier: GPL-2.0
/*
 * mmapring: the mapped ring of /proc/kpmc/monitor, read by this program's
 * own implementation of the protocol in <linux/kpmc.h> (not libkpmc's or the
 * CLI's), against a child that runs "loop N" monitored from its exec with
 * "pmc0,pmc1=0x8,ebs0=PERIOD" (the cycle counter samples, pmc1 counts
 * instructions: the records' pmc1 sum to the child's user instructions).
 *
 *   mmapring peek RING PERIOD N FILE_A FILE_B
 *	Each batch is copied from the mapping without moving data_tail
 *	(FILE_A), then read() takes the same records (FILE_B): the two files
 *	must be equal byte for byte. In no-loss mode, so that every sample
 *	is there whatever the scheduler does (read() releases the waits).
 *   mmapring slow RING PERIOD N SLEEP_MS noloss|loss
 *	Takes records from the mapping only (data_tail), sleeping SLEEP_MS
 *	after each batch, with or without no-loss mode.
 *   mmapring hold RING PERIOD N PIDFILE
 *	No-loss mode; writes the child's pid to PIDFILE, then never reads:
 *	the child fills the ring and waits, until this program dies.
 *   mmapring badmap RING ITERATIONS
 *	Mappings that must be refused (each errno printed), then the kernel
 *	against a bogus data_tail: self-monitoring with ebs0=100000 over
 *	ITERATIONS two-instruction iterations.
 *   mmapring tailjump RING ITERATIONS
 *	The same self-monitoring into a ring it overflows (records lost),
 *	then a data_tail far past head: poll() must say POLLIN for the LOST
 *	record, and a blocking read() must return it (within 5 s: an alarm
 *	ends the program otherwise). Prints "tailjump poll=P read=N kind=K
 *	lost=L head=H tail=T".
 *
 * peek and slow print one line:
 *   mmapring MODE records=R ebs=E exit=X lost=L lost_records=K other=O
 *     pmc1_sum=S head=H capacity=C lost_field=F waits=W releases=Z batches=B
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <uapi/linux/kpmc.h>

#include "procput.h"
#include "spin.h"

struct ring {
	int fd;
	long page;
	struct kpmc_ring_control *ctrl;
	const struct kpmc_record *data;
};

struct tally {
	unsigned long long records, ebs, exits, lost, lost_records, other, pmc1_sum, batches;
};

static void die(const char *what)
{
	fprintf(stderr, "mmapring: %s: %s\n", what, strerror(errno));
	exit(1);
}

static unsigned long arg_ul(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (!*s || *end) {
		fprintf(stderr, "mmapring: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static uint64_t load_acquire(const __u64 *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void store_release(__u64 *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* Open the session, size it (and no-loss), configure; the ring not mapped yet. */
static int session(unsigned long ring, int noloss)
{
	char req[64];
	int fd = open("/proc/kpmc/monitor", O_RDWR | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		die("/proc/kpmc/monitor");
	snprintf(req, sizeof(req), "ring=%lu%s", ring, noloss ? ",noloss" : "");
	put(fd, "monitor", req);
	return fd;
}

static void map_ring(struct ring *r, int fd)
{
	r->fd = fd;
	r->page = sysconf(_SC_PAGESIZE);
	r->ctrl = mmap(NULL, r->page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->ctrl == MAP_FAILED)
		die("mmap of the control page");
	if (r->ctrl->version != KPMC_RING_CONTROL_VERSION ||
	    r->ctrl->record_size != sizeof(struct kpmc_record) ||
	    r->ctrl->data_offset != (uint64_t)r->page) {
		fprintf(stderr, "mmapring: control page version %u record_size %u data_offset %llu\n",
			r->ctrl->version, r->ctrl->record_size,
			(unsigned long long)r->ctrl->data_offset);
		exit(1);
	}
	r->data = mmap(NULL, r->ctrl->data_size, PROT_READ, MAP_SHARED, fd,
		       (off_t)r->ctrl->data_offset);
	if (r->data == MAP_FAILED)
		die("mmap of the records");
}

/* Fork "loop N", monitored from its exec. */
static pid_t start_child(unsigned long n)
{
	int gate[2];
	char req[64], arg[32];
	pid_t pid;

	if (pipe2(gate, O_CLOEXEC))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		char c;

		close(gate[1]);
		if (read(gate[0], &c, 1) != 1)
			_exit(126);
		snprintf(arg, sizeof(arg), "%lu", n);
		/* argv[0] as the CLI gives it: libc's start-up reads it (loop_total's count). */
		execl("/tests/bin/loop", "/tests/bin/loop", arg, (char *)NULL);
		_exit(127);
	}
	close(gate[0]);
	snprintf(req, sizeof(req), "pid=%d,exec", pid);
	put(-1, "enable", req);
	if (write(gate[1], "g", 1) != 1)
		die("releasing the child");
	close(gate[1]);
	return pid;
}

static void count(struct tally *t, const struct kpmc_record *rec)
{
	t->records++;
	switch (rec->kind) {
	case KPMC_REC_EBS:
		t->ebs++;
		t->pmc1_sum += rec->counts[1];
		break;
	case KPMC_REC_EXIT:
		t->exits++;
		t->pmc1_sum += rec->counts[1];
		break;
	case KPMC_REC_LOST:
		t->lost_records++;
		t->lost += rec->lost;
		break;
	default:
		t->other++;
	}
}

static void write_all(FILE *f, const void *p, size_t n)
{
	if (fwrite(p, 1, n, f) != n)
		die("writing a stream");
}

/*
 * peek: the batch [tail, head) copied from the mapping, then read() of
 * exactly as many records (the kernel's tail is data_tail: read() starts
 * where the peek did). Returns the records taken.
 */
static uint64_t peek_then_read(struct ring *r, FILE *a, FILE *b, struct tally *t)
{
	uint64_t head = load_acquire(&r->ctrl->data_head);
	uint64_t tail = load_acquire(&r->ctrl->data_tail);
	uint64_t k = head - tail, i, got = 0;
	uint32_t cap = r->ctrl->capacity;
	struct kpmc_record buf[64];

	if (k > cap) {
		fprintf(stderr, "mmapring: head %llu tail %llu: more than a ring apart\n",
			(unsigned long long)head, (unsigned long long)tail);
		exit(1);
	}
	for (i = 0; i < k; i++)
		write_all(a, &r->data[(tail + i) & (cap - 1)], sizeof(struct kpmc_record));
	while (got < k) {
		size_t want = k - got < 64 ? k - got : 64;
		ssize_t n = read(r->fd, buf, want * sizeof(buf[0]));

		if (n <= 0 || n % sizeof(buf[0])) {
			fprintf(stderr, "mmapring: read() after a peek of %llu records returned %zd (%s)\n",
				(unsigned long long)k, n, n < 0 ? strerror(errno) : "short");
			exit(1);
		}
		write_all(b, buf, n);
		for (i = 0; i < (uint64_t)n / sizeof(buf[0]); i++)
			count(t, &buf[i]);
		got += n / sizeof(buf[0]);
	}
	if (load_acquire(&r->ctrl->data_tail) != tail + k) {
		fprintf(stderr, "mmapring: read() of %llu records left data_tail at %llu, not %llu\n",
			(unsigned long long)k, (unsigned long long)r->ctrl->data_tail,
			(unsigned long long)(tail + k));
		exit(1);
	}
	if (k)
		t->batches++;
	return k;
}

/* slow: take [tail, head) through the mapping alone. */
static uint64_t take_mapped(struct ring *r, uint64_t *tail, struct tally *t)
{
	uint64_t head = load_acquire(&r->ctrl->data_head), k = head - *tail, i;
	uint32_t cap = r->ctrl->capacity;

	if (k > cap) {
		fprintf(stderr, "mmapring: head %llu, tail %llu\n", (unsigned long long)head,
			(unsigned long long)*tail);
		exit(1);
	}
	for (i = 0; i < k; i++)
		count(t, &r->data[(*tail + i) & (cap - 1)]);
	*tail = head;
	store_release(&r->ctrl->data_tail, *tail);
	if (k)
		t->batches++;
	return k;
}

static void report(const char *mode, struct ring *r, struct tally *t)
{
	printf("mmapring %s records=%llu ebs=%llu exit=%llu lost=%llu lost_records=%llu other=%llu pmc1_sum=%llu head=%llu capacity=%u lost_field=%llu waits=%llu releases=%llu batches=%llu\n",
	       mode, t->records, t->ebs, t->exits, t->lost, t->lost_records, t->other, t->pmc1_sum,
	       (unsigned long long)r->ctrl->data_head, r->ctrl->capacity,
	       (unsigned long long)r->ctrl->lost, (unsigned long long)r->ctrl->noloss_waits,
	       (unsigned long long)r->ctrl->noloss_releases, t->batches);
}

static void sleep_ms(unsigned long ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int run(int argc, char **argv)
{
	int peek = !strcmp(argv[1], "peek");
	unsigned long ring = arg_ul(argv[2]), period = arg_ul(argv[3]), n = arg_ul(argv[4]);
	unsigned long sleep_for = peek ? 0 : arg_ul(argv[5]);
	int noloss = peek || !strcmp(argv[6], "noloss");
	FILE *a = NULL, *b = NULL;
	struct tally t = { 0 };
	struct ring r;
	char cfg[64];
	uint64_t tail = 0;
	int status, exited = 0, empty_after_exit = 0;
	pid_t child;

	(void)argc;
	map_ring(&r, session(ring, noloss));
	snprintf(cfg, sizeof(cfg), "pmc0,pmc1=0x8,ebs0=%lu", period);
	put(-1, "config", cfg);
	if (peek) {
		a = fopen(argv[5], "w");
		b = fopen(argv[6], "w");
		if (!a || !b)
			die("the stream files");
	}
	child = start_child(n);
	/*
	 * After the child's exit: once more until the ring is empty, with a
	 * poll() first (it tells a loss not told yet, in the ring).
	 */
	while (empty_after_exit < 2) {
		struct pollfd p = { .fd = r.fd, .events = POLLIN };
		uint64_t k;

		poll(&p, 1, exited ? 0 : 100);
		k = peek ? peek_then_read(&r, a, b, &t) : take_mapped(&r, &tail, &t);
		if (!exited && waitpid(child, &status, WNOHANG) == child)
			exited = 1;
		else if (exited && !k)
			empty_after_exit++;
		if (k && sleep_for)
			sleep_ms(sleep_for);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "mmapring: the child's status is %#x\n", status);
		return 1;
	}
	if (peek && (fclose(a) || fclose(b)))
		die("closing the streams");
	report(argv[1], &r, &t);
	return 0;
}

static __attribute__((noreturn)) void hold(char **argv)
{
	unsigned long ring = arg_ul(argv[2]), period = arg_ul(argv[3]), n = arg_ul(argv[4]);
	struct ring r;
	char cfg[64];
	FILE *f;
	pid_t child;

	map_ring(&r, session(ring, 1));
	snprintf(cfg, sizeof(cfg), "pmc0,pmc1=0x8,ebs0=%lu", period);
	put(-1, "config", cfg);
	child = start_child(n);
	f = fopen(argv[5], "w");
	if (!f || fprintf(f, "%d\n", child) < 0 || fclose(f))
		die(argv[5]);
	for (;;)
		pause();
}

/* One mapping that must fail with want; prints "badmap WHAT errno=NAME". */
static int refused(const char *what, int fd, size_t len, int prot, int flags, off_t off, int want)
{
	void *p = mmap(NULL, len, prot, flags, fd, off);
	int err = errno;

	if (p != MAP_FAILED) {
		printf("badmap %s accepted\n", what);
		munmap(p, len);
		return 1;
	}
	printf("badmap %s errno=%s\n", what, err == EPERM ? "EPERM" : err == EINVAL ? "EINVAL" :
	       err == EACCES ? "EACCES" : strerror(err));
	return err != want;
}

static int badmap(char **argv)
{
	unsigned long ring = arg_ul(argv[2]), iterations = arg_ul(argv[3]);
	int fd = session(ring, 0), bad = 0;
	long page = sysconf(_SC_PAGESIZE);
	size_t data = ((ring * sizeof(struct kpmc_record) + page - 1) / page) * page;
	unsigned long long ebs = 0, other = 0;
	struct kpmc_record rec[32];
	struct ring r;
	ssize_t got;
	void *p;

	bad |= refused("data_prot_write", fd, data, PROT_READ | PROT_WRITE, MAP_SHARED, page, EPERM);
	bad |= refused("offset_2_pages", fd, page, PROT_READ, MAP_SHARED, 2 * page, EINVAL);
	bad |= refused("data_length_plus_page", fd, data + page, PROT_READ, MAP_SHARED, page, EINVAL);
	bad |= refused("control_2_pages", fd, 2 * page, PROT_READ, MAP_SHARED, 0, EINVAL);
	bad |= refused("control_private", fd, page, PROT_READ | PROT_WRITE, MAP_PRIVATE, 0, EINVAL);
	map_ring(&r, fd);
	printf("badmap control version=%u record_size=%u capacity=%u data_offset=%llu data_size=%llu\n",
	       r.ctrl->version, r.ctrl->record_size, r.ctrl->capacity,
	       (unsigned long long)r.ctrl->data_offset, (unsigned long long)r.ctrl->data_size);
	/* VM_MAYWRITE is off: no way to make the records writable later. */
	if (mprotect((void *)r.data, data, PROT_READ | PROT_WRITE) == 0) {
		printf("badmap mprotect_write accepted\n");
		bad = 1;
	} else {
		printf("badmap mprotect_write errno=%s\n", errno == EACCES ? "EACCES" : strerror(errno));
		bad |= errno != EACCES;
	}
	/* Mapped: the ring's size is fixed. */
	if (write(fd, "ring=64", 7) == 7) {
		printf("badmap resize_after_mmap accepted\n");
		bad = 1;
	} else {
		printf("badmap resize_after_mmap errno=%s\n", errno == EBUSY ? "EBUSY" : strerror(errno));
		bad |= errno != EBUSY;
	}
	/* A second control mapping read-only is an observer: allowed. */
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	printf("badmap control_read_only %s\n", p == MAP_FAILED ? strerror(errno) : "mapped");
	bad |= p == MAP_FAILED;

	/*
	 * A bogus tail: 5 ahead of an empty ring. The kernel takes a tail past
	 * head as head (nothing to drop here) and writes its own tail back, so
	 * the value is not applied again: read() gets every record, EBS and
	 * the DETACH.
	 */
	store_release(&r.ctrl->data_tail, 5);
	put(-1, "config", "pmc0,ebs0=100000");
	put(-1, "enable", "1");
	spin(iterations);
	put(-1, "enable", "0");
	/* A tail behind the kernel's: ignored, nothing is taken twice. */
	store_release(&r.ctrl->data_tail, 0);
	while ((got = read(fd, rec, sizeof(rec))) > 0) {
		for (size_t i = 0; i < (size_t)got / sizeof(rec[0]); i++) {
			if (rec[i].kind == KPMC_REC_EBS)
				ebs++;
			else
				other++;
		}
	}
	printf("badmap bogus_tail ebs_read=%llu other=%llu head=%llu tail=%llu\n", ebs, other,
	       (unsigned long long)r.ctrl->data_head, (unsigned long long)r.ctrl->data_tail);
	return bad;
}

static int tailjump(char **argv)
{
	unsigned long ring = arg_ul(argv[2]), iterations = arg_ul(argv[3]);
	int fd = session(ring, 0);
	struct kpmc_record rec[4];
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct ring r;
	ssize_t got;
	int n;

	map_ring(&r, fd);
	put(-1, "config", "pmc0,ebs0=100000");
	put(-1, "enable", "1");
	spin(iterations);
	put(-1, "enable", "0");
	/* Everything there is, thrown away by a tail far past head. */
	store_release(&r.ctrl->data_tail, r.ctrl->data_head + 1000);
	n = poll(&p, 1, 0);
	if (fcntl(fd, F_SETFL, 0))
		die("fcntl");
	alarm(5);
	got = read(fd, rec, sizeof(rec));
	alarm(0);
	printf("tailjump poll=%d read=%zd kind=%u lost=%llu head=%llu tail=%llu\n",
	       n == 1 && (p.revents & POLLIN), got / (ssize_t)sizeof(rec[0]),
	       got > 0 ? rec[0].kind : 0, got > 0 ? (unsigned long long)rec[0].lost : 0ULL,
	       (unsigned long long)r.ctrl->data_head, (unsigned long long)r.ctrl->data_tail);
	return got <= 0;
}

int main(int argc, char **argv)
{
	if (argc == 7 && (!strcmp(argv[1], "peek") || !strcmp(argv[1], "slow")))
		return run(argc, argv);
	if (argc == 6 && !strcmp(argv[1], "hold"))
		hold(argv);
	if (argc == 4 && !strcmp(argv[1], "badmap"))
		return badmap(argv);
	if (argc == 4 && !strcmp(argv[1], "tailjump"))
		return tailjump(argv);
	fprintf(stderr,
		"usage: mmapring peek RING PERIOD N FILE_A FILE_B\n"
		"       mmapring slow RING PERIOD N SLEEP_MS noloss|loss\n"
		"       mmapring hold RING PERIOD N PIDFILE\n"
		"       mmapring badmap RING ITERATIONS\n"
		"       mmapring tailjump RING ITERATIONS\n");
	return 2;
}
