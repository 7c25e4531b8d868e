// SPDX-License-Identifier: GPL-2.0
/*
 * kpmc-top: a live ncurses view of what kpmc monitors.
 *
 *   kpmc-top [-d SECS] [KPMC OPTIONS] -- PROG [ARGS]   live, per thread
 *   kpmc-top [-d SECS] -S [KPMC OPTIONS] -- PROG       live, per CPU
 *   kpmc-top -R FILE                                   records saved with kpmc -w
 *   kpmc-top -m 'ipc=INST_RETIRED/CPU_CYCLES' [-g GROUP] ...   metric columns
 *
 * Live, it runs the kpmc CLI with the options given and reads the raw
 * records kpmc writes (-w) to a pipe; the program's own output is discarded.
 * Keys: 0-9 sort by that column, s next column, r reverse, q quit.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <ncurses.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/aggregate.h"
#include "common/kpmc_proc.h"
#include "metrics/metricbind.h"
#include "sinks/sinks.h"
#include "topmodel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void comm_of(uint32_t tid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/comm", tid);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	if (!buf[0])
		snprintf(buf, len, "-");
}

/* A metric's bar as a share of it: "1.2%", "0" (exact), "?" (not known yet). */
static const char *bar_cell(double value, double half, char *buf, size_t len)
{
	if (isnan(half) || isnan(value))
		return "?";
	if (half == 0)
		return "0";
	if (value == 0)
		return "inf";
	snprintf(buf, len, "%.2g%%", 100 * half / fabs(value));
	return buf;
}

static void draw(struct kpmc_top *t, const char *const *names, unsigned int sort_col, int asc,
		 const char *what, int replay)
{
	unsigned int i, col;
	int y = 2, maxy, maxx;
	size_t r;
	char comm[32], hdr[512], label[24];
	int n;

	getmaxyx(stdscr, maxy, maxx);
	erase();
	kpmc_top_sort(t, sort_col, asc);
	mvprintw(0, 0, "kpmc top: %s  threads %zu  lost %llu%s", what, t->nr,
		 (unsigned long long)t->lost, replay ? "  (replay)" : "");
	n = snprintf(hdr, sizeof(hdr), "%7s %7s %4s %8s %10s", "0:TID", "1:PID", "2:CPU",
		     "3:RECS", "4:RUN_MS");
	col = 5;
	for (i = 0; i < KPMC_MAX_COUNTERS + KPMC_MAX_VIRT; i++) {
		int virt = i >= KPMC_MAX_COUNTERS;
		unsigned int b = virt ? i - KPMC_MAX_COUNTERS : i;

		if (!((virt ? t->virt_mask : t->counter_mask) & (1u << b)))
			continue;
		snprintf(label, sizeof(label), virt ? "%u:virt%u" : "%u:pmc%u/ms", col++, b);
		n += snprintf(hdr + n, sizeof(hdr) - (size_t)n, " %12s", label);
	}
	for (i = 0; i < t->nmetrics; i++) {
		snprintf(label, sizeof(label), "%u:%.9s", col++, names[i]);
		n += snprintf(hdr + n, sizeof(hdr) - (size_t)n, " %12s%s", label,
			      t->metric_bars ? "   +-90%" : "");
	}
	snprintf(hdr + n, sizeof(hdr) - (size_t)n, "  COMM");
	attron(A_REVERSE);
	mvprintw(1, 0, "%-*.*s", maxx, maxx, hdr);
	attroff(A_REVERSE);
	for (r = 0; r < t->nr && y < maxy - 1; r++, y++) {
		const struct kpmc_top_row *row = &t->rows[r];

		comm_of(row->tid, comm, sizeof(comm));
		mvprintw(y, 0, "%7u %7u %4u %8llu %10.1f", row->tid, row->pid, row->cpu,
			 (unsigned long long)row->records, (double)row->run_ns / 1e6);
		for (i = 0; i < KPMC_MAX_COUNTERS; i++)
			if (t->counter_mask & (1u << i))
				printw(" %12llu", (unsigned long long)row->rate[i]);
		for (i = 0; i < KPMC_MAX_VIRT; i++)
			if (t->virt_mask & (1u << i))
				printw(" %12llu", (unsigned long long)row->virt[i]);
		for (i = 0; i < t->nmetrics; i++) {
			char v[32];

			kpmc_metric_format_value(row->metric[i], v, sizeof(v));
			printw(" %12.12s", v);
			if (t->metric_bars)
				printw(" %7s", bar_cell(row->metric[i], row->metric_half[i], v, sizeof(v)));
		}
		printw("  %s%s", comm, row->exited ? " (exited)" : "");
	}
	attron(A_REVERSE);
	mvprintw(maxy - 1, 0, "%-*s", maxx, "");
	mvprintw(maxy - 1, 0, " sort: column %u %s | 0-9 sort by column, s next, r reverse, q quit",
		 sort_col, asc ? "ascending" : "descending");
	attroff(A_REVERSE);
	refresh();
}

/*
 * -m/-g: each thread's (or CPU's) totals per event set, as kpmc -m keeps
 * them (its metrics sink), for the metrics over its whole run (multiplexed
 * sets scaled).
 */
struct top_metrics {
	struct kpmc_mbind bind;
	struct kpmc_chain chain;
	struct kpmc_metrics_sink sink;
	int nsets;
	const char *names[KPMC_TOP_MAX_METRICS];
};

static void add_record(struct kpmc_top *t, struct top_metrics *m, const struct kpmc_record *rec)
{
	kpmc_top_add(t, rec);
	if (t->nmetrics)
		kpmc_chain_record(&m->chain, rec);
}

/* Each row's metrics over its totals, before drawing (and sorting). */
static void update_metrics(struct kpmc_top *t, const struct top_metrics *m)
{
	double v[KPMC_TOP_MAX_METRICS], h[KPMC_TOP_MAX_METRICS];
	size_t r, i;

	for (r = 0; r < t->nr && t->nmetrics; r++) {
		struct kpmc_top_row *row = &t->rows[r];

		for (i = 0; i < m->sink.totals.nr; i++)
			if (m->sink.totals.threads[i].pid == row->pid && m->sink.totals.threads[i].tid == row->tid)
				break;
		if (i == m->sink.totals.nr)
			continue;
		kpmc_mbind_bars(&m->bind, &m->sink.totals.threads[i], m->nsets, v, h, t->nmetrics);
		memcpy(row->metric, v, t->nmetrics * sizeof(v[0]));
		memcpy(row->metric_half, h, t->nmetrics * sizeof(h[0]));
	}
}

/* Read whole records from fd; a partial one waits in buf for the rest. */
static int pump(int fd, struct kpmc_top *t, struct top_metrics *m, char *buf, size_t *have)
{
	ssize_t n = read(fd, buf + *have, sizeof(struct kpmc_record) * 64 - *have);
	size_t off = 0;

	if (n <= 0)
		return n == 0 || errno != EAGAIN ? -1 : 0;
	*have += (size_t)n;
	while (*have - off >= sizeof(struct kpmc_record)) {
		struct kpmc_record rec;

		memcpy(&rec, buf + off, sizeof(rec));
		add_record(t, m, &rec);
		off += sizeof(rec);
	}
	memmove(buf, buf + off, *have - off);
	*have -= off;
	return 1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: kpmc-top [-d SECS] [KPMC OPTIONS] -- PROG [ARGS...]\n"
		"       kpmc-top -R FILE\n"
		"  -d SECS    refresh period (default 1)\n"
		"  -R FILE    show records saved with kpmc -w\n"
		"  -m NAME=EXPR  a metric column over each thread's totals (as kpmc -m; repeatable)\n"
		"  -g GROUP   a metric group's columns (as kpmc -g)\n"
		"  other options go to kpmc (-c, -T, -S, -p ...; see kpmc -h)\n"
		"keys: 0-9 sort by column, s next column, r reverse, q quit\n");
}

int main(int argc, char **argv)
{
	char buf[sizeof(struct kpmc_record) * 64], self[PATH_MAX], kpmc[PATH_MAX + 8], fdarg[32];
	struct kpmc_top t = { 0 };
	static struct top_metrics m;
	const char *replay = NULL, *groups[KPMC_MBIND_MAX_GROUPS], *sets[KPMC_MAX_SETS + 1];
	char why[512], metric_events[1024];
	unsigned int ngroups = 0;
	int nsets = 0;
	unsigned int sort_col = 4;
	int asc = 0, delay_ms = 1000, fd = -1, i, done = 0;
	pid_t child = -1;
	size_t have = 0;
	char **args;
	int nargs = 0;

	args = calloc((size_t)argc + 8, sizeof(*args));
	if (!args)
		return 1;
	/* Our options; everything else is kpmc's. */
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-R") && i + 1 < argc) {
			replay = argv[++i];
		} else if (!strcmp(argv[i], "-d") && i + 1 < argc) {
			delay_ms = (int)(atof(argv[++i]) * 1000);
			if (delay_ms < 100)
				delay_ms = 100;
		} else if (!strcmp(argv[i], "-m") && i + 1 < argc) {
			if (kpmc_mbind_add_metric(&m.bind, argv[++i], why, sizeof(why))) {
				fprintf(stderr, "kpmc-top: -m '%s': %s\n", argv[i], why);
				return 2;
			}
		} else if (!strcmp(argv[i], "-g") && i + 1 < argc) {
			if (ngroups == KPMC_MBIND_MAX_GROUPS) {
				fprintf(stderr, "kpmc-top: -g: at most %d groups\n", KPMC_MBIND_MAX_GROUPS);
				return 2;
			}
			groups[ngroups++] = argv[++i];
		} else if (!strcmp(argv[i], "-h")) {
			usage();
			return 0;
		} else {
			break;
		}
	}
	/* The event sets kpmc will count (its -c options), for the metrics' names. */
	for (int j = i; j < argc && strcmp(argv[j], "--"); j++) {
		const char *set = NULL;

		if (!strcmp(argv[j], "-c") && j + 1 < argc)
			set = argv[++j];
		else if (!strncmp(argv[j], "-c", 2) && argv[j][2])
			set = argv[j] + 2;
		if (set && nsets < KPMC_MAX_SETS)
			sets[nsets++] = set;
	}
	for (unsigned int g = 0; g < ngroups; g++)
		if (kpmc_mbind_add_group(&m.bind, groups[g], KPMC_PROC_INFO, why, sizeof(why))) {
			fprintf(stderr, "kpmc-top: -g %s: %s\n", groups[g], why);
			return 2;
		}
	if (kpmc_mbind_active(&m.bind)) {
		unsigned int nm = m.bind.nmetrics;

		for (unsigned int g = 0; g < m.bind.ngroups; g++)
			for (int e = kpmc_mfile_next_shown(&m.bind.groups[g], -1); e >= 0;
			     e = kpmc_mfile_next_shown(&m.bind.groups[g], e))
				nm++;
		if (nm > KPMC_TOP_MAX_METRICS) {
			fprintf(stderr, "kpmc-top: -m/-g: at most %d metric columns, not %u\n",
				KPMC_TOP_MAX_METRICS, nm);
			return 2;
		}
		/* No -c: count what the metrics name (kpmc gets it as its -c). */
		if (!nsets && !replay) {
			if (kpmc_mbind_event_list(&m.bind, metric_events, sizeof(metric_events), why,
						  sizeof(why))) {
				fprintf(stderr, "kpmc-top: -m/-g: %s\n", why);
				return 2;
			}
			sets[nsets++] = metric_events;
		}
		if (kpmc_mbind_resolve(&m.bind, sets, nsets, replay ? NULL : KPMC_PROC_INFO, why, sizeof(why))) {
			fprintf(stderr, "kpmc-top: -m/-g: %s\n", why);
			return 2;
		}
		unsigned int k = 0;

		for (unsigned int j = 0; j < m.bind.nmetrics; j++)
			m.names[k++] = m.bind.metrics[j].name;
		for (unsigned int g = 0; g < m.bind.ngroups; g++)
			for (int e = kpmc_mfile_next_shown(&m.bind.groups[g], -1); e >= 0;
			     e = kpmc_mfile_next_shown(&m.bind.groups[g], e))
				m.names[k++] = m.bind.groups[g].entries[e].name;
		t.nmetrics = nm;
		m.nsets = nsets ? nsets : 1;
		t.metric_bars = m.nsets > 1;
		/* Kept, not printed: update_metrics() reads the totals. */
		kpmc_chain_init(&m.chain);
		kpmc_metrics_sink_init(&m.sink, &m.bind, NULL, NULL);
		kpmc_chain_add(&m.chain, &m.sink.sink);
	}
	if (replay) {
		FILE *f = fopen(replay, "rb");
		struct kpmc_record rec;

		if (!f) {
			fprintf(stderr, "kpmc-top: %s: %s\n", replay, strerror(errno));
			return 1;
		}
		while (fread(&rec, sizeof(rec), 1, f) == 1)
			add_record(&t, &m, &rec);
		fclose(f);
	} else {
		int p[2];
		ssize_t n;

		if (i >= argc) {
			usage();
			return 2;
		}
		/* The kpmc CLI next to us. */
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		self[n > 0 ? n : 0] = '\0';
		if (strrchr(self, '/'))
			*strrchr(self, '/') = '\0';
		snprintf(kpmc, sizeof(kpmc), "%s/kpmc", self);
		if (pipe(p)) {
			perror("kpmc-top: pipe");
			return 1;
		}
		snprintf(fdarg, sizeof(fdarg), "/dev/fd/%d", p[1]);
		args[nargs++] = kpmc;
		args[nargs++] = "-o";
		args[nargs++] = "/dev/null";
		args[nargs++] = "-w";
		args[nargs++] = fdarg;
		if (sets[0] == metric_events && nsets == 1 && t.nmetrics) {
			args[nargs++] = "-c";
			args[nargs++] = metric_events;
		}
		for (; i < argc; i++)
			args[nargs++] = argv[i];
		child = fork();
		if (child == 0) {
			int null = open("/dev/null", O_RDWR);

			/* Its own group: quitting ends kpmc and the program together. */
			setpgid(0, 0);
			close(p[0]);
			dup2(null, 0);
			dup2(null, 1);
			execv(kpmc, args);
			_exit(127);
		}
		close(p[1]);
		fd = p[0];
		fcntl(fd, F_SETFL, O_NONBLOCK);
	}

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	initscr();
	cbreak();
	noecho();
	curs_set(0);
	keypad(stdscr, TRUE);
	timeout(0);
	while (!stop) {
		int ch;

		if (fd >= 0 && !done) {
			fd_set rd;
			struct timeval tv = { delay_ms / 1000, (delay_ms % 1000) * 1000 };

			FD_ZERO(&rd);
			FD_SET(fd, &rd);
			FD_SET(0, &rd);
			if (select(fd + 1, &rd, NULL, NULL, &tv) > 0 && FD_ISSET(fd, &rd))
				while (pump(fd, &t, &m, buf, &have) > 0)
					;
			if (pump(fd, &t, &m, buf, &have) < 0) {
				done = 1;
				waitpid(child, NULL, 0);
			}
		} else {
			fd_set rd;
			struct timeval tv = { 0, 200000 };

			FD_ZERO(&rd);
			FD_SET(0, &rd);
			select(1, &rd, NULL, NULL, &tv);
		}
		update_metrics(&t, &m);
		draw(&t, m.names, sort_col, asc, replay ? replay : (done ? "program ended" : "monitoring"),
		     replay != NULL);
		while ((ch = getch()) != ERR) {
			if (ch == 'q') {
				stop = 1;
			} else if (ch == 'r') {
				asc = !asc;
			} else if (ch == 's') {
				sort_col = (sort_col + 1) % kpmc_top_columns(&t);
			} else if (ch >= '0' && ch <= '9' &&
				   (unsigned int)(ch - '0') < kpmc_top_columns(&t)) {
				sort_col = (unsigned int)(ch - '0');
			}
		}
	}
	endwin();
	if (child > 0 && !done) {
		kill(-child, SIGTERM);
		waitpid(child, NULL, 0);
	}
	kpmc_top_free(&t);
	kpmc_totals_free(&m.sink.totals);
	kpmc_mbind_free(&m.bind);
	free(args);
	return 0;
}
