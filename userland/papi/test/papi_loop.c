// SPDX-License-Identifier: GPL-2.0
/*
 * A PAPI client around a loop of exactly known length, for the arm64
 * guest's check of the kpmc component (tests/guest/t_arm64_papi.sh): the
 * events named on the command line are added to one event set, which is
 * started, then the loop runs N iterations of two instructions each
 * (decrement, branch: tests/progs/spin.h, as in tests/progs/loop.c), then
 * the set is stopped and each count printed as "NAME COUNT". Runs with N and 2N iterations differ
 * by exactly 2N user-mode instructions, whichever component counts; the
 * rest of each count is the component's own code between its start and its
 * stop. With PAPI_LOOP_OVERFLOW=T in the environment, the first event
 * overflows every T events (PAPI_overflow) and "overflows K" says how often
 * the handler ran: one per T of the first event's count.
 *   papi_loop N EVENT...
 */
#include <stdio.h>
#include <stdlib.h>
#include <papi.h>
#include "spin.h"

static volatile long overflows;

static void on_overflow(int es, void *address, long long vector, void *context)
{
	(void)es;
	(void)address;
	(void)vector;
	(void)context;
	overflows++;
}

int main(int argc, char **argv)
{
	const char *ov = getenv("PAPI_LOOP_OVERFLOW");
	long long values[16];
	int es = PAPI_NULL, i, n, rc;
	unsigned long iter;
	char *end;

	if (argc < 3 || argc - 2 > 16) {
		fprintf(stderr, "usage: papi_loop N EVENT... (16 events at most)\n");
		return 2;
	}
	iter = strtoul(argv[1], &end, 0);
	if (!argv[1][0] || *end) {
		fprintf(stderr, "papi_loop: bad count '%s'\n", argv[1]);
		return 2;
	}
	rc = PAPI_library_init(PAPI_VER_CURRENT);
	if (rc != PAPI_VER_CURRENT) {
		fprintf(stderr, "papi_loop: PAPI_library_init: %s\n", PAPI_strerror(rc));
		return 1;
	}
	rc = PAPI_create_eventset(&es);
	if (rc != PAPI_OK) {
		fprintf(stderr, "papi_loop: PAPI_create_eventset: %s\n", PAPI_strerror(rc));
		return 1;
	}
	n = argc - 2;
	for (i = 0; i < n; i++) {
		rc = PAPI_add_named_event(es, argv[i + 2]);
		if (rc != PAPI_OK) {
			fprintf(stderr, "papi_loop: %s: %s\n", argv[i + 2], PAPI_strerror(rc));
			return 1;
		}
	}
	if (ov) {
		int code, threshold = atoi(ov);

		rc = PAPI_event_name_to_code(argv[2], &code);
		if (rc == PAPI_OK)
			rc = PAPI_overflow(es, code, threshold, 0, on_overflow);
		if (rc != PAPI_OK) {
			fprintf(stderr, "papi_loop: PAPI_overflow(%s, %d): %s\n", argv[2], threshold,
				PAPI_strerror(rc));
			return 1;
		}
	}
	rc = PAPI_start(es);
	if (rc != PAPI_OK) {
		fprintf(stderr, "papi_loop: PAPI_start: %s\n", PAPI_strerror(rc));
		return 1;
	}
	if (iter)
		spin(iter);
	rc = PAPI_stop(es, values);
	if (rc != PAPI_OK) {
		fprintf(stderr, "papi_loop: PAPI_stop: %s\n", PAPI_strerror(rc));
		return 1;
	}
	for (i = 0; i < n; i++)
		printf("%s %lld\n", argv[i + 2], values[i]);
	if (ov)
		printf("overflows %ld\n", overflows);
	PAPI_shutdown();
	return 0;
}
